#!/bin/bash
# bench/csv_pg.sh FILE RUNS [FORMAT] - the part of bench/csv.sh that runs
# inside the throwaway cluster: a format table (csv, json or text) over FILE's
# directory, the benchmark query serially (aggregates in the scan, and by
# PostgreSQL) and with 2 workers (again in a new backend per run: the
# leader's pass that cuts a CSV file at record starts is then never
# cached); prints "label<TAB>best ms<TAB>result" per run.
# Not meant to be run by hand.
set -euo pipefail
file=$1
runs=$2
format=${3:-csv}
q() { psql -X -At -q -v ON_ERROR_STOP=1 "$@"; }
q <<SQL
CREATE EXTENSION tablescan_fdw;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw;
CREATE FOREIGN TABLE csv (id integer, big bigint, amount numeric(18,4), s text, day date, ts timestamp)
  SERVER lake OPTIONS (path '$(dirname "$file")', format '$format');
CREATE FOREIGN TABLE lines (line text) SERVER lake OPTIONS (path '$(dirname "$file")', format 'text');
SQL
query="SELECT count(*), sum(id), sum(big), sum(amount), max(s), max(day), max(ts) FROM csv"
[ "$format" = text ] && query="SELECT count(*), max(line), sum(octet_length(line)) FROM lines"
# best of RUNS in one backend, psql \timing
time_query() {
    local label=$1 settings=$2 out
    out=$( { echo "$settings"; echo '\timing on'; for _ in $(seq "$runs"); do echo "$query;"; done; } |
        psql -X -At -q -v ON_ERROR_STOP=1 2>&1)
    printf '%s\t%s\t%s\n' "$label" \
        "$(grep -o '^Time: [0-9.]*' <<<"$out" | awk '{print $2}' | sort -g | head -1)" \
        "$(grep -v '^Time:' <<<"$out" | head -1 | tr '|' ',')"
}
base="SET jit = off; SET max_parallel_workers_per_gather = 0;"
time_query serial "$base"
time_query serial_executor_aggregates "$base SET tablescan.enable_aggregate_pushdown = off;"
# two of the six columns: what a projection saves the reader
[ "$format" = text ] || query="SELECT sum(big), max(s) FROM csv" time_query serial_two_columns "$base"
time_query workers2 "SET jit = off; SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
  SET min_parallel_table_scan_size = 0; SET tablescan.enable_aggregate_pushdown = off;"
# a new backend per run: nothing cached (the CSV part starts included)
cold="SET jit = off; SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0;
  SET min_parallel_table_scan_size = 0; SET tablescan.enable_aggregate_pushdown = off;"
out=$(for _ in $(seq "$runs"); do
    { echo "$cold"; echo '\timing on'; echo "$query;"; } | psql -X -At -q -v ON_ERROR_STOP=1 2>&1
done)
printf '%s\t%s\t%s\n' workers2_new_backend \
    "$(grep -o '^Time: [0-9.]*' <<<"$out" | awk '{print $2}' | sort -g | head -1)" \
    "$(grep -v '^Time:' <<<"$out" | head -1 | tr '|' ',')"
