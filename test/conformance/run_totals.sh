#!/bin/bash
# test/conformance/run_totals.sh - sourced by the scripts that run the
# conformance cases twice another way (mcache.sh, shmcache.sh): the totals
# of their runs and checks, printed at the end as one part's line.
passed=0 failed=0 skipped=0
count_run() {	# log, run, with_skips: the runner's closing line into the totals; FAIL lines shown
    local log=$1 with_skips=$3 line
    grep '^FAIL ' "$log" | sed "s/^/[$2] /" | head -20
    # the same cases skip in both runs: counted (and named, for the baseline) once
    [ "$3" = 1 ] && grep '^SKIP ' "$log"
    line=$(grep -E '^conformance: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" | tail -1)
    if [ -z "$line" ]; then
        echo "FAIL [$2]: the runner did not finish"; tail -5 "$log"; failed=$((failed + 1)); return
    fi
    set -- $(echo "$line" | grep -oE '[0-9]+')
    passed=$((passed + $1)); failed=$((failed + $2))
    [ "$with_skips" = 1 ] && skipped=$((skipped + $3))
}
check() {	# name, condition (0 = pass)
    if [ "$2" = 0 ]; then passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}
