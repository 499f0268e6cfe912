#!/bin/bash
# concurrent.sh - several backends INSERT into one Paimon append table at once,
# and a backend is killed in the middle of an INSERT.
#
# The table (bucket -1) is made from a hand-written schema file.  SESSIONS
# psql sessions each commit TXNS transactions of ROWS rows with ids of their
# own (session s, transaction t: s*1000000 + t*1000 + 1 .. + ROWS); they race
# for each snapshot-<N+1> and the losers retry (commit.max-retries).
# Checks: every session succeeded; SESSIONS*TXNS snapshots; every row once;
# snapshot k says totalRecordCount = k*ROWS (each base list carried all
# earlier manifests); LATEST names the last; no temporary file is left.
# Then a backend is terminated while its INSERT writes data files: no new
# snapshot, the same rows, its data files removed by the abort.  Last, the
# backend's peak memory stays flat from a 200,000-row INSERT to a 2,000,000-row one.
# Runs inside pg_virtualenv with the extension installed; prints
#   writes-concurrent: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
summary() { echo "writes-concurrent: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
SESSIONS=${WRITES_SESSIONS:-4}
TXNS=${WRITES_TXNS:-15}
ROWS=${WRITES_ROWS:-20}
W=$(scratch writes)
T=$W/w.db/t
source "$(dirname "$0")/../schema-lib.sh"
schema "$T" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 who STRING)")" "" "" \
    '"bucket" : "-1", "commit.max-retries" : "100"'
chmod -R a+rwX "$W"
q -c "DROP SERVER IF EXISTS wsrv CASCADE" \
  -c "CREATE SERVER wsrv FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W')" \
  -c "CREATE FOREIGN TABLE t (id int NOT NULL, who text) SERVER wsrv OPTIONS (database 'w', table 't')" \
  >/dev/null 2>&1

session() {
    local s=$1 t
    for t in $(seq 1 "$TXNS"); do
        echo "INSERT INTO t SELECT $s * 1000000 + $t * 1000 + g, 's$s' FROM generate_series(1, $ROWS) g;"
    done | psql -X -q -v ON_ERROR_STOP=1 >"$W/session-$s.log" 2>&1
    echo $? > "$W/session-$s.rc"
}
for s in $(seq 1 "$SESSIONS"); do session "$s" & done
wait

bad=0
for s in $(seq 1 "$SESSIONS"); do
    [ "$(cat "$W/session-$s.rc")" = 0 ] || { bad=1; head -3 "$W/session-$s.log"; }
done
[ $bad -eq 0 ] && ok "every session's INSERTs committed" || fail "a session failed"

want=$((SESSIONS * TXNS))
n=$(find "$T/snapshot" -name 'snapshot-*' | wc -l)
[ "$n" -eq "$want" ] && ok "$want snapshots" || fail "snapshots: $n, want $want"

got=$(q -c "SELECT count(*), count(DISTINCT id) FROM t")
[ "$got" = "$((want * ROWS))|$((want * ROWS))" ] && ok "every row once ($got)" ||
    fail "rows: $got, want $((want * ROWS)) distinct"
got=$(q -c "SELECT count(*) FROM (SELECT who FROM t GROUP BY who HAVING count(*) = $((TXNS * ROWS))) x")
[ "$got" = "$SESSIONS" ] && ok "each session's rows all there" || fail "sessions with all rows: $got"

bad=0
for k in $(seq 1 "$want"); do
    tot=$(sed -n 's/.*"totalRecordCount"[^0-9]*\([0-9]*\).*/\1/p' "$T/snapshot/snapshot-$k")
    [ "$tot" = "$((k * ROWS))" ] || { bad=1; echo "snapshot-$k totalRecordCount $tot"; break; }
done
[ $bad -eq 0 ] && ok "snapshot k holds k*$ROWS rows" || fail "totalRecordCount"
[ "$(cat "$T/snapshot/LATEST")" = "$want" ] && ok "LATEST = $want" || fail "LATEST $(cat "$T/snapshot/LATEST")"
tmp=$(find "$T" -name '*.tmp' | wc -l)
[ "$tmp" -eq 0 ] && ok "no temporary file left" || fail "$tmp temporary files left"

# a backend terminated while it writes
files_before=$(find "$T" -name '*.parquet' | wc -l)
psql -X -q -c "INSERT INTO t SELECT 2000000000 - a * 100000 - b, 'killed' FROM generate_series(1, 1000) a, generate_series(1, 100000) b" \
    >"$W/killed.log" 2>&1 &
kpid=$!
seen=0
for i in $(seq 1 100); do
    [ "$(find "$T" -name '*.tmp' | wc -l)" -gt 0 ] && { seen=1; break; }
    sleep 0.1
done
[ $seen -eq 1 ] && ok "the INSERT to kill is writing a data file" || fail "never saw the INSERT writing"
sleep 0.5
q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'INSERT INTO t SELECT 2000000000%' AND pid <> pg_backend_pid()" >/dev/null
wait $kpid
wait_ready
n=$(find "$T/snapshot" -name 'snapshot-*' | wc -l)
[ "$n" -eq "$want" ] && ok "no snapshot from the killed backend" || fail "snapshots after kill: $n"
got=$(q -c "SELECT count(*), count(*) FILTER (WHERE who = 'killed') FROM t")
[ "$got" = "$((want * ROWS))|0" ] && ok "table readable, same rows after the kill" || fail "after kill: $got"
files_after=$(find "$T" \( -name '*.parquet' -o -name '*.tmp' \) | wc -l)
[ "$files_after" -eq "$files_before" ] && ok "the killed backend's files removed" ||
    fail "files: $files_before before, $files_after after"

# memory is bounded per open file, not per statement: the backend's peak
# resident size grows by less than 64 MB from a 200,000-row INSERT to a
# 2,000,000-row one (~80 MB of row data)
hwm='SELECT (regexp_match(pg_read_file('"'"'/proc/'"'"' || pg_backend_pid() || '"'"'/status'"'"'), '"'"'VmHWM:\s+(\d+)'"'"'))[1]'
got=$(psql -X -q -At -v ON_ERROR_STOP=1 \
    -c "INSERT INTO t SELECT 1500000000 + g, repeat('m', 30) || g FROM generate_series(1, 200000) g" \
    -c "$hwm" \
    -c "INSERT INTO t SELECT 1600000000 + g, repeat('m', 30) || g FROM generate_series(1, 2000000) g" \
    -c "$hwm" 2>&1 | tr '\n' ' ')
set -- $got
if [ $# -eq 2 ] && [ $(( ($2 - $1) / 1024 )) -lt 64 ]; then
    ok "memory flat: VmHWM $1 kB after 200,000 rows, $2 kB after 2,000,000"
else
    fail "memory: $got"
fi

q -c "DROP SERVER IF EXISTS wsrv CASCADE" >/dev/null 2>&1
rm -rf "$W"
summary
