#!/bin/bash
# rest.sh - INSERT, COPY, UPDATE and DELETE into tables of a REST catalog,
# committed through the catalog's commit endpoint.
#
# Starts its own test REST catalog (test/rest/server.mjs, --commit-log) over
# a scratch warehouse of hand-written schema files: r.db/t (append,
# partitioned by dt), r.db/k (primary key id, 2 buckets), r.db/kc (the same
# with changelog-producer input, 1 bucket), r.db/c (append,
# for two backends at once), and catalog entries served as copies of those
# directories: bad.fail500 (the commit answers 500), bad.conflict (the
# commit answers "another writer first" forever, commit.max-retries 2),
# bad.twice (two such answers, then it commits).  Checks: rows written read
# back through the catalog as the model says; each commit is one request
# with Java's body (tableId, baseSnapshotUuid = the previous snapshot's
# uuid, the snapshot, per-partition statistics) and the catalog, not the
# writer, created snapshot-N; two backends inserting at once both land (one
# snapshot per transaction, every row once); a 500 is an ERROR with no
# snapshot and no data or manifest file left; endless conflicts ERROR after
# commit.max-retries + 1 requests, or once commit.timeout passed (a few
# requests, far fewer than commit.max-retries); a consumer read with paimon_consumer
# writes consumer/consumer-<id> below the catalog's location (on the object
# store with the data token, and on the local warehouse) with the committed
# nextSnapshot at COMMIT, nothing at ROLLBACK; the bearer token never
# appears in an error, EXPLAIN or the server's log; an INSERT into the
# object-store table cancelled while it writes sends no commit request and
# leaves no object, and the next INSERT commits.  Runs inside pg_virtualenv with the
# extension installed; prints
#   writes-rest: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
summary() { echo "writes-rest: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch writes_rest)
WH=$W/wh

source "$(dirname "$0")/../schema-lib.sh"
APPEND="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 s STRING)" "$(f 2 dt STRING)")"
KV="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 s STRING)" "$(f 2 v INT)")"
schema "$WH/r.db/t" "$APPEND" '"dt"' "" '"bucket" : "-1"'
schema "$WH/r.db/k" "$KV" "" '"id"' '"bucket" : "2"'
schema "$WH/r.db/kc" "$KV" "" '"id"' '"bucket" : "1", "changelog-producer" : "input"'
schema "$WH/r.db/c" "$APPEND" "" "" '"bucket" : "-1", "commit.max-retries" : "100"'
schema "$WH/x.db/f500" "$APPEND" "" "" '"bucket" : "-1"'
schema "$WH/x.db/conf" "$APPEND" "" "" '"bucket" : "-1", "commit.max-retries" : "2"'
schema "$WH/x.db/twice" "$APPEND" "" "" '"bucket" : "-1"'
# s3r.db/t on the object store (test/s3/proxy.mjs), written with the catalog's data token
schema "$W/s3src/r.db/t" "$APPEND" "" "" '"bucket" : "-1"'
chmod -R a+rwX "$W"
if [ ! -d test/s3/node_modules/s3rver ]; then
    (cd test/s3 && npm install --no-audit --no-fund >/dev/null 2>&1) || { fail "npm install in test/s3"; summary; exit 1; }
