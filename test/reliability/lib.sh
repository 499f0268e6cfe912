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

# Start the test object store (test/s3/proxy.mjs: s3rver behind our proxy;
# its npm packages installed on first use) with proxy.mjs's arguments after
# the scratch directory that gets its port file and log; sets PROXY (the
# pid, killed when the script exits) and EP (http://127.0.0.1:<port>).
# False, saying why, when it does not start.
start_s3_proxy() {
    local dir=$1 i
    shift
    (cd test/s3 && { [ -d node_modules/s3rver ] || npm install --no-audit --no-fund >/dev/null 2>&1; }) ||
        { echo "npm install in test/s3 failed"; return 1; }
    node test/s3/proxy.mjs "$@" >"$dir/port" 2>"$dir/proxy.log" &
    PROXY=$!
    trap 'kill $PROXY 2>/dev/null' EXIT
    for i in $(seq 1 600); do [ -s "$dir/port" ] && break; kill -0 $PROXY 2>/dev/null || break; sleep 0.1; done
    [ -s "$dir/port" ] || { echo "the test object store did not start: $(tail -2 "$dir/proxy.log")"; return 1; }
    EP=http://127.0.0.1:$(cat "$dir/port")
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

# stage_commits W K ARGS...: the generator's table (ARGS) with 1..K
# snapshots in W/stage/s1..sK (its output is deterministic, each stage a
# prefix of the next), W/stage/new<s> listing the files commit s adds
# (snapshot files aside), and W/live a copy of stage 1 readable by the server
stage_commits() {
    local w=$1 k=$2 s
    shift 2
    for s in $(seq 1 "$k"); do
        $GEN "$w/stage/s$s" "$@" --snapshots "$s" >/dev/null || { echo "ts_gen s$s failed"; return 1; }
        (cd "$w/stage/s$s" && find . -type f ! -path './snapshot/*' | sort > "$w/stage/files$s")
        if [ "$s" -eq 1 ]; then cp "$w/stage/files1" "$w/stage/new1"
        else comm -13 "$w/stage/files$((s - 1))" "$w/stage/files$s" > "$w/stage/new$s"; fi
    done
    cp -r "$w/stage/s1" "$w/live"
    chmod -R a+rX "$w"
}

# publish_commit W s: commit s into W/live as Paimon does: the files it
# adds (each by rename, so no reader sees half a file), then snapshot-s
# by rename, then the LATEST hint
publish_commit() {
    local w=$1 s=$2 f d=$1/live/snapshot
    while read -r f; do
        mkdir -p "$w/live/$(dirname "$f")"
        cp "$w/stage/s$s/$f" "$w/live/$f.tmp" && mv "$w/live/$f.tmp" "$w/live/$f"
    done < "$w/stage/new$s"
    cp "$w/stage/s$s/snapshot/snapshot-$s" "$d/.snapshot-$s.tmp" && mv "$d/.snapshot-$s.tmp" "$d/snapshot-$s"
    printf '%s' "$s" > "$d/.LATEST.tmp" && mv "$d/.LATEST.tmp" "$d/LATEST"
    chmod -R a+rX "$w/live"
}

# sessions_lost W N: how many of the reader sessions W/reader1..N.out did
# not reach their final 'alive' line (each one lost is named)
sessions_lost() {
    local w=$1 n=$2 r dead=0
    for r in $(seq 1 "$n"); do
        tail -1 "$w/reader$r.out" | grep -qx alive ||
            { dead=$((dead + 1)); echo "reader $r did not survive: $(tail -3 "$w/reader$r.out" | tr '\n' ' ')" >&2; }
    done
    echo "$dead"
}
