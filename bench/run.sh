#!/bin/bash
# bench/run.sh SIZE - tablescan_fdw benchmarks, side by side, as ratios.
#
#   bash bench/run.sh [tiny|small|default]      (make bench SIZE=...)
#
# Builds and installs the extension and our tools, generates Paimon tables with
# our own generator (src/tools/ts_gen: Avro data files, zstd), starts a
# throwaway cluster (pg_virtualenv -t -v 15), loads the same rows into a heap
# table by COPY, has DuckDB (npm @duckdb/node-api, threads=1) write them as
# Parquet (zstd, Paimon field ids) which bench/ts_pq_register registers as a
# Paimon table, and prints the figures: scan queries (foreign vs heap vs
# DuckDB), a primary-key table read by merge-on-read and the same table
# compacted (each vs a heap table of its rows), planning over many
# files/partitions, backend peak RSS.  Writes
# them to bench/RESULTS.md.  Benchmarks print figures only: nothing here
# asserts a time.
#
#   tiny     20 k rows, 1,000 files planning table: < 1 minute (what CI runs)
#   small    1 M rows, 10,000 files over 1,000 partitions x 16 buckets
#   default  10 M rows, the same planning table: a few minutes on 2 cores
#
# Environment: BENCH_DIR (work dir, default /tmp/tablescan_bench),
# BENCH_RUNS (best of N, default 3), BENCH_NO_INSTALL=1 to skip
# building/installing the extension (otherwise the whole bench holds the
# install lock, see below), BENCH_RESULTS (default bench/RESULTS.md;
# build/bench/RESULTS-tiny.md for tiny), BENCH_PERF=1 to add a perf (cpu-clock)
# profile of the backend during the full scans, BENCH_ROWS to change the
# size's rows, BENCH_ONLY=group for the GROUP BY / filtered / top-N section
# and the every-column aggregate alone (medians; no primary-key, planning or
# memory figures; results to build/bench/RESULTS-group.md unless BENCH_RESULTS).
set -euo pipefail
cd "$(dirname "$0")/.."
# Installing replaces the one installed library every cluster of this machine
# loads: a test suite running meanwhile would test this build.  So the bench
# (install and run) holds the install lock the helpers' test runs take
# (TS_INSTALL_LOCK, default /tmp/ts-install.lock); the test command itself
# installs first and runs the bench with BENCH_NO_INSTALL=1.
if [ "${BENCH_NO_INSTALL:-0}" != 1 ] && [ -z "${TS_BENCH_LOCKED:-}" ] && command -v flock >/dev/null; then
    export TS_BENCH_LOCKED=1
    exec flock "${TS_INSTALL_LOCK:-/tmp/ts-install.lock}" bash "$(pwd)/bench/run.sh" "$@"
fi
ROOT=$(pwd)
SIZE=${1:-${SIZE:-default}}
case "$SIZE" in
    tiny)    ROWS=20000;    FILES=2;  PARTS=100;  PLAN_ROWS=100;  PQ_FILES=2;  PK_KEYS=5000;    RUNS=${BENCH_RUNS:-3} ;;
    small)   ROWS=1000000;  FILES=4;  PARTS=1000; PLAN_ROWS=1000; PQ_FILES=4;  PK_KEYS=250000;  RUNS=${BENCH_RUNS:-3} ;;
    default) ROWS=10000000; FILES=10; PARTS=1000; PLAN_ROWS=1000; PQ_FILES=10; PK_KEYS=1000000; RUNS=${BENCH_RUNS:-3} ;;
    *) echo "usage: bench/run.sh [tiny|small|default]" >&2; exit 2 ;;
esac
ROWS=${BENCH_ROWS:-$ROWS}
ONLY=${BENCH_ONLY:-}
case "$ONLY" in ''|group) ;; *) echo "BENCH_ONLY: group or nothing" >&2; exit 2 ;; esac
ROWS_M=$((ROWS / 10))             # the smaller table of the memory figure
# tiny: Parquet row groups of 2048 rows, so that even CI's scan reads row groups ahead
PQ_ROW_GROUP=""; [ "$SIZE" = tiny ] && PQ_ROW_GROUP=2048
BUCKETS=16; SNAPS=10              # planning table: PARTS x BUCKETS, SNAPS commits of PLAN_ROWS rows
PK_BUCKETS=4; PK_SNAPS=4          # primary-key table: PK_SNAPS commits of PK_KEYS records, no compaction
W=${BENCH_DIR:-/tmp/tablescan_bench}
# tiny (CI) leaves the committed bench/RESULTS.md alone
if [ "$ONLY" = group ]; then RESULTS=${BENCH_RESULTS:-$ROOT/build/bench/RESULTS-group.md}
elif [ "$SIZE" = tiny ]; then RESULTS=${BENCH_RESULTS:-$ROOT/build/bench/RESULTS-tiny.md}
else RESULTS=${BENCH_RESULTS:-$ROOT/bench/RESULTS.md}; fi
BUILD=${BENCH_BUILD:-build}             # the tools of `make tools` (what the test command builds)
BIN=$BUILD/bench                        # bench binaries (make bench-bins)
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
log() { printf '[bench %s] %s\n' "$(date +%T)" "$*" >&2; }

# ---- build -----------------------------------------------------------------
if [ "${BENCH_NO_INSTALL:-0}" != 1 ]; then
    log "building and installing the extension"
    make -s -j2 >/dev/null
    $SUDO make -s install >/dev/null
