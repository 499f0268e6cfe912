#!/bin/bash
# The test command of README.md: everything, on a fresh Debian 12 machine.
#
# Installs the packages it needs, builds and installs the extension, then
# runs: the server-free unit tests, the fixture generator, pg_regress, the
# conformance runner and the pruning differential test against ../shared (in
# a throwaway cluster made by pg_virtualenv).  Ends with one line
# "N passed, N failed" summing them all; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export TS_SHARED=${TS_SHARED:-$(cd "$ROOT/.." && pwd)/shared}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
LOG=$ROOT/build/test-logs
mkdir -p "$LOG"

bash test/install-deps.sh || { echo "could not install packages"; echo "0 passed, 1 failed"; exit 1; }

step() { printf '== %s\n' "$*"; }

step build
if ! make -s -j2 >"$LOG/build.log" 2>&1 || ! $SUDO make -s install >>"$LOG/build.log" 2>&1 \
   || ! make -s -j2 unit tools >>"$LOG/build.log" 2>&1; then
    tail -40 "$LOG/build.log"
    echo "0 passed, 1 failed"
    exit 1
fi

step unit tests
bash test/run-unit.sh build/unit | tee "$LOG/unit.log" | tail -25

step "differential tests against DuckDB (npm @duckdb/node-api)"
for d in parquet formattable; do
    out=$(bash test/$d/run.sh 2>&1); rc=$?
    printf '%s\n' "$out" > "$LOG/duckdb-$d.log"
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
    if [ -z "$line" ]; then
        printf '%s\n' "$out" | tail -15
        line="0 passed, 1 failed"
    elif [ $rc -ne 0 ]; then
        printf '%s\n' "$out" | grep -iE 'fail|mismatch|error' | head -15
    fi
    echo "duckdb-$d: $line" | tee -a "$LOG/unit.log"
done

step "fuzz smoke round (libFuzzer, ASan + UBSan, ${TS_FUZZ_SECONDS:-10} s per harness)"
bash test/fuzz/run.sh "${TS_FUZZ_SECONDS:-10}" > "$LOG/fuzz.log" 2>&1
grep -E '^fuzz_|^fuzz:' "$LOG/fuzz.log" | tail -12
grep -q '^fuzz: ' "$LOG/fuzz.log" || { tail -20 "$LOG/fuzz.log"; echo "fuzz: 0 passed, 1 failed (harnesses did not build or run)"; } >> "$LOG/unit.log"
grep '^fuzz: ' "$LOG/fuzz.log" >> "$LOG/unit.log"

step fixtures
export TS_FIXTURES=/tmp/tablescan_fdw_fixtures
bash test/make-fixtures.sh "$TS_FIXTURES" >"$LOG/fixtures.log" 2>&1 || { tail -20 "$LOG/fixtures.log"; echo "fixtures: 0 passed, 1 failed" >> "$LOG/unit.log"; }

step "object store over HTTPS with a CA of the test's own (test/s3/tls.sh)"
bash test/s3/tls.sh > "$LOG/tls.log" 2>&1
grep -E '^(ok|FAIL) ' "$LOG/tls.log"
grep '^tls: ' "$LOG/tls.log" >> "$LOG/unit.log" || { tail -10 "$LOG/tls.log"; echo "tls: 0 passed, 1 failed" >> "$LOG/unit.log"; }

step pg_regress and conformance '(pg_virtualenv)'
pg_virtualenv -t -v 15 bash test/pg-tests.sh 2>&1 | tee "$LOG/pg.log" | grep -vE '^(ok|PASS) ' | tail -60
grep -q '^regress: ' "$LOG/pg.log" || echo "regress: 0 passed, 1 failed (pg_virtualenv did not run the suites)" >> "$LOG/pg.log"
grep -q '^conformance: ' "$LOG/pg.log" || echo "conformance: 0 passed, 1 failed (the runner did not finish)" >> "$LOG/pg.log"
grep -q '^prune-diff: ' "$LOG/pg.log" || echo "prune-diff: 0 passed, 1 failed (the differential test did not finish)" >> "$LOG/pg.log"
grep -q '^reliability: ' "$LOG/pg.log" || echo "reliability: 0 passed, 1 failed (the suite did not finish)" >> "$LOG/pg.log"

step "benchmark smoke run (make bench SIZE=tiny: it runs and prints its table, every scan with the heap table's result; no timing is asserted)"
rm -f build/bench/RESULTS-tiny.md
if make -s bench SIZE=tiny > "$LOG/bench.log" 2>&1 && grep -q '^## Scan' build/bench/RESULTS-tiny.md 2>/dev/null \
   && ! grep -qE '\| no \|$' build/bench/RESULTS-tiny.md; then
    sed -n '/^## Scan/,/^## Planning/p' build/bench/RESULTS-tiny.md | head -12
    echo "bench: 1 passed, 0 failed" >> "$LOG/unit.log"
else
    tail -20 "$LOG/bench.log"
    echo "bench: 0 passed, 1 failed" >> "$LOG/unit.log"
fi

# sum every "<name>: N passed, N failed" line of the parts
total_p=0; total_f=0
while read -r p f; do
    total_p=$((total_p + p)); total_f=$((total_f + f))
done < <(cat "$LOG/unit.log" "$LOG/pg.log" |
         sed -n 's/^\([a-z-]*\): \([0-9]*\) passed, \([0-9]*\) failed.*/\2 \3/p')
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
