#!/bin/bash
# run.sh - the reliability suite (issue 9): corruption matrix, cancel,
# bounded memory, concurrent commits, and the object store client's
# concurrent reads under random faults (s3faults.sh; savepoint.sh: an ERROR
# in a savepoint with prefetches in flight; both need node and npm,
# as test/s3 and test/parquet do).  Runs inside pg_virtualenv (PG*
# variables set) with the extension installed:
#   pg_virtualenv -v 15 bash test/reliability/run.sh
# Prints each script's output and finally "reliability: N passed, N failed".
cd "$(dirname "$0")/../.."
REL_DB=ts_reliability
export REL_DB
p=0; f=0
for s in corruption cancel memory concurrent s3faults savepoint; do
    echo "== reliability/$s"
    t0=$(date +%s)
    out=$(bash "test/reliability/$s.sh" 2>&1)
    printf '%s\n' "$out" | grep -v '^reliability: '
    line=$(printf '%s\n' "$out" | grep '^reliability: ' | tail -1)
    if [ -z "$line" ]; then
        f=$((f + 1)); echo "not ok - $s.sh did not finish"
    else
        p=$((p + $(echo "$line" | sed 's/.* \([0-9]*\) passed.*/\1/')))
        f=$((f + $(echo "$line" | sed 's/.* \([0-9]*\) failed.*/\1/')))
    fi
    echo "# $s: $(( $(date +%s) - t0 )) s"
done
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $REL_DB" >/dev/null 2>&1
echo "reliability: $p passed, $f failed, 0 skipped"
[ "$f" -eq 0 ]
