#!/bin/bash
# s3.sh - INSERT and COPY into Paimon append tables on an object store, and
# INSERT, UPDATE and DELETE on a primary-key table there.
#
# Starts its own test object store (test/s3/proxy.mjs: s3rver behind our
# proxy, which answers "If-None-Match: *" PUTs atomically per key and counts
# writes) with bucket "wlake" (conditional writes honoured) and bucket
# "nocond" (--no-conditional: the header ignored, as a store without
# conditional writes), each holding hand-written schema files of tables t,
# r (target-file-size 32 kb), m, the primary-key table k (2 buckets) and kc
# (changelog-producer input).
# Checks: rows of an INSERT and of a COPY read back equal the model; the
# primary-key table after INSERT, UPDATE, DELETE and an upsert equals a
# heap table given the same statements; kc's changelog objects and the
# changes read back per snapshot; snapshot objects and LATEST; no
# If-None-Match probe for EXPLAIN or an INSERT of no rows; a data file over
# one part (8 MiB) goes up as a multipart upload and DuckDB reads the
# assembled object as the model says; ROLLBACK and an ERROR after data
# files were written leave no snapshot and delete the data objects; two
# sessions racing for one snapshot id (the proxy holds the first one's
# conditional PUT until the second committed): one gets 412 and retries,
# both land; an answer lost after the snapshot was stored: the retry's 412
# is recognised as ours (one snapshot, not two); a store that ignores
# If-None-Match: ERROR before any object is written; a role writes only
# with its own user mapping (a wrong one: 403, nothing written); no probe
# or temporary object left.  Runs inside pg_virtualenv with the extension
# installed; prints
#   writes-s3: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
summary() { echo "writes-s3: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch writes_s3)

# the tables: schema files written by hand (test/schema-lib.sh)
source "$(dirname "$0")/../schema-lib.sh"
FIELDS="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 s STRING)")"
schema "$W/src/w.db/t" "$FIELDS" "" "" '"bucket" : "-1", "commit.max-retries" : "10"'
# k: a primary-key table, 2 buckets
schema "$W/src/w.db/k" "$FIELDS" "" '"id"' '"bucket" : "2"'
schema "$W/src/w.db/r" "$FIELDS" "" "" '"bucket" : "-1", "target-file-size" : "32 kb"'
# kc: a primary-key table with changelog-producer input, 1 bucket
schema "$W/src/w.db/kc" "$FIELDS" "" '"id"' '"bucket" : "1", "changelog-producer" : "input"'
schema "$W/src/w.db/m" "$FIELDS" "" "" '"bucket" : "-1"'

start_s3_proxy "$W" --dir "$W/store" --upload "wlake/wh/w.db=$W/src/w.db" \
    --upload "nocond/wh/w.db=$W/src/w.db" --no-conditional nocond >"$W/start.log" ||
    { fail "$(cat "$W/start.log")"; summary; exit 1; }

# the objects below a bucket's prefix, as s3rver keeps them (one file each)
objects() { (cd "$W/store/$1" 2>/dev/null && find . -name '*._S3rver_object' | sed 's/\._S3rver_object$//' | sort); }
object() { cat "$W/store/$1._S3rver_object"; }
ctl() { curl -s "$EP/__writes?$1"; }
writes() { ctl "" | python3 -c "import json, sys; print(json.load(sys.stdin)['counts'].get('$1', 0))"; }
snapshots() { objects "wlake/wh/w.db/$1/snapshot" | grep -c '/snapshot-[0-9]*$'; }
field() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" \
    "$W/store/wlake/wh/w.db/t/snapshot/snapshot-$1._S3rver_object" "$2" 2>/dev/null; }

q -c "DROP SERVER IF EXISTS ws3 CASCADE" -c "DROP SERVER IF EXISTS wnc CASCADE" \
  -c "DROP ROLE IF EXISTS ws3_other" -c "DROP ROLE IF EXISTS ws3_none" >/dev/null 2>&1
