#!/bin/bash
# duckdb.sh - the Parquet data files an INSERT writes, read by another reader.
#
# ts_gen makes a 2-bucket Parquet append table (10 rows); one INSERT adds
# ROWS rows whose values are formulas of g (INT, STRING with NULLs, DOUBLE,
# DECIMAL(18,4), DATE, TIMESTAMP(6)).  DuckDB (npm @duckdb/node-api, the
# copy test/parquet/check-gen.sh installs) reads only the data files the
# INSERT added, and its count, sums, null count, min / max and distinct
# count must equal those PostgreSQL computes over generate_series with the
# same formulas; our reader's answer over the new ids must too.  The same
# for a second table of TIME, DECIMAL(38), TIMESTAMP(9) (INT96) and nested
# ARRAY / MAP / ROW columns (list sums, map and list sizes, struct fields).
# A check per figure set; prints
#   writes-duckdb: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
summary() { echo "writes-duckdb: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
if [ ! -d test/parquet/node_modules/@duckdb/node-api ]; then
    (cd test/parquet && npm install --no-audit --no-fund >/dev/null 2>&1) || { fail "npm install of DuckDB"; summary; exit 1; }
fi
ROWS=${WRITES_DUCKDB_ROWS:-50000}
# $model, $ours and $duck: DuckDB's and our reader's figures must be the model's
compare_figures() {  # PREFIX WHAT_DUCKDB_READS WHAT_WE_READ
    echo "model:  $model"
    echo "ours:   $ours"
    echo "duckdb: $duck"
    [ -n "$model" ] && [ "$duck" = "$model" ] && ok "DuckDB reads $2 as the model says" ||
        fail "${1}DuckDB '$duck' is not the model '$model'"
    [ -n "$model" ] && [ "$ours" = "$model" ] && ok "our reader returns $3 as the model says" ||
        fail "${1}ours '$ours' is not the model '$model'"
}
W=$(scratch writes_duckdb)
T=$W/wh/d.db/t
$GEN "$T" --format parquet --column 'id:INT NOT NULL' --column s:STRING --column d:DOUBLE \
    --column 'amount:DECIMAL(18, 4)' --column day:DATE --column 'ts:TIMESTAMP(6)' \
    --buckets 2 --bucket-key id --rows 10 >/dev/null || { fail "ts_gen"; summary; exit 1; }
(cd "$T" && find . -name '*.parquet' | sort) > "$W/before"
chmod -R a+rwX "$W"
[ "$(id -u)" = 0 ] && chown -R postgres "$W"

# the same formulas, in the INSERT and in the model
VALUES="g, CASE WHEN g % 7 = 0 THEN NULL ELSE 's' || g END, g * 0.5::float8, (g * 1.0001)::numeric(18,4),
        DATE '2020-01-01' + g % 1000, TIMESTAMP '2020-01-01 00:00:00.123456' + g * interval '1 second'"
FIGURES="count(*), sum(id), sum(d), count(s), sum(amount), min(day), max(day), min(ts), max(ts), count(DISTINCT s)"
q -c "DROP SERVER IF EXISTS wduck CASCADE" \
  -c "CREATE SERVER wduck FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh')" \
  -c "IMPORT FOREIGN SCHEMA d FROM SERVER wduck INTO public" >/dev/null 2>&1
out=$(q -v ON_ERROR_STOP=1 -c "INSERT INTO t SELECT $VALUES FROM generate_series(100, $((ROWS + 99))) g" 2>&1) ||
    fail "INSERT: $out"
(cd "$T" && find . -name '*.parquet' | sort) > "$W/after"
comm -13 "$W/before" "$W/after" | sed "s|^\.|$T|" > "$W/new"
nnew=$(wc -l < "$W/new")
[ "$nnew" -ge 2 ] && ok "the INSERT wrote $nnew Parquet files (2 buckets)" || fail "the INSERT wrote $nnew Parquet files"

model=$(q -c "SELECT $FIGURES FROM (SELECT $VALUES FROM generate_series(100, $((ROWS + 99))) g)
              AS m(id, s, d, amount, day, ts)")
ours=$(q -c "SELECT $FIGURES FROM t WHERE id >= 100")
duck=$(cd test/parquet && node duck_figures.mjs "$W/new" "$FIGURES" 2>&1)
compare_figures "" "the written files" "the inserted rows"

# the types Java stores otherwise (TIME, DECIMAL(38), INT96 TIMESTAMP(9)) and nested ones (ARRAY,
# MAP, ROW holding an ARRAY), in a hand-written schema: DuckDB reads them as LIST / MAP / STRUCT
T2=$W/wh/d.db/nested
mkdir -p "$T2/schema"
cat > "$T2/schema/schema-0" <<'JSON'
{ "version" : 3, "id" : 0, "fields" : [
  { "id" : 0, "name" : "id", "type" : "INT NOT NULL" },
  { "id" : 1, "name" : "t", "type" : "TIME(3)" },
  { "id" : 2, "name" : "d38", "type" : "DECIMAL(38, 10)" },
  { "id" : 3, "name" : "big", "type" : "DECIMAL(38, 0)" },
  { "id" : 4, "name" : "ts9", "type" : "TIMESTAMP(9)" },
  { "id" : 5, "name" : "ai", "type" : { "type" : "ARRAY", "element" : "INT" } },
  { "id" : 6, "name" : "m", "type" : { "type" : "MAP", "key" : "STRING", "value" : "INT" } },
  { "id" : 7, "name" : "r", "type" : { "type" : "ROW", "fields" : [
      { "id" : 8, "name" : "a", "type" : "INT" },
      { "id" : 9, "name" : "b", "type" : { "type" : "ARRAY", "element" : "STRING" } } ] } } ],
  "highestFieldId" : 9, "partitionKeys" : [ ], "primaryKeys" : [ ],
  "options" : { "bucket" : "-1" }, "timeMillis" : 1733400000000 }
JSON
chmod -R a+rwX "$T2"
[ "$(id -u)" = 0 ] && chown -R postgres "$T2"
NVALUES="g, CASE WHEN g % 5 = 0 THEN NULL ELSE time '00:00' + g * interval '1.001 s' END,
  CASE WHEN g % 7 = 0 THEN NULL ELSE (g * 1234567890123.0123456789)::numeric(38, 10) END,
  CASE WHEN g % 3 = 0 THEN 99999999999999999999999999999999999999 - g ELSE -g * 1e30 END::numeric(38, 0),
  CASE WHEN g % 4 = 0 THEN NULL ELSE timestamp '1960-01-01 00:00:00.000001' + g * interval '1 day 1.000001 s' END,
  CASE WHEN g % 6 = 0 THEN NULL WHEN g % 6 = 1 THEN '{}'::int[] ELSE ARRAY[g, NULL, 2 * g] END,
  CASE WHEN g % 5 = 0 THEN NULL ELSE jsonb_build_array(jsonb_build_array('a' || g, g), jsonb_build_array('b', NULL)) END,
  CASE WHEN g % 4 = 1 THEN NULL
       ELSE jsonb_build_object('a', CASE WHEN g % 8 = 2 THEN NULL ELSE g END, 'b', jsonb_build_array('x' || g, NULL)) END"
PGFIG="count(*), count(t), sum((extract(epoch from t) * 1000)::bigint), sum(d38), min(big), max(big), count(ts9),
  sum((extract(epoch from ts9) * 1000000)::bigint), sum(cardinality(ai)), sum((SELECT sum(x) FROM unnest(ai) x)),
  count(ai), sum(jsonb_array_length(m)), sum((SELECT sum((e ->> 1)::int) FROM jsonb_array_elements(m) e)),
  count(r), sum((r ->> 'a')::int), sum(jsonb_array_length(r -> 'b'))"
DUCKFIG="count(*), count(t), sum(hour(t) * 3600000 + minute(t) * 60000 + millisecond(t)), sum(d38), min(big),
  max(big), count(ts9), sum(epoch_us(ts9)), sum(len(ai)), sum(list_sum(ai)), count(ai), sum(cardinality(m)),
  sum(list_sum(map_values(m))), count(r), sum(r.a), sum(len(r.b))"
q -c "IMPORT FOREIGN SCHEMA d LIMIT TO (nested) FROM SERVER wduck INTO public" >/dev/null 2>&1
out=$(q -v ON_ERROR_STOP=1 -c "INSERT INTO nested SELECT $NVALUES FROM generate_series(1, 3000) g" 2>&1) ||
    fail "INSERT of TIME, DECIMAL(38), TIMESTAMP(9), ARRAY, MAP, ROW: $out"
find "$T2" -name '*.parquet' | sort > "$W/new2"
model=$(q -c "SELECT $PGFIG FROM (SELECT $NVALUES FROM generate_series(1, 3000) g) AS m(id, t, d38, big, ts9, ai, m, r)")
ours=$(q -c "SELECT $PGFIG FROM nested")
duck=$(cd test/parquet && node duck_figures.mjs "$W/new2" "$DUCKFIG" 2>&1)
compare_figures "nested: " "TIME, DECIMAL(38), INT96 and nested columns" "the nested rows"
q -c "DROP SERVER IF EXISTS wduck CASCADE" >/dev/null 2>&1
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
