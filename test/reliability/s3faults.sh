#!/bin/bash
# s3faults.sh - the object store client's concurrent reads under random
# faults (issue 21): every query through a faulty store returns exactly the
# rows of the local copy, or an ERROR naming the object once its retries
# are exhausted; never wrong rows, a crash or a hang; failing queries leak
# no connection and no memory; a cancel stops a concurrent batch at once.
#
# Tables (in one warehouse, read locally and through s3://chaos/wh):
#   pq_rg        2 Parquet files of 11 MB, 15 row groups each (DuckDB): read
#                in ranges, a row group's chunks coalesced, the next one ahead
#   pq_small     8 Parquet files of 5 row groups, small: fetched whole, together
#   orc_t        ORC, 4 snapshots, partitioned
#   avro_many    Avro, 60 snapshots: a plan reads 60 manifests in windows
#   pk_dedup_dv, pk_table_scan_and_read_dv   primary keys with deletion vectors
#   orders, append_09    fixture / Java-written append tables
#   events_csv, events_json   format tables
# The store is test/s3/proxy.mjs's bucket "chaos" (seeded faults of every
# kind on a fraction of attempts, with latency; see its header).
#   1. faults on a fifth of the attempts: each table's full scan, a filtered
#      scan, a parallel scan and a cursor fetched partly, under
#      s3_max_in_flight 1 and 16, with the metadata cache dir unset and set:
#      the local copy's rows, or an "after N attempts" ERROR naming the object;
#   2. the data files of pq_rg and pq_small failing every attempt: each query
#      an ERROR naming the object and the status / transport error; the
#      backend's sockets and memory (VmRSS) the same after 30 such queries;
#   1b. well-formed lies on every odd attempt: manifest lists answered 200
#      with half the list (the snapshot's list sizes refuse it), listing pages
#      cut in half (asked again), HEADs giving half the size (never asked:
#      a data file is opened with its manifest entry's size): the local rows;
#   3. the data files stalling: statement_timeout and pg_cancel_backend end a
#      query waiting on a concurrent batch (latency printed, not asserted),
#      the session answers next;
#   and no "terminated by signal" in the server log.
# S3F_SEED picks the faults (default 1), S3F_RATE the fraction (0.2).
source "$(dirname "$0")/lib.sh"
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch s3faults)
FIX=${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}
SHARED=${TS_SHARED:-$ROOT/../shared}
[ -d "$SHARED/testdata" ] || SHARED=/work/shared
SEED=${S3F_SEED:-1}
RATE=${S3F_RATE:-0.2}
WH=$W/wh/rel.db
mkdir -p "$WH"

# ---- tables -----------------------------------------------------------------
# Parquet of many row groups: ts_gen writes the schema, DuckDB the files,
# bench/ts_pq_register the manifest and snapshot
(cd test/parquet && [ -d node_modules/@duckdb/node-api ] ||
    npm install --no-audit --no-fund >/dev/null 2>&1)
B=build
[ -f $B/libts.a ] || B=build/reliability
make -s BUILD=$B $B/bench/ts_pq_register >/dev/null 2>&1 ||
    { fail "build ts_pq_register"; summary; exit 1; }
PQREG=$ROOT/$B/bench/ts_pq_register     # absolute: pq_table runs it from inside the table
pq_table() {   # name files rows-per-file row-group-rows
    local t=$WH/$1 files
    $GEN "$t" --column id:BIGINT --column name:STRING --column v:DOUBLE --rows 1 >/dev/null || return 1
    rm -rf "$t/bucket-0" "$t/manifest" "$t/snapshot"
    sed -i 's/"file.format":\t"avro"/"file.format":\t"parquet"/' "$t/schema/schema-0"
    mkdir -p "$t/bucket-0"
    files=$(node test/reliability/pq_rowgroups.mjs "$t/bucket-0" "$2" "$3" "$4") || return 1
    (cd "$t/bucket-0" && "$PQREG" "$t" 3 $files >/dev/null)
}
pq_table pq_rg 2 300000 20000 && pq_table pq_small 8 20000 4000 &&
$GEN "$WH/orc_t" --format orc --column 'id:INT NOT NULL' --column name:STRING --column dt:STRING \
    --partition dt --partitions 2 --rows 3000 --snapshots 4 --files 3 >/dev/null &&
$GEN "$WH/avro_many" --column 'id:INT NOT NULL' --column name:STRING --column v:DOUBLE --column dt:STRING \
    --partition dt --partitions 2 --buckets 2 --bucket-key id --rows 40 --snapshots 60 >/dev/null ||
    { fail "table generation"; summary; exit 1; }
