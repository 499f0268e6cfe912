#!/bin/bash
# demo-check.sh - runs README's demo command (test/demo.sh) and checks what it
# prints: it ran to the end (psql stops at the first error), EXPLAIN shows the
# pruning the demo's query asks for, and the consumer reads exactly the rows
# the demo wrote (two inserts, one delete), then nothing more.
# Prints "demo: N passed, N failed, 0 skipped".
cd "$(dirname "$0")/.." || exit 1
log=${1:-build/demo.log}
pass=0 fail=0
check() {   # check NAME COMMAND...
    if "${@:2}"; then pass=$((pass + 1)); echo "ok $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
TS_DEMO_DIR=$PWD/build/demo bash test/demo.sh > "$log" 2>&1
rc=$?
check "the demo runs to the end" test "$rc" -eq 0
check "EXPLAIN shows partition pruning" grep -qE '^ +Partitions: 1 of 3$' "$log"
check "EXPLAIN shows bucket pruning" grep -qE '^ +Bucket Pruning: inferred from id$' "$log"
# the rows of the consumer's read after the INSERT and DELETE, as psql prints them
feed=$(sed -n '/FROM tablescan_changes(NULL::accounts_feed, consumer => .demo.) ORDER BY id/,/^$/p' "$log" |
       grep -E '^ [-+][IUD] ' | tr -s ' ')
want=$(printf '%s\n' ' +I | 0 | owner_91 | 1.00' ' +I | 3 | owner_new | 12.50' ' -D | 11 | owner_88 | 0.88')
check "the consumer reads the demo's writes" test "$feed" = "$want"
# new_changes: at its start (scan.mode latest) and after its commit
counts=$(grep -A2 '^ new_changes' "$log" | grep -E '^ +[0-9]+$' | tr -d ' ' | paste -sd,)
check "nothing before the writes, nothing more after its commit" test "$counts" = 0,0
[ "$fail" -eq 0 ] || tail -20 "$log"
echo "demo: $pass passed, $fail failed, 0 skipped"
