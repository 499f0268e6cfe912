#!/bin/bash
# savepoint.sh - an ERROR inside a subtransaction while object store
# prefetches are in flight: ROLLBACK TO SAVEPOINT (and a PL/pgSQL exception
# block) releases what the aborted queries started, keeps what the outer
# transaction's cursor has, and the same transaction reads on.
#
# Store: test/s3/proxy.mjs, bucket "chaos" (every request 0..20 ms late, so
# that a window of small files is still on its way when the ERROR comes),
# with two copies of the fixture table sales.db/orders (36 small Avro files
# in 3 partitions): ok.db/orders served, doomed.db/orders whose data files
# of partition dt_1 fail every attempt (the scan errors after dt_0's rows).
#   1. 30 times in one session: BEGIN; a cursor over ok.orders fetched
#      partly; SAVEPOINT; a scan of doomed.orders (an ERROR naming the
#      object); ROLLBACK TO; the rest of the cursor; a scan of ok.orders;
#      COMMIT: the cursor's rows and the scan's are the local copy's;
#   2. the same through a PL/pgSQL exception block (one statement);
#   3. the backend's sockets and VmRSS the same after the 60 aborts, and
#      the session answers; no "terminated by signal" in the server log.
source "$(dirname "$0")/lib.sh"
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch savepoint)
FIX=${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}
mkdir -p "$W/wh/ok.db" "$W/wh/doomed.db"
cp -r "$FIX/warehouse/sales.db/orders" "$W/wh/ok.db/" &&
cp -r "$FIX/warehouse/sales.db/orders" "$W/wh/doomed.db/" || { fail "copying tables"; summary; exit 1; }
chmod -R a+rX "$W"

start_s3_proxy "$W" --dir "$W/s3" --upload "chaos/wh/ok.db=$W/wh/ok.db" \
    --upload "chaos/wh/doomed.db=$W/wh/doomed.db" --chaos-latency 20 >"$W/start.log" ||
    { fail "$(cat "$W/start.log")"; summary; exit 1; }
chaos=$(curl -s -G "$EP/__chaos" --data-urlencode reset=1 --data-urlencode rate=0 --data-urlencode stallre= \
    --data-urlencode "doom=^wh/doomed\.db/orders/dt=dt_1/bucket-[0-9]+/data-")
echo "# store: $chaos"

q -c "DROP SCHEMA IF EXISTS sp_ok CASCADE" -c "DROP SCHEMA IF EXISTS sp_doomed CASCADE" \
  -c "DROP SCHEMA IF EXISTS sp_loc CASCADE" -c "DROP SERVER IF EXISTS sp_s3 CASCADE" \
  -c "DROP SERVER IF EXISTS sp_local CASCADE" >/dev/null 2>&1
q -v ON_ERROR_STOP=1 >/dev/null <<SQL || { fail "servers and IMPORT"; summary; exit 1; }
CREATE SERVER sp_local FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh');
CREATE SERVER sp_s3 FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://chaos/wh', "s3.endpoint" '$EP', "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER sp_s3
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
CREATE SCHEMA sp_ok; CREATE SCHEMA sp_doomed; CREATE SCHEMA sp_loc;
IMPORT FOREIGN SCHEMA ok FROM SERVER sp_s3 INTO sp_ok;
IMPORT FOREIGN SCHEMA doomed FROM SERVER sp_s3 INTO sp_doomed;
IMPORT FOREIGN SCHEMA ok FROM SERVER sp_local INTO sp_loc;
-- the cursor across the exception block of one statement
CREATE FUNCTION sp_cursor_across_abort() RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE c refcursor; r text; got text[] := '{}'; err text := 'no error';
BEGIN
  OPEN c FOR SELECT t::text FROM sp_ok.orders t;
  FOR i IN 1..5 LOOP FETCH c INTO r; got := got || r; END LOOP;
  BEGIN
    PERFORM sum(length(t::text)) FROM sp_doomed.orders t;
  EXCEPTION WHEN OTHERS THEN
    err := CASE WHEN SQLERRM ~ '"s3://chaos/wh/doomed.db/orders/dt=dt_1/bucket-[0-9]+/data-[^"]+"' THEN 'error naming the object'
                ELSE SQLERRM END;
  END;
  LOOP FETCH c INTO r; EXIT WHEN NOT FOUND; got := got || r; END LOOP;
  CLOSE c;
  RETURN err || ' ' || (SELECT count(*) || ' ' || md5(string_agg(x, '|' ORDER BY x)) FROM unnest(got) x);