cp -r "$FIX/warehouse/pk.db/pk_dedup_dv" "$FIX/warehouse/sales.db/orders" \
      "$FIX/warehouse/ft.db/events_csv" "$FIX/warehouse/ft.db/events_json" \
      "$SHARED/testdata/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv" \
      "$SHARED/testdata/orc/append_09.db/append_09" "$WH/" || { fail "copying tables"; summary; exit 1; }
chmod -R a+rX "$W"
TABLES=(pq_rg pq_small orc_t avro_many pk_dedup_dv pk_table_scan_and_read_dv orders append_09 events_csv events_json)

# ---- the store ----------------------------------------------------------------
start_s3_proxy "$W" --dir "$W/s3" --upload "chaos/wh/rel.db=$WH" --chaos-seed "$SEED" \
    --chaos-latency 10 --chaos-stall-ms 400 >"$W/start.log" || { fail "$(cat "$W/start.log")"; summary; exit 1; }
chaos() { curl -s "$EP/__chaos?$1"; }

q -c "DROP SCHEMA IF EXISTS s3 CASCADE" -c "DROP SCHEMA IF EXISTS loc CASCADE" \
  -c "DROP SERVER IF EXISTS s3f_loc CASCADE" -c "DROP SERVER IF EXISTS s3f_s3 CASCADE" >/dev/null 2>&1
