#!/bin/bash
# latency.sh - round trips waited one after another, through the test proxy
# (proxy.mjs) with --delay 150 ms added to every request: its /__latency
# counter gives the depth of the critical path (a request is one deeper
# than the deepest one answered before it arrived), which does not depend
# on how fast this machine is.  The server-free scan (bench/ts_scan_bench)
# reads:
#   - sales.orders (36 small files, 12 splits): plan + full read in at most
#     6 round trips (LIST of schema/ with the LATEST hint; schema; HEAD of
#     the next snapshot with the snapshot; both manifest lists; manifests;
#     every data file), the same rows and checksum as the local read;
#   - 96 small Parquet files in 16 splits (two windows of files fetched
#     ahead: the second one is started with the first): at most 6, the
#     same rows and checksum as the local read (7 when the second window
#     waited for the first);
#   - a cold plan of 500 manifests (ts_gen's 500 one-row commits, the last
#     snapshot's lists kept): at most 8 (4 before the manifests, which go
#     256 in flight at a time: 2 more, and one where the one-threaded test
#     store's answers of a wave spread out; 14 when they went in windows of
#     64 waited in turn);
#   - one ORC file of ~10 MB in 6 stripes (read by ranges, not fetched
#     whole): at most 9 (5 of plan, the tail, the stripes' footers
#     together, then every stripe's streams together: 1, and one where the
#     test store's answers spread out; 11 when a round trip read a stripe
#     pair and the next footers), no HEAD of the data file (its size is the
#     manifest's), the same rows and checksum as the local read;
#   - one Parquet file of ~13 MB in 8 row groups (read by ranges): at most
#     8 (5 of plan, the magic with the footer, then every row group's
#     chunks requested together: 1, and one where the test store's answers
#     spread out; 14 when each row group was waited for in turn), the same
#     rows and checksum as the local read;
#   - one Parquet file of ~54 MB in 8 row groups of ~6.7 MB: only the
#     first 4 fit in the 32 MiB requested ahead (TS_RANGE_AHEAD_BYTES), so
#     its row groups' GETs go out at two depths or more, not one (memory
#     stays bounded); each later one is requested as the reader takes one,
#     so on a busy machine, whose decoding of a row group outlasts a round
#     trip, they chain: at most 11 (14 with one row group ahead);
#   - one Avro file of ~10.7 MB (two 8 MiB windows): at most 6 (5 of plan,
#     then both windows requested together; 7 when the second one was
#     requested when the reader got to it), the same rows and checksum.
# Prints "latency: N passed, M failed".
PART=latency
source "$(dirname "$0")/scan-setup.sh"

# 500 manifests in the last snapshot's base list (its other files removed)
M=$D/m500
bash test/s3/manifests-table.sh 500 $M $BUILD
# 96 small Parquet files, 16 buckets of 6
$BUILD/tools/ts_gen $D/w2 --format parquet --column id:BIGINT --column name:STRING --buckets 16 \
    --bucket-key id --files 6 --rows 20000 >/dev/null
# one ORC file larger than what a scan fetches whole (8 MiB)
$BUILD/tools/ts_gen $D/big --format orc --rows 600000 --stripe-rows 100000 --column 'id:INT NOT NULL' \
    --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null
# one Parquet file of 8 row groups, also larger than 8 MiB
$BUILD/tools/ts_gen $D/pqrg --format parquet --rows 600000 --row-group-rows 75000 \
    --column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null
# one Avro file of two 8 MiB windows
$BUILD/tools/ts_gen $D/avbig --rows 1200000 --column 'id:INT NOT NULL' --column s:STRING \
    --column bi:BIGINT --null-every 9 >/dev/null
# and one of 8 row groups that do not all fit in what is requested ahead
$BUILD/tools/ts_gen $D/pqwide --format parquet --rows 2400000 --row-group-rows 300000 \
    --column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null

node test/s3/proxy.mjs --dir "$D/store" --delay 150 --trace \
    --upload "lake/wh/sales.db/orders=$FIX/warehouse/sales.db/orders" \
    --upload "lake/wh/t.db/m500=$M" --upload "lake/wh/t.db/w2=$D/w2" --upload "lake/wh/t.db/big=$D/big" \
    --upload "lake/wh/t.db/pqrg=$D/pqrg" --upload "lake/wh/t.db/pqwide=$D/pqwide" \
    --upload "lake/wh/t.db/avbig=$D/avbig" > "$D/port" 2>> "$D/log" &
