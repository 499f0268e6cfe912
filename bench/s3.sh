#!/bin/bash
# s3.sh - object store vs local: plan and full-scan times of the same tables
# read from the local fixture warehouse and from the test object store
# (test/s3/proxy.mjs: s3rver behind the SigV4-checking proxy) with 0 ms and
# 20 ms added to every request; prints figures, asserts nothing.  A plan-only
# table of 1,000 manifests (bench.db/manifests_1000: ts_gen's 1,000 one-row
# commits, pruned to the last snapshot, its manifest lists and the manifests)
# is planned too.  Plans over s3 run cold (three times with the live
# manifest-entry cache on: the first is cold, the others warm), and with the
# on-disk metadata cache (empty, then filled by a previous process).  A
# larger table, bench.db/pq_big (ts_gen: 1,000,000 rows of 4 columns in 96
# uncompressed Parquet files of ~0.46 MB, 16 buckets: 44 MB, two windows of
# files fetched ahead), is fully scanned only, local and s3, three times
# each: the reads the issue's target (a full scan within 1.5x of local at
# 20 ms) can be judged on.
#   bash bench/s3.sh [FIXTURES_DIR]     (default /tmp/tablescan_fdw_fixtures)
set -euo pipefail
cd "$(dirname "$0")/.."
FIX=${1:-${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}}
BUILD=${BUILD:-build}
make -s -j2 BUILD=$BUILD core tools >/dev/null
mkdir -p $BUILD/bench
cc -std=gnu11 -O2 -g -Wall -Werror -Isrc -I/usr/include/cjson bench/ts_scan_bench.c \
   -o $BUILD/bench/ts_scan_bench $BUILD/libts.a \
   -lcjson -lzstd -lsnappy -llz4 -lz -lbz2 -lroaring -lcurl -lxml2 -lcrypto -lm
[ -d test/s3/node_modules/s3rver ] || (cd test/s3 && npm install --no-audit --no-fund >/dev/null)
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
TABLES=(sales.db/orders pk.db/pk_dedup_dv types.db/all_types)
M=/tmp/tablescan_fdw_s3_bench_m1000/bench.db/manifests_1000
if [ ! -f $M/snapshot/snapshot-1000 ]; then
    rm -rf $M
    $BUILD/tools/ts_gen $M --column id:INT --column v:STRING --rows 3 --snapshots 1000 >/dev/null
    keep=" $(grep -o 'manifest-list-[^"]*' $M/snapshot/snapshot-1000 | tr '\n' ' ') "
    find $M/snapshot -name 'snapshot-*' ! -name snapshot-1000 -delete
    printf 1000 > $M/snapshot/EARLIEST
    for f in $M/manifest/manifest-list-*; do
        case "$keep" in *" $(basename $f) "*) ;; *) rm $f ;; esac
    done
    rm -rf $M/bucket-0
fi
B=/tmp/tablescan_fdw_s3_bench_pq/bench.db/pq_big
if [ ! -f $B/snapshot/snapshot-1 ]; then
    rm -rf $B
    $BUILD/tools/ts_gen $B --format parquet --column id:BIGINT --column name:STRING \
        --column amount:DOUBLE --column note:STRING --buckets 16 --bucket-key id --files 6 \
        --rows 1000000 >/dev/null
fi
for delay in 0 20; do
    D=/tmp/tablescan_fdw_s3_bench
    ups=()
    for t in "${TABLES[@]}"; do [ -d "$FIX/warehouse/$t" ] && ups+=(--upload "bench/$t=$FIX/warehouse/$t"); done
    ups+=(--upload "bench/bench.db/manifests_1000=$M" --upload "bench/bench.db/pq_big=$B")
    node test/s3/proxy.mjs --dir "$D" --delay "$delay" "${ups[@]}" > "$D.port" 2> "$D.log" &
    pid=$!
    trap 'kill $pid 2>/dev/null || true' EXIT
    for _ in $(seq 1 300); do [ -s "$D.port" ] && break; sleep 0.1; done
    export TS_S3_ENDPOINT=http://127.0.0.1:$(cat "$D.port")
    echo "== added latency per request: $delay ms"
    for t in "${TABLES[@]}"; do
        [ -d "$FIX/warehouse/$t" ] || continue
        echo "-- $t"
        printf 'local: '; $BUILD/bench/ts_scan_bench "$FIX/warehouse/$t" | head -1
        printf 's3   : '; $BUILD/bench/ts_scan_bench "s3://bench/$t" | tr '\n' ' '; echo
        printf 'plan local: '; $BUILD/bench/ts_scan_bench "$FIX/warehouse/$t" --plan-only 1 | head -1
        printf 'plan s3   : '; $BUILD/bench/ts_scan_bench "s3://bench/$t" --plan-only 3 --cache 64 | tr '\n' ' '; echo
        # the on-disk metadata cache: a first process fills it, a second one (cold in memory) reads it
        MC=/tmp/tablescan_fdw_s3_bench_mcache; rm -rf "$MC"
        printf 'plan s3, metadata cache empty: '
        $BUILD/bench/ts_scan_bench "s3://bench/$t" --plan-only 1 --metadata-cache "$MC" | tr '\n' ' '; echo
        printf 'plan s3, metadata cache filled (new process): '
        $BUILD/bench/ts_scan_bench "s3://bench/$t" --plan-only 1 --metadata-cache "$MC" | tr '\n' ' '; echo
        printf 'plan s3, warm (in-memory manifest cache): '
        $BUILD/bench/ts_scan_bench "s3://bench/$t" --plan-only 5 --cache 64 | tr '\n' ' '; echo
        rm -rf "$MC"
    done
    echo "-- bench.db/pq_big (44 MB of Parquet in 96 files, full scans)"
    for _ in 1 2 3; do
        printf 'local: '; $BUILD/bench/ts_scan_bench "$B" | head -1
        printf 's3   : '; $BUILD/bench/ts_scan_bench "s3://bench/bench.db/pq_big" | tr '\n' ' '; echo
    done
    echo "-- bench.db/manifests_1000 (1,000 manifests, plan only)"
    printf 'plan local: '; $BUILD/bench/ts_scan_bench "$M" --plan-only 1 | head -1
    printf 'plan s3   : '; $BUILD/bench/ts_scan_bench "s3://bench/bench.db/manifests_1000" --plan-only 3 --cache 64 | tr '\n' ' '; echo
    kill $pid; wait $pid 2>/dev/null || true
done
