#!/bin/bash
# rows.sh - what an INSERT does per row must stay exact and must not add up.
#
# Exact values (src/fdw/write_values.c converts each Datum without
# numeric_out or a detoasted copy): numerics of every shape PostgreSQL
# stores (short and long headers, negative, fractions, trailing zeros, a
# weight of several base-10000 digits, zero) written into DECIMAL(18,4),
# DECIMAL(9,2) and DECIMAL(18,0) fields through numeric columns without a
# typmod (so PostgreSQL does not round them first) read back equal to the
# inserted values (row 15, display scale 70 but exactly 1, -2 and 3, was
# refused before: numeric_out's text had more than 38 digits); values that cannot be stored exactly (more fraction
# digits, too many digits, NaN, a bigint beyond INT) are refused with 42804
# and nothing is written.
# Flat memory: the same INSERT of N and of 4N rows (7 columns, bench/writes.sh's
# formulas), each in a new connection with JIT off (JIT's LLVM is loaded at
# a cost threshold the row estimate crosses: a step, not growth): the
# writer's memory context just before COMMIT and the backend's peak RSS
# (VmHWM) after it must not grow with the rows (margins: 1 MB and 8 MB,
# against ~1 and ~8 bytes per row of growth).  Prints
#   writes-rows: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
summary() { echo "writes-rows: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
N=${WRITES_ROWS_N:-300000}
W=$(scratch writes_rows)
$GEN "$W/wh/r.db/dec" --format parquet --column 'id:INT NOT NULL' --column 'a:DECIMAL(18, 4)' \
    --column 'b:DECIMAL(9, 2)' --column 'c:DECIMAL(18, 0)' --column 'i:INT' --rows 0 >/dev/null ||
    { fail "ts_gen"; summary; exit 1; }
COLS="--format parquet --column 'id:INT NOT NULL' --column big:BIGINT --column d:DOUBLE --column 'amount:DECIMAL(18, 4)' --column s:STRING --column day:DATE --column 'ts:TIMESTAMP(6)'"
for t in m1 m4; do eval "$GEN '$W/wh/r.db/$t' $COLS --rows 1" >/dev/null || fail "ts_gen $t"; done
chmod -R a+rwX "$W"
[ "$(id -u)" = 0 ] && chown -R postgres "$W"
q -c "DROP SERVER IF EXISTS wrows CASCADE" \
  -c "CREATE SERVER wrows FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh')" \
  -c "IMPORT FOREIGN SCHEMA r FROM SERVER wrows INTO public" >/dev/null 2>&1
# columns without a typmod: the values reach the writer as given, not rounded by a cast
q -c "CREATE FOREIGN TABLE decn (id int, a numeric, b numeric, c numeric, i bigint)
      SERVER wrows OPTIONS (database 'r', \"table\" 'dec')" >/dev/null 2>&1

# ---- exact numerics ---------------------------------------------------------
# (id, a, b, c): every value fits its column exactly
SRC="(VALUES (1, 0, 0, 0), (2, 1, 1, 1), (3, -1, -1, -1), (4, 0.0001, 0.01, 12345678),
  (5, -0.0001, -0.01, -12345678), (6, 12345678901234.5678, 1234567.89, 999999999999999999),
  (7, -12345678901234.5678, -1234567.89, -999999999999999999), (8, 1.5000000, 2.50000, 30000),
  (9, 100000000, 10000.00, 100000000000000000), (10, 0.1234, 0.1, 10000),
  (11, 99999999999999.9999, 9999999.99, 1000000000000), (12, 1e10, 1e6, 1e17),
  (13, -0.0000, -0.00, -0), (14, 10001.0001, 10001.01, 100010001),
  (15, 1.0000000000000000000000000000000000000000000000000000000000000000000000, -2.0000000000000000000000000000000000000000000000000000000000000000000000, 3.0000000000000000000000000000000000000000000000000000000000000000000000))"
out=$(q -v ON_ERROR_STOP=1 -c "INSERT INTO decn SELECT id, a, b, c, id FROM $SRC v(id, a, b, c)" 2>&1) ||
    fail "INSERT of exact numerics: $out"
diff=$(q -c "SELECT count(*) FROM ((SELECT id, a::numeric(18,4), b::numeric(9,2), c::numeric(18,0) FROM $SRC v(id, a, b, c))
             EXCEPT ALL (SELECT id, a, b, c FROM dec)) d" -c "SELECT count(*) FROM dec")
[ "$diff" = "0
15" ] && ok "15 numerics of every shape (a long header: display scale 70) read back equal" || fail "numerics read back: $diff"
# refused: not exact (each in its own statement, nothing written)
refused=0
for bad in "2, 0.00001, 0, 0, 0" "3, 0, 0.001, 0, 0" "4, 0, 0, 0.5, 0" "5, 100000000000000, 0, 0, 0" \
           "6, 0, 10000000, 0, 0" "7, 0, 0, 1000000000000000000, 0" "8, 'NaN', 0, 0, 0" \
           "9, 0, 0, 0, 3000000000" "10, 123456789012345678901234567890, 0, 0, 0"; do
    got=$(q -v VERBOSITY=sqlstate -c "INSERT INTO decn SELECT $bad" 2>&1)
    case "$got" in *42804*) refused=$((refused + 1)) ;; *) echo "accepted: $bad -> $got" ;; esac
done
[ "$refused" = 9 ] && [ "$(q -c "SELECT count(*) FROM dec")" = 15 ] &&
    ok "9 values that cannot be stored exactly refused, nothing written" || fail "refused $refused of 9"

# ---- flat memory ------------------------------------------------------------
VALUES="g, g * 1000000007::bigint, g * 1.25::float8, (g * 1.0001)::numeric(18,4),
        CASE WHEN g % 7 = 0 THEN NULL ELSE 's' || g END, DATE '2020-01-01' + g % 1000,
        TIMESTAMP '2020-01-01 00:00:00.123456' + g * interval '1 second'"
measure() {	# measure TABLE ROWS: "<writer context bytes> <VmHWM kB>"
    psql -X -q -At -v ON_ERROR_STOP=1 <<SQL 2>&1 | tr '\n' ' '
SET jit = off;
BEGIN;
INSERT INTO $1 SELECT $VALUES FROM generate_series(1, $2) g;
SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'tablescan_fdw writes';
COMMIT;
SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\s+(\d+)'))[1];
SQL
}
set -- $(measure m1 "$N") $(measure m4 $((4 * N)))
if [ $# -eq 4 ]; then
    echo "writer context: $1 bytes after $N rows, $3 after $((4 * N)); VmHWM: $2 kB, $4 kB"
    [ $(( $3 - $1 )) -lt $((1024 * 1024)) ] &&
        ok "writer context flat: $1 bytes after $N rows, $3 after $((4 * N))" ||
        fail "writer context grows: $1 bytes after $N rows, $3 after $((4 * N))"
    [ $(( $4 - $2 )) -lt $((8 * 1024)) ] &&
        ok "backend peak flat: VmHWM $2 kB after $N rows, $4 kB after $((4 * N))" ||
        fail "backend peak grows: VmHWM $2 kB after $N rows, $4 kB after $((4 * N))"
else
    fail "memory: $*"
fi
got=$(q -c "SELECT count(*), sum(id) FROM m4 WHERE id > 0")
[ "$got" = "$((4 * N))|$(( 4 * N * (4 * N + 1) / 2 ))" ] && ok "the $((4 * N)) rows read back" || fail "m4: $got"

q -c "DROP SERVER IF EXISTS wrows CASCADE" >/dev/null 2>&1
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
