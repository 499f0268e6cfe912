#!/bin/bash
# The test command of README.md: everything, on a fresh Debian 12 machine.
#
# Installs the packages it needs, builds and installs the extension, then
# runs: the server-free unit tests, the fixture generator, pg_regress, the
# conformance runner and the pruning differential test against ../shared (in
# a throwaway cluster made by pg_virtualenv).  Every part prints
# "<part>: N passed, N failed, N skipped" (and a SKIP line per skipped case);
# test/baseline.py holds them to test/baseline.json (skips allowed by name,
# floors of passes) and ends with one line "N passed, N failed, N skipped"
# summing them all; exits non-zero if anything failed or broke the baseline.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export TS_SHARED=${TS_SHARED:-$(cd "$ROOT/.." && pwd)/shared}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
LOG=$ROOT/build/test-logs
mkdir -p "$LOG"

bash test/install-deps.sh || { echo "could not install packages"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

step() { printf '== %s\n' "$*"; }

# every part runs under limited (test/limited.sh): a hang fails that part; the
# limits are cut to TS_CI_BUDGET (seconds, default 38 min from the start) so the
# whole run stays under 40 minutes however many parts hang
. test/limited.sh
budget_end=$((SECONDS + ${TS_CI_BUDGET:-2280}))

step build
if ! make -s -j2 >"$LOG/build.log" 2>&1 || ! $SUDO make -s install >>"$LOG/build.log" 2>&1 \
   || ! make -s -j2 unit tools >>"$LOG/build.log" 2>&1; then
    tail -40 "$LOG/build.log"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

step unit tests
limited unit 600 "$LOG/unit.log" bash test/run-unit.sh build/unit; tail -25 "$LOG/unit.log"

step "the checkers' own self-tests (conformance/run.py, baseline.py) and docs-check.sh"
hp=0; hf=0
for t in "python3 test/conformance/run.py --self-test" "python3 test/baseline.py self-test" "bash test/docs-check.sh"; do
    if limited harness 120 "$LOG/harness-one.log" $t; then hp=$((hp + 1)); else hf=$((hf + 1)); tail -5 "$LOG/harness-one.log"; fi
done
echo "harness: $hp passed, $hf failed, 0 skipped" | tee -a "$LOG/unit.log"

step "the include graph runs one way (test/layers-check.sh)"
limited layers 120 "$LOG/layers.log" bash test/layers-check.sh; grep -E '^FAIL|^     ' "$LOG/layers.log" | head -20
grep -q '^layers: [0-9]' "$LOG/layers.log" || { tail -5 "$LOG/layers.log"; echo "layers: 0 passed, 1 failed, 0 skipped"; } >> "$LOG/unit.log"
grep '^layers: [0-9]' "$LOG/layers.log" | tee -a "$LOG/unit.log"

step "differential tests against DuckDB (npm @duckdb/node-api)"
for d in parquet formattable; do
    limited "duckdb-$d" 300 "$LOG/duckdb-$d.log" bash test/$d/run.sh; rc=$?
    out=$(cat "$LOG/duckdb-$d.log")
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
    if [ -z "$line" ] || [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        printf '%s\n' "$out" | tail -15
        line="0 passed, 1 failed, 0 skipped"
    elif [ $rc -ne 0 ]; then
        printf '%s\n' "$out" | grep -iE 'fail|mismatch|error' | head -15
    fi
    echo "duckdb-$d: $line" | tee -a "$LOG/unit.log"
done

step "fuzz smoke round (libFuzzer, ASan + UBSan, ${TS_FUZZ_SECONDS:-10} s per harness)"
limited fuzz 600 "$LOG/fuzz.log" bash test/fuzz/run.sh "${TS_FUZZ_SECONDS:-10}"
grep -E '^fuzz_|^fuzz:' "$LOG/fuzz.log" | tail -12
grep -q '^fuzz: ' "$LOG/fuzz.log" || { tail -20 "$LOG/fuzz.log"; echo "fuzz: 0 passed, 1 failed, 0 skipped (harnesses did not build or run)"; } >> "$LOG/unit.log"
grep '^fuzz: ' "$LOG/fuzz.log" >> "$LOG/unit.log"

step fixtures
export TS_FIXTURES=/tmp/tablescan_fdw_fixtures
limited fixtures 600 "$LOG/fixtures.log" bash test/make-fixtures.sh "$TS_FIXTURES" || { tail -20 "$LOG/fixtures.log"; echo "fixtures: 0 passed, 1 failed, 0 skipped" >> "$LOG/unit.log"; }

step "ORC files of the generator read by a decoder of their own (test/orc/run.sh)"
limited orc-writer 300 "$LOG/orc-writer.log" bash test/orc/run.sh; out=$(cat "$LOG/orc-writer.log")
line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
[ -n "$line" ] || { printf '%s\n' "$out" | tail -10; line="0 passed, 1 failed"; }
echo "orc-writer: $line, 0 skipped" | tee -a "$LOG/unit.log"

step "Parquet files of the generator read by DuckDB (test/parquet/check-gen.sh)"
limited parquet-writer 300 "$LOG/parquet-writer.log" bash test/parquet/check-gen.sh; out=$(cat "$LOG/parquet-writer.log")
line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
[ -n "$line" ] || { printf '%s\n' "$out" | tail -10; line="0 passed, 1 failed"; }
echo "parquet-writer: $line, 0 skipped" | tee -a "$LOG/unit.log"

step "object store over HTTPS with a CA of the test's own (test/s3/tls.sh)"
limited tls 300 "$LOG/tls.log" bash test/s3/tls.sh
grep -E '^(ok|FAIL) ' "$LOG/tls.log"
grep '^tls: ' "$LOG/tls.log" >> "$LOG/unit.log" || { tail -10 "$LOG/tls.log"; echo "tls: 0 passed, 1 failed" >> "$LOG/unit.log"; }

step "round trips waited in turn through the test proxy at 150 ms (test/s3/latency.sh)"
limited latency 300 "$LOG/latency.log" bash test/s3/latency.sh
grep -E '^(ok|FAIL) ' "$LOG/latency.log"
grep '^latency: ' "$LOG/latency.log" >> "$LOG/unit.log" || { tail -10 "$LOG/latency.log"; echo "latency: 0 passed, 1 failed" >> "$LOG/unit.log"; }

step "the Azure Blob client against azurite and a misbehaving stub (test/azure/azure-client.sh)"
limited azure 300 "$LOG/azure.log" bash test/azure/azure-client.sh
grep -E '^FAIL ' "$LOG/azure.log"
grep '^azure: ' "$LOG/azure.log" >> "$LOG/unit.log" || { tail -10 "$LOG/azure.log"; echo "azure: 0 passed, 1 failed, 0 skipped" >> "$LOG/unit.log"; }

step pg_regress and conformance '(pg_virtualenv)'
limited pg-tests 1800 "$LOG/pg.log" pg_virtualenv -t -v 15 bash test/pg-tests.sh
grep -vE '^(ok|PASS) ' "$LOG/pg.log" | tail -60
grep -q '^regress: ' "$LOG/pg.log" || echo "regress: 0 passed, 1 failed, 0 skipped (pg_virtualenv did not run the suites)" >> "$LOG/pg.log"
grep -q '^regress-rerun: ' "$LOG/pg.log" || echo "regress-rerun: 0 passed, 1 failed, 0 skipped (the second run of the suites did not finish)" >> "$LOG/pg.log"
grep -q '^conformance: ' "$LOG/pg.log" || echo "conformance: 0 passed, 1 failed, 0 skipped (the runner did not finish)" >> "$LOG/pg.log"
grep -q '^prune-diff: ' "$LOG/pg.log" || echo "prune-diff: 0 passed, 1 failed, 0 skipped (the differential test did not finish)" >> "$LOG/pg.log"
grep -q '^reliability: ' "$LOG/pg.log" || echo "reliability: 0 passed, 1 failed, 0 skipped (the suite did not finish)" >> "$LOG/pg.log"
grep -q '^stream: ' "$LOG/pg.log" || echo "stream: 0 passed, 1 failed, 0 skipped (test/stream/concurrent.sh did not finish)" >> "$LOG/pg.log"
grep -q '^scaleout: ' "$LOG/pg.log" || echo "scaleout: 0 passed, 1 failed, 0 skipped (the scale-out test did not finish)" >> "$LOG/pg.log"

step "benchmark smoke run (make bench SIZE=tiny: it runs and prints its table; each query's \"same result\" -- foreign tables = heap loaded from the generator's formulas, and DuckDB where the SQL is the same -- is one check; no timing is asserted)"
rm -f build/bench/RESULTS-tiny.md
if limited bench 600 "$LOG/bench.log" env BENCH_NO_INSTALL=1 make -s bench SIZE=tiny && grep -q '^## Scan' build/bench/RESULTS-tiny.md 2>/dev/null; then
    sed -n '/^## Scan/,/^## Planning/p' build/bench/RESULTS-tiny.md | head -12
    by=$(grep -cE '\| yes \|$' build/bench/RESULTS-tiny.md); bn=$(grep -cE '\| no \|$' build/bench/RESULTS-tiny.md)
    grep -E '\| no \|$' build/bench/RESULTS-tiny.md
    echo "bench: $by passed, $bn failed, 0 skipped" >> "$LOG/unit.log"
else
    tail -20 "$LOG/bench.log"
    echo "bench: 0 passed, 1 failed, 0 skipped" >> "$LOG/unit.log"
fi

step "README's demo command (test/demo.sh, checked by test/demo-check.sh)"
limited demo 300 "$LOG/demo-check.log" bash test/demo-check.sh "$LOG/demo.log"
grep -E '^FAIL ' "$LOG/demo-check.log"
grep '^demo: ' "$LOG/demo-check.log" >> "$LOG/unit.log" || { tail -10 "$LOG/demo-check.log"; echo "demo: 0 passed, 1 failed, 0 skipped" >> "$LOG/unit.log"; }

# every "<part>: N passed, N failed, N skipped" line against test/baseline.json,
# then the closing line "N passed, N failed, N skipped" summing them all
step "baseline (test/baseline.json: skips allowed by name, floors of passes)"
grep -hE '^[a-z][a-z0-9-]*: [0-9]+ passed, [0-9]+ failed' "$LOG/unit.log" "$LOG/pg.log"
python3 test/baseline.py check "$LOG/unit.log" "$LOG/pg.log"
