#!/bin/bash
# s3-cancel.sh - an INSERT into a Paimon table on an object store cancelled,
# timed out, or its backend terminated, while it uploads data files.
#
# Starts the test object store (test/s3/proxy.mjs, bucket "wlake", conditional
# writes honoured) holding a hand-written schema of append table t
# (target-file-size 256 kb, so a large INSERT puts many data objects one
# after another).  snapshot-1 holds 1,000 rows.  Then, three times (once with
# pg_cancel_backend, once with pg_terminate_backend from another session, once
# by a statement_timeout of 5 s), a 2,000,000-row INSERT (20,000,000 for the
# timeout) is stopped once its data objects are seen in the store.  Checks
# each time: the INSERT failed with PostgreSQL's own error for the interrupt
# (not "could not write ...: canceled"); no snapshot object past the last
# committed one and LATEST unchanged; the table reads the committed rows; no
# data object left that no snapshot references (the abort deleted what it
# put); the next INSERT commits the next snapshot and its rows read back.
# Runs inside pg_virtualenv with the extension installed; prints
#   writes-s3-cancel: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
source "$(dirname "$0")/../schema-lib.sh"
summary() { echo "writes-s3-cancel: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch writes_s3_cancel)
schema "$W/src/w.db/t" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 s STRING)")" "" "" \
    '"bucket" : "-1", "target-file-size" : "256 kb"'
start_s3_proxy "$W" --dir "$W/store" --upload "wlake/wh/w.db=$W/src/w.db" >"$W/start.log" ||
    { fail "$(cat "$W/start.log")"; summary; exit 1; }
TD=$W/store/wlake/wh/w.db/t
# keys below the table, as s3rver keeps them (one file each)
objects() { (cd "$TD" 2>/dev/null && find . -name '*._S3rver_object' | sed 's/\._S3rver_object$//' | sort); }
snapshots() { objects | grep -c '^./snapshot/snapshot-[0-9]*$'; }
data_objects() { objects | grep -c '\.parquet$'; }

q -c "DROP SERVER IF EXISTS wsc CASCADE" >/dev/null 2>&1
q -v ON_ERROR_STOP=1 \
  -c "CREATE SERVER wsc FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 's3://wlake/wh',
        \"s3.endpoint\" '$EP', \"s3.path.style.access\" 'true')" \
  -c "CREATE USER MAPPING FOR CURRENT_USER SERVER wsc OPTIONS (\"s3.access-key\" 'S3RVER', \"s3.secret-key\" 'S3RVER')" \
  -c "CREATE FOREIGN TABLE t (id int NOT NULL, s text) SERVER wsc OPTIONS (database 'w', table 't')" \
  >"$W/setup.log" 2>&1 || { fail "setup: $(head -3 "$W/setup.log")"; summary; exit 1; }

out=$(q -c "INSERT INTO t SELECT g, 's' || g FROM generate_series(1, 1000) g" 2>&1)
got=$(q -c "SELECT count(*), sum(id) FROM t")
[ "$got" = "1000|500500" ] && [ "$(snapshots)" = 1 ] && ok "snapshot-1: 1,000 rows" ||
    fail "first INSERT: $got $out"

rows=1000
sum=500500
for how in cancel terminate timeout; do
    snaps=$(snapshots)
    latest=$(cat "$TD/snapshot/LATEST._S3rver_object")
    before=$(data_objects)
    # timeout: statement_timeout stops an INSERT far too large to end before it
    opts= n=2000000
    [ $how = timeout ] && opts="-c statement_timeout=5s" n=20000000
    PGOPTIONS="$opts" psql -X -q -c "INSERT INTO t SELECT 1000000 + g, md5(g::text) || md5((g + 1)::text) FROM generate_series(1, $n) g" \
        >"$W/$how.log" 2>&1 &
    pid=$!
    seen=0
    for i in $(seq 1 300); do
        [ "$(data_objects)" -gt $((before + 1)) ] && { seen=1; break; }
        sleep 0.1
    done
    [ $seen -eq 1 ] && ok "$how: the INSERT is putting data objects" || fail "$how: never saw the INSERT's data objects"
    bpid=$(q -c "SELECT pid FROM pg_stat_activity
                 WHERE query LIKE 'INSERT INTO t SELECT 1000000 + g%' AND pid <> pg_backend_pid()")
    [ $how = timeout ] || q -c "SELECT pg_${how}_backend($bpid)" >/dev/null
    wait $pid
    rc=$?
    wait_ready
    # a terminated backend removes its files while it exits, after its client saw the FATAL
    for i in $(seq 1 300); do
        [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE pid = ${bpid:-0}")" = 0 ] && break
        sleep 0.1
    done
    # PostgreSQL's own error for the interrupt, not one of ours about the write
    case $how in
        cancel) want="ERROR:  canceling statement due to user request" ;;
        terminate) want="FATAL:  terminating connection due to administrator command" ;;
        timeout) want="ERROR:  canceling statement due to statement timeout" ;;
    esac
    [ $rc -ne 0 ] && grep -qF "$want" "$W/$how.log" && ! grep -q "could not write" "$W/$how.log" &&
        ok "$how: the INSERT failed with PostgreSQL's \"${want#*:  }\"" ||
        fail "$how: the INSERT ended with $rc: $(head -2 "$W/$how.log")"
    [ "$(snapshots)" = "$snaps" ] && [ "$(cat "$TD/snapshot/LATEST._S3rver_object")" = "$latest" ] &&
        ok "$how: no new snapshot, LATEST still $latest" || fail "$how: snapshots $(snapshots), was $snaps"
    got=$(q -c "SELECT count(*), sum(id) FROM t" 2>&1)
    [ "$got" = "$rows|$sum" ] && ok "$how: the table reads its $rows committed rows" || fail "$how: read $got"
    live=$(q -c "SELECT count(*) FROM tablescan_files('t')")
    [ "$(data_objects)" = "$live" ] && ok "$how: no data object left that no snapshot references" ||
        fail "$how: $(data_objects) data objects, $live live files"
    out=$(q -c "INSERT INTO t VALUES (${#how}, 'after $how')" 2>&1)
    rows=$((rows + 1)); sum=$((sum + ${#how}))
    got=$(q -c "SELECT count(*), sum(id), count(*) FILTER (WHERE s = 'after $how') FROM t" 2>&1)
    [ "$got" = "$rows|$sum|1" ] && [ "$(snapshots)" = $((snaps + 1)) ] &&
        ok "$how: the next INSERT commits snapshot-$((snaps + 1))" || fail "$how: next INSERT: $got $out"
done

q -c "DROP SERVER IF EXISTS wsc CASCADE" >/dev/null 2>&1
rm -rf "$W"
summary
