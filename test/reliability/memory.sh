#!/bin/bash
# memory.sh - a scan's memory stays bounded.
#
# Reads generated tables much larger than the batch size (TS_BATCH_ROWS =
# 1024 rows) and checks the backend's peak RSS (VmHWM of /proc/self/status,
# read by the backend itself with pg_read_file) in a fresh session each:
#   - reading N rows raises the peak by less than MEM_BOUND_MB over a fresh
#     backend that read a tiny table (extension loaded);
#   - reading 4N rows (2 snapshots of 2x the rows: twice the rows per file, twice the files) raises the peak by
#     less than MEM_GROWTH_MB over reading N rows.
# Prints the figures.
source "$(dirname "$0")/lib.sh"
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch memory)
N=${MEM_ROWS:-300000}
BOUND_MB=${MEM_BOUND_MB:-96}
GROWTH_MB=${MEM_GROWTH_MB:-24}
COLS=(--column 'id:BIGINT NOT NULL' --column name:STRING --column 'note:VARCHAR(64)' --column v:DOUBLE
      --column 'd:DECIMAL(20, 4)' --column 'ts:TIMESTAMP(6)' --column dt:STRING --partition dt --partitions 2)
$GEN "$W/tiny" "${COLS[@]}" --rows 100 >/dev/null &&
$GEN "$W/n1" "${COLS[@]}" --rows "$N" --files 2 >/dev/null &&
$GEN "$W/n4" "${COLS[@]}" --rows $((N * 2)) --snapshots 2 --files 2 >/dev/null ||
    { fail "ts_gen"; summary; exit 1; }
chmod -R a+rX "$W"
FT="id bigint, name text, note varchar(64), v float8, d numeric(20,4), ts timestamp, dt text"
for t in tiny n1 n4; do
    q -c "DROP FOREIGN TABLE IF EXISTS mem_$t" \
      -c "CREATE FOREIGN TABLE mem_$t ($FT) SERVER rel OPTIONS (path '$W/$t')" >/dev/null 2>&1
done
HWM="SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s*(\\d+)')"
QRY="count(x) || ' rows' FROM (SELECT length(name) + length(note) + v + d + extract(epoch from ts) + length(dt) AS x FROM"

peak() {   # table -> "<kB before> <kB after> <result>"
    q -c "SELECT $QRY mem_tiny t) s" -c "$HWM" -c "SELECT $QRY mem_$1 t) s" -c "$HWM" 2>&1 | tr '\n' ' '
}
# the measurement itself works: a query that holds ~64 MB raises the peak
read -r c0 c1 <<<"$(q -c "$HWM" -c "SELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 65536)" -c "$HWM" 2>&1 | sed -n '1p;3p' | tr '\n' ' ')"
if [ -n "$c1" ] && [ $(( (c1 - c0) / 1024 )) -ge 60 ]; then
    ok "VmHWM sees a 64 MB allocation (+$(( (c1 - c0) / 1024 )) MB)"
else
    fail "VmHWM does not see a 64 MB allocation ($c0 -> $c1 kB)"
fi
read -r _ _ base1 r1 _ h1 <<<"$(peak n1)"
read -r _ _ base4 r4 _ h4 <<<"$(peak n4)"
echo "# fresh backend after a tiny scan: ${base1} kB / ${base4} kB peak RSS"
echo "# $N rows (${r1}): peak ${h1} kB;  $((N * 4)) rows (${r4}): peak ${h4} kB"
if [ "$r1" != "$N" ] || [ "$r4" != "$((N * 4))" ]; then
    fail "row counts: $r1 / $r4 (expected $N / $((N * 4)))"
else
    d1=$(( (h1 - base1) / 1024 )); d4=$(( (h4 - base4) / 1024 )); g=$(( (h4 - base4 - h1 + base1) / 1024 ))
    echo "memory: $N rows +${d1} MB peak RSS, $((N * 4)) rows +${d4} MB (growth ${g} MB for 4x the rows)"
    [ "$d1" -lt "$BOUND_MB" ] && ok "scan of $N rows raises peak RSS by ${d1} MB (< $BOUND_MB MB)" ||
        fail "scan of $N rows raises peak RSS by ${d1} MB (bound $BOUND_MB MB)"
    [ "$g" -lt "$GROWTH_MB" ] && ok "4x the rows grows peak RSS by ${g} MB (< $GROWTH_MB MB)" ||
        fail "4x the rows grows peak RSS by ${g} MB (bound $GROWTH_MB MB)"
fi
q -c "DROP FOREIGN TABLE IF EXISTS mem_tiny, mem_n1, mem_n4" >/dev/null 2>&1
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
