#!/bin/bash
# Run every server-free unit test binary in $1 and print one summary line:
#   unit: N passed, N failed, N skipped
# cmocka prints "[  PASSED  ] N test(s).", "[  FAILED  ] N test(s)," and
# "[  SKIPPED ] N test(s)" per binary; a skipped test is named on a SKIP line.
dir=${1:-build/unit}
passed=0; failed=0; skipped=0
for t in "$dir"/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1); rc=$?
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
    p=${p:-0}; f=${f:-0}; s=${s:-0}
    printf '%s\n' "$out" | sed -n "s/^\[  SKIPPED \] \([a-z_0-9]\+\)\$/SKIP $(basename "$t")\/\1: skipped by the test/p"
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed or aborted
    if [ "$f" -ne 0 ]; then
        printf '%s\n' "$out" | grep -E 'FAILED|ERROR|Assert|error' | head -20
        echo "unit: $(basename "$t"): $p passed, $f failed, $s skipped"
    fi
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
echo "unit: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
