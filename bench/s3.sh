#!/bin/bash
# s3.sh - object store vs local: plan and full-scan times of the same tables
# read from the local fixture warehouse and from the test object store
# (test/s3/proxy.mjs: s3rver behind the SigV4-checking proxy) with 0 ms and
# 20 ms added to every request; plans also with the on-disk metadata cache
# (empty, then filled by a previous process) and warm in memory; prints
# figures, asserts nothing.
#   bash bench/s3.sh [FIXTURES_DIR]     (default /tmp/tablescan_fdw_fixtures)
set -euo pipefail
cd "$(dirname "$0")/.."
FIX=${1:-${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}}
BUILD=${BUILD:-build}
make -s -j2 BUILD=$BUILD core >/dev/null
mkdir -p $BUILD/bench
cc -std=gnu11 -O2 -g -Wall -Werror -Isrc -I/usr/include/cjson bench/ts_scan_bench.c \
   -o $BUILD/bench/ts_scan_bench $BUILD/libts.a \
   -lcjson -lzstd -lsnappy -llz4 -lz -lbz2 -lroaring -lcurl -lxml2 -lcrypto -lm
[ -d test/s3/node_modules/s3rver ] || (cd test/s3 && npm install --no-audit --no-fund >/dev/null)
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
TABLES=(sales.db/orders pk.db/pk_dedup_dv types.db/all_types)
for delay in 0 20; do
    D=/tmp/tablescan_fdw_s3_bench
    ups=()
    for t in "${TABLES[@]}"; do [ -d "$FIX/warehouse/$t" ] && ups+=(--upload "bench/$t=$FIX/warehouse/$t"); done
    node test/s3/proxy.mjs --dir "$D" --delay "$delay" "${ups[@]}" > "$D.port" 2> "$D.log" &
    pid=$!
    for _ in $(seq 1 300); do [ -s "$D.port" ] && break; sleep 0.1; done
    export TS_S3_ENDPOINT=http://127.0.0.1:$(cat "$D.port")
    echo "== added latency per request: $delay ms"
    for t in "${TABLES[@]}"; do
        [ -d "$FIX/warehouse/$t" ] || continue
        echo "-- $t"
        printf 'local: '; $BUILD/bench/ts_scan_bench "$FIX/warehouse/$t" | head -1
        printf 's3   : '; $BUILD/bench/ts_scan_bench "s3://bench/$t" | tr '\n' ' '; echo
        printf 'plan local: '; $BUILD/bench/ts_scan_bench "$FIX/warehouse/$t" --plan-only 1 | head -1
        printf 'plan s3   : '; $BUILD/bench/ts_scan_bench "s3://bench/$t" --plan-only 1 | tr '\n' ' '; echo
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
    kill $pid; wait $pid 2>/dev/null || true
done
