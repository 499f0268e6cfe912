#!/bin/bash
# Build the libFuzzer harnesses (clang-14, ASan + UBSan) and run each for
# SECONDS seconds (default 30) on a corpus seeded from ../shared/testdata.
# Prints per harness: executions and crashes; then
#   fuzz: N passed, N failed, 0 skipped   (a harness that crashed = failed)
# Harnesses: fuzz_meta (schema/snapshot JSON, BinaryRow, SimpleStats), fuzz_avro,
# fuzz_parquet, fuzz_orc, fuzz_csv, fuzz_json, fuzz_text, fuzz_blob (format readers), fuzz_dv (deletion
# vectors), fuzz_manifest (manifest lists, manifests, index manifests), fuzz_rest (REST
# catalog answers), fuzz_file_index (file indexes: container, bloom, bitmap, BSI, range-bitmap),
# fuzz_btree (btree global index files), fuzz_s3_list (object store ListObjectsV2 pages and
# error bodies);
# FUZZ_ONLY="fuzz_dv fuzz_csv" runs a subset.
# Crash inputs are kept in build/fuzz/crashes/<harness>/ to become
# regression inputs under test/fuzz/regressions/.
set -uo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-30}
SHARED=${TS_SHARED:-../shared}
B=build/fuzz
CC=clang-14
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
mkdir -p $B/crashes

make -s BUILD=$B CORE_CC=$CC CORE_WERROR= SANITIZE="fuzzer-no-link,address,undefined" $B/libts.a || exit 1
LIBS=$(make -s --no-print-directory print-libs)
build() {   # name source extra-flags
    $CC -g -O1 -fsanitize=fuzzer $SAN -Isrc -I/usr/include/cjson $3 "$2" -o $B/$1 $B/libts.a $LIBS
}
build fuzz_meta test/fuzz/fuzz_meta.c "" || exit 1
for f in avro parquet orc; do
    build fuzz_$f test/fuzz/fuzz_format.c "-DFUZZ_FORMAT=TS_FORMAT_$(echo $f | tr a-z A-Z)" || exit 1
done
for f in csv json text; do
    build fuzz_$f test/fuzz/fuzz_format.c "-DFUZZ_TEXT -DFUZZ_FORMAT=TS_FORMAT_$(echo $f | tr a-z A-Z)" || exit 1
done
build fuzz_blob test/fuzz/fuzz_format.c "-DFUZZ_BLOB -DFUZZ_FORMAT=TS_FORMAT_BLOB" || exit 1
build fuzz_dv test/fuzz/fuzz_dv.c "" || exit 1
build fuzz_manifest test/fuzz/fuzz_manifest.c "" || exit 1
build fuzz_rest test/fuzz/fuzz_rest.c "" || exit 1
build fuzz_file_index test/fuzz/fuzz_file_index.c "" || exit 1
build fuzz_btree test/fuzz/fuzz_btree.c "" || exit 1
build fuzz_s3_list test/fuzz/fuzz_s3_list.c "" || exit 1
HARNESSES="fuzz_meta fuzz_avro fuzz_parquet fuzz_orc fuzz_csv fuzz_json fuzz_text fuzz_blob fuzz_dv fuzz_manifest fuzz_rest fuzz_file_index fuzz_btree fuzz_s3_list"
[ -n "${FUZZ_ONLY:-}" ] && HARNESSES=$FUZZ_ONLY