fi
node test/s3/proxy.mjs --dir "$W/store" --upload "rlake/wh/r.db=$W/s3src/r.db" >"$W/s3port" 2>"$W/proxy.log" &
PROXY=$!
trap 'kill $PROXY 2>/dev/null' EXIT
for _ in $(seq 1 100); do [ -s "$W/s3port" ] && break; sleep 0.1; done
[ -s "$W/s3port" ] || { fail "test object store did not start: $(tail -1 "$W/proxy.log")"; summary; exit 1; }
EP=http://127.0.0.1:$(cat "$W/s3port")
DATA_SECRET=S3RVER
BAD_SECRET=not-the-secret-$RANDOM$RANDOM
S3SCHEMA=$(cat "$W/s3src/r.db/t/schema/schema-0")
cat > "$W/extra.json" <<JSON
{"bad.fail500": {"like": "x.f500", "commit": 500},
 "bad.conflict": {"like": "x.conf", "commit": "conflict"},
 "bad.twice": {"like": "x.twice", "conflicts": 2},
 "s3r.t": {"path": "s3://rlake/wh/r.db/t", "schema": $S3SCHEMA,
  "token": {"fs.s3a.access.key": "S3RVER", "fs.s3a.secret.key": "$DATA_SECRET"}},
 "s3r.badtoken": {"path": "s3://rlake/wh/r.db/t", "schema": $S3SCHEMA,
  "token": {"fs.s3a.access.key": "S3RVER", "fs.s3a.secret.key": "$BAD_SECRET"}}}
JSON
TOKEN=ts-rest-write-$RANDOM$RANDOM$RANDOM
node test/rest/server.mjs --warehouse "$WH" --token "$TOKEN" --extra "$W/extra.json" \
    --commit-log "$W/commits.log" --s3-endpoint "$EP" >"$W/port" 2>"$W/server.log" &
SERVER=$!
trap 'kill $SERVER $PROXY 2>/dev/null' EXIT
for _ in $(seq 1 100); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || { fail "REST catalog did not start: $(tail -1 "$W/server.log")"; summary; exit 1; }
URI=http://127.0.0.1:$(cat "$W/port")

q -c "DROP SERVER IF EXISTS wrest CASCADE" >/dev/null 2>&1
q -v ON_ERROR_STOP=1 \
  -c "CREATE SERVER wrest FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (catalog 'rest', uri '$URI', warehouse 'w')" \
  -c "CREATE USER MAPPING FOR CURRENT_USER SERVER wrest OPTIONS (token '$TOKEN')" \
  -c "CREATE FOREIGN TABLE t (id int NOT NULL, s text, dt text) SERVER wrest OPTIONS (database 'r', table 't')" \
  -c "CREATE FOREIGN TABLE k (id int NOT NULL, s text, v int) SERVER wrest OPTIONS (database 'r', table 'k')" \
  -c "CREATE FOREIGN TABLE kc (id int NOT NULL, s text, v int) SERVER wrest OPTIONS (database 'r', table 'kc')" \
  -c "CREATE FOREIGN TABLE kc_changes (id int NOT NULL, s text, v int, \"_ROW_KIND\" text)
        SERVER wrest OPTIONS (database 'r', table 'kc')" \
  -c "CREATE FOREIGN TABLE c (id int NOT NULL, s text, dt text) SERVER wrest OPTIONS (database 'r', table 'c')" \
  -c "CREATE FOREIGN TABLE f500 (id int NOT NULL, s text, dt text) SERVER wrest OPTIONS (database 'bad', table 'fail500')" \
  -c "CREATE FOREIGN TABLE conf (id int NOT NULL, s text, dt text) SERVER wrest OPTIONS (database 'bad', table 'conflict')" \
  -c "CREATE FOREIGN TABLE twice (id int NOT NULL, s text, dt text) SERVER wrest OPTIONS (database 'bad', table 'twice')" \
  -c "CREATE SERVER wrest3 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (catalog 'rest', uri '$URI', warehouse 'w',
        \"s3.endpoint\" '$EP', \"s3.path.style.access\" 'true')" \
  -c "CREATE USER MAPPING FOR CURRENT_USER SERVER wrest3 OPTIONS (token '$TOKEN')" \
  -c "CREATE FOREIGN TABLE s3t (id int NOT NULL, s text, dt text) SERVER wrest3 OPTIONS (database 's3r', table 't')" \
  -c "CREATE FOREIGN TABLE s3bad (id int NOT NULL, s text, dt text) SERVER wrest3 OPTIONS (database 's3r', table 'badtoken')" \
  >"$W/setup.log" 2>&1 || { fail "setup: $(head -3 "$W/setup.log")"; summary; exit 1; }

snapshots() { find "$1/snapshot" -name 'snapshot-*' 2>/dev/null | wc -l; }
commits() { cat "$W/commits.log" 2>/dev/null | grep -c "\"table\":\"$1\""; }
# field F of the body of commit request N (1-based) of table T, as JSON
body() {
    python3 - "$W/commits.log" "$1" "$2" "$3" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["table"] == sys.argv[2]]
body = json.loads(lines[int(sys.argv[3]) - 1]["body"])
v = body
for k in sys.argv[4].split("."):
    v = v[int(k)] if isinstance(v, list) else v.get(k)
print(json.dumps(v, sort_keys=True))
PY
}
snapfield() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1/snapshot/snapshot-$2" "$3" 2>/dev/null; }
datafiles() { find "$1" -name 'data-*' 2>/dev/null | wc -l; }
metafiles() { find "$1/manifest" -type f 2>/dev/null | wc -l; }

