#!/bin/bash
# Run every server-free unit test binary in $1 and print one summary line:
#   unit: N passed, N failed
# cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s)," per binary.
dir=${1:-build/unit}
passed=0; failed=0
for t in "$dir"/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1); rc=$?
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    p=${p:-0}; f=${f:-0}
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed or aborted
    if [ "$f" -ne 0 ]; then
        printf '%s\n' "$out" | grep -E 'FAILED|ERROR|Assert|error' | head -20
        echo "unit: $(basename "$t"): $p passed, $f failed"
    fi
    passed=$((passed + p)); failed=$((failed + f))
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
