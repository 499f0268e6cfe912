#!/bin/bash
# s3.sh - object store vs local: plan and full-scan times of the same tables
# read from the local fixture warehouse and from the test object store
# (test/s3/proxy.mjs: s3rver behind the SigV4-checking proxy) with 0 ms and
# 20 ms added to every request; prints figures, asserts nothing.  A plan-only
# table of 1,000 manifests (bench.db/manifests_1000: ts_gen's 1,000 one-row
# commits, pruned to the last snapshot, its manifest lists and the manifests)
# is planned too, also with 16, 32 and 64 requests in flight
# (TS_S3_MAX_IN_FLIGHT, as tablescan.s3_max_in_flight).  Plans over s3 run
# cold (three times with the live manifest-entry cache on: the first is cold,
# the others warm), and with the on-disk metadata cache (empty, then filled by
# a previous process).
# Large files (bench.db/orc_big: one 10.8 MB ORC file of 8 stripes;
# bench.db/avro_big: one 10.5 MB Avro file of ~170 zstd blocks; both
# written by ts_gen, larger than the 8 MiB a scan fetches whole; and
# bench.db/pq_rg: the same rows in one Parquet file of 8 row groups, whose
# next row group is read ahead while the current one is decoded) are read
# in full and by one column; bench.db/pk_dv (deletion vectors: 16 index
# files for 32 data files, all small) in full; bench.db/pq_mid and
# orc_mid (four buckets of one ~13.5 MB Parquet / ORC file each: files a
# scan of every column reads whole, fetched whole with the window of
# splits; by one column, each split's file's ends fetched while the split
# before is read) in full and by one column; bench.db/pk_runs (a primary-key
# table of four ~10 MB Parquet runs in one bucket, merged on read) in full
# and by one column.  With TS_SCAN_BENCH_BEFORE=<another build's
# ts_scan_bench>, their lines, the fixture tables' and the cold plan of
# manifests_1000 are also read by that binary in the same run, for a
# before/after on a shared machine.
# A larger table, bench.db/pq_big (ts_gen: 1,000,000 rows of 4 columns in 96
# uncompressed Parquet files of ~0.46 MB, 16 buckets: 44 MB, two windows of
# files fetched ahead), is fully scanned only, local and s3,
# TS_BENCH_PQ_RUNS times each (default 5; with TS_SCAN_BENCH_BEFORE also by
# that binary), with the medians and the load average: the reads the
# issue's target (a full scan within 1.5x of local at 20 ms) can be judged on.
#   bash bench/s3.sh [FIXTURES_DIR]     (default /tmp/tablescan_fdw_fixtures)
# TS_BENCH_TABLES="db/t ..." replaces the fixture tables read (default: orders, pk_dedup_dv, all_types).
# TS_BENCH_DELAYS="0 20 50" the added latencies (ms).  Every s3 line ends with
# the round trips the client waited for one after another ("waited N", the
# proxy's depth counter, test/s3/proxy.mjs /__latency) and the HEADs sent.
set -euo pipefail
cd "$(dirname "$0")/.."
FIX=${1:-${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}}
BUILD=${BUILD:-build}
make -s -j2 BUILD=$BUILD core tools bench-bins >/dev/null
[ -d test/s3/node_modules/s3rver ] || (cd test/s3 && npm install --no-audit --no-fund >/dev/null)
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
TABLES=(${TS_BENCH_TABLES:-sales.db/orders pk.db/pk_dedup_dv types.db/all_types})
M=/tmp/tablescan_fdw_s3_bench_m1000/bench.db/manifests_1000
[ -f $M/snapshot/snapshot-1000 ] || bash test/s3/manifests-table.sh 1000 $M $BUILD
# large files: several ORC stripes / many Avro blocks (deterministic)
B=/tmp/tablescan_fdw_s3_bench_big/bench.db
BIGCOLS=(--column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --column d:DOUBLE
         --column 'dec:DECIMAL(18, 2)' --column 'ts:TIMESTAMP(6)' --null-every 9)