q -v ON_ERROR_STOP=1 \
  -c "CREATE SERVER ws3 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 's3://wlake/wh',
        \"s3.endpoint\" '$EP', \"s3.path.style.access\" 'true')" \
  -c "CREATE USER MAPPING FOR CURRENT_USER SERVER ws3 OPTIONS (\"s3.access-key\" 'S3RVER', \"s3.secret-key\" 'S3RVER')" \
  -c "CREATE SERVER wnc FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 's3://nocond/wh',
        \"s3.endpoint\" '$EP', \"s3.path.style.access\" 'true')" \
  -c "CREATE USER MAPPING FOR CURRENT_USER SERVER wnc OPTIONS (\"s3.access-key\" 'S3RVER', \"s3.secret-key\" 'S3RVER')" \
  -c "CREATE FOREIGN TABLE t (id int NOT NULL, s text) SERVER ws3 OPTIONS (database 'w', table 't')" \
  -c "CREATE FOREIGN TABLE r (id int NOT NULL, s text) SERVER ws3 OPTIONS (database 'w', table 'r')" \
  -c "CREATE FOREIGN TABLE m (id int NOT NULL, s text) SERVER ws3 OPTIONS (database 'w', table 'm')" \
  -c "CREATE FOREIGN TABLE k (id int NOT NULL, s text) SERVER ws3 OPTIONS (database 'w', table 'k')" \
  -c "CREATE FOREIGN TABLE kc (id int NOT NULL, s text) SERVER ws3 OPTIONS (database 'w', table 'kc')" \
  -c "CREATE FOREIGN TABLE kc_changes (id int NOT NULL, s text, \"_ROW_KIND\" text, \"_SNAPSHOT_ID\" bigint)
        SERVER ws3 OPTIONS (database 'w', table 'kc')" \
  -c "CREATE FOREIGN TABLE nc (id int NOT NULL, s text) SERVER wnc OPTIONS (database 'w', table 't')" \
  >"$W/setup.log" 2>&1 || { fail "setup: $(head -3 "$W/setup.log")"; summary; exit 1; }

# ---- INSERT and COPY -------------------------------------------------------
out=$(q -c "INSERT INTO t SELECT g, 's' || g FROM generate_series(1, 1000) g" 2>&1)
got=$(q -c "SELECT count(*), sum(id), count(DISTINCT s), min(s), max(s) FROM t" 2>&1)
[ "$got" = "1000|500500|1000|s1|s999" ] && ok "INSERT into an S3 table: rows read back ($got)" ||
    fail "INSERT: '$got' $out"
[ "$(snapshots t)" = 1 ] && [ "$(object wlake/wh/w.db/t/snapshot/LATEST)" = 1 ] &&
    ok "snapshot-1 created, LATEST = 1" || fail "snapshots: $(objects wlake/wh/w.db/t/snapshot | tr '\n' ' ')"
out=$(printf '2001\tcopied one\n2002\t\\N\n2003\tcopied three\n' | q -c "COPY t FROM STDIN" 2>&1)
got=$(q -c "SELECT count(*), sum(id), count(s) FROM t WHERE id > 2000" 2>&1)
[ "$got" = "3|6006|2" ] && [ "$(snapshots t)" = 2 ] && ok "COPY FROM into an S3 table: rows read back, snapshot-2" ||
    fail "COPY: '$got' $out"
got=$(q -c "EXPLAIN INSERT INTO t VALUES (1, 'x')" 2>&1)
grep -q "Paimon Table: w.t" <<<"$got" && [ "$(snapshots t)" = 2 ] && ok "EXPLAIN INSERT names the table, commits nothing" ||
    fail "EXPLAIN: $got"
# the If-None-Match probe runs before the first data file, not for what writes nothing (new backends)
ctl "reset=1" >/dev/null
out=$(q -c "EXPLAIN INSERT INTO t VALUES (1, 'x')" 2>&1; q -c "INSERT INTO t SELECT g, 'none' FROM generate_series(1, 10) g WHERE g < 0" 2>&1)
probes0=$(writes probe-conditional)
out+=$(q -c "INSERT INTO r VALUES (3001, 'probed')" 2>&1)
[ "$probes0" = 0 ] && [ "$(writes probe-conditional)" -ge 1 ] && [ "$(snapshots t)" = 2 ] && [ "$(snapshots r)" = 1 ] &&
    ok "no probe for EXPLAIN or an INSERT of no rows; one before the first data file" ||
    fail "probes: $probes0 before the INSERT of a row, $(writes probe-conditional) after, $(snapshots t)/$(snapshots r) snapshots $out"