# ---- INSERT, then SELECT through the catalog --------------------------------------
out=$(q -c "INSERT INTO t VALUES (1, 'a', 'd1'), (2, 'b', 'd1'), (3, NULL, NULL)" 2>&1)
[ -z "$out" ] && ok "INSERT into a REST catalog table" || fail "INSERT: $out"
got=$(q -c "SELECT id, coalesce(s, '-'), coalesce(dt, '-') FROM t ORDER BY id" 2>&1 | tr '\n' ' ')
[ "$got" = "1|a|d1 2|b|d1 3|-|- " ] && ok "the rows read back" || fail "read back: $got"
[ "$(snapshots "$WH/r.db/t")" = 1 ] && [ "$(cat "$WH/r.db/t/snapshot/LATEST" 2>/dev/null)" = 1 ] &&
    ok "the catalog created snapshot-1 and LATEST" || fail "snapshots: $(ls "$WH/r.db/t/snapshot" 2>&1)"
[ "$(commits r.t)" = 1 ] && ok "one commit request" || fail "commit requests: $(commits r.t)"
[ "$(body r.t 1 tableId)" = '"r.t"' ] && [ "$(body r.t 1 baseSnapshotUuid)" = null ] &&
    [ "$(body r.t 1 snapshot.id)" = 1 ] && [ "$(body r.t 1 snapshot.commitKind)" = '"APPEND"' ] &&
    ok "the request names the table id, no base snapshot, snapshot 1 (APPEND)" ||
    fail "request: $(body r.t 1 tableId) $(body r.t 1 baseSnapshotUuid) $(body r.t 1 snapshot.id)"
stats=$(python3 - "$W/commits.log" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["table"] == "r.t":
        st = json.loads(e["body"])["statistics"]
        print(" ".join(sorted("%s:%d:%d:%d" % (s["spec"]["dt"], s["recordCount"], s["fileCount"], s["totalBuckets"]) for s in st)))
        print(all(s["fileSizeInBytes"] > 0 and s["lastFileCreationTime"] > 1700000000000 for s in st))
        break
PY
)
[ "$stats" = "$(printf '__DEFAULT_PARTITION__:1:1:-1 d1:2:1:-1\nTrue')" ] &&
    ok "statistics per partition (records, files, buckets; NULL as the default partition)" ||
    fail "statistics: $stats"
grep -q '"commitIdentifier" *: *9223372036854775807' "$WH/r.db/t/snapshot/snapshot-1" &&
    ok "snapshot-1 holds the snapshot sent (commitIdentifier exact)" || fail "snapshot-1: $(head -c 300 "$WH/r.db/t/snapshot/snapshot-1")"

