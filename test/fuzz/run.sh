#!/bin/bash
# Build the libFuzzer harnesses (clang-14, ASan + UBSan) and run each for
# SECONDS seconds (default 30) on a corpus seeded from ../shared/testdata.
# Prints per harness: executions and crashes; then
#   fuzz: N passed, N failed        (a harness that crashed = failed)
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
LIBS="-lcjson -lzstd -lsnappy -llz4 -lz -lroaring -lm"
build() {   # name source extra-flags
    $CC -g -O1 -fsanitize=fuzzer $SAN -Isrc -I/usr/include/cjson $3 "$2" -o $B/$1 $B/libts.a $LIBS
}
build fuzz_meta test/fuzz/fuzz_meta.c "" || exit 1
for f in avro parquet orc; do
    build fuzz_$f test/fuzz/fuzz_format.c "-DFUZZ_FORMAT=TS_FORMAT_$(echo $f | tr a-z A-Z)" || exit 1
done

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
mkdir -p $B/corpus/fuzz_meta
find "$SHARED/testdata" -type f \( -name 'schema-*' -o -name 'snapshot-*' \) | head -40 | while read -r f; do
    { printf '\000'; cat "$f"; } > "$B/corpus/fuzz_meta/s$(echo "$f" | md5sum | cut -c1-15)"
    { printf '\001'; cat "$f"; } > "$B/corpus/fuzz_meta/n$(echo "$f" | md5sum | cut -c1-15)"
done

passed=0; failed=0
for h in fuzz_meta fuzz_avro fuzz_parquet fuzz_orc; do
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
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