[ -d $B/orc_big/schema ] || $BUILD/tools/ts_gen $B/orc_big --format orc --rows 300000 \
    --stripe-rows 40000 "${BIGCOLS[@]}" >/dev/null
[ -d $B/pq_rg/schema ] || $BUILD/tools/ts_gen $B/pq_rg --format parquet --rows 300000 \
    --row-group-rows 40000 "${BIGCOLS[@]}" >/dev/null
[ -d $B/avro_big/schema ] || $BUILD/tools/ts_gen $B/avro_big --rows 600000 "${BIGCOLS[@]}" >/dev/null
# four buckets of one ~13.5 MB Parquet file each: files a scan of every column reads whole
[ -d $B/pq_mid/schema ] || $BUILD/tools/ts_gen $B/pq_mid --format parquet --rows 1200000 --buckets 4 \
    --bucket-key id --row-group-rows 40000 "${BIGCOLS[@]}" >/dev/null
[ -d $B/orc_mid/schema ] || $BUILD/tools/ts_gen $B/orc_mid --format orc --rows 1200000 --buckets 4 \
    --bucket-key id --stripe-rows 40000 "${BIGCOLS[@]}" >/dev/null
# a primary-key table of four ~10 MB Parquet runs in one bucket, merged on read
[ -d $B/pk_runs/schema ] || $BUILD/tools/ts_gen $B/pk_runs --format parquet --column 'id:INT NOT NULL' \
    --column s:STRING --column bi:BIGINT --primary-key id --buckets 1 --rows 600000 --snapshots 4 \
    --keys 2000000 --no-ops >/dev/null
# deletion vectors: 16 (partition, bucket) pairs, an index file each, 32 data files with a DV
[ -d $B/pk_dv/schema ] || $BUILD/tools/ts_gen $B/pk_dv --column id:INT --column p:INT --column v:STRING \
    --column n:BIGINT --partition p --partitions 4 --primary-key id --buckets 4 --rows 400 --keys 300 \
    --files 2 --snapshots 6 --compact-every 2 --levels 3 --delete-every 6 --deletion-vectors --no-ops >/dev/null