# ---- COPY, then a second commit on the first ---------------------------------------------
printf '4,c,d2\n5,d,d2\n' > "$W/rows.csv"
chmod a+r "$W/rows.csv"
out=$(q -c "\\copy t FROM '$W/rows.csv' (FORMAT csv)" 2>&1)
got=$(q -c "SELECT count(*), sum(id) FROM t" 2>&1)
[ -z "$out" ] && [ "$got" = "5|15" ] && ok "COPY FROM through the catalog" || fail "COPY: $out / $got"
uuid1=$(snapfield "$WH/r.db/t" 1 uuid)
[ -n "$uuid1" ] && [ "$(body r.t 2 baseSnapshotUuid)" = "\"$uuid1\"" ] && [ "$(body r.t 2 snapshot.id)" = 2 ] &&
    ok "the second commit is based on snapshot 1's uuid" || fail "second commit: $(body r.t 2 baseSnapshotUuid) vs $uuid1"

# ---- primary-key table: INSERT, UPDATE, DELETE -----------------------------------------
out=$(q -c "INSERT INTO k VALUES (1, 'one', 10), (2, 'two', 20), (3, 'three', 30)" \
        -c "UPDATE k SET v = 21 WHERE id = 2" -c "DELETE FROM k WHERE id = 3" 2>&1)
got=$(q -c "SELECT id, s, v FROM k ORDER BY id" 2>&1 | tr '\n' ' ')
[ -z "$out" ] && [ "$got" = "1|one|10 2|two|21 " ] && ok "INSERT, UPDATE, DELETE on a primary-key table" ||
    fail "primary key: $out / $got"
[ "$(snapshots "$WH/r.db/k")" = 3 ] && [ "$(commits r.k)" = 3 ] && [ "$(body r.k 3 statistics.0.totalBuckets)" = 2 ] &&
    ok "three commits, three snapshots (2 buckets)" || fail "pk commits: $(snapshots "$WH/r.db/k") $(commits r.k)"

# ---- changelog-producer input: the snapshot handed to the catalog names the changelog --------
out=$(q -c "INSERT INTO kc VALUES (1, 'one', 10), (2, 'two', 20)" -c "UPDATE kc SET v = 21 WHERE id = 2" 2>&1)
got=$(q -c "SELECT string_agg(\"_ROW_KIND\" || id || ':' || v, ' ')
              FROM tablescan_changes(NULL::kc_changes, from_snapshot => 1, to_snapshot => 2)" 2>&1)
cllist=$(body r.kc 2 snapshot.changelogManifestList)
[ -z "$out" ] && [ "$got" = "+I1:10 +I2:20 -U2:20 +U2:21" ] && [ "$(body r.kc 2 snapshot.changelogRecordCount)" = 2 ] &&
    [ -f "$WH/r.db/kc/manifest/$(tr -d '"' <<<"$cllist")" ] &&
    ok "changelog-producer input through the catalog: the committed snapshot names the changelog list, changes read back ($got)" ||
    fail "changelog through the catalog: $out / '$got' / list $cllist"

# ---- two backends at once ----------------------------------------------------------------
session() {
    local s=$1 n
    for n in $(seq 1 8); do
        echo "INSERT INTO c SELECT $s * 1000 + $n * 10 + g, 's$s', NULL FROM generate_series(1, 5) g;"
    done | psql -X -q -v ON_ERROR_STOP=1 >"$W/session-$s.log" 2>&1
    echo $? > "$W/session-$s.rc"
}
session 1 & p1=$!
session 2 & p2=$!
wait $p1 $p2
[ "$(cat "$W/session-1.rc")" = 0 ] && [ "$(cat "$W/session-2.rc")" = 0 ] &&
    ok "two backends committing at once both succeed" || fail "sessions: $(head -2 "$W"/session-*.log)"
got=$(q -c "SELECT count(*), count(DISTINCT id) FROM c" 2>&1)
[ "$got" = "80|80" ] && [ "$(snapshots "$WH/r.db/c")" = 16 ] &&
    ok "every row once, one snapshot per transaction" || fail "concurrent: $got, $(snapshots "$WH/r.db/c") snapshots"

# ---- a catalog that answers 500 ----------------------------------------------------------
out=$(q -c "INSERT INTO f500 VALUES (1, 'x', NULL)" 2>&1)
case $out in
    *ERROR*"could not write into foreign table \"f500\""*"HTTP 500"*) ok "a 500 from the commit endpoint is an ERROR" ;;
    *) fail "500: $out" ;;
