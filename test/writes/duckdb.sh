#!/bin/bash
# duckdb.sh - the Parquet data files an INSERT writes, read by another reader.
#
# ts_gen makes a 2-bucket Parquet append table (10 rows); one INSERT adds
# ROWS rows whose values are formulas of g (INT, STRING with NULLs, DOUBLE,
# DECIMAL(18,4), DATE, TIMESTAMP(6)).  DuckDB (npm @duckdb/node-api, the
# copy test/parquet/check-gen.sh installs) reads only the data files the
# INSERT added, and its count, sums, null count, min / max and distinct
# count must equal those PostgreSQL computes over generate_series with the
# same formulas; our reader's answer over the new ids must too.  A check
# per figure set; prints
#   writes-duckdb: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
summary() { echo "writes-duckdb: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
if [ ! -d test/parquet/node_modules/@duckdb/node-api ]; then
    (cd test/parquet && npm install --no-audit --no-fund >/dev/null 2>&1) || { fail "npm install of DuckDB"; summary; exit 1; }
fi
ROWS=${WRITES_DUCKDB_ROWS:-50000}
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
echo "model:  $model"
echo "ours:   $ours"
echo "duckdb: $duck"
[ -n "$model" ] && [ "$duck" = "$model" ] && ok "DuckDB reads the written files as the model says" ||
    fail "DuckDB '$duck' is not the model '$model'"
[ -n "$model" ] && [ "$ours" = "$model" ] && ok "our reader returns the inserted rows as the model says" ||
    fail "ours '$ours' is not the model '$model'"
q -c "DROP SERVER IF EXISTS wduck CASCADE" >/dev/null 2>&1
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
