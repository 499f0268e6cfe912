#!/bin/bash
# latency.sh - round trips waited one after another, through the test proxy
# (proxy.mjs) with --delay 150 ms added to every request: its /__latency
# counter gives the depth of the critical path (a request is one deeper
# than the deepest one answered before it arrived), which does not depend
# on how fast this machine is.  The server-free scan (bench/ts_scan_bench)
# reads:
#   - sales.orders (36 small files, 12 splits): plan + full read in at most
#     5 round trips (LIST of schema/ with the LATEST hint; the schema with
#     the hint's snapshot and the HEAD of the one after it; both manifest
#     lists; manifests; every data file; 6 when the snapshot waited for the
#     schema), the same rows and checksum as the local read, and the
#     snapshot's GET at the schema's depth;
#   - the same table with a stale LATEST (snapshot 2 of 3): the HEAD of
#     snapshot-3 finds it, the listing picks it: the same rows as the local
#     read of the table, in at most 7 round trips (the listing, then the
#     snapshot's GET: two more, as Java's rule lists after a stale hint);
#   - a primary-key table with deletion vectors (bench/s3.sh's pk_dv: 32
#     small files, 16 index files): at most 5 (the index manifest comes
#     with the manifest lists, the index files with the data files; 6 when
#     the index manifest followed the manifests), its index manifest's GET
#     at the lists' depth, the same rows and checksum as the local read;
#   - 96 small Parquet files in 16 splits (two windows of files fetched
#     ahead: the second one is started with the first): at most 5, the
#     same rows and checksum as the local read (7 when the second window
#     waited for the first and the snapshot for the schema);
#   - a cold plan of 500 manifests (ts_gen's 500 one-row commits, the last
#     snapshot's lists kept): at most 6 (3 before the manifests, which go
#     512 in flight at a time: 1 more, and two to spare: the first ones are
#     answered before the last ones reach the store, ~0.3 ms a request for
#     this client and the one-threaded store on a loaded 2-core machine,
#     which spreads the wave over 2-3 depths (4-6 measured); 8 with 256 in
#     flight, 14 when they went in windows of 64 waited in turn); the same
#     plan by a new process with a metadata cache directory filled by it:
#     no manifest fetched, at most 3 (2 measured);
#   - one ORC file of ~10 MB in 6 stripes (larger than what a scan fetches
#     whole with the files before it): with every column read, the file
#     comes in whole with its tail (ts_file_hold_ends): at most 5 (4 of
#     plan, 1; 8 when the tail, the stripes' footers and their streams were
#     waited for in turn), its GETs at one depth, no HEAD of the data file
#     (its size is the manifest's), the same rows and checksum as the local
#     read; with `-c id` it is read by ranges (the tail with the first
#     1 MiB, then the footers, then id's streams: plan + 3, at most 7):
#     less than half its bytes;
#   - one Parquet file of ~13 MB in 8 row groups: with every column, at
#     most 5 (4 of plan, the file with its footer; 7 when the row groups
#     were requested once the footer was in), the same rows and checksum as
#     the local read; with `-c id` (the tail with the first 1 MiB, then
#     id's column chunks: plan + 2, at most 6), less than half its bytes;
#   - one ORC file of ~43 MB in 8 stripes of ~5.4 MB, every column read:
#     its first 32 MiB come with the tail, the other stripes are read whole
#     (index, data and footer in one range: the footer with the streams),
#     so no GET of it asks for less than 64 KiB (a footer alone); at most
#     8 (the stripes past the first 32 MiB chain as the reader takes one);
#   - one Parquet file of ~54 MB in 8 row groups of ~6.7 MB: its first
#     32 MiB (TS_RANGE_AHEAD_BYTES) come with its footer, no more (memory
#     stays bounded), the other row groups later, each requested as the
#     reader takes one, so on a busy machine, whose decoding of a row group
#     outlasts a round trip, they chain: at most 8 (6 measured; 10 when
#     only the footer came with the tail, 14 with one row group ahead);
#   - one Avro file of ~10.7 MB (two 8 MiB windows): at most 5 (4 of plan,
#     then both windows requested together; 7 when the second one was
#     requested when the reader got to it), the same rows and checksum.
#   - four 13 MB Parquet files, a bucket each, every column: the files a
#     scan reads whole anyway are fetched whole with the window across
#     splits, their GETs at one depth: at most 5 (were one after another,
#     8); with -c id, not fetched whole (less than half their bytes), the
#     ends of the four files (their first 1 MiB and last 256 KiB) requested
#     together at the first split, then the id chunks of the three others
#     with the first file's (named by its reader from their tails): at
#     most 6 (4 of plan, the ends, the chunks; were 2 each, 12, then 9
#     with the next split's ends alone fetched ahead).
#   - four ~10 MB ORC files of 6 stripes, -c id: the stripe footers of
#     the three next files (named from their tails) requested with the
#     first file's, then their id streams (named once those footers are
#     in) with the first file's: at most 7 (4 of plan, the ends, the
#     footers, the streams; were 13).
#   - a primary-key table of four ~10 MB Parquet runs in one bucket,
#     merged on read: every column at most 5 (the runs fetched whole by
#     the split's window); -c id at most 6 (the runs' ends fetched
#     together, then every run opened, its first row groups requested at
#     its open, before any is read: 4 of plan, 1, 1; were 2 per run, 12).
# Prints "latency: N passed, M failed".
PART=latency
source "$(dirname "$0")/scan-setup.sh"

