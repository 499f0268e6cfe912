#!/bin/bash
# run.sh - check the ORC files of ts_gen --format orc (src/format/orc/orc_writer.h)
# with test/orc/check-gen.py, a decoder that shares no code with our ORC
# reader, against the generator's value formulas: every type the writer
# knows (flat, ARRAY, MAP, ROW, nested in each other), NULLs, more rows than
# one RLE run, two files; and files of several stripes.  Prints
# "N passed, N failed" (one check per column of each file).
set -euo pipefail
cd "$(dirname "$0")/../.."
GEN=${TS_GEN:-build/tools/ts_gen}
T=$(mktemp -d /tmp/ts-orc-check.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$GEN" "$T/t" --format orc --rows 300 --snapshots 2 --null-every 7 --column 'id:INT NOT NULL' \
    --column b:BOOLEAN --column ti:TINYINT --column si:SMALLINT --column i:INT --column bi:BIGINT \
    --column f:FLOAT --column d:DOUBLE --column 'dec:DECIMAL(10, 2)' --column 'dec2:DECIMAL(30, 5)' \
    --column s:STRING --column 'vc:VARCHAR(5)' --column 'ch:CHAR(4)' --column by:BYTES \
    --column dt:DATE --column 'tm:TIME(3)' --column 'ts:TIMESTAMP(6)' \
    --column 'ts3:TIMESTAMP(3)' --column 'ltz:TIMESTAMP(3) WITH LOCAL TIME ZONE' \
    --column 'ltz6:TIMESTAMP(6) WITH LOCAL TIME ZONE' --column 'a:ARRAY<INT>' \
    --column 'm:MAP<STRING, DECIMAL(12, 3)>' --column 'r:ROW<x INT, y STRING, z ROW<q DATE>>' \
    --column 'ar:ARRAY<ROW<u BIGINT, w ARRAY<DOUBLE>>>' --column 'mm:MAP<INT, MAP<STRING, BOOLEAN>>' \
    >/dev/null
rc=0
python3 test/orc/check-gen.py "$T/t" 7 > "$T/one.log" || rc=1
# several stripes per file (--stripe-rows): every stripe's streams and footer
"$GEN" "$T/s" --format orc --rows 300 --snapshots 2 --stripe-rows 64 --null-every 5 \
    --column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --column 'a:ARRAY<INT>' \
    --column 'm:MAP<STRING, DECIMAL(12, 3)>' >/dev/null
python3 test/orc/check-gen.py "$T/s" 5 > "$T/stripes.log" || rc=1
grep -hv ' passed, ' "$T/one.log" "$T/stripes.log" || true
cat "$T/one.log" "$T/stripes.log" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' |
    awk '{p += $1; f += $2} END {printf "%d passed, %d failed\n", p, f}'
exit $rc