END \$\$;
SQL
LOCAL=$(q -c "SELECT count(*) || ' ' || md5(string_agg(x, '|' ORDER BY x)) FROM (SELECT t::text x FROM sp_loc.orders t) s")
echo "# local copy: $LOCAL (rows, md5)"
q -c "SELECT t::text FROM sp_loc.orders t" | sort > "$W/local_rows"

LOG=$(q -c "SELECT pg_current_logfile()" 2>/dev/null)
[ -n "$LOG" ] && [ "${LOG#/}" = "$LOG" ] && LOG=$(q -c "SHOW data_directory")/$LOG
[ -n "$LOG" ] && [ -r "$LOG" ] ||
    LOG=$(pg_lsclusters -h 2>/dev/null | awk -v p="${PGPORT:-5432}" '$3 == p { print $NF }' | head -1)
crashes() { [ -n "$LOG" ] && [ -r "$LOG" ] && grep -c 'terminated by signal' "$LOG" || echo 0; }
CRASHES0=$(crashes)

PID_FILE=$W/pid
AGG="count(*) || ' ' || md5(string_agg(x, '|' ORDER BY x)) FROM (SELECT t::text x FROM sp_ok.orders t) s"
{
    echo "SET tablescan.s3_max_retry_time = '1s'; SET tablescan.s3_max_attempts = 2; SET statement_timeout = '60s';"
    echo "\\o $PID_FILE"; echo "SELECT pg_backend_pid();"; echo "\\o"
    echo "SELECT $AGG;"      # warm: connections and caches there
    echo "SELECT sp_cursor_across_abort();"
    echo "\\echo @@ before"
    echo "SELECT substring(pg_read_file('/proc/self/status') from 'VmRSS:\\s*(\\d+)');"
    echo "\\! ls -l /proc/\$(cat $PID_FILE)/fd | grep -c socket: > $W/fd_before"
    for i in $(seq 1 30); do
        echo "SET tablescan.s3_max_in_flight = $(( i % 2 ? 16 : 1 ));"
        echo "\\echo @@ rep$i"
        echo "BEGIN;"
        echo "DECLARE c NO SCROLL CURSOR FOR SELECT t::text FROM sp_ok.orders t;"
        echo "\\o $W/cursor$i"; echo "FETCH 7 FROM c;"; echo "\\o"
        echo "SAVEPOINT a;"
        echo "SELECT sum(length(t::text)) FROM sp_doomed.orders t;"
        echo "ROLLBACK TO SAVEPOINT a;"
        echo "\\o $W/cursor_rest$i"; echo "FETCH ALL FROM c;"; echo "\\o"
        echo "CLOSE c;"
        echo "SELECT $AGG;"
        echo "COMMIT;"
        echo "\\echo @@ func$i"
        echo "SELECT sp_cursor_across_abort();"
    done
    echo "\\! ls -l /proc/\$(cat $PID_FILE)/fd | grep -c socket: > $W/fd_after"
    echo "\\echo @@ after"
    echo "SELECT substring(pg_read_file('/proc/self/status') from 'VmRSS:\\s*(\\d+)');"
    echo "SELECT $AGG;"
} > "$W/sp.sql"
timeout 900 psql -X -q -At -v ON_ERROR_STOP=0 -f "$W/sp.sql" > "$W/sp.out" 2>&1