# 500 manifests in the last snapshot's base list (its other files removed)
M=$D/m500
bash test/s3/manifests-table.sh 500 $M $BUILD
# sales.orders with a stale LATEST hint (2 of 3 snapshots)
cp -r "$FIX/warehouse/sales.db/orders" "$D/stale" && printf 2 > "$D/stale/snapshot/LATEST"
# deletion vectors: 16 (partition, bucket) pairs, an index file each, 32 data files (bench/s3.sh's pk_dv)
$BUILD/tools/ts_gen $D/pkdv --column id:INT --column p:INT --column v:STRING --column n:BIGINT \
    --partition p --partitions 4 --primary-key id --buckets 4 --rows 400 --keys 300 --files 2 \
    --snapshots 6 --compact-every 2 --levels 3 --delete-every 6 --deletion-vectors --no-ops >/dev/null
# 96 small Parquet files, 16 buckets of 6
$BUILD/tools/ts_gen $D/w2 --format parquet --column id:BIGINT --column name:STRING --buckets 16 \
    --bucket-key id --files 6 --rows 20000 >/dev/null
# one ORC file larger than what a scan fetches whole (8 MiB)
$BUILD/tools/ts_gen $D/big --format orc --rows 600000 --stripe-rows 100000 --column 'id:INT NOT NULL' \
    --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null
# and one larger than what is read with its tail (32 MiB)
$BUILD/tools/ts_gen $D/orcwide --format orc --rows 2400000 --stripe-rows 300000 --column 'id:INT NOT NULL' \
    --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null
# one Parquet file of 8 row groups, also larger than 8 MiB
$BUILD/tools/ts_gen $D/pqrg --format parquet --rows 600000 --row-group-rows 75000 \
    --column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null
# one Avro file of two 8 MiB windows
$BUILD/tools/ts_gen $D/avbig --rows 1200000 --column 'id:INT NOT NULL' --column s:STRING \
    --column bi:BIGINT --null-every 9 >/dev/null
# four buckets of one 13 MB Parquet file each (files a scan of every column reads whole)
$BUILD/tools/ts_gen $D/pq4 --format parquet --rows 2400000 --buckets 4 --bucket-key id \
    --column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null
