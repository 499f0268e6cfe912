#!/bin/bash
# Run every server-free unit test binary in $1 and print one summary line:
#   unit: N passed, N failed, N skipped
# cmocka prints "[  PASSED  ] N test(s).", "[  FAILED  ] N test(s)," and
# "[  SKIPPED ] N test(s)" per binary; a skipped test is named on a SKIP line.
# Each binary runs under `timeout` (UNIT_TIMEOUT seconds, default 300): a
# binary that does not finish is a failure naming it.  Its output goes to a
# file, not a pipe, so a child it leaves behind cannot keep the runner waiting.
dir=${1:-build/unit}
limit=${UNIT_TIMEOUT:-300}
passed=0; failed=0; skipped=0
out=$(mktemp /tmp/ts-unit-out.XXXXXX)
trap 'rm -f "$out"' EXIT
for t in "$dir"/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    timeout -k 10 "$limit" "$t" >"$out" 2>&1 </dev/null; rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
    p=${p:-0}; f=${f:-0}; s=${s:-0}
    sed -n "s/^\[  SKIPPED \] \([a-z_0-9]\+\)\$/SKIP $name\/\1: skipped by the test/p" "$out"
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        echo "unit: $name: timed out after $limit s"
        f=$((f + 1))
    elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1                                      # crashed or aborted
    fi
    if [ "$f" -ne 0 ]; then
        grep -E 'FAILED|ERROR|Assert|error' "$out" | head -20
        echo "unit: $name: $p passed, $f failed, $s skipped"
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
echo "unit: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
