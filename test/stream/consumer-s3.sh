#!/bin/bash
# consumer-s3.sh - Paimon consumer files of tables on an object store.
#
# tablescan_changes(..., paimon_consumer => true) writes
# consumer/consumer-<id> when the reading transaction commits, through a
# file system built for the table with the reading role's storage keys:
# on S3 as one PUT of Java's JSON.  Starts its own test object store
# (test/s3/proxy.mjs over s3rver) holding a hand-written append table,
# writes three snapshots with INSERT, then checks: nothing is written
# before COMMIT; after it the object holds Java's JSON with the position
# tablescan_consumers holds (the latest snapshot + 1); ROLLBACK writes
# nothing; a consumer with no position starts from its file (only the
# rows committed after it); a role without INSERT on the foreign table
# cannot promise a file (42501) and one with a mapping of wrong keys
# cannot read; the keys appear in no message.  Runs inside pg_virtualenv
# with the extension installed; prints
#   consumer-s3: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
summary() { echo "consumer-s3: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch consumer_s3)
source "$(dirname "$0")/../schema-lib.sh"
schema "$W/src/c.db/t" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 s STRING)")" "" "" '"bucket" : "-1"'
start_s3_proxy "$W" --dir "$W/store" --upload "clake/wh/c.db=$W/src/c.db" >"$W/start.log" ||
    { fail "$(cat "$W/start.log")"; summary; exit 1; }
T=clake/wh/c.db/t
object() { cat "$W/store/$1._S3rver_object" 2>/dev/null; }
has_object() { [ -f "$W/store/$1._S3rver_object" ]; }
position() { q -c "SELECT next_snapshot FROM tablescan_consumers WHERE consumer = '$1'"; }
json_of() { printf '{\n  "nextSnapshot" : %s\n}' "$1"; }

q -c "DROP SERVER IF EXISTS cs3 CASCADE" -c "DROP ROLE IF EXISTS cs3_reader" -c "DROP ROLE IF EXISTS cs3_wrong" >/dev/null 2>&1
q -c "DELETE FROM tablescan_consumers" >/dev/null 2>&1
q -v ON_ERROR_STOP=1 \
  -c "CREATE SERVER cs3 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 's3://clake/wh',
        \"s3.endpoint\" '$EP', \"s3.path.style.access\" 'true')" \
  -c "CREATE USER MAPPING FOR CURRENT_USER SERVER cs3 OPTIONS (\"s3.access-key\" 'S3RVER', \"s3.secret-key\" 'S3RVER')" \
  -c "CREATE FOREIGN TABLE t (id int NOT NULL, s text) SERVER cs3 OPTIONS (database 'c', table 't')" \
  -c "INSERT INTO t SELECT g, 'a' || g FROM generate_series(1, 10) g" \
  -c "INSERT INTO t SELECT g, 'b' || g FROM generate_series(11, 30) g" \
  -c "INSERT INTO t SELECT g, 'c' || g FROM generate_series(31, 60) g" \
  >"$W/setup.log" 2>&1 || { fail "setup: $(head -3 "$W/setup.log")"; summary; exit 1; }
latest=$(object $T/snapshot/LATEST)
[ "$latest" = 3 ] && ok "three snapshots written by INSERT" || fail "LATEST '$latest'"

# ---- written at COMMIT, Java's JSON, the consumer's position ----------------
out=$(q -c "SELECT count(*), sum(id) FROM tablescan_changes(NULL::t, consumer => 'c1', paimon_consumer => true)" 2>&1)
got=$(object $T/consumer/consumer-c1)
pos=$(position c1)
grep -q "^60|1830$" <<<"$out" && ok "a new consumer reads the latest snapshot whole (60 rows)" || fail "first read: $out"
[ -n "$pos" ] && [ "$pos" = $((latest + 1)) ] && [ "$got" = "$(json_of "$pos")" ] &&
    ok "after COMMIT the object holds Java's JSON with the consumer's position ($pos)" ||
    fail "consumer file '$got', position '$pos'"
