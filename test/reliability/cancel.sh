#!/bin/bash
# cancel.sh - statement_timeout and pg_cancel_backend stop a long scan.
#
# Two generated tables: "big" (many rows: the time goes to reading data
# files) and "many" (many snapshots: the time goes to planning, i.e. reading
# a manifest list of thousands of manifests, with the live-entry cache off).  For each table and each way
# of canceling, the query must end with SQLSTATE 57014 and the same session
# must answer the next query.  The cancel latency is measured and printed
# (no timed assertion):
#   statement_timeout: elapsed time of the query minus the timeout (client side)
#   pg_cancel_backend: from the cancel call until the backend is no longer
#                      active (server side, polled from a second session)
source "$(dirname "$0")/lib.sh"
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch cancel)
BIG_ROWS=${CANCEL_BIG_ROWS:-2000000}
MANY_SNAPSHOTS=${CANCEL_SNAPSHOTS:-6000}

$GEN "$W/big" --column 'id:BIGINT NOT NULL' --column name:STRING --column v:DOUBLE \
    --rows "$BIG_ROWS" --files 8 >/dev/null || { fail "ts_gen big"; summary; exit 1; }
$GEN "$W/many" --column 'id:INT NOT NULL' --column name:STRING \
    --rows 2 --snapshots "$MANY_SNAPSHOTS" >/dev/null || { fail "ts_gen many"; summary; exit 1; }
chmod -R a+rX "$W"
q -c "DROP FOREIGN TABLE IF EXISTS cancel_big, cancel_many" \
  -c "CREATE FOREIGN TABLE cancel_big (id bigint, name text, v float8) SERVER rel OPTIONS (path '$W/big')" \
  -c "CREATE FOREIGN TABLE cancel_many (id int, name text) SERVER rel OPTIONS (path '$W/many')" >/dev/null 2>&1

# the query of each table: something the scan itself has to work for
declare -A QUERY=(
    [big]="SELECT count(*), sum(length(name)), sum(v) FROM cancel_big"
    [many]="SET tablescan.cache_size = 0; SELECT count(id) FROM cancel_many"
    [parallel]="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET max_parallel_workers_per_gather = 2;
                SELECT count(*), sum(length(name)), sum(v) FROM cancel_big"
)

# "parallel": the big table read by a Parallel Foreign Scan (the leader and
# two workers): a cancel of the leader stops the workers too
if q -c "SET parallel_setup_cost = 0" -c "SET parallel_tuple_cost = 0" -c "SET max_parallel_workers_per_gather = 2" \
     -c "EXPLAIN SELECT count(*), sum(length(name)), sum(v) FROM cancel_big" | grep -q 'Parallel Foreign Scan'; then
    ok "parallel: the big table is read by a Parallel Foreign Scan"
else
    fail "parallel: no Parallel Foreign Scan for the big table"
fi

