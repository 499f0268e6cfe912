# lib.sh - shared by the reliability scripts (sourced, not run).
#
# Needs a running cluster reachable through the PG* environment (as inside
# pg_virtualenv) with the extension installed (make install).  Each script
# works in its own database (ts_reliability) and a scratch directory under
# /tmp that the cluster's user can read, and ends with
#   reliability: N passed, N failed, 0 skipped
# (run.sh sums these lines).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
REL_DB=${REL_DB:-ts_reliability}
export PGDATABASE=$REL_DB

# the generator: $TS_GEN, build/tools/ts_gen (made by the test command),
# else build it into build/reliability
GEN=${TS_GEN:-}
if [ -z "$GEN" ]; then
    if [ -x build/tools/ts_gen ]; then GEN=$ROOT/build/tools/ts_gen
    else
        make -s BUILD=build/reliability build/reliability/tools/ts_gen >/dev/null 2>&1 ||
            { echo "cannot build ts_gen"; echo "reliability: 0 passed, 1 failed, 0 skipped"; exit 1; }
        GEN=$ROOT/build/reliability/tools/ts_gen
    fi
fi

PASSED=0
FAILED=0
ok() { PASSED=$((PASSED + 1)); echo "ok - $*"; }
fail() { FAILED=$((FAILED + 1)); echo "not ok - $*"; }
summary() { echo "reliability: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }

# scratch directory readable by the server (which runs as postgres when we
# are root); on tmpfs when there is one (thousands of small files are copied)
REL_TMP=${REL_TMP:-$( [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm || echo /tmp)}
scratch() {
    local d
    d=$(mktemp -d "$REL_TMP/ts_rel_$1.XXXXXX")
    chmod 755 "$d"
    echo "$d"
}

# psql in the reliability database, quiet, unaligned
q() { psql -X -q -At -v ON_ERROR_STOP=0 "$@"; }

ensure_db() {
    psql -X -q -At -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$REL_DB'" | grep -q 1 ||
        psql -X -q -d postgres -c "CREATE DATABASE $REL_DB" >/dev/null || return 1
    q -c "CREATE EXTENSION IF NOT EXISTS tablescan_fdw" >/dev/null 2>&1 ||
        { echo "CREATE EXTENSION tablescan_fdw failed (is it installed?)"; return 1; }
    q -c "DO \$\$ BEGIN CREATE SERVER rel FOREIGN DATA WRAPPER tablescan_fdw; EXCEPTION WHEN duplicate_object THEN NULL; END \$\$" >/dev/null
}

# wait until the cluster accepts connections again (after a crash restart)
wait_ready() {
    local i
    for i in $(seq 1 100); do
        psql -X -q -At -d postgres -c 'SELECT 1' >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    return 1
}

now_ms() { date +%s%3N; }
