# Sourced by test/run-tests.sh and test/pg-tests.sh: limited, which runs one part
# of the suite under a timeout so that a hang fails the part instead of the CI.
#
# limited PART SECONDS OUT CMD...: CMD under a timeout, its output in the file OUT
# (a file, not a pipe: a child left behind cannot keep the part waiting).  A part
# that runs out of time fails: "PART: timed out after N s" is printed and
# appended to OUT with "PART: 0 passed, 1 failed, 0 skipped".  The limit is cut
# to what is left before $budget_end (a $SECONDS value the caller sets), so
# the whole run keeps its bound however many parts hang.  Returns CMD's status
# (124 or 137 on a timeout).
limited() {
    local part=$1 secs=$2 out=$3 rc; shift 3
    if [ -n "${budget_end:-}" ] && [ $((budget_end - SECONDS)) -lt "$secs" ]; then
        secs=$((budget_end - SECONDS))
    fi
    [ "$secs" -gt 0 ] || secs=1
    timeout -k 20 "$secs" "$@" >"$out" 2>&1 </dev/null; rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        echo "$part: timed out after $secs s" | tee -a "$out"
        echo "$part: 0 passed, 1 failed, 0 skipped" >> "$out"
    fi
    return $rc
}