q -v ON_ERROR_STOP=1 >/dev/null <<SQL || { fail "servers and IMPORT"; summary; exit 1; }
CREATE SERVER s3f_loc FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh');
CREATE SERVER s3f_s3 FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://chaos/wh', "s3.endpoint" '$EP', "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3f_s3
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
CREATE SCHEMA loc; CREATE SCHEMA s3;
IMPORT FOREIGN SCHEMA rel FROM SERVER s3f_loc INTO loc;
IMPORT FOREIGN SCHEMA rel FROM SERVER s3f_s3 INTO s3;
SQL
n=$(q -c "SELECT count(*) FROM information_schema.foreign_tables WHERE foreign_table_schema = 's3'
           AND foreign_table_name = ANY ('{$(IFS=,; echo "${TABLES[*]}")}')")
[ "$n" = "${#TABLES[@]}" ] && ok "IMPORT through the store: ${#TABLES[@]} tables" ||
    fail "IMPORT through the store found $n of ${#TABLES[@]} tables"

# the server log, for crashes
LOG=$(q -c "SELECT pg_current_logfile()" 2>/dev/null)
[ -n "$LOG" ] && [ "${LOG#/}" = "$LOG" ] && LOG=$(q -c "SHOW data_directory")/$LOG
[ -n "$LOG" ] && [ -r "$LOG" ] ||   # pg_virtualenv: the cluster's log file, by its port
    LOG=$(pg_lsclusters -h 2>/dev/null | awk -v p="${PGPORT:-5432}" '$3 == p { print $NF }' | head -1)
crashes() { [ -n "$LOG" ] && [ -r "$LOG" ] && grep -c 'terminated by signal' "$LOG" || echo 0; }
CRASHES0=$(crashes)

# ---- 1. random faults -----------------------------------------------------------
# the queries of schema $1: "@@ tag" then the query's output
queries() {
    local s=$1 t c
    for t in "${TABLES[@]}"; do
        c=$(q -c "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = 'loc.$t'::regclass AND a.attnum > 0
                  AND a.atttypid IN ('int4'::regtype, 'int8'::regtype) ORDER BY a.attnum LIMIT 1")
        local agg="count(*), md5(string_agg(x, '|' ORDER BY x)) FROM (SELECT t::text x FROM $s.$t t"
        echo "\\echo @@ $t full"
        echo "SELECT $agg) s;"
        echo "\\echo @@ $t filtered"
        if [ -n "$c" ]; then echo "SELECT $agg WHERE $c % 5 = 2) s;"
        else echo "SELECT $agg WHERE t::text LIKE '%1%') s;"; fi
        echo "\\echo @@ $t parallel"
        echo "SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
        echo "SET max_parallel_workers_per_gather = 2; SELECT $agg) s; RESET max_parallel_workers_per_gather;"
        echo "\\echo @@ $t cursor"
        echo "BEGIN; DECLARE cur NO SCROLL CURSOR FOR SELECT t::text FROM $s.$t t; FETCH 7 FROM cur;"
        echo "FETCH 3 FROM cur; CLOSE cur; COMMIT;"
    done
    echo "\\echo @@ end"
}
# split psql output by "@@ tag" lines into DIR/<tag>
split_out() {
    mkdir -p "$2"
    awk -v d="$2" '/^@@ / { f = d "/" $2 "_" $3; printf "" > f; next } f { print >> f }' "$1"
}
SESSION="SET statement_timeout = '120s'; SET tablescan.s3_max_attempts = 8;"
queries loc > "$W/q_loc.sql"; queries s3 > "$W/q_s3.sql"
q -c "$SESSION" -f "$W/q_loc.sql" > "$W/loc.out" 2>&1
split_out "$W/loc.out" "$W/loc"
if grep -q ERROR "$W/loc.out"; then fail "local queries: $(grep -m1 ERROR "$W/loc.out")"; fi
chaos "reset=1&rate=$RATE&doom=&stallre=" >/dev/null
nq=0; nerr=0; nbad=0
for cache in off on; do
    for inflight in 1 16; do
        combo="in_flight $inflight, metadata cache $cache"
        set_cache="RESET tablescan.metadata_cache_dir;"
        [ $cache = on ] && set_cache="SET tablescan.metadata_cache_dir = 'ts_rel_s3faults_cache';"
        chaos "reset=1" >/dev/null    # the counts below are this pass's
        t0=$(now_ms)
        timeout 900 psql -X -q -At -v ON_ERROR_STOP=0 \
            -c "$SESSION SET tablescan.s3_max_in_flight = $inflight; $set_cache" -f "$W/q_s3.sql" \
            > "$W/s3_$cache$inflight.out" 2>&1
        rc=$?
        split_out "$W/s3_$cache$inflight.out" "$W/s3_$cache$inflight"
        bad=0; errs=0
        for f in "$W/loc"/*; do
            tag=$(basename "$f"); g=$W/s3_$cache$inflight/$tag
            [ "$tag" = end_ ] && continue
            nq=$((nq + 1))
            if [ -f "$g" ] && cmp -s "$f" "$g"; then continue; fi
            e=$(grep -m1 'ERROR' "$g" 2>/dev/null)
            if [ -n "$e" ] && printf '%s' "$e" | grep -Eq '"s3://chaos/[^"]+"(:| failed after [0-9]+ attempts| kept failing)' &&
               printf '%s' "$e" | grep -Eq 'after [0-9]+ attempts|kept failing'; then
                errs=$((errs + 1)); echo "# $combo, $tag: $e"
            else
                bad=$((bad + 1)); echo "# $combo, $tag: expected $(head -c 200 "$f" | tr '\n' ' ') got $(head -c 300 "$g" 2>/dev/null | tr '\n' ' ')"
            fi
        done
        nerr=$((nerr + errs)); nbad=$((nbad + bad))
        counts=$(chaos "" | sed 's/.*"counts"://')
        echo "# $combo: $(( $(now_ms) - t0 )) ms, store: $counts"
        if [ $rc -eq 0 ] && [ $bad -eq 0 ] && [ -f "$W/s3_$cache$inflight/end_" ]; then
            ok "random faults ($combo): every query the local rows or a retries-exhausted ERROR ($errs)"
        else
            fail "random faults ($combo): $bad queries wrong (psql rc $rc)"
        fi
    done
done
echo "s3faults: $nq queries under random faults, $nerr retries-exhausted errors, $nbad wrong"

# ---- 1b. well-formed lies -------------------------------------------------------------
# Every odd attempt of the matching objects lies with a well-formed answer
# (proxy.mjs "liere"): a whole GET is 200 with half the object under a
# Content-Length that agrees, a LIST page is cut in half the same way, a HEAD
# gives half the size.
lies() {   # name regex tables... : each table's full scan through the lying store
    local name=$1 re=$2 t got exp bad=0 out
    shift 2
    chaos "reset=1&rate=0&doom=&stallre=&liere=$re" >/dev/null
    for t in "$@"; do
        out=$(q -c "$SESSION" -c "SELECT count(*), md5(string_agg(x, '|' ORDER BY x)) FROM (SELECT t::text x FROM s3.$t t) s" 2>&1)
        exp=$(cat "$W/loc/${t}_full")
        if [ "$out" = "$exp" ]; then continue; fi
        bad=$((bad + 1)); echo "# lies ($name), $t: expected $exp got $(printf '%s' "$out" | head -c 300)"
    done
    echo "# lies ($name): store $(chaos "" | sed 's/.*"counts"://')"
    return $bad
}
# manifest lists: the sizes the snapshots give (baseManifestListSize, ...) catch the half list
lies lists '/manifest/manifest-list-' orc_t avro_many orders pq_small &&
    ok "manifest lists answered 200 with half the list: the snapshot's sizes refuse it, the local rows" ||
    fail "manifest lists answered with half the list: wrong rows or an error"
# format tables: a listing page cut short (well-formed answer, not XML) is asked again
lies listing '^wh/rel\.db/events_(csv|json)/$' events_csv events_json &&
    ok "listing pages cut short under a Content-Length that agrees: asked again, the local rows" ||
    fail "listing pages cut short: wrong rows or an error"
# data files read by ranges are opened with the size their manifest entry gives: a store
# whose HEAD gives half the size is never asked, the rows are the local ones (was: an
# ERROR naming the object, caught by the ranged reads' Content-Range)
lies head '^wh/rel\.db/pq_rg/bucket-0/data-' pq_rg &&
    ok "HEADs giving half the size: never asked (the manifest's size), the local rows" ||
    fail "HEADs giving half the size: wrong rows or an error"
chaos "reset=1&rate=0&doom=&stallre=&liere=" >/dev/null

# ---- 2. objects failing every attempt: errors, no leaks --------------------------------
chaos "reset=1&rate=0&doom=(pq_rg|pq_small)/bucket-0/data-rg-&stallre=" >/dev/null
PID_FILE=$W/leak.pid
sockets() { ls -l "/proc/$(cat "$PID_FILE")/fd" 2>/dev/null | grep -c 'socket:'; }
{
    echo "SET tablescan.s3_max_retry_time = '2s'; SET statement_timeout = '60s';"
    echo "\\o $PID_FILE"; echo "SELECT pg_backend_pid();"; echo "\\o"
    echo "SELECT count(*) FROM s3.orders;"          # a good query first: the connections are there
    echo "\\echo @@ warm"
    for t in pq_rg pq_small; do echo "SELECT count(*), sum(v) FROM s3.$t;"; done
    echo "\\echo @@ before"
    echo "SELECT substring(pg_read_file('/proc/self/status') from 'VmRSS:\\s*(\\d+)');"
    echo "\\! ls -l /proc/\$(cat $PID_FILE)/fd | grep -c socket: > $W/fd_before"
    for i in $(seq 1 15); do
        echo "SET tablescan.s3_max_in_flight = $(( i % 2 ? 16 : 1 ));"
        echo "SELECT count(*), sum(v) FROM s3.pq_rg;"
        echo "SELECT count(*), sum(v) FROM s3.pq_small;"
    done
    echo "\\! ls -l /proc/\$(cat $PID_FILE)/fd | grep -c socket: > $W/fd_after"
    echo "\\echo @@ after"
    echo "SELECT substring(pg_read_file('/proc/self/status') from 'VmRSS:\\s*(\\d+)');"
    echo "SELECT count(*) FROM s3.orders;"
} > "$W/leak.sql"
q -f "$W/leak.sql" > "$W/leak.out" 2>&1
errs=$(sed -n '/^@@ before/,/^@@ after/p' "$W/leak.out" | grep -c 'ERROR')
named=$(sed -n '/^@@ before/,/^@@ after/p' "$W/leak.out" | grep 'ERROR' |
        grep -Ec '"s3://chaos/wh/rel.db/pq_(rg|small)/bucket-0/data-rg-[0-9]+\.parquet"( failed after [0-9]+ attempts: (HTTP 503|.*(reset|Transferred a partial|Failure when receiving|Server returned nothing))| kept failing)')
rss0=$(sed -n '/^@@ before/{n;p}' "$W/leak.out"); rss1=$(sed -n '/^@@ after/{n;p}' "$W/leak.out")
fd0=$(cat "$W/fd_before" 2>/dev/null); fd1=$(cat "$W/fd_after" 2>/dev/null)
echo "# 30 failing queries: $errs errors, $named naming the object and status; sockets $fd0 -> $fd1; VmRSS $rss0 -> $rss1 kB"
grep 'ERROR' "$W/leak.out" | sort | uniq -c | sort -rn | head -4 | sed 's/^/#   /'
[ "$errs" -eq 30 ] && [ "$named" -eq 30 ] &&
    ok "objects failing every attempt: 30 ERRORs naming the object and the HTTP status / transport error" ||
    fail "objects failing every attempt: $errs errors, $named of them naming object and status"
if [ -n "$fd0" ] && [ -n "$fd1" ] && [ "$fd1" -le $((fd0 + 2)) ] && [ "$fd1" -le 40 ]; then
    ok "no connection leaked by 30 failing queries (sockets $fd0 -> $fd1)"
else
    fail "sockets of the backend $fd0 -> $fd1 after 30 failing queries"
fi
if [ -n "$rss0" ] && [ -n "$rss1" ] && [ $((rss1 - rss0)) -lt 16384 ]; then
    ok "memory stable over 30 failing queries (VmRSS $rss0 -> $rss1 kB)"
else
    fail "VmRSS $rss0 -> $rss1 kB over 30 failing queries"
fi
tail -1 "$W/leak.out" | grep -Eqx '[0-9]+' && ok "the session reads after the errors" ||
    fail "the session after the errors: $(tail -1 "$W/leak.out")"

# ---- 3. cancel during a concurrent batch -----------------------------------------
# pq_small's 8 data files are fetched whole in one batch; every attempt of them stalls 30 s
chaos "reset=1&rate=0&doom=&stallre=pq_small/bucket-0/data-rg-&stall=30000" >/dev/null
QUERY="SELECT count(*), sum(v) FROM s3.pq_small"
out=$(q -c "SET statement_timeout = '1s'" -c "SELECT extract(epoch FROM clock_timestamp())" -c "$QUERY" \
        -c "SELECT extract(epoch FROM clock_timestamp())" -c "RESET statement_timeout" -c "SELECT 'alive'" 2>&1)
start=$(printf '%s\n' "$out" | sed -n 1p); end=$(printf '%s\n' "$out" | grep -E '^[0-9]+\.[0-9]+$' | tail -1)
lat=$(python3 -c "print(round(($end - $start) * 1000 - 1000, 1))" 2>/dev/null)
if printf '%s\n' "$out" | grep -q 'canceling statement due to statement timeout' &&
   printf '%s\n' "$out" | tail -1 | grep -qx alive && [ -n "$lat" ] && python3 -c "exit(0 if $lat < 5000 else 1)"; then
    ok "statement_timeout 1 s stops a stalled concurrent batch (latency ${lat} ms), session usable"
    echo "cancel latency (s3 batch, statement_timeout): ${lat} ms"
else
    fail "statement_timeout during a stalled batch: $(printf '%s' "$out" | tr '\n' ' ' | cut -c1-300)"
fi
PGAPPNAME=ts_s3f_cancel q -c "$QUERY" -c "SELECT 'alive'" > "$W/cancel.out" 2>&1 &
apid=$!
lat=$(q 2>&1 <<'SQL'
DO $$
DECLARE p int; t0 timestamptz; waited int := 0;
BEGIN
    LOOP
        PERFORM pg_stat_clear_snapshot();
        SELECT pid INTO p FROM pg_stat_activity WHERE application_name = 'ts_s3f_cancel' AND state = 'active';
        EXIT WHEN p IS NOT NULL OR waited > 10000;
        PERFORM pg_sleep(0.01); waited := waited + 10;
    END LOOP;
    IF p IS NULL THEN RAISE EXCEPTION 'query never started'; END IF;
    PERFORM pg_sleep(1);
    t0 := clock_timestamp();
    PERFORM pg_cancel_backend(p);
    LOOP
        PERFORM pg_stat_clear_snapshot();
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = p AND state = 'active');
        EXIT WHEN clock_timestamp() - t0 > interval '20 s';
        PERFORM pg_sleep(0.001);
    END LOOP;
    RAISE NOTICE 'latency %', round(extract(epoch FROM clock_timestamp() - t0) * 1000, 1);
END $$;
SQL
)
wait $apid
lat=$(printf '%s\n' "$lat" | sed -n 's/.*latency \([0-9.]*\).*/\1/p')
if grep -q 'canceling statement due to user request' "$W/cancel.out" && tail -1 "$W/cancel.out" | grep -qx alive &&
   [ -n "$lat" ] && python3 -c "exit(0 if $lat < 5000 else 1)"; then
    ok "pg_cancel_backend stops a stalled concurrent batch (latency ${lat} ms), session usable"
    echo "cancel latency (s3 batch, pg_cancel_backend): ${lat} ms"
else
    fail "pg_cancel_backend during a stalled batch: $(tr '\n' ' ' < "$W/cancel.out" | cut -c1-300) latency=$lat"
fi
chaos "reset=1&rate=0&doom=&stallre=" >/dev/null

c=$(crashes)
[ "$c" = "$CRASHES0" ] && ok "no backend terminated by a signal (server log ${LOG:-not found})" ||
    fail "$((c - CRASHES0)) backends terminated by a signal (server log $LOG)"
q -c "DROP SCHEMA IF EXISTS s3 CASCADE" -c "DROP SCHEMA IF EXISTS loc CASCADE" \
  -c "DROP SERVER IF EXISTS s3f_loc CASCADE" -c "DROP SERVER IF EXISTS s3f_s3 CASCADE" >/dev/null 2>&1
kill $PROXY 2>/dev/null
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