# four buckets of one ~10 MB ORC file each (6 stripes)
$BUILD/tools/ts_gen $D/orc4 --format orc --rows 2400000 --buckets 4 --bucket-key id --stripe-rows 100000 \
    --column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null
# a primary-key table of four ~10 MB Parquet runs in one bucket (merged on read)
$BUILD/tools/ts_gen $D/pkbig --format parquet --column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT \
    --primary-key id --buckets 1 --rows 600000 --snapshots 4 --keys 2000000 --no-ops >/dev/null
# and one of 8 row groups that do not all fit in what is requested ahead
$BUILD/tools/ts_gen $D/pqwide --format parquet --rows 2400000 --row-group-rows 300000 \
    --column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --null-every 9 >/dev/null

node test/s3/proxy.mjs --dir "$D/store" --delay 150 --trace \
    --upload "lake/wh/sales.db/orders=$FIX/warehouse/sales.db/orders" \
    --upload "lake/wh/t.db/m500=$M" --upload "lake/wh/t.db/w2=$D/w2" --upload "lake/wh/t.db/big=$D/big" \
    --upload "lake/wh/t.db/pqrg=$D/pqrg" --upload "lake/wh/t.db/pqwide=$D/pqwide" \
    --upload "lake/wh/t.db/pq4=$D/pq4" --upload "lake/wh/t.db/pkbig=$D/pkbig" --upload "lake/wh/t.db/orc4=$D/orc4" \
    --upload "lake/wh/t.db/avbig=$D/avbig" --upload "lake/wh/t.db/orcwide=$D/orcwide" \
    --upload "lake/wh/t.db/stale=$D/stale" --upload "lake/wh/t.db/pkdv=$D/pkdv" > "$D/port" 2>> "$D/log" &
pid=$!
for _ in $(seq 1 300); do [ -s "$D/port" ] && break; sleep 0.1; done
export TS_S3_ENDPOINT=http://127.0.0.1:$(cat "$D/port") AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
L=$TS_S3_ENDPOINT/__latency
depth() { sed -n 's/.*"depth":\([0-9]*\).*/\1/p' <<< "$1"; }
same_rows() { [ "$(head -1 <<< "$1" | cut -d, -f1-3)" = "$(head -1 <<< "$2" | cut -d, -f1-3)" ]; }

# scan_check WHAT S3_URI LOCAL_PATH ROWS MAX [SCAN_ARGS...]: a plan and full read over
# s3 gives the local read's rows and checksum, waiting for at most MAX round trips in turn
scan_check() {
    local out st local_out d
    curl -s "$L?reset=1" >/dev/null
    out=$("$D/scan" "$2" "${@:6}" 2>&1); st=$(curl -s "$L")
    local_out=$("$D/scan" "$3" "${@:6}" 2>&1)
    d=$(depth "$st")
    if same_rows "$out" "$local_out" && grep -q "^$4 rows" <<< "$out" && [ -n "$d" ] && [ "$d" -le "$5" ]; then
        ok "$1, plan and full read: $d round trips one after another (at most $5), rows and checksum as local"
    else
        bad "$1: ${d:-?} round trips one after another (at most $5): $out / local: $local_out ($st)"
    fi
}
echo "---- orders" >> "$D/log"
scan_check "orders (36 files, 12 splits)" s3://lake/wh/sales.db/orders "$FIX/warehouse/sales.db/orders" 3000 5
# the plan's GETs of the schema and of the hint's snapshot: one depth
sd=$(sed -n '/^---- orders$/,$p' "$D/log" | awk '$3 == "GET" && $4 ~ /orders\/schema\/schema-[0-9]+$/ { print $2; exit }')
nd=$(sed -n '/^---- orders$/,$p' "$D/log" | awk '$3 == "GET" && $4 ~ /orders\/snapshot\/snapshot-3$/ { print $2; exit }')
if [ -n "$sd" ] && [ "$sd" = "$nd" ] && [ "$sd" -le 2 ]; then
    ok "the schema and the hint's snapshot fetched in one round trip (depth $sd)"