for t in big many parallel; do
    # how long the full query takes (for the record, and to pick the timeout)
    q -c "${QUERY[$t]}" >/dev/null 2>&1    # warm the page cache first
    # the query's own time, inside the session (not the connection's)
    out=$(q -c "SELECT extract(epoch FROM clock_timestamp())" -c "${QUERY[$t]}" \
            -c "SELECT extract(epoch FROM clock_timestamp())" 2>&1)
    full=$(printf '%s\n' "$out" | sed -n 2p)
    full_ms=$(python3 -c "print(int(($(printf '%s\n' "$out" | sed -n 3p) - $(printf '%s\n' "$out" | sed -n 1p)) * 1000))")
    echo "# $t: full query $full_ms ms ($full)"
    # a cancel needs a query that runs a while (statement_timeout a third of it, the cancel
    # sent after a quarter at most, retried sooner): 40 ms is enough (it was 100, which a
    # faster machine's 98 ms plan and read of the 6,000 snapshots failed)
    if [ "$full_ms" -lt 40 ]; then
        fail "$t: the query is too short ($full_ms ms) to test a cancel"
        continue
    fi
    timeout_ms=$(( full_ms / 3 )); [ $timeout_ms -gt 1000 ] && timeout_ms=1000

    # 1. statement_timeout
    out=$(q -v VERBOSITY=verbose -c "SET statement_timeout = '${timeout_ms}ms'" \
            -c "SELECT extract(epoch FROM clock_timestamp())" \
            -c "${QUERY[$t]}" \
            -c "SELECT extract(epoch FROM clock_timestamp())" \
            -c "RESET statement_timeout" -c "SELECT 'alive'" 2>&1)
    start=$(printf '%s\n' "$out" | sed -n 1p); end=$(printf '%s\n' "$out" | grep -E '^[0-9]+\.[0-9]+$' | tail -1)
    if printf '%s\n' "$out" | grep -q '57014' && printf '%s\n' "$out" | tail -1 | grep -qx alive; then
        lat=$(python3 -c "print(round(($end - $start) * 1000 - $timeout_ms, 1))")
        ok "$t: statement_timeout ${timeout_ms} ms canceled the scan (SQLSTATE 57014), session usable; latency ~${lat} ms"
        echo "cancel latency ($t, statement_timeout): ${lat} ms"
    else
        fail "$t: statement_timeout: $(printf '%s' "$out" | tr '\n' ' ' | cut -c1-300)"
    fi

    # 2. pg_cancel_backend from a second session, once the query has run
    #    for a while (retried with a shorter wait if it finished first)
    delay=$(python3 -c "print(min($full_ms / 4000, 0.3))")
    for attempt in 1 2 3; do
        outf=$W/out_$t
        PGAPPNAME=ts_cancel_$t q -v VERBOSITY=verbose -c "${QUERY[$t]}" -c "SELECT 'alive'" >"$outf" 2>&1 &
        apid=$!
        lat=$(q 2>&1 <<SQL
DO \$\$
DECLARE
    p int;
    t0 timestamptz;
    waited int := 0;
BEGIN
    LOOP    -- wait for the query to be running
        PERFORM pg_stat_clear_snapshot();
        SELECT pid INTO p FROM pg_stat_activity
         WHERE application_name = 'ts_cancel_$t' AND state = 'active';
        EXIT WHEN p IS NOT NULL OR waited > 10000;
        PERFORM pg_sleep(0.002); waited := waited + 2;
    END LOOP;
    IF p IS NULL THEN RAISE EXCEPTION 'query never started'; END IF;
    PERFORM pg_sleep($delay);
    t0 := clock_timestamp();
    PERFORM pg_cancel_backend(p);
    LOOP
        PERFORM pg_stat_clear_snapshot();
        EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = p AND state = 'active');
        EXIT WHEN clock_timestamp() - t0 > interval '30 s';
        PERFORM pg_sleep(0.001);
    END LOOP;
    RAISE NOTICE 'latency %', round(extract(epoch FROM clock_timestamp() - t0) * 1000, 1);
END \$\$;
SQL
)
        wait $apid
        grep -q '57014' "$outf" && break
        echo "# $t: the query finished before the cancel (attempt $attempt, waited ${delay} s)"
        delay=$(python3 -c "print($delay / 3)")
    done
    lat=$(printf '%s\n' "$lat" | sed -n 's/.*latency \([0-9.]*\).*/\1/p')
    if grep -q '57014' "$outf" && tail -1 "$outf" | grep -qx alive && [ -n "$lat" ]; then
        ok "$t: pg_cancel_backend canceled the scan (SQLSTATE 57014), session usable; latency ${lat} ms"
        echo "cancel latency ($t, pg_cancel_backend): ${lat} ms"
    else
        fail "$t: pg_cancel_backend: $(tr '\n' ' ' < "$outf" | cut -c1-300) latency=$lat"
    fi
done
q -c "DROP FOREIGN TABLE IF EXISTS cancel_big, cancel_many" >/dev/null 2>&1
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
