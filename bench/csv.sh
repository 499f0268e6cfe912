#!/bin/bash
# bench/csv.sh [ROWS] - CSV (or JSON-lines) format-table read speed (issue
# 41), figures only.  FORMAT=json benches the same rows as JSON lines (one
# object per row, a NULL as null; ~315 MB for the default rows) against
# DuckDB's read_json; FORMAT=text the CSV file's bytes as a TEXT file (one
# string column, the line: count, max and the sum of byte lengths) against
# DuckDB's read_csv of one column.
#
# Writes a CSV file of ROWS rows (default 2,500,000: ~200 MB; id INT, big
# BIGINT, amount DECIMAL(18,4), s STRING, day DATE, ts TIMESTAMP, one value
# in seven empty = NULL) with bench/ts_csv_bench.c, then times one query that
# reads every column (count and sum/max of each), and one of two columns
# (sum(big), max(s)), serially:
#   - core: the CSV reader alone, no server (ts_csv_bench read), MB/s;
#   - DuckDB read_csv (read_json) with 1 and with 2 threads (npm @duckdb/node-api);
#   - PostgreSQL (pg_virtualenv, the extension installed under the machine's
#     install lock /tmp/ts-install.lock): a serial scan with the aggregates
#     computed in the scan (the default), one with PostgreSQL's executor
#     computing them, and a parallel scan of 2 workers (the file read in
#     parts of tablescan.parallel_task_size).
# Best of RUNS (default 3) runs each; MB/s = file size / time.  CSV_BENCH_SO=
# path installs that tablescan_fdw.so instead of this tree's build, and
# CSV_BENCH_LIB=path links the core reader with that libts.a (the "before"
# figures of another build); NO_PG=1 skips PostgreSQL.
set -euo pipefail
ROWS=${1:-2500000}
RUNS=${RUNS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FORMAT=${FORMAT:-csv}
case $FORMAT in csv|json|text) ;; *) echo "FORMAT must be csv, json or text" >&2; exit 2 ;; esac
W=${CSV_BENCH_DIR:-/tmp/ts-$FORMAT-bench}
cd "$ROOT"
log() { printf '[csv %s] %s\n' "$(date +%T)" "$*" >&2; }
mbs() { awk -v b="$1" -v ms="$2" 'BEGIN { printf "%.1f", b / 1e6 / (ms / 1000) }'; }

log "building"
make -s -j2 core bench-bins >/dev/null
CSVB=build/bench/ts_csv_bench
if [ -n "${CSV_BENCH_LIB:-}" ]; then
    CSVB=build/bench/ts_csv_bench_other
    cc -std=gnu11 -O2 -Wall -Isrc -I/usr/include/cjson bench/ts_csv_bench.c -o $CSVB \
        "$CSV_BENCH_LIB" $(make -s --no-print-directory print-libs)
fi
file=$W/$FORMAT/part-0.${FORMAT/text/txt}
if [ ! -f "$file" ] || [ "$(cat "$W/rows" 2>/dev/null)" != "$ROWS" ]; then
    log "writing $ROWS rows"
    rm -rf "$W"; mkdir -p "$W/$FORMAT"
    $CSVB gen "$ROWS" "$file"
    echo "$ROWS" > "$W/rows"
    chmod -R a+rX "$W"
fi
bytes=$(stat -c %s "$file")
echo "file: $file, $ROWS rows, $bytes bytes; best of $RUNS runs"

best=
for _ in $(seq "$RUNS"); do
    s=$($CSVB read "$file" | awk '{ print $6 * 1000 }')
    best=$(printf '%s\n%s\n' "$best" "$s" | grep . | sort -g | head -1)
done
printf 'core reader (no server)\t%s ms\t%s MB/s\n' "$best" "$(mbs "$bytes" "$best")"

# the pass a parallel scan's leader makes first to cut the file at record
# starts (13 parts of 16MB), nothing cached: its cost against the parse
best=
[ "$FORMAT" = csv ] && for _ in $(seq "$RUNS"); do
    s=$($CSVB starts "$file" 13 | awk '{ print $4 * 1000 }')
    best=$(printf '%s\n%s\n' "$best" "$s" | grep . | sort -g | head -1)
done
[ "$FORMAT" = csv ] && printf 'CSV part starts pass, 13 parts (no server)\t%s ms\t%s MB/s\n' "$best" "$(mbs "$bytes" "$best")"

[ -d bench/node_modules/@duckdb/node-api ] || (cd bench && npm install --no-audit --no-fund --silent >/dev/null)
duck=read_$FORMAT
[ "$FORMAT" = text ] && duck="read_csv of one column"
for t in 1 2; do
    r=$(cd bench && node csv_duck.mjs "$file" "$RUNS" "$t" "$FORMAT")
    all=$(head -1 <<<"$r"); two=$(tail -1 <<<"$r")
    printf 'DuckDB %s, %s thread(s)\t%s ms\t%s MB/s\t%s\n' "$duck" "$t" "${all%%	*}" "$(mbs "$bytes" "${all%%	*}")" "${all#*	}"
    [ "$FORMAT" = text ] ||
    printf 'DuckDB %s, %s thread(s), two columns\t%s ms\t%s MB/s\t%s\n' "$duck" "$t" "${two%%	*}" "$(mbs "$bytes" "${two%%	*}")" "${two#*	}"
done

[ -n "${NO_PG:-}" ] && exit 0
log "installing and running PostgreSQL (waits for /tmp/ts-install.lock)"
make -s -j2 >/dev/null
CSV_BENCH_SO=${CSV_BENCH_SO:-} flock /tmp/ts-install.lock bash -c '
  make -s install >/dev/null
  if [ -n "$CSV_BENCH_SO" ]; then install -m 755 "$CSV_BENCH_SO" "$(pg_config --pkglibdir)/tablescan_fdw.so"; fi
  pg_virtualenv -t -v 15 bash bench/csv_pg.sh "'"$file"'" "'"$RUNS"'" "'"$FORMAT"'"' |
while IFS=$'\t' read -r label ms result; do
    [ -n "$ms" ] || continue
    printf 'PostgreSQL %s\t%s ms\t%s MB/s\t%s\n' "$label" "$ms" "$(mbs "$bytes" "$ms")" "$result"
done