else
    bad "the schema's GET at depth ${sd:-?}, the snapshot's at ${nd:-?} (not one depth, at most 2)"
fi
echo "---- stale" >> "$D/log"
scan_check "orders with a stale LATEST (2 of 3)" s3://lake/wh/t.db/stale "$FIX/warehouse/sales.db/orders" 3000 7
if sed -n '/^---- stale$/,$p' "$D/log" | awk '$3 == "GET" && $4 ~ /t.db\/stale\/snapshot\/snapshot-3$/' | grep -q .; then
    ok "the stale hint: snapshot-3 read, not the hint's snapshot-2 alone"
else
    bad "the stale hint: no GET of snapshot-3"
fi
scan_check "96 files in 16 splits" s3://lake/wh/t.db/w2 "$D/w2" 20000 5
echo "---- pkdv" >> "$D/log"
rows=$("$D/scan" "$D/pkdv" 2>&1 | head -1 | cut -d' ' -f1)
scan_check "a table with deletion vectors (32 files, 16 index files)" s3://lake/wh/t.db/pkdv "$D/pkdv" "$rows" 5
ld=$(sed -n '/^---- pkdv$/,$p' "$D/log" | awk '$3 == "GET" && $4 ~ /pkdv\/manifest\/manifest-list-/ { print $2; exit }')
id=$(sed -n '/^---- pkdv$/,$p' "$D/log" | awk '$3 == "GET" && $4 ~ /pkdv\/manifest\/index-manifest-/ { print $2; exit }')
if [ -n "$ld" ] && [ "$ld" = "$id" ]; then
    ok "the index manifest fetched with the manifest lists (depth $ld)"
else
    bad "the index manifest's GET at depth ${id:-?}, the manifest lists' at ${ld:-?} (not one depth)"
fi
# three plans in one process, the live-entry cache on: the index manifest fetched once (the
# warm plans' prefetch of it finds the one read last in memory, as a plain read of it did)
echo "---- pkdv-warm" >> "$D/log"
"$D/scan" s3://lake/wh/t.db/pkdv --plan-only 3 --cache 64 >/dev/null 2>&1
n=$(sed -n '/^---- pkdv-warm$/,$p' "$D/log" | awk '$3 == "GET" && $4 ~ /pkdv\/manifest\/index-manifest-/' | wc -l)
if [ "$n" -eq 1 ]; then
    ok "three plans of the table with deletion vectors: its index manifest fetched once"
else
    bad "three plans of the table with deletion vectors: its index manifest fetched $n times, not once"
fi

