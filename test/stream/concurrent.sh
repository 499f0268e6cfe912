#!/bin/bash
# concurrent.sh - several sessions follow one consumer of a table that a
# writer keeps committing to: every appended row must land in the sink
# exactly once (tablescan_changes locks the consumer's row, so a second
# reader waits for the first one's commit and then reads what follows).
#
# The generator writes the same append table with 1..K snapshots into
# staging directories (each a prefix of the next: snapshot s holds ids
# 0 .. s*ROWS-1); the writer publishes commit s into the live table as
# Paimon does (new files, then snapshot-s by rename, then LATEST).
# READERS sessions loop: BEGIN; INSERT INTO sink SELECT id FROM
# tablescan_changes(NULL::conc, consumer => 'c', max_snapshots => 1);
# COMMIT (every third transaction of a session is rolled back instead, so
# its rows must be read again by someone).  After the writer, one more
# read drains the consumer.  Checks: the sink holds every id exactly once,
# the consumer's next snapshot is K+1, a second consumer reading once gets
# the same rows, every session survived, and the Paimon consumer file the
# readers keep (paimon_consumer => true) holds the committed position.
# Runs inside pg_virtualenv with the extension installed; prints
#   stream: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
summary() { echo "stream: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch stream)
K=${STREAM_SNAPSHOTS:-8}
ROWS=${STREAM_ROWS:-200}
READERS=${STREAM_READERS:-3}
ARGS=(--column 'id:INT NOT NULL' --column name:STRING --rows "$ROWS" --files 1)
stage_commits "$W" "$K" "${ARGS[@]}" || { fail "ts_gen"; summary; exit 1; }
# the server writes the consumer file into the table (this script may run as another user)
chmod a+rwx "$W/live"
q -c "DROP FOREIGN TABLE IF EXISTS conc" \
  -c "DROP TABLE IF EXISTS sink" \
  -c "DELETE FROM tablescan_consumers" \
  -c "CREATE TABLE sink (id int, reader int)" \
  -c "CREATE FOREIGN TABLE conc (id int, name text) SERVER rel OPTIONS (path '$W/live', \"scan.mode\" 'from-snapshot', \"scan.snapshot-id\" '1')" \
  >/dev/null 2>&1

writer() {
    local s
    for s in $(seq 2 "$K"); do
        sleep 0.3
        publish_commit "$W" "$s"
    done
}

reader() {
    local n=0 end
    while [ ! -f "$W/writer_done" ]; do
        n=$((n + 1))
        end=COMMIT; [ $((n % 3)) -eq 0 ] && end=ROLLBACK
        echo "BEGIN;"
        echo "INSERT INTO sink SELECT id, $1 FROM tablescan_changes(NULL::conc, consumer => 'c', max_snapshots => 1, paimon_consumer => true);"
        echo "SELECT pg_sleep(0.05);"
        echo "$end;"
        sleep 0.03
    done
    echo "SELECT 'alive';"
}
pids=()
for r in $(seq 1 "$READERS"); do
    reader "$r" | q >"$W/reader$r.out" 2>&1 &
    pids+=($!)
done
writer
sleep 0.5
touch "$W/writer_done"
for p in "${pids[@]}"; do wait "$p"; done
# the Paimon consumer file the readers kept, written after each commit: the committed position
before_drain=$(q -c "SELECT next_snapshot FROM tablescan_consumers WHERE consumer = 'c'")
file_next=$(sed -n 's/.*"nextSnapshot" : \([0-9]*\).*/\1/p' "$W/live/consumer/consumer-c" 2>/dev/null)
q -c "INSERT INTO sink SELECT id, 0 FROM tablescan_changes(NULL::conc, consumer => 'c', paimon_consumer => true)" >/dev/null
drained_file=$(sed -n 's/.*"nextSnapshot" : \([0-9]*\).*/\1/p' "$W/live/consumer/consumer-c" 2>/dev/null)

dead=$(sessions_lost "$W" "$READERS")
for r in $(seq 1 "$READERS"); do grep '^ERROR' "$W/reader$r.out" | head -3; done
errors=$(cat "$W"/reader*.out | grep -c '^ERROR')
got=$(q -c "SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || min(id) || ' ' || max(id) FROM sink")
readers=$(q -c "SELECT count(DISTINCT reader) FROM sink WHERE reader > 0")
next=$(q -c "SELECT next_snapshot FROM tablescan_consumers WHERE consumer = 'c'")
other=$(q -c "CREATE TEMP TABLE d AS SELECT id FROM tablescan_changes(NULL::conc, consumer => 'd')" \
          -c "SELECT count(*) FROM ((TABLE d EXCEPT ALL SELECT id FROM sink) UNION ALL (SELECT id FROM sink EXCEPT ALL TABLE d)) x")
echo "stream: sink '$got' (rows distinct min max), from $readers readers, next $next, $errors errors"
[ "$dead" -eq 0 ] && [ "$errors" -eq 0 ] && ok "all $READERS sessions survived $K commits without an error" ||
    fail "$dead sessions lost, $errors errors"
[ "$got" = "$((K * ROWS)) $((K * ROWS)) 0 $((K * ROWS - 1))" ] &&
    ok "every appended row read exactly once ($((K * ROWS)) rows, none twice, none lost)" ||
    fail "sink holds '$got', not $((K * ROWS)) distinct ids 0..$((K * ROWS - 1))"
[ "$next" = "$((K + 1))" ] && ok "the consumer's next snapshot is $((K + 1))" || fail "next snapshot '$next'"
[ -n "$before_drain" ] && [ "$file_next" = "$before_drain" ] && [ "$drained_file" = "$((K + 1))" ] &&
    ok "the consumer file follows the committed position (readers: $file_next, after the drain: $drained_file)" ||
    fail "consumer file: '$file_next' after the readers (position $before_drain), '$drained_file' after the drain (want $((K + 1)))"
[ "$other" = 0 ] && ok "a second consumer reads the same rows" || fail "consumer d: $other rows not in the sink"
q -c "DROP FOREIGN TABLE IF EXISTS conc" -c "DROP TABLE IF EXISTS sink" \
  -c "DELETE FROM tablescan_consumers" >/dev/null 2>&1
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
