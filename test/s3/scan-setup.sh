# scan-setup.sh - sourced by the test scripts that read through the test
# proxy with the server-free scan (tls.sh, latency.sh): with PART set, it
# goes to the repository root, makes a scratch directory $D, the pass /
# fail counters with ok / bad, builds the library (and the tools) and
# bench/ts_scan_bench as $D/scan, and installs the proxy's npm packages.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
FIX=${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}
BUILD=${BUILD:-build}
D=$(mktemp -d "/tmp/tablescan_fdw_$PART.XXXXXX")
pass=0; fail=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
make -s -j2 BUILD=$BUILD core tools bench-bins >/dev/null && cp $BUILD/bench/ts_scan_bench "$D/scan" ||
   { echo "$PART: 0 passed, 1 failed"; exit 1; }
[ -d test/s3/node_modules/s3rver ] || (cd test/s3 && npm install --no-audit --no-fund >/dev/null 2>&1)
