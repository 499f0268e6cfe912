#!/bin/bash
# Differential test of format-table listing and CSV/JSON reading against
# DuckDB (npm @duckdb/node-api): builds ft_dump against the core library,
# lets DuckDB write hive-partitioned CSV/JSON trees, and compares ft_dump's
# rows with DuckDB's read_csv/read_json(hive_partitioning = true).
# Prints "N passed, N failed"; exits non-zero on any mismatch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${FT_BUILD:-$repo/build/formattable}
cd "$repo"
make -s BUILD="$build" CORE_DIRS="src/base src/format src/format/text" "$build/libts.a" >/dev/null
cc -std=gnu11 -g -O2 -Wall -Werror -Isrc -I/usr/include/cjson \
    test/formattable/ft_dump.c src/scan/format_table.c \
    -o "$build/ft_dump" "$build/libts.a" $(make -s --no-print-directory print-libs)
cd "$here"
if [ ! -d node_modules/@duckdb/node-api ]; then
    npm install --no-audit --no-fund --silent >/dev/null
fi
node diff.mjs "$build/ft_dump" "$build/work"