seed() {   # harness find-args...
    local dir=$B/corpus/$1; shift
    mkdir -p "$dir"
    [ -d test/fuzz/regressions/${dir##*/} ] && cp test/fuzz/regressions/${dir##*/}/* "$dir"/ 2>/dev/null
    find "$SHARED/testdata" -type f "$@" -size -200k 2>/dev/null | head -40 | while read -r f; do
        cp "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16)"; done
}
seed fuzz_avro -name '*.avro'
find "$SHARED/testdata" -path '*/manifest/*' -type f -size -200k | head -40 | while read -r f; do
    head -c4 "$f" | grep -q Obj && cp "$f" "$B/corpus/fuzz_avro/$(echo "$f" | md5sum | cut -c1-16)"; done
seed fuzz_parquet -name '*.parquet'
seed fuzz_orc -name '*.orc'
seed fuzz_blob -name '*.blob'
seed fuzz_file_index -name '*.index'
# range-bitmap indexes (no table of ../shared has one): written by test_range_bitmap
cp test/fuzz/seeds/fuzz_file_index/* $B/corpus/fuzz_file_index/ 2>/dev/null
# btree global indexes (none in ../shared): written by test_btree (TS_BTREE_SEEDS)
mkdir -p $B/corpus/fuzz_btree
cp test/fuzz/seeds/fuzz_btree/* $B/corpus/fuzz_btree/ 2>/dev/null
[ -d test/fuzz/regressions/fuzz_btree ] && cp test/fuzz/regressions/fuzz_btree/* $B/corpus/fuzz_btree/ 2>/dev/null
mkdir -p $B/corpus/fuzz_meta $B/corpus/fuzz_csv $B/corpus/fuzz_json $B/corpus/fuzz_text $B/corpus/fuzz_dv \
    $B/corpus/fuzz_manifest $B/corpus/fuzz_rest
printf '\001{"path":"file:/w/t","schemaId":1,"schema":{"fields":[{"id":0,"name":"a","type":"INT"},{"id":1,"name":"r","type":{"type":"ROW","fields":[{"id":2,"name":"x","type":"STRING"}]}}],"options":{"type":"format-table"}}}' > $B/corpus/fuzz_rest/table
printf '\000{"tables":["a","b"],"nextPageToken":"2"}' > $B/corpus/fuzz_rest/names
# ListObjectsV2 pages (first byte: 2 = prefix "wh/"), two pages in a row, an error body
mkdir -p $B/corpus/fuzz_s3_list
printf '\002<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>lake</Name><Prefix>wh/</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated><NextContinuationToken>tok+1/=</NextContinuationToken><Contents><Key>wh/a.txt</Key><Size>3</Size><ETag>&quot;x&quot;</ETag></Contents><CommonPrefixes><Prefix>wh/sales.db/</Prefix></CommonPrefixes><CommonPrefixes><Prefix>wh/pk.db/</Prefix></CommonPrefixes></ListBucketResult>\n--page--\n<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>wh/</Key></Contents><Contents><Key>wh/z</Key></Contents></ListBucketResult>' > $B/corpus/fuzz_s3_list/pages
printf '\001<?xml version="1.0" encoding="UTF-8"?><Error><Code>SignatureDoesNotMatch</Code><Message>no</Message><Resource>/lake/wh</Resource></Error>' > $B/corpus/fuzz_s3_list/error
for h in fuzz_meta fuzz_csv fuzz_json fuzz_text fuzz_dv fuzz_manifest fuzz_s3_list; do
    [ -d test/fuzz/regressions/$h ] && cp test/fuzz/regressions/$h/* $B/corpus/$h/ 2>/dev/null
done
# BinaryRow / SimpleStats seeds for fuzz_meta (types in fuzz_meta.c): one row
# with values in the compact slots and NULL in the others
python3 - "$B/corpus/fuzz_meta" <<'PY'
import struct, sys
d = sys.argv[1]
bits = 0
for i in (5, 7, 9):
    bits |= 1 << (i + 8)
row = struct.pack('<Q', bits)
row += struct.pack('<Q', 1) + struct.pack('<q', 42) + struct.pack('<q', 7)
row += b'abc' + bytes(4) + bytes([0x83])          # inline string
row += struct.pack('<q', 1234) + bytes(8) + struct.pack('<q', 1700000000123) + bytes(8)
row += struct.pack('<d', 1.5) + bytes(8)
open(d + '/row', 'wb').write(b'\x02' + row)
open(d + '/stats', 'wb').write(b'\x03' + bytes([len(row)]) + row + row + bytes([0, 1, 2, 255, 0, 0, 0, 0]))
open(d + '/stats_sub', 'wb').write(b'\x03' + bytes([0x80 | 16]) + row[:16] + row + bytes(8))
PY
# text seeds: first byte = option set (see fuzz_format.c), then the file
printf '\000a,1,2,3.5,12.34,2024-01-01 10:00:00,2024-01-01,ab,"[1,2]",,\n"q""x",,3,\n' > $B/corpus/fuzz_csv/s0
printf '\001f0;f1\nx;1\nNULL;2\n' > $B/corpus/fuzz_csv/s1
printf "\002'a\tb'\t#'1\n" > $B/corpus/fuzz_csv/s2
printf '\003a,1##b,2##' > $B/corpus/fuzz_csv/s3
printf '\000{"f0":"a","f1":1,"f2":2,"f3":1.5,"f4":"12.34","f5":"2024-01-01 10:00:00","f6":"2024-01-01","f7":"YWI=","f8":[1,null],"f9":{"k":1},"f10":{"x":1,"y":"s"}}\n{"f1":null}\n' > $B/corpus/fuzz_json/s0
printf '\004{"f9":{"null":1},"f1":"x"}\nnot json\n' > $B/corpus/fuzz_json/s4
printf '\005{"f0":"a"}|{"f1":2}|' > $B/corpus/fuzz_json/s5
# bit 3 of the first byte: the scalar columns only (lines scanned in place, no tree)
printf '\010{"f0":"a\\u00e9\\"b","f1":1e2,"f2":-0,"f3":1.5e-3,"f4":12.34,"f5":"2024-01-01T10:00:00","f6":null,"f7":"YWI=","z":[{"q":[]}]}\n {"f1":01}\n' > $B/corpus/fuzz_json/s8
printf '\000one\n\ntwo\r\nthree\rfour' > $B/corpus/fuzz_text/s0
printf '\006a##b####c' > $B/corpus/fuzz_text/s6
# DV seeds: the DVs of the index files (version byte skipped), both length modes
find "$SHARED/testdata" -path '*/index/index-*' -type f -size -200k | head -20 | while read -r f; do
    n=$(echo "$f" | md5sum | cut -c1-15)
    { printf '\000'; tail -c +2 "$f"; } > $B/corpus/fuzz_dv/a$n
    { printf '\001'; tail -c +2 "$f"; } > $B/corpus/fuzz_dv/b$n
    { printf '\002'; tail -c +2 "$f"; } > $B/corpus/fuzz_dv/c$n
done
# manifest seeds: first byte 0 = manifest list, 1 = manifest, 2 = index manifest
for d in avro orc parquet; do
    find "$SHARED/testdata/$d" -path '*/manifest/*' -type f -size -100k 2>/dev/null | head -30
done | while read -r f; do
    n=$(echo "$f" | md5sum | cut -c1-15)
    case "${f##*/}" in
        manifest-list-*) k='\000' ;; index-manifest-*) k='\002' ;; *) k='\001' ;;
    esac
    { printf "$k"; cat "$f"; } > $B/corpus/fuzz_manifest/m$n
