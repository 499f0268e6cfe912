#!/bin/bash
# Runs inside pg_virtualenv (PG* variables point at a throwaway cluster):
# pg_regress through "make installcheck", then the conformance runner.
# Prints "regress: N passed, N failed, N skipped", "conformance: ...", "conformance-s3: ...",
# "conformance-rest-s3: ...", "prune-diff: ..." and "reliability: ..." lines (SKIP lines name the
# skipped cases: test/baseline.py).
set -uo pipefail
cd "$(dirname "$0")/.."

# the REST catalog the suite rest_catalog talks to (test/rest/server.mjs); it also serves
# the ../shared/testdata warehouses at their object store copy (conformance-rest-s3)
S3KEYS='{"fs.s3a.access.key": "S3RVER", "fs.s3a.secret.key": "S3RVER"}'
if eval "$(bash test/rest/start.sh --testdata "$TS_SHARED/testdata" \
               --testdata-location s3://shared/testdata --testdata-token "$S3KEYS")"; then
    trap 'kill "$TS_REST_PID" 2>/dev/null' EXIT
else
    echo "could not start the test REST catalog (rest_catalog will fail)"
fi
# the object store the suite s3 reads (test/s3: s3rver behind a SigV4-checking proxy),
# with a copy of ../shared/testdata at s3://shared/testdata (conformance-s3)
if eval "$(TS_S3_TESTDATA=1 bash test/s3/start.sh)"; then
    trap 'kill "$TS_REST_PID" "$TS_S3_PID" 2>/dev/null' EXIT
else
    echo "could not start the test object store (s3 will fail)"
fi
out=$(make -s installcheck 2>&1); rc=$?
printf '%s\n' "$out" | grep -E '^(ok|not ok|test |     )|FAILED|failed' | head -60
total=$(printf '%s\n' "$out" | grep -cE '^(ok|not ok) ')
bad=$(printf '%s\n' "$out" | grep -cE '^not ok ')
if [ "$total" -eq 0 ]; then
    # older pg_regress output format
    total=$(printf '%s\n' "$out" | grep -cE '^(test |     )[a-z0-9_]+ +\.\.\. ')
    bad=$(printf '%s\n' "$out" | grep -cE '\.\.\. FAILED')
fi
if [ $rc -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; printf '%s\n' "$out" | tail -20; fi
[ "$bad" -ne 0 ] && [ -f regression.diffs ] && head -150 regression.diffs
echo "regress: $((total - bad)) passed, $bad failed, 0 skipped"

python3 test/conformance/run.py --shared "$TS_SHARED"
# the same cases over the object store copy (option path 's3://shared/testdata/...'), and
# through the REST catalog serving that copy (database + table, the copy's keys as the
# tables' data token): both must give what the local run gives
python3 test/conformance/run.py --shared "$TS_SHARED" --mode s3
python3 test/conformance/run.py --shared "$TS_SHARED" --mode rest-s3

# pruning / pushdown never change results (differential, every testdata table)
python3 test/conformance/prune_diff.py --shared "$TS_SHARED"

# scale out: a coordinator and 3 worker clusters of their own over postgres_fdw (test/scaleout)
timeout 180 bash test/scaleout/run.sh 2>&1 | tail -30

# corruption matrix, cancel, bounded memory, concurrent commits
bash test/reliability/run.sh 2>&1 | grep -vE '^(ok|PASS) ' | tail -30