fi
# bench-bins: ts_pq_register, and ts_scan_bench (the server-free scan without
# printing: the profiler target, see bench/ts_scan_bench.c)
make -s -j2 BUILD=$BUILD tools bench-bins >/dev/null
if [ ! -d bench/node_modules/@duckdb/node-api ]; then
    log "npm install (bench/node_modules)"
    (cd bench && npm install --no-audit --no-fund --silent >/dev/null)
fi

# ---- data ------------------------------------------------------------------
rm -rf "$W"; mkdir -p "$W/wh/bench.db"
WH=$W/wh/bench.db
LONGCOL=long_text_column_whose_values_are_about_sixty_characters_long
COLS=(--column 'id:INT NOT NULL' --column big:BIGINT --column d:DOUBLE
      --column 'amount:DECIMAL(18, 4)' --column s:STRING --column "$LONGCOL:STRING"
      --column 'ts:TIMESTAMP(6)' --column day:DATE)
NCOLS=8
log "ts_gen: scan ($ROWS rows, $FILES files), scan_m ($ROWS_M rows), plan ($PARTS partitions x $BUCKETS buckets, $SNAPS commits)"
t0=$(date +%s%N)
$BUILD/tools/ts_gen "$WH/scan" "${COLS[@]}" --rows $ROWS --files $FILES --null-every 7 >/dev/null
GEN_S=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
PLAN_FILES=0
if [ "$ONLY" != group ]; then
    $BUILD/tools/ts_gen "$WH/scan_m" "${COLS[@]}" --rows $ROWS_M --files $FILES --null-every 7 >/dev/null
    $BUILD/tools/ts_gen "$WH/plan" --column 'id:INT NOT NULL' --column p:INT --column v:STRING \
        --partition p --partitions $PARTS --buckets $BUCKETS --bucket-key id \
        --rows $PLAN_ROWS --snapshots $SNAPS >/dev/null
    PLAN_FILES=$(find "$WH/plan" -name '*.avro' | wc -l)
    # a primary-key table read by merge-on-read: every commit a level-0 sorted run per bucket
    log "ts_gen: pk ($PK_SNAPS commits of $PK_KEYS records over $PK_KEYS keys, $PK_BUCKETS buckets)"
    $BUILD/tools/ts_gen "$WH/pk" "${COLS[@]}" --primary-key id --buckets $PK_BUCKETS \
        --rows $PK_KEYS --snapshots $PK_SNAPS --keys $PK_KEYS --null-every 7 --no-ops >/dev/null
    # the same commits, then one full compaction (deletion vectors on): read without merging
    log "ts_gen: pkc (the same commits, compacted once at the end, deletion vectors on)"
    $BUILD/tools/ts_gen "$WH/pkc" "${COLS[@]}" --primary-key id --buckets $PK_BUCKETS \
        --rows $PK_KEYS --snapshots $PK_SNAPS --keys $PK_KEYS --null-every 7 --no-ops \
        --levels 1 --compact-every $PK_SNAPS --deletion-vectors >/dev/null
fi
# the Parquet table: schema from ts_gen (1 row; its data file is dropped), data from DuckDB
$BUILD/tools/ts_gen "$WH/scan_pq" "${COLS[@]}" --rows 1 >/dev/null
rm -rf "$WH/scan_pq/bucket-0" "$WH/scan_pq/manifest" "$WH/scan_pq/snapshot"
sed -i 's/"file.format":\t"avro"/"file.format":\t"parquet"/' "$WH/scan_pq/schema/schema-0"
mkdir -p "$WH/scan_pq/bucket-0"
# the GROUP BY table: the same rows' id, big, d, s, day with g = id % 10 and
# k = id % 10000 in front, Parquet written by DuckDB (bench/pg.sh)
GCOLS=(--column 'g:INT NOT NULL' --column 'k:INT NOT NULL' --column 'id:INT NOT NULL'
       --column big:BIGINT --column d:DOUBLE --column s:STRING --column day:DATE)
$BUILD/tools/ts_gen "$WH/grp" "${GCOLS[@]}" --rows 1 >/dev/null
rm -rf "$WH/grp/bucket-0" "$WH/grp/manifest" "$WH/grp/snapshot"
sed -i 's/"file.format":\t"avro"/"file.format":\t"parquet"/' "$WH/grp/schema/schema-0"
mkdir -p "$WH/grp/bucket-0"
chmod -R a+rwX "$W"

cat > "$W/env.sh" <<EOF
ROOT='$ROOT'; W='$W'; WH='$WH'; BUILD='$BUILD'; BIN='$BIN'; SIZE='$SIZE'; ROWS=$ROWS; ROWS_M=$ROWS_M
FILES=$FILES; PQ_FILES=$PQ_FILES; RUNS=$RUNS; NCOLS=$NCOLS; LONGCOL='$LONGCOL'
PARTS=$PARTS; BUCKETS=$BUCKETS; SNAPS=$SNAPS; PLAN_FILES=$PLAN_FILES; GEN_S=$GEN_S; RESULTS='$RESULTS'
PK_KEYS=$PK_KEYS; PK_BUCKETS=$PK_BUCKETS; PK_SNAPS=$PK_SNAPS; PQ_ROW_GROUP='$PQ_ROW_GROUP'; ONLY='$ONLY'
EOF
log "starting a throwaway cluster"
cp bench/pg.sh "$W/pg.sh"          # a copy: bash reads scripts as it runs them
pg_virtualenv -t -v 15 bash "$W/pg.sh" "$W/env.sh"
log "wrote $RESULTS"
