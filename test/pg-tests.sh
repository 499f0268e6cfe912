#!/bin/bash
# Runs inside pg_virtualenv (PG* variables point at a throwaway cluster):
# pg_regress through "make installcheck", then the conformance runner.
# Prints "regress: N passed, N failed, N skipped", "regress-rerun: ..." (the schedule run a second
# time on the same cluster), "conformance: ...", "conformance-s3: ...",
# "conformance-rest-s3: ...", "conformance-azure: ...", "azure-store: ...", "prune-diff: ..." and "reliability: ..." lines (SKIP lines name the
# skipped cases: test/baseline.py).
# Each part runs under its own timeout (test/limited.sh), all within PG_TESTS_BUDGET
# seconds (default 28 min, under run-tests.sh's 30 for this whole script): a part
# that hangs prints "<part>: timed out after N s" and counts one failure.
set -uo pipefail
cd "$(dirname "$0")/.."
. test/limited.sh
budget_end=$((SECONDS + ${PG_TESTS_BUDGET:-1680}))
PGT=$(mktemp -d /tmp/ts-pg-tests.XXXXXX)

# the REST catalog the suite rest_catalog talks to (test/rest/server.mjs); it also serves
# the ../shared/testdata warehouses at their object store copy (conformance-rest-s3)
S3KEYS='{"fs.s3a.access.key": "S3RVER", "fs.s3a.secret.key": "S3RVER"}'
if eval "$(bash test/rest/start.sh --testdata "$TS_SHARED/testdata" \
               --testdata-location s3://shared/testdata --testdata-token "$S3KEYS")"; then
    trap 'kill "$TS_REST_PID" 2>/dev/null; rm -rf "$PGT"' EXIT
else
    echo "could not start the test REST catalog (rest_catalog will fail)"
fi
# the object store the suite s3 reads (test/s3: s3rver behind a SigV4-checking proxy),
# with a copy of ../shared/testdata at s3://shared/testdata (conformance-s3)
if eval "$(TS_S3_TESTDATA=1 bash test/s3/start.sh)"; then
    trap 'kill "$TS_REST_PID" "$TS_S3_PID" 2>/dev/null; rm -rf "$PGT"' EXIT
else
    echo "could not start the test object store (s3 will fail)"
fi
# regress PART: the pg_regress schedule (make installcheck) as part PART
regress() {
    local part=$1 out rc total bad
    limited "$part" 600 "$PGT/$part.log" make -s installcheck; rc=$?
    out=$(cat "$PGT/$part.log")
    printf '%s\n' "$out" | grep -v "^$part: " | grep -E '^(ok|not ok|test |     )|FAILED|failed' | head -60
    total=$(printf '%s\n' "$out" | grep -cE '^(ok|not ok) ')
    bad=$(printf '%s\n' "$out" | grep -cE '^not ok ')
    if [ "$total" -eq 0 ]; then
        # older pg_regress output format
        total=$(printf '%s\n' "$out" | grep -cE '^(test |     )[a-z0-9_]+ +\.\.\. ')
        bad=$(printf '%s\n' "$out" | grep -cE '\.\.\. FAILED')
    fi
    if [ $rc -ne 0 ] && [ "$bad" -eq 0 ]; then bad=1; printf '%s\n' "$out" | tail -20; fi
    [ "$bad" -ne 0 ] && [ -f regression.diffs ] && head -150 regression.diffs
    echo "$part: $((total - bad)) passed, $bad failed, 0 skipped"
}
regress regress
# the same schedule again on this warm cluster (servers, data directory and caches as the
# first run left them): every suite resets what it depends on, so it passes twice
regress regress-rerun