esac
[ "$(snapshots "$WH/x.db/f500")" = 0 ] && [ "$(datafiles "$WH/x.db/f500")" = 0 ] && [ "$(metafiles "$WH/x.db/f500")" = 0 ] &&
    ok "no snapshot, data file or manifest left after the 500" ||
    fail "after 500: $(find "$WH/x.db/f500" -type f | grep -v schema)"
[ "$(q -c "SELECT count(*) FROM f500" 2>&1)" = 0 ] && ok "the table still reads empty" || fail "f500 reads rows"

# ---- conflicts -------------------------------------------------------------------------------
out=$(q -c "INSERT INTO conf VALUES (1, 'x', NULL)" 2>&1)
case $out in
    *ERROR*"failed after 2 retries"*) ok "endless conflicts: ERROR after commit.max-retries" ;;
    *) fail "conflict: $out" ;;
esac
[ "$(commits bad.conflict)" = 3 ] && [ "$(snapshots "$WH/x.db/conf")" = 0 ] && [ "$(datafiles "$WH/x.db/conf")" = 0 ] &&
    [ "$(metafiles "$WH/x.db/conf")" = 0 ] && ok "3 attempts (success false, 409), nothing left" ||
    fail "conflict: $(commits bad.conflict) requests, $(find "$WH/x.db/conf" -type f | grep -v schema)"
# commit.timeout bounds the retrying before commit.max-retries does
q -c "ALTER FOREIGN TABLE conf OPTIONS (ADD \"commit.max-retries\" '1000', ADD \"commit.timeout\" '1 s',
        ADD \"commit.min-retry-wait\" '20 ms', ADD \"commit.max-retry-wait\" '20 ms')" >/dev/null
out=$(q -c "INSERT INTO conf VALUES (2, 'x', NULL)" 2>&1)
case $out in
    *ERROR*"was not made: \"commit.timeout\" (1000 ms) passed after"*) ok "endless conflicts: ERROR once commit.timeout passed" ;;
    *) fail "commit.timeout: $out" ;;
esac
n=$(( $(commits bad.conflict) - 3 ))
[ $n -ge 2 ] && [ $n -le 200 ] && [ "$(snapshots "$WH/x.db/conf")" = 0 ] && [ "$(datafiles "$WH/x.db/conf")" = 0 ] &&
    [ "$(metafiles "$WH/x.db/conf")" = 0 ] && ok "$n attempts within commit.timeout (max-retries 1000), nothing left" ||
    fail "commit.timeout: $n requests, $(find "$WH/x.db/conf" -type f | grep -v schema)"
out=$(q -c "INSERT INTO twice VALUES (7, 'x', NULL)" 2>&1)
[ -z "$out" ] && [ "$(q -c "SELECT id FROM twice")" = 7 ] && [ "$(commits bad.twice)" = 3 ] &&
    [ "$(snapshots "$WH/x.db/twice")" = 1 ] && [ "$(metafiles "$WH/x.db/twice")" = 3 ] &&
    ok "two conflicts, then committed on the third attempt (the losers' manifests removed)" ||
    fail "twice: $out, $(commits bad.twice) requests, $(metafiles "$WH/x.db/twice") manifest files"

# ---- an object store table, written with the catalog's data token -------------------------
objects() { (cd "$W/store/rlake/wh/r.db/t" 2>/dev/null && find . -name '*._S3rver_object' | sed 's/\._S3rver_object$//' | sort); }
s3out=$(q -c "INSERT INTO s3t SELECT g, 's' || g, NULL FROM generate_series(1, 100) g" 2>&1)
got=$(q -c "SELECT count(*), sum(id) FROM s3t" 2>&1)
[ -z "$s3out" ] && [ "$got" = "100|5050" ] &&
    ok "INSERT into an object-store table of the catalog (mapping without keys: the data token's)" ||
    fail "s3 insert: $s3out / $got"