# ---- a primary-key table: INSERT, UPDATE, DELETE, an upsert ---------------
# the same statements on a heap table are the model (the upsert as ON CONFLICT there)
pk_ops=(
  "INSERT INTO %s SELECT g, 'v' || g FROM generate_series(1, 1000) g"
  "UPDATE %s SET s = 'u' || id WHERE id <= 10"
  "DELETE FROM %s WHERE id > 990"
  "INSERT INTO %s VALUES (5, 'again'), (2000, 'new')"
)
q -c "DROP TABLE IF EXISTS k_model" -c "CREATE TABLE k_model (id int PRIMARY KEY, s text)" >/dev/null 2>&1
out=""
for op in "${pk_ops[@]}"; do
    out+=$(q -c "$(printf "$op" k)" 2>&1)
    model_op=$(printf "$op" k_model)
    [[ $model_op == "INSERT INTO k_model VALUES"* ]] && model_op+=" ON CONFLICT (id) DO UPDATE SET s = EXCLUDED.s"
    q -c "$model_op" >/dev/null 2>&1
done
diff=$(q -c "SELECT count(*) FROM ((SELECT * FROM k EXCEPT ALL SELECT * FROM k_model) UNION ALL (SELECT * FROM k_model EXCEPT ALL SELECT * FROM k)) d" 2>&1)
rows=$(q -c "SELECT count(*) FROM k" 2>&1)
ksnaps=$(snapshots k)
buckets=$(objects wlake/wh/w.db/k | grep -oE '/bucket-[0-9]+/' | sort -u | tr -d '\n')
[ "$diff" = 0 ] && [ "$rows" = "$(q -c "SELECT count(*) FROM k_model")" ] && [ "$ksnaps" = 4 ] &&
    [ "$buckets" = "/bucket-0//bucket-1/" ] &&
    ok "a primary-key table on S3: INSERT, UPDATE, DELETE and an upsert read back as the model ($rows rows, 4 snapshots, 2 buckets)" ||
    fail "primary-key table: $diff rows differ, $rows rows, $ksnaps snapshots, buckets '$buckets' $out"

# ---- changelog-producer input: changelog objects, read back per snapshot ----
out=$(q -c "INSERT INTO kc VALUES (1, 'a'), (2, 'b'), (3, 'c')" -c "UPDATE kc SET s = 'B' WHERE id = 2" \
    -c "DELETE FROM kc WHERE id = 3" 2>&1)
got=$(q -c "SELECT string_agg(\"_SNAPSHOT_ID\" || \"_ROW_KIND\" || id || coalesce(s, '-'), ' ')
              FROM tablescan_changes(NULL::kc_changes, from_snapshot => 1, to_snapshot => 3)" 2>&1)
clobjs=$(objects wlake/wh/w.db/kc/bucket-0 | grep -c '/changelog-[0-9a-f-]*-[0-9]*\.parquet$')
cllist=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1])).get('changelogManifestList') or '')" \
    "$W/store/wlake/wh/w.db/kc/snapshot/snapshot-2._S3rver_object" 2>/dev/null)
[ "$got" = "1+I1a 1+I2b 1+I3c 2-U2b 2+U2B 3-D3c" ] && [ "$clobjs" = 3 ] && [ -n "$cllist" ] &&
    [ -n "$(objects "wlake/wh/w.db/kc/manifest" | grep -F "/$cllist")" ] &&
    ok "changelog-producer input on S3: 3 changelog objects, the snapshot's changelog list, changes read back ($got)" ||
    fail "changelog on S3: '$got', $clobjs changelog objects, list '$cllist' $out"

# ---- a data file larger than a part: multipart upload ----------------------
parts0=$(writes part); done0=$(writes complete)
VALUES="g, md5(g::text) || md5((g * 3)::text) || md5((g * 7)::text) || md5((g * 11)::text)"
out=$(q -c "INSERT INTO m SELECT $VALUES FROM generate_series(1, 400000) g" 2>&1)
model=$(q -c "SELECT count(*), sum(id), sum(length(s)), count(DISTINCT s) FROM (SELECT $VALUES FROM generate_series(1, 400000) g) x(id, s)")
ours=$(q -c "SELECT count(*), sum(id), sum(length(s)), count(DISTINCT s) FROM m" 2>&1)
parts=$(( $(writes part) - parts0 ))
[ "$parts" -ge 2 ] && [ "$(( $(writes complete) - done0 ))" = 1 ] && ok "a data file of several parts went up as a multipart upload ($parts parts)" ||
    fail "multipart: $parts parts, $(writes complete) completed $out $(ctl "")"