BEFORE=${TS_SCAN_BENCH_BEFORE:-}
# seconds of a ts_scan_bench line: "read" or "total" (plan + read)
secs() { sed -n 's/.*plan \([0-9.]*\) s, read \([0-9.]*\) s.*/\1 \2/p' <<< "$2" |
         awk -v w="$1" '{ printf "%.3f", w == "read" ? $2 : $1 + $2 }'; }
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { if (NR) printf "%.3f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
P=/tmp/tablescan_fdw_s3_bench_pq/bench.db/pq_big
if [ ! -f $P/snapshot/snapshot-1 ]; then
    rm -rf $P
    $BUILD/tools/ts_gen $P --format parquet --column id:BIGINT --column name:STRING \
        --column amount:DOUBLE --column note:STRING --buckets 16 --bucket-key id --files 6 \
        --rows 1000000 >/dev/null
fi
# the proxy's count of the last command's round trips waited in turn, and its HEADs
waited() {
    local j d h
    j=$(curl -s "$TS_S3_ENDPOINT/__latency"); curl -s "$TS_S3_ENDPOINT/__latency?reset=1" >/dev/null
    d=$(sed -n 's/.*"depth":\([0-9]*\).*/\1/p' <<< "$j"); h=$(sed -n 's/.*"HEAD":\([0-9]*\).*/\1/p' <<< "$j")
    echo "waited ${d:-?}, HEAD ${h:-0}"
}
for delay in ${TS_BENCH_DELAYS:-0 20 50}; do
    D=/tmp/tablescan_fdw_s3_bench.$$
    ups=()
    for t in "${TABLES[@]}"; do [ -d "$FIX/warehouse/$t" ] && ups+=(--upload "bench/$t=$FIX/warehouse/$t"); done
    ups+=(--upload "bench/bench.db/manifests_1000=$M")
    ups+=(--upload "bench/bench.db/orc_big=$B/orc_big" --upload "bench/bench.db/avro_big=$B/avro_big"
          --upload "bench/bench.db/pq_rg=$B/pq_rg"
          --upload "bench/bench.db/pk_dv=$B/pk_dv" --upload "bench/bench.db/pq_mid=$B/pq_mid"
          --upload "bench/bench.db/orc_mid=$B/orc_mid" --upload "bench/bench.db/pk_runs=$B/pk_runs")
    ups+=(--upload "bench/bench.db/pq_big=$P")
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
        waited >/dev/null
        printf 's3   : '; $BUILD/bench/ts_scan_bench "s3://bench/$t" | tr '\n' ' '; waited
        if [ -n "$BEFORE" ]; then
            printf 's3 (before): '; $BEFORE "s3://bench/$t" | tr '\n' ' '; waited
        fi
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
    for t in orc_big pq_rg avro_big pk_dv pq_mid orc_mid pk_runs; do
        for cols in "" "-c id"; do
            [ "$t" = pk_dv ] && [ -n "$cols" ] && continue
            echo "-- bench.db/$t ${cols:-(all columns)}"
            printf 'local: '; $BUILD/bench/ts_scan_bench "$B/$t" $cols | head -1
            waited >/dev/null
            printf 's3   : '; $BUILD/bench/ts_scan_bench "s3://bench/bench.db/$t" $cols | tr '\n' ' '; waited
            if [ -n "$BEFORE" ]; then
                printf 's3 (before): '; $BEFORE "s3://bench/bench.db/$t" $cols | tr '\n' ' '; waited
            fi
        done
    done
    echo "-- bench.db/pq_big (44 MB of Parquet in 96 files, full scans; load average $(cut -d' ' -f1-3 /proc/loadavg))"
    lr=(); lt=(); sr=(); st=(); br=(); bt=()
    for _ in $(seq 1 "${TS_BENCH_PQ_RUNS:-5}"); do
        l=$($BUILD/bench/ts_scan_bench "$P" | head -1); echo "local: $l"
        lr+=("$(secs read "$l")"); lt+=("$(secs total "$l")")
        waited >/dev/null
        s=$($BUILD/bench/ts_scan_bench "s3://bench/bench.db/pq_big" | tr '\n' ' '); echo "s3   : $s $(waited)"
        sr+=("$(secs read "$s")"); st+=("$(secs total "$s")")
        if [ -n "$BEFORE" ]; then
            s=$($BEFORE "s3://bench/bench.db/pq_big" | tr '\n' ' '); echo "s3 (before): $s $(waited)"
            br+=("$(secs read "$s")"); bt+=("$(secs total "$s")")
        fi
    done
    echo "pq_big medians (read / plan + read): local $(median "${lr[@]}") / $(median "${lt[@]}") s," \
         "s3 $(median "${sr[@]}") / $(median "${st[@]}") s${BEFORE:+, s3 before $(median "${br[@]}") / $(median "${bt[@]}") s};" \
         "load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "-- bench.db/manifests_1000 (1,000 manifests, plan only)"
    printf 'plan local: '; $BUILD/bench/ts_scan_bench "$M" --plan-only 1 | head -1
    printf 'plan s3   : '; $BUILD/bench/ts_scan_bench "s3://bench/bench.db/manifests_1000" --plan-only 3 --cache 64 | tr '\n' ' '; echo
    waited >/dev/null
    printf 'cold plan s3: '; $BUILD/bench/ts_scan_bench "s3://bench/bench.db/manifests_1000" --plan-only 1 | tr '\n' ' '; waited
    if [ -n "$BEFORE" ]; then
        printf 'cold plan s3 (before): '; $BEFORE "s3://bench/bench.db/manifests_1000" --plan-only 1 | tr '\n' ' '; waited
    fi
    # the same cold plan with tablescan.s3_max_in_flight varied (the manifests all started at once)
    for n in 16 64 256 512 1024; do
        printf 'plan s3, %d in flight: ' $n
        TS_S3_MAX_IN_FLIGHT=$n $BUILD/bench/ts_scan_bench "s3://bench/bench.db/manifests_1000" --plan-only 1 | tr '\n' ' '; echo
    done
    kill $pid; wait $pid 2>/dev/null || true
    rm -rf "$D" "$D.port" "$D.log"
done