done
find "$SHARED/testdata" -type f \( -name 'schema-*' -o -name 'snapshot-*' \) | head -40 | while read -r f; do
    { printf '\000'; cat "$f"; } > "$B/corpus/fuzz_meta/s$(echo "$f" | md5sum | cut -c1-15)"
    { printf '\001'; cat "$f"; } > "$B/corpus/fuzz_meta/n$(echo "$f" | md5sum | cut -c1-15)"
done

passed=0; failed=0
for h in $HARNESSES; do
    mkdir -p $B/crashes/$h
    out=$($B/$h -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
          -artifact_prefix=$B/crashes/$h/ $B/corpus/$h 2>&1); rc=$?
    execs=$(printf '%s\n' "$out" | sed -n 's/.*stat::number_of_executed_units: *\([0-9]*\).*/\1/p' | tail -1)
    [ -z "$execs" ] && execs=$(printf '%s\n' "$out" | grep -oE '#[0-9]+' | tail -1 | tr -d '#')
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1)); echo "$h: ${execs:-?} executions, 0 crashes"
    else
        failed=$((failed + 1)); echo "$h: CRASH after ${execs:-?} executions"
        printf '%s\n' "$out" | grep -E 'ERROR|SUMMARY|#[0-9]+ +in ' | head -15
    fi
done
echo "fuzz: $passed passed, $failed failed, 0 skipped"
[ $failed -eq 0 ]
