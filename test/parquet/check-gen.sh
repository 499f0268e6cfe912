#!/bin/bash
# check-gen.sh - check the Parquet files of ts_gen --format parquet
# (src/tools/ts_gen_parquet.h) with DuckDB, which shares no code with our
# Parquet reader, against the generator's value formulas: nested columns
# (ARRAY, MAP, ROW, nested in each other, VECTOR), NULLs, empty lists and
# maps, two files.  Prints "N passed, N failed" (one check per column of
# each file).
set -euo pipefail
cd "$(dirname "$0")/../.."
GEN=${TS_GEN:-build/tools/ts_gen}
T=$(mktemp -d /tmp/ts-parquet-check.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$GEN" "$T/t" --format parquet --rows 150 --snapshots 2 --null-every 7 --column 'id:INT NOT NULL' \
    --column 'a:ARRAY<INT>' --column 's:ARRAY<STRING>' --column 'm:MAP<INT, STRING>' \
    --column 'r:ROW<x INT, y STRING, z DATE>' --column 'ar:ARRAY<ROW<p INT, q ARRAY<DOUBLE>>>' \
    --column 'mm:MAP<STRING, ARRAY<BOOLEAN>>' --column 'v:VECTOR<FLOAT, 3>' \
    --column 'rv:ROW<a INT, v VECTOR<DOUBLE, 2>>' >/dev/null
if [ ! -d test/parquet/node_modules/@duckdb/node-api ]; then
	(cd test/parquet && npm install --no-audit --no-fund >/dev/null)
fi
node test/parquet/check-gen.mjs "$T/t" 7