# 1. SAVEPOINT / ROLLBACK TO
errs=0; named=0; cursor_ok=0; scan_ok=0
for i in $(seq 1 30); do
    blk=$(sed -n "/^@@ rep$i\$/,/^@@ func$i\$/p" "$W/sp.out")
    printf '%s\n' "$blk" | grep -q 'ERROR' && errs=$((errs + 1))
    printf '%s\n' "$blk" | grep 'ERROR' | grep -Eq '"s3://chaos/wh/doomed.db/orders/dt=dt_1/bucket-[0-9]+/data-[^"]+"' &&
        named=$((named + 1))
    # as sorted lines (the cursor's order is the scan's)
    cat "$W/cursor$i" "$W/cursor_rest$i" 2>/dev/null | sort | cmp -s - "$W/local_rows" &&
        cursor_ok=$((cursor_ok + 1))
    printf '%s\n' "$blk" | grep -qxF "$LOCAL" && scan_ok=$((scan_ok + 1))
done
echo "# 30 ROLLBACK TO: $errs errors ($named naming the doomed object), $cursor_ok cursors and $scan_ok scans with the local rows"
[ "$errs" -eq 30 ] && [ "$named" -eq 30 ] && ok "30 scans failing mid-way inside a savepoint: ERRORs naming the object" ||
    fail "scans failing inside a savepoint: $errs errors, $named naming the object: $(grep -m1 ERROR "$W/sp.out")"
[ "$cursor_ok" -eq 30 ] && ok "an outer cursor across 30 ROLLBACK TO: the local copy's rows" ||
    fail "an outer cursor across ROLLBACK TO: $cursor_ok of 30 right"
[ "$scan_ok" -eq 30 ] && ok "a scan after each ROLLBACK TO in the same transaction: the local copy's rows" ||
    fail "a scan after ROLLBACK TO: $scan_ok of 30 right"

# 2. PL/pgSQL exception blocks
fn=$(grep -cxF "error naming the object $LOCAL" "$W/sp.out")
[ "$fn" -eq 31 ] && ok "31 exception blocks around a failing scan: the cursor around them reads the local rows" ||
    fail "exception blocks: $fn of 31 right: $(grep -m1 -E '^(no error|.*ERROR)' "$W/sp.out")"

# 3. resources
rss0=$(sed -n '/^@@ before/{n;p}' "$W/sp.out"); rss1=$(sed -n '/^@@ after/{n;p}' "$W/sp.out")
fd0=$(cat "$W/fd_before" 2>/dev/null); fd1=$(cat "$W/fd_after" 2>/dev/null)
echo "# 60 aborted subtransactions: sockets $fd0 -> $fd1; VmRSS $rss0 -> $rss1 kB"
if [ -n "$fd0" ] && [ -n "$fd1" ] && [ "$fd1" -le $((fd0 + 2)) ] && [ "$fd1" -le 40 ]; then
    ok "no connection leaked by 60 aborted subtransactions (sockets $fd0 -> $fd1)"
else
    fail "sockets of the backend $fd0 -> $fd1 after 60 aborted subtransactions"
fi
if [ -n "$rss0" ] && [ -n "$rss1" ] && [ $((rss1 - rss0)) -lt 16384 ]; then
    ok "memory stable over 60 aborted subtransactions (VmRSS $rss0 -> $rss1 kB)"
else
    fail "VmRSS $rss0 -> $rss1 kB over 60 aborted subtransactions"
fi
[ "$(tail -1 "$W/sp.out")" = "$LOCAL" ] && ok "the session reads after them" ||
    fail "the session after the aborts: $(tail -1 "$W/sp.out")"
[ "$(crashes)" = "$CRASHES0" ] && ok "no backend terminated by a signal" || fail "a backend crashed (server log $LOG)"

q -c "DROP SCHEMA sp_ok CASCADE" -c "DROP SCHEMA sp_doomed CASCADE" -c "DROP SCHEMA sp_loc CASCADE" \
  -c "DROP FUNCTION IF EXISTS sp_cursor_across_abort()" \
  -c "DROP SERVER sp_s3 CASCADE" -c "DROP SERVER sp_local CASCADE" >/dev/null 2>&1
rm -rf "$W"
summary