# a file promised but not committed: a second session looks while the first holds its transaction
q -c "INSERT INTO t VALUES (61, 'd61')" >/dev/null 2>&1
( q -c "BEGIN" -c "SELECT count(*) FROM tablescan_changes(NULL::t, consumer => 'c1', paimon_consumer => true)" \
    -c "SELECT pg_sleep(2)" -c "COMMIT" >"$W/held.log" 2>&1 ) &
HELD=$!
sleep 1
mid=$(object $T/consumer/consumer-c1)
wait $HELD
after=$(object $T/consumer/consumer-c1)
[ "$mid" = "$(json_of "$pos")" ] && [ "$after" = "$(json_of $((pos + 1)))" ] &&
    ok "the file moves only when the reading transaction commits" ||
    fail "during '$mid', after '$after' ($(cat "$W/held.log"))"

# ---- ROLLBACK writes nothing -------------------------------------------------
q -c "BEGIN" -c "SELECT count(*) FROM tablescan_changes(NULL::t, consumer => 'c2', paimon_consumer => true)" \
  -c "ROLLBACK" >/dev/null 2>&1
has_object $T/consumer/consumer-c2 && fail "ROLLBACK wrote consumer-c2: $(object $T/consumer/consumer-c2)" ||
    ok "ROLLBACK writes no consumer file"

# ---- a consumer without a position starts from its file ----------------------
q -c "DELETE FROM tablescan_consumers WHERE consumer = 'c1'" >/dev/null
q -c "INSERT INTO t SELECT g, 'e' || g FROM generate_series(62, 65) g" >/dev/null 2>&1
out=$(q -c "SELECT count(*), sum(id) FROM tablescan_changes(NULL::t, consumer => 'c1', paimon_consumer => true)" 2>&1)
latest=$(object $T/snapshot/LATEST)
[ "$out" = "4|254" ] && [ "$(object $T/consumer/consumer-c1)" = "$(json_of $((latest + 1)))" ] &&
    ok "a consumer without a position starts from its file: only the rows after it, then moves it" ||
    fail "start from file: '$out', file '$(object $T/consumer/consumer-c1)', latest $latest"

# ---- roles ---------------------------------------------------------------------
q -v ON_ERROR_STOP=1 -c "CREATE ROLE cs3_reader LOGIN" -c "GRANT USAGE ON FOREIGN SERVER cs3 TO cs3_reader" \
  -c "GRANT SELECT ON t TO cs3_reader" \
  -c "GRANT SELECT, INSERT, UPDATE ON tablescan_consumers TO cs3_reader" \
  -c "CREATE USER MAPPING FOR cs3_reader SERVER cs3 OPTIONS (\"s3.access-key\" 'S3RVER', \"s3.secret-key\" 'S3RVER')" \
  -c "CREATE ROLE cs3_wrong LOGIN" -c "GRANT USAGE ON FOREIGN SERVER cs3 TO cs3_wrong" \
  -c "GRANT SELECT, INSERT ON t TO cs3_wrong" \
  -c "GRANT SELECT, INSERT, UPDATE ON tablescan_consumers TO cs3_wrong" \
  -c "CREATE USER MAPPING FOR cs3_wrong SERVER cs3 OPTIONS (\"s3.access-key\" 'S3RVER', \"s3.secret-key\" 'notTheSecret42')" \
  >"$W/roles.log" 2>&1 || fail "roles: $(head -3 "$W/roles.log")"
out=$(q -c "SET ROLE cs3_reader" -c "SELECT count(*) FROM tablescan_changes(NULL::t, consumer => 'r1', paimon_consumer => true)" 2>&1)
grep -q "permission denied" <<<"$out" && ! has_object $T/consumer/consumer-r1 &&
    ok "a role without INSERT on the table cannot promise a consumer file ($(grep -o 'ERROR:.*' <<<"$out" | head -c 100))" || fail "reader: $out"
out=$(q -c "SET ROLE cs3_wrong" -c "SELECT count(*) FROM tablescan_changes(NULL::t, consumer => 'w1', paimon_consumer => true)" 2>&1)
grep -q "ERROR" <<<"$out" && ! grep -q "notTheSecret42" <<<"$out" && ! has_object $T/consumer/consumer-w1 &&
    ok "a mapping with a wrong key writes nothing, and the key is not shown ($(grep -o 'ERROR:.*' <<<"$out" | head -c 100))" || fail "wrong key: $out"
summary
