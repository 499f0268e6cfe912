#!/bin/bash
# test/conformance/mcache.sh - the conformance cases with the decoded manifest
# cache on (src/meta/manifest_cache.c, tablescan.metadata_cache_dir).
#
# A first run of test/conformance/run.py fills a fresh cache directory (every
# session decodes its manifests and stores their records), a second run plans
# from those records; each run is held to the oracle and to test/baseline.json
# exactly as the plain run is, so records give the same answers as decoding.
# Two more checks: the first run stored records, and the second run read them
# (a hit refreshes a record's modification time).  Prints the runs' FAIL lines
# and closes with
#     conformance-mcache: N passed, N failed, N skipped
# (both runs' passes and failures plus the two checks; the skips, the same in
# both runs, named and counted once).  Needs the PG* variables of the
# cluster (superuser: the directory is set per session through PGOPTIONS) and
# TS_SHARED.  MCACHE_CASES: run.py --case patterns (space separated) for a
# subset; default every case.
set -uo pipefail
cd "$(dirname "$0")/../.."
dir=ts_conformance_mcache		# relative: under the cluster's data directory
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 -c "$1"; }

q "COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf $dir'" || {
    echo "conformance-mcache: 0 passed, 1 failed, 0 skipped (no server)"; exit 0; }
cases=()
for c in ${MCACHE_CASES:-}; do cases+=(--case "$c"); done
export PGOPTIONS="${PGOPTIONS:-} -c tablescan.metadata_cache_dir=$dir"

. test/conformance/run_totals.sh
records() {
    PGOPTIONS= q "SELECT count(*) FROM pg_ls_dir('$dir') f WHERE f ~ '^[0-9a-f]{64}\.tsm\$' ${1:-}"
}

log=$(mktemp -d)
python3 test/conformance/run.py --shared "$TS_SHARED" "${cases[@]}" > "$log/fill.log" 2>&1
count_run "$log/fill.log" fill 0
stored=$(records)
check "records stored by the first run ($stored)" "$([ "${stored:-0}" -gt 0 ] && echo 0 || echo 1)"

marker=$(PGOPTIONS= q "SELECT now()")
sleep 1.2					# pg_stat_file's modification times are in seconds
python3 test/conformance/run.py --shared "$TS_SHARED" "${cases[@]}" > "$log/hit.log" 2>&1
count_run "$log/hit.log" hit 1
used=$(records "AND (pg_stat_file('$dir/' || f)).modification > '$marker'::timestamptz")
check "records read by the second run ($used of $stored)" "$([ "${used:-0}" -gt 0 ] && echo 0 || echo 1)"
echo "records: $stored stored by the first run, $used read by the second"

PGOPTIONS= q "COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf $dir'" >/dev/null
rm -rf "$log"
echo "conformance-mcache: $passed passed, $failed failed, $skipped skipped"
