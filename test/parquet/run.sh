#!/bin/bash
# run.sh - differential test of the native Parquet reader against DuckDB.
# Builds pq_dump against the core library (src/base + src/format/parquet),
# installs @duckdb/node-api if needed, writes Parquet files with DuckDB and
# compares our reader's rows with DuckDB's.  Prints "N passed, N failed";
# exits non-zero on any mismatch.  SANITIZE=address,undefined works too.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/parquet-diff}
ABUILD="$BUILD-asan"
# the Makefile has no header dependencies: always rebuild our objects
rm -rf "$BUILD/core" "$BUILD/libts.a" "$ABUILD/core" "$ABUILD/libts.a"
make -s BUILD="$BUILD" CORE_DIRS="src/base src/format src/format/parquet" SANITIZE="${SANITIZE:-}" "$BUILD/libts.a"
LIBS=$(make -s --no-print-directory print-libs)
SANFLAGS=""
if [ -n "${SANITIZE:-}" ]; then SANFLAGS="-fsanitize=$SANITIZE -fno-omit-frame-pointer"; fi
cc -std=gnu11 -g -O2 -Wall -Werror -Isrc -I/usr/include/cjson $SANFLAGS \
	test/parquet/pq_dump.c -o "$BUILD/pq_dump" "$BUILD/libts.a" \
	$LIBS
# a sanitizer build of the CLI for the fuzz stage (byte flips must never crash)
make -s BUILD="$ABUILD" CORE_DIRS="src/base src/format src/format/parquet" SANITIZE=address,undefined "$ABUILD/libts.a"
cc -std=gnu11 -g -O1 -Wall -Werror -Isrc -I/usr/include/cjson -fsanitize=address,undefined -fno-omit-frame-pointer \
	test/parquet/pq_dump.c -o "$BUILD/pq_dump_asan" "$ABUILD/libts.a" \
	$LIBS
if [ ! -d test/parquet/node_modules/@duckdb/node-api ]; then
	(cd test/parquet && npm install --no-audit --no-fund >/dev/null)
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=98:print_stacktrace=1}
node test/parquet/difftest.mjs "$PWD/$BUILD/pq_dump" "$PWD/$BUILD/difftest-files"