# part NAME SECONDS CMD...: CMD's output (a timeout: "NAME: timed out after N s" + one failure)
part() {
    local name=$1 secs=$2; shift 2
    limited "$name" "$secs" "$PGT/$name.log" "$@" >/dev/null
    cat "$PGT/$name.log"
}
part conformance 400 python3 test/conformance/run.py --shared "$TS_SHARED"
# the same cases over the object store copy (option path 's3://shared/testdata/...'), and
# through the REST catalog serving that copy (database + table, the copy's keys as the
# tables' data token): both must give what the local run gives
part conformance-s3 400 python3 test/conformance/run.py --shared "$TS_SHARED" --mode s3
part conformance-rest-s3 400 python3 test/conformance/run.py --shared "$TS_SHARED" --mode rest-s3
# the same cases over a copy in the test Azure store (azurite; abfs:// paths, the account key in
# the user mapping): the same results as the local run; then secrets, errors and roles there
part conformance-azure 400 bash test/azure/conformance.sh
part azure-store 200 bash test/azure/store.sh | grep -vE '^ok '
# INSERT / COPY / UPDATE / DELETE into tables in the test Azure store (azurite)
part writes-azure 300 bash test/azure/writes.sh | grep -vE '^ok '

# pruning / pushdown never change results (differential, every testdata table)
part prune-diff 400 python3 test/conformance/prune_diff.py --shared "$TS_SHARED"

# the conformance cases twice with the decoded manifest cache on: filling it, then planning from it
part conformance-mcache 400 bash test/conformance/mcache.sh
# the same twice in a cluster of its own that preloads the library: live sets in shared memory
part conformance-shmcache 400 bash test/conformance/shmcache.sh

# scale out: a coordinator and 3 worker clusters of their own over postgres_fdw (test/scaleout)
part scaleout 240 bash test/scaleout/run.sh | tail -30

# corruption matrix, cancel, bounded memory, concurrent commits
part reliability 1000 bash test/reliability/run.sh | grep -vE '^(ok|PASS) ' | tail -30

# a hostile object store of our own (test/hostile/s3.mjs): body caps and backend memory,
# endless listings, header injection, 404/403 errors, addressing of an IP endpoint
part hostile-s3 300 bash test/hostile/run.sh | grep -vE '^ok ' | tail -20

# a hostile REST catalog of our own: credentials, token expiry, NUL / CR-LF, IMPORT on 401/403
part hostile-rest 300 bash test/hostile/rest.sh

# following changes: sessions reading one consumer while a writer commits, exactly once
part stream 300 env REL_DB=ts_stream bash test/stream/concurrent.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_stream" >/dev/null 2>&1
# following changes: Paimon consumer files on an object store, written at COMMIT with the role's keys
part consumer-s3 200 env REL_DB=ts_consumer_s3 bash test/stream/consumer-s3.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_consumer_s3" >/dev/null 2>&1

# writes: backends inserting into one table at once, a backend killed mid-INSERT
part writes-concurrent 300 env REL_DB=ts_writes bash test/writes/concurrent.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes" >/dev/null 2>&1
# writes: the Parquet files an INSERT writes, read by DuckDB
part writes-duckdb 300 env REL_DB=ts_writes_duckdb bash test/writes/duckdb.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes_duckdb" >/dev/null 2>&1
# writes: exact values per row (numerics of every shape), memory flat from N to 4N rows
part writes-rows 300 env REL_DB=ts_writes_rows bash test/writes/rows.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes_rows" >/dev/null 2>&1
# writes: INSERT / COPY into an S3 table, multipart, races, lost answers, a store without conditional writes
part writes-s3 300 env REL_DB=ts_writes_s3 bash test/writes/s3.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes_s3" >/dev/null 2>&1
# writes: INSERT / COPY / UPDATE / DELETE into REST catalog tables, committed through its commit endpoint
part writes-rest 300 env REL_DB=ts_writes_rest bash test/writes/rest.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes_rest" >/dev/null 2>&1
# writes: each commit's base manifest list merged as Java's rule predicts (a hand-made and a Java-written table)
part writes-merge 300 env REL_DB=ts_writes_merge bash test/writes/merge.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes_merge" >/dev/null 2>&1
# writes: an INSERT into an S3 table cancelled, and one whose backend is terminated, mid-upload
part writes-s3-cancel 300 env REL_DB=ts_writes_s3_cancel bash test/writes/s3-cancel.sh | grep -vE '^ok ' | tail -10
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes_s3_cancel" >/dev/null 2>&1