[ "$(objects | grep -c '^./snapshot/snapshot-1$')" = 1 ] && [ "$(cat "$W/store/rlake/wh/r.db/t/snapshot/LATEST._S3rver_object" 2>/dev/null)" = 1 ] &&
    [ "$(objects | grep -c '/bucket-0/data-')" = 1 ] && [ "$(commits s3r.t)" = 1 ] &&
    ok "one data file written, snapshot-1 and LATEST put by the catalog" || fail "s3 objects: $(objects | tr '\n' ' ')"
before=$(objects | wc -l)
s3bad=$(q -c "INSERT INTO s3bad VALUES (1, 'x', NULL)" 2>&1)
case $s3bad in
    *ERROR*) [ "$(objects | wc -l)" = "$before" ] && [ "$(commits s3r.badtoken)" = 0 ] &&
        ok "a data token the store refuses: ERROR, nothing written, nothing committed" ||
        fail "bad token wrote: $(objects | wc -l) vs $before objects, $(commits s3r.badtoken) commits" ;;
    *) fail "bad token: $s3bad" ;;
esac
case "$s3out$s3bad" in
    *"$BAD_SECRET"*) fail "the data token's secret appears in an error" ;;
    *) ok "the data token's secret appears in no error" ;;
esac

# ---- Paimon consumer files of catalog tables (below the catalog's location) -----------------
# as Java's ConsumerManager through the table's FileIO: on the object store with the data token
# (the mapping has no keys), written when the reading transaction commits, never on ROLLBACK
cobject() { cat "$W/store/rlake/wh/r.db/t/consumer/$1._S3rver_object" 2>/dev/null; }
json_of() { printf '{\n  "nextSnapshot" : %s\n}' "$1"; }
position() { q -c "SELECT next_snapshot FROM tablescan_consumers WHERE consumer = '$1'"; }
changes() { echo "SELECT count(*), sum(id) FROM tablescan_changes(NULL::$1, consumer => '$2', paimon_consumer => true)"; }
q -c "DELETE FROM tablescan_consumers WHERE consumer LIKE 'rc%'" >/dev/null 2>&1
cout=$(q -c "$(changes s3t rc1)" 2>&1)
[ "$cout" = "100|5050" ] && [ "$(position rc1)" = 2 ] && [ "$(cobject consumer-rc1)" = "$(json_of 2)" ] &&
    ok "a consumer of an object-store catalog table writes consumer/consumer-rc1 with the data token (nextSnapshot 2)" ||
    fail "rest consumer: '$cout', position '$(position rc1)', file '$(cobject consumer-rc1)'"
q -c "INSERT INTO s3t VALUES (101, 's101', NULL)" >/dev/null 2>&1
rb=$(q -c "BEGIN" -c "$(changes s3t rc1)" -c "$(changes s3t rc2)" -c "ROLLBACK" 2>&1 | tr '\n' ' ')
[ "$rb" = "1|101 101|5151 " ] && [ "$(cobject consumer-rc1)" = "$(json_of 2)" ] && [ -z "$(cobject consumer-rc2)" ] &&
    ok "ROLLBACK writes nothing (consumer-rc1 stays at 2, no consumer-rc2 for a new consumer's whole read)" ||
    fail "rollback: '$rb', rc1 '$(cobject consumer-rc1)', rc2 '$(cobject consumer-rc2)'"
cout=$(q -c "BEGIN" -c "$(changes s3t rc1)" -c "COMMIT" 2>&1)
[ "$cout" = "1|101" ] && [ "$(position rc1)" = 3 ] && [ "$(cobject consumer-rc1)" = "$(json_of 3)" ] &&
    ok "the next read's COMMIT moves the file to nextSnapshot 3" ||
    fail "second read: '$cout', position '$(position rc1)', file '$(cobject consumer-rc1)'"