[ -n "$model" ] && [ "$ours" = "$model" ] && ok "rows of the multipart file read back as the model ($ours)" ||
    fail "multipart rows '$ours', model '$model'"
if [ -d test/parquet/node_modules/@duckdb/node-api ] ||
    (cd test/parquet && npm install --no-audit --no-fund >/dev/null 2>&1); then
    objects wlake/wh/w.db/m | grep '\.parquet$' | sed "s|^\.|$W/store/wlake/wh/w.db/m|; s|$|._S3rver_object|" > "$W/mfiles"
    duck=$(cd test/parquet && node duck_figures.mjs "$W/mfiles" \
        "count(*), sum(id), sum(length(s)), count(DISTINCT s)" 2>&1)
    [ -n "$model" ] && [ "$duck" = "$model" ] && ok "DuckDB reads the assembled object as the model" ||
        fail "DuckDB '$duck', model '$model'"
else
    fail "npm install of DuckDB (test/parquet)"
fi

# ---- ROLLBACK and an ERROR remove the data objects -------------------------
before=$(objects wlake/wh/w.db/r)
puts0=$(writes put); dels0=$(writes delete)
out=$(q -c "BEGIN" -c "INSERT INTO r SELECT g, md5(g::text) FROM generate_series(1, 20000) g" -c "ROLLBACK" 2>&1)
puts=$(( $(writes put) - puts0 )); dels=$(( $(writes delete) - dels0 ))
[ "$puts" -ge 2 ] && [ "$dels" = "$puts" ] && [ "$(objects wlake/wh/w.db/r)" = "$before" ] &&
    ok "ROLLBACK: the $puts data objects written are deleted, no snapshot" ||
    fail "ROLLBACK: $puts written, $dels deleted; objects now: $(objects wlake/wh/w.db/r | tr '\n' ' ') $out"
puts0=$(writes put); dels0=$(writes delete)
out=$(q -c "INSERT INTO r SELECT CASE WHEN g < 20000 THEN g END, md5(g::text) FROM generate_series(1, 20000) g" 2>&1)
puts=$(( $(writes put) - puts0 )); dels=$(( $(writes delete) - dels0 ))
grep -q "violates the Paimon field's NOT NULL" <<<"$out" && [ "$puts" -ge 2 ] && [ "$dels" = "$puts" ] &&
    [ "$(objects wlake/wh/w.db/r)" = "$before" ] && ok "an ERROR after $puts data objects: all deleted, no snapshot" ||
    fail "ERROR: $puts written, $dels deleted $out"

# ---- two writers racing for snapshot-3 -------------------------------------
# A's conditional PUT of snapshot-3 is held until B committed snapshot-3 (at most 60 s)
ctl "reset=1&hold=/t/snapshot/snapshot-3\$&holdms=60000" >/dev/null
q -c "INSERT INTO t SELECT g, 'a' FROM generate_series(10001, 10100) g" >"$W/a.log" 2>&1 &
A=$!
for _ in $(seq 1 300); do [ "$(writes held)" = 1 ] && break; sleep 0.1; done
held=$(writes held)
out=$(q -c "INSERT INTO t SELECT g, 'b' FROM generate_series(20001, 20100) g" 2>&1); rb=$?
ctl "release=1" >/dev/null
wait $A; ra=$?
got=$(q -c "SELECT s, count(*) FROM t WHERE s IN ('a', 'b') GROUP BY s ORDER BY s" 2>&1 | tr '\n' ' ')
[ "$held" = 1 ] && [ $ra = 0 ] && [ $rb = 0 ] && ! grep -q ERROR "$W/a.log" && ! grep -q ERROR <<<"$out" &&
    [ "$got" = "a|100 b|100 " ] && ok "two sessions committing snapshot-3 at once: both land ($got)" ||
    fail "race: held $held, rc $ra/$rb, rows '$got' $(cat "$W/a.log") $out $(ctl "")"