curl -s "$L?reset=1" >/dev/null
out=$("$D/scan" s3://lake/wh/t.db/m500 --plan-only 1 2>&1); st=$(curl -s "$L")
d=$(depth "$st")
if grep -q '^planned 1 time' <<< "$out" && [ -n "$d" ] && [ "$d" -le 6 ]; then
    ok "cold plan of 500 manifests: $d round trips one after another (at most 6)"
else
    bad "cold plan of 500 manifests: ${d:-?} round trips one after another, more than 6 ($out / $st)"
fi

# The same plan by a new process on a server whose metadata cache a plan before filled
# (--metadata-cache, as tablescan.metadata_cache_dir): the snapshot's manifests and lists
# come from the cache's records, so no manifest is fetched; at most 3 round trips (2
# measured: the hint, then the snapshot with the schema).
mkdir -m 700 "$D/mcache"
"$D/scan" s3://lake/wh/t.db/m500 --plan-only 1 --metadata-cache "$D/mcache" >/dev/null 2>&1
curl -s "$L?reset=1" >/dev/null
echo "---- mcache" >> "$D/log"
out=$("$D/scan" s3://lake/wh/t.db/m500 --plan-only 1 --metadata-cache "$D/mcache" 2>&1); st=$(curl -s "$L")
d=$(depth "$st")
nm=$(sed -n '/^---- mcache$/,$p' "$D/log" | grep '^depth [0-9]* GET .*/manifest/manifest-' | grep -vc '/manifest-list-' || true)
if grep -q '^planned 1 time' <<< "$out" && grep -q '^metadata cache: [1-9]' <<< "$out" && [ "$nm" = 0 ] &&
   [ -n "$d" ] && [ "$d" -le 3 ]; then
    ok "500 manifests planned by a new process with the metadata cache filled: no manifest fetched, $d round trips (at most 3)"
else
    bad "500 manifests with the metadata cache filled: $nm manifest(s) fetched, ${d:-?} round trips ($out / $st)"
fi

# data_gets MARK TABLE: the trace's GETs of TABLE's data files since the line MARK
data_gets() { sed -n "/^---- $1\$/,\$p" "$D/log" | grep "^depth [0-9]* GET .*/t.db/$2/bucket-0/"; }
# range_bytes: the bytes the GETs on stdin ask for (a GET without a Range: 10^12)
range_bytes() {
    awk '{ if (match($0, / bytes=[0-9]+-[0-9]+$/)) { split(substr($0, RSTART + 7), b, "-"); s += b[2] - b[1] + 1 }
           else s += 1e12 } END { printf "%d\n", s }'
}
# narrow_check WHAT TABLE: a -c id read of TABLE (since mark TABLE-id) asked for less than half its file
narrow_check() {
    local size got
    size=$(stat -c %s "$D"/$2/bucket-0/*.* | head -1)
    got=$(data_gets "$2-id" "$2" | range_bytes)
    if [ "$got" -gt 0 ] && [ "$got" -lt $((size / 2)) ]; then
        ok "$1, -c id: $got of its $size bytes asked for (by ranges, not whole)"
    else
        bad "$1, -c id: $got of its $size bytes asked for, not less than half"
    fi
}

echo "---- big" >> "$D/log"
scan_check "a 10 MB ORC file" s3://lake/wh/t.db/big "$D/big" 600000 5
heads=$(sed -n '/^---- big$/,$p' "$D/log" | grep -c '^depth [0-9]* HEAD .*/bucket-0/')
gets=$(data_gets big big | wc -l)
depths=$(data_gets big big | awk '{ print $2 }' | sort -u | wc -l)
if [ "$heads" -eq 0 ] && [ "$gets" -ge 1 ] && [ "$depths" -eq 1 ]; then
    ok "the ORC file read with its tail in one round trip ($gets GET(s) at one depth) and no HEAD (its size is the manifest's)"
else
    bad "the ORC file: $heads HEAD(s), $gets GET(s) of the data file at $depths depths, not 1"
fi
echo "---- big-id" >> "$D/log"
scan_check "a 10 MB ORC file, -c id" s3://lake/wh/t.db/big "$D/big" 600000 7 -c id
narrow_check "the 10 MB ORC file" big
echo "---- orcwide" >> "$D/log"
scan_check "a 43 MB ORC file of 8 stripes" s3://lake/wh/t.db/orcwide "$D/orcwide" 2400000 8
small=$(data_gets orcwide orcwide | awk 'match($0, / bytes=[0-9]+-[0-9]+$/) {
            split(substr($0, RSTART + 7), b, "-"); if (b[2] - b[1] + 1 < 65536) n++ } END { print n + 0 }')
if [ "$small" -eq 0 ] && [ "$(data_gets orcwide orcwide | wc -l)" -gt 1 ]; then
    ok "the 43 MB ORC file's stripes read whole: no GET of a footer alone (under 64 KiB)"
else
    bad "the 43 MB ORC file: $small GET(s) of under 64 KiB (footers read apart from their streams)"
fi
scan_check "a 13 MB Parquet file of 8 row groups" s3://lake/wh/t.db/pqrg "$D/pqrg" 600000 5
echo "---- pqrg-id" >> "$D/log"
scan_check "a 13 MB Parquet file, -c id" s3://lake/wh/t.db/pqrg "$D/pqrg" 600000 6 -c id
narrow_check "the 13 MB Parquet file" pqrg
echo "---- pqwide" >> "$D/log"
scan_check "a 54 MB Parquet file of 8 row groups" s3://lake/wh/t.db/pqwide "$D/pqwide" 2400000 8
# the data file's GETs: the footer with the first 32 MiB at one depth, the rest later
first=$(data_gets pqwide pqwide | awk '{ print $2 }' | sort -n | head -1)
depths=$(data_gets pqwide pqwide | awk '{ print $2 }' | sort -un | wc -l)
got=$(data_gets pqwide pqwide | awk -v d="$first" '$2 == d' | range_bytes)
if [ "$depths" -ge 2 ] && [ "$got" -le $(((32 << 20) + (64 << 10))) ]; then
    ok "the 54 MB file not read at once: $got bytes with its footer (at most 32 MiB and the tail), the rest later (GETs at $depths depths)"
else
    bad "the 54 MB file: $got bytes asked for with its footer, GETs at $depths depths (not at most 32 MiB + 64 KiB, then more)"
fi
scan_check "a 10.7 MB Avro file" s3://lake/wh/t.db/avbig "$D/avbig" 1200000 5
echo "---- pq4" >> "$D/log"
scan_check "four 13 MB Parquet files in 4 splits, every column" s3://lake/wh/t.db/pq4 "$D/pq4" 2400000 5
# fetched whole with the window, at one depth (were: each with its split, one after another)
gets=$(sed -n '/^---- pq4$/,$p' "$D/log" | grep '^depth [0-9]* GET .*/t.db/pq4/bucket-' | awk '{ print $2 }')
if [ "$(wc -l <<< "$gets")" -ge 4 ] && [ "$(sort -u <<< "$gets" | wc -l)" -eq 1 ]; then
    ok "the four 13 MB files requested together ($(wc -l <<< "$gets") GETs at one depth)"
else
    bad "the four 13 MB files: GETs at depths $(tr '\n' ' ' <<< "$gets") (not all at one)"
fi
echo "---- pq4-id" >> "$D/log"
scan_check "four 13 MB Parquet files, -c id" s3://lake/wh/t.db/pq4 "$D/pq4" 2400000 6 -c id
# the ends (the first 1 MiB and last 256 KiB) of each split's file requested ahead, once each
tails=$(sed -n '/^---- pq4-id$/,$p' "$D/log" | grep '^depth [0-9]* GET .*/t.db/pq4/bucket-.* bytes=[0-9]*-[0-9]*$' |
        awk '{ split($NF, r, "[=-]"); if (r[3] + 1 - r[2] == 262144) n++ } END { print n + 0 }')
if [ "$tails" -eq 4 ]; then
    ok "four 13 MB files, -c id: their ends fetched ahead (4 tails of 256 KiB)"
else
    bad "four 13 MB files, -c id: $tails tails of 256 KiB (not 4: ends not fetched ahead, or twice)"
fi
# the four id chunks (not an end) at one depth: the next files' requested with the first's
chunks=$(sed -n '/^---- pq4-id$/,$p' "$D/log" | grep '^depth [0-9]* GET .*/t.db/pq4/bucket-.* bytes=[0-9]*-[0-9]*$' |
         awk '{ split($NF, r, "[=-]"); if (r[2] != 0 && r[3] + 1 - r[2] != 262144) print $2 }')
if [ "$(wc -l <<< "$chunks")" -eq 4 ] && [ "$(sort -u <<< "$chunks" | wc -l)" -eq 1 ]; then
    ok "four 13 MB files, -c id: the four id chunks requested together (depth $(head -1 <<< "$chunks"))"
else
    bad "four 13 MB files, -c id: id chunks at depths $(tr '\n' ' ' <<< "$chunks") (not four at one)"
fi
narrow=$(sed -n '/^---- pq4-id$/,$p' "$D/log" | grep '^depth [0-9]* GET .*/t.db/pq4/bucket-' | range_bytes)
if [ -n "$narrow" ] && [ "$narrow" -gt 0 ] && [ "$narrow" -lt $((4 * (13 << 20) / 2)) ]; then
    ok "four 13 MB files, -c id: $narrow bytes asked for (not fetched whole: less than half)"
else
    bad "four 13 MB files, -c id: ${narrow:-?} bytes asked for (fetched whole?)"
fi
echo "---- orc4-id" >> "$D/log"
scan_check "four 10 MB ORC files, -c id" s3://lake/wh/t.db/orc4 "$D/orc4" 2400000 7 -c id
# the stripe footers (GETs under 64 KiB) of the four files at one depth: the next files' with the first's
footers=$(sed -n '/^---- orc4-id$/,$p' "$D/log" | grep '^depth [0-9]* GET .*/t.db/orc4/bucket-.* bytes=[0-9]*-[0-9]*$' |
          awk '{ split($NF, r, "[=-]"); if (r[3] + 1 - r[2] < 65536) print $2, $4 }')
nfiles=$(awk '{ sub(/\/data-.*/, "", $2); print $2 }' <<< "$footers" | sort -u | wc -l)
if [ "$nfiles" -eq 4 ] && [ "$(awk '{ print $1 }' <<< "$footers" | sort -u | wc -l)" -eq 1 ]; then
    ok "four 10 MB ORC files, -c id: the stripe footers of all four requested together ($(wc -l <<< "$footers") GETs)"
else
    bad "four 10 MB ORC files, -c id: stripe footers of $nfiles files at depths $(awk '{ print $1 }' <<< "$footers" | sort -u | tr '\n' ' ')(not four files at one)"
fi
# and their streams (the other GETs, not an end) at two depths at most, not one per file (the
# first file's from its own footers, the others' named once their footers were in)
streams=$(sed -n '/^---- orc4-id$/,$p' "$D/log" | grep '^depth [0-9]* GET .*/t.db/orc4/bucket-.* bytes=[0-9]*-[0-9]*$' |
          awk '{ split($NF, r, "[=-]"); n = r[3] + 1 - r[2]; if (n >= 65536 && r[2] != 0 && n != 262144) print $2, $4 }')
nfiles=$(awk '{ sub(/\/data-.*/, "", $2); print $2 }' <<< "$streams" | sort -u | wc -l)
if [ "$nfiles" -eq 4 ] && [ "$(awk '{ print $1 }' <<< "$streams" | sort -u | wc -l)" -le 2 ]; then
    ok "four 10 MB ORC files, -c id: the id streams of the four files at depths $(awk '{ print $1 }' <<< "$streams" | sort -u | tr '\n' ' ')($(wc -l <<< "$streams") GETs)"
else
    bad "four 10 MB ORC files, -c id: id streams of $nfiles files at depths $(awk '{ print $1 }' <<< "$streams" | sort -u | tr '\n' ' ')(not four files at two at most)"
fi
rows=$("$D/scan" "$D/pkbig" 2>&1 | head -1 | cut -d' ' -f1)
scan_check "a merge of four 10 MB Parquet runs, every column" s3://lake/wh/t.db/pkbig "$D/pkbig" "$rows" 5
scan_check "a merge of four 10 MB Parquet runs, -c id" s3://lake/wh/t.db/pkbig "$D/pkbig" "$rows" 6 -c id
kill $pid 2>/dev/null; wait $pid 2>/dev/null
[ $fail -eq 0 ] && rm -rf "$D"
echo "latency: $pass passed, $fail failed"
[ $fail -eq 0 ]