cbad=$(q -c "$(changes s3bad rc3)" 2>&1)
case $cbad in
    *ERROR*"$BAD_SECRET"*) fail "the data token's secret appears in the consumer error" ;;
    *ERROR*) [ -z "$(cobject consumer-rc3)" ] && ok "a data token the store refuses: ERROR, no consumer file" ||
        fail "bad token wrote consumer-rc3" ;;
    *) fail "bad token consumer: $cbad" ;;
esac
# a catalog table on the local warehouse (snapshots 1 and 2: INSERT, COPY)
cout=$(q -c "$(changes t rl1)" 2>&1)
[ "$cout" = "5|15" ] && [ "$(position rl1)" = 3 ] && [ "$(cat "$WH/r.db/t/consumer/consumer-rl1" 2>/dev/null)" = "$(json_of 3)" ] &&
    ok "a consumer of a local catalog table writes \$WH/r.db/t/consumer/consumer-rl1" ||
    fail "local rest consumer: '$cout', file '$(cat "$WH/r.db/t/consumer/consumer-rl1" 2>&1)'"
q -c "DELETE FROM tablescan_consumers WHERE consumer LIKE 'r%'" >/dev/null 2>&1

# ---- a cancelled INSERT into the object-store table: nothing committed ----------------------
before=$(objects | wc -l)
n0=$(commits s3r.t)
rows0=$(q -c "SELECT count(*), sum(id) FROM s3t")
psql -X -q -c "INSERT INTO s3t SELECT 1000000 + g, md5(g::text), NULL FROM generate_series(1, 3000000) g" \
    >"$W/cancel.log" 2>&1 &
cpid=$!
for i in $(seq 1 100); do
    [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'INSERT INTO s3t SELECT 1000000%' AND state = 'active'")" = 1 ] && break
    sleep 0.1
done
sleep 1
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'INSERT INTO s3t SELECT 1000000%' AND pid <> pg_backend_pid()" >/dev/null
wait $cpid
crc=$?
got=$(q -c "SELECT count(*), sum(id) FROM s3t" 2>&1)
[ $crc -ne 0 ] && grep -q "ERROR:  canceling statement due to user request" "$W/cancel.log" && [ "$(commits s3r.t)" = "$n0" ] &&
    [ "$got" = "$rows0" ] && [ "$(objects | wc -l)" = "$before" ] &&
    ok "an INSERT cancelled mid-write: no commit request, the same rows, no object left" ||
    fail "cancel: rc $crc $(head -1 "$W/cancel.log"), $(commits s3r.t) commits (was $n0), rows $got, $(objects | wc -l) objects (was $before)"
out=$(q -c "INSERT INTO s3t VALUES (102, 'after cancel', NULL)" 2>&1)
got=$(q -c "SELECT count(*), sum(id) FROM s3t" 2>&1)
[ -z "$out" ] && [ "$got" = "$((${rows0%|*} + 1))|$((${rows0#*|} + 102))" ] && [ "$(commits s3r.t)" = $((n0 + 1)) ] &&
    ok "the next INSERT after the cancel commits through the catalog" || fail "after cancel: $out / $got"

# ---- the token ---------------------------------------------------------------------------------
explain=$(q -c "EXPLAIN (VERBOSE) INSERT INTO t VALUES (9, 'z', 'd9')" 2>&1)
case $explain in
    *"through the REST catalog"*) ok "EXPLAIN says the commit goes through the catalog" ;;
    *) fail "EXPLAIN: $explain" ;;
esac
all="$out$explain$(cat "$W"/session-*.log) $(q -c "INSERT INTO f500 VALUES (1, 'x', NULL)" 2>&1) $(cat "$W/server.log")"
case $all in
    *"$TOKEN"*) fail "the bearer token appears in an error, EXPLAIN or the log" ;;
    *) ok "the bearer token appears nowhere" ;;
esac
q -c "DROP SERVER IF EXISTS wrest CASCADE" >/dev/null 2>&1
summary