pid=$!
for _ in $(seq 1 300); do [ -s "$D/port" ] && break; sleep 0.1; done
export TS_S3_ENDPOINT=http://127.0.0.1:$(cat "$D/port") AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
L=$TS_S3_ENDPOINT/__latency
depth() { sed -n 's/.*"depth":\([0-9]*\).*/\1/p' <<< "$1"; }
same_rows() { [ "$(head -1 <<< "$1" | cut -d, -f1-3)" = "$(head -1 <<< "$2" | cut -d, -f1-3)" ]; }

# scan_check WHAT S3_URI LOCAL_PATH ROWS MAX: a plan and full read over s3 gives the
# local read's rows and checksum, waiting for at most MAX round trips in turn
scan_check() {
    local out st local_out d
    curl -s "$L?reset=1" >/dev/null
    out=$("$D/scan" "$2" 2>&1); st=$(curl -s "$L")
    local_out=$("$D/scan" "$3" 2>&1)
    d=$(depth "$st")
    if same_rows "$out" "$local_out" && grep -q "^$4 rows" <<< "$out" && [ -n "$d" ] && [ "$d" -le "$5" ]; then
        ok "$1, plan and full read: $d round trips one after another (at most $5), rows and checksum as local"
    else
        bad "$1: ${d:-?} round trips one after another (at most $5): $out / local: $local_out ($st)"
    fi
}
scan_check "orders (36 files, 12 splits)" s3://lake/wh/sales.db/orders "$FIX/warehouse/sales.db/orders" 3000 6
scan_check "96 files in 16 splits" s3://lake/wh/t.db/w2 "$D/w2" 20000 6

curl -s "$L?reset=1" >/dev/null
out=$("$D/scan" s3://lake/wh/t.db/m500 --plan-only 1 2>&1); st=$(curl -s "$L")
d=$(depth "$st")
if grep -q '^planned 1 time' <<< "$out" && [ -n "$d" ] && [ "$d" -le 8 ]; then
    ok "cold plan of 500 manifests: $d round trips one after another (at most 8)"
else
    bad "cold plan of 500 manifests: ${d:-?} round trips one after another, more than 8 ($out / $st)"
fi

echo "---- big" >> "$D/log"
scan_check "a 10 MB ORC file" s3://lake/wh/t.db/big "$D/big" 600000 9
heads=$(sed -n '/^---- big/,$p' "$D/log" | grep -c '^depth [0-9]* HEAD .*/bucket-0/')
gets=$(sed -n '/^---- big/,$p' "$D/log" | grep -c '^depth [0-9]* GET .*/bucket-0/')
if [ "$heads" -eq 0 ] && [ "$gets" -gt 1 ]; then
    ok "the ORC file read by $gets ranged GETs and no HEAD (its size is the manifest's)"
else
    bad "the ORC file: $heads HEAD(s), $gets GET(s) of the data file"
fi
scan_check "a 13 MB Parquet file of 8 row groups" s3://lake/wh/t.db/pqrg "$D/pqrg" 600000 8
echo "---- pqwide" >> "$D/log"
scan_check "a 54 MB Parquet file of 8 row groups" s3://lake/wh/t.db/pqwide "$D/pqwide" 2400000 11
# the data file's GETs: the magic with the footer at one depth, then the row groups' at two or more
depths=$(sed -n '/^---- pqwide/,$p' "$D/log" | grep '^depth [0-9]* GET .*/pqwide/bucket-0/' |
         awk '{ print $2 }' | sort -un | wc -l)
if [ "$depths" -ge 3 ]; then
    ok "the 54 MB file's row groups not all requested at once: within the 32 MiB ahead (GETs at $depths depths)"
else
    bad "the 54 MB file's GETs went out at $depths depths, not 3 or more (the footer, then the row groups beyond 32 MiB later)"
fi
scan_check "a 10.7 MB Avro file" s3://lake/wh/t.db/avbig "$D/avbig" 1200000 6
kill $pid 2>/dev/null; wait $pid 2>/dev/null
[ $fail -eq 0 ] && rm -rf "$D"
echo "latency: $pass passed, $fail failed"
[ $fail -eq 0 ]