[ "$(writes 412-snapshot)" = 1 ] && [ "$(snapshots t)" = 4 ] && [ "$(field 3 totalRecordCount)" = 1103 ] &&
    [ "$(field 4 totalRecordCount)" = 1203 ] && [ "$(field 3 commitUser)" != "$(field 4 commitUser)" ] &&
    ok "the loser got 412 and retried as snapshot-4 (totalRecordCount 1103, 1203)" ||
    fail "race: $(snapshots t) snapshots, totals $(field 3 totalRecordCount) $(field 4 totalRecordCount) $(ctl "")"

# ---- an answer lost after the snapshot was stored --------------------------
ctl "reset=1&lose=/t/snapshot/snapshot-5\$" >/dev/null
out=$(q -c "INSERT INTO t SELECT g, 'lost' FROM generate_series(30001, 30050) g" 2>&1)
got=$(q -c "SELECT count(*) FROM t WHERE s = 'lost'" 2>&1)
[ "$got" = 50 ] && [ "$(snapshots t)" = 5 ] && [ "$(writes 412-snapshot)" = 1 ] && [ "$(object wlake/wh/w.db/t/snapshot/LATEST)" = 5 ] &&
    ok "a lost answer: the retry's 412 is ours (one snapshot-5, 50 rows)" ||
    fail "lost answer: rows $got, $(snapshots t) snapshots, $(writes 412-snapshot) x 412 $out"

# ---- a store that does not honour If-None-Match ----------------------------
nc_before=$(objects nocond)
out=$(q -c "INSERT INTO nc VALUES (1, 'x')" 2>&1)
grep -q "cannot commit atomically on this store" <<<"$out" && grep -q "REST catalog" <<<"$out" &&
    [ "$(objects nocond)" = "$nc_before" ] && ok "a store without conditional writes: ERROR, no object written" ||
    fail "no conditional writes: $out; objects $(objects nocond | tr '\n' ' ')"

# ---- a role writes with its own user mapping only --------------------------
t_before=$(objects wlake/wh/w.db/t)
q -c "CREATE ROLE ws3_other" -c "CREATE ROLE ws3_none" -c "GRANT USAGE ON FOREIGN SERVER ws3 TO ws3_other, ws3_none" \
  -c "GRANT INSERT, SELECT ON t TO ws3_other, ws3_none" \
  -c "CREATE USER MAPPING FOR ws3_other SERVER ws3 OPTIONS (\"s3.access-key\" 'S3RVER', \"s3.secret-key\" 'not-the-secret')" \
  >/dev/null 2>&1
out=$(q -c "SET ROLE ws3_other" -c "INSERT INTO t VALUES (40001, 'other')" 2>&1)
out2=$(q -c "SET ROLE ws3_none" -c "INSERT INTO t VALUES (40002, 'none')" 2>&1)
grep -q "HTTP 403" <<<"$out" && grep -q "user mapping not found" <<<"$out2" && ! grep -q "not-the-secret" <<<"$out" &&
    [ "$(objects wlake/wh/w.db/t)" = "$t_before" ] &&
    ok "a role with a wrong mapping (403) and one with none (refused): nothing written, no key shown" ||
    fail "roles: '$out' '$out2'"
q -c "ALTER USER MAPPING FOR ws3_other SERVER ws3 OPTIONS (SET \"s3.secret-key\" 'S3RVER')" >/dev/null 2>&1
out=$(q -c "SET ROLE ws3_other" -c "INSERT INTO t VALUES (40001, 'other')" 2>&1)
got=$(q -c "SELECT count(*) FROM t WHERE s = 'other'" 2>&1)
[ "$got" = 1 ] && [ "$(snapshots t)" = 6 ] && ok "with its mapping corrected, the role's INSERT commits snapshot-6" ||
    fail "role with its mapping: rows $got $out"

# ---- nothing left behind ---------------------------------------------------
left=$(objects wlake | grep -cE 'conditional-put-probe|\.tmp$')
[ "$left" = 0 ] && ok "no probe or temporary object left" || fail "$left probe / temporary objects left"

q -c "DROP SERVER IF EXISTS ws3 CASCADE" -c "DROP SERVER IF EXISTS wnc CASCADE" -c "DROP TABLE IF EXISTS k_model" \
  -c "DROP ROLE IF EXISTS ws3_other" -c "DROP ROLE IF EXISTS ws3_none" >/dev/null 2>&1
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
