#!/bin/bash
# rest.sh - the REST catalog as an attacker would run it (test/hostile/rest.mjs on
# 127.0.0.1, started here), against the cluster of the PG* variables (run from
# test/pg-tests.sh).  Each check asserts an ERROR's SQLSTATE and text, or what the
# hostile server logged: which keys and session tokens reached which endpoint.
# Prints "hostile-rest: N passed, N failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")"
D=$(mktemp -d /tmp/hostile-rest.XXXXXX)
LOG=$D/requests.log
TOKEN=hostile-$RANDOM$RANDOM
: > "$LOG"
# tables renew and renewdeny: 3000 rows (ids 0..2999, the generator's formula) in 300 files (more
# than two prefetch windows: the scan after the sleep needs new requests),
# served by the home store with short-lived tokens (item 10: renewed during a scan)
GEN=${TS_GEN:-../../build/tools/ts_gen}
RENEW_ROWS=3000
"$GEN" "$D/data/lake/wh/h.db/renew" --column 'id:INT NOT NULL' --rows $RENEW_ROWS --files 300 > /dev/null &&
    cp -r "$D/data/lake/wh/h.db/renew" "$D/data/lake/wh/h.db/renewdeny" ||
    echo "FAIL hostile-rest: could not generate the renew tables with $GEN"
node rest.mjs --token "$TOKEN" --log "$LOG" --data "$D/data" --renew-ms 8000 > "$D/ports" 2> "$D/server.err" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$D"' EXIT
for _ in $(seq 1 100); do [ -s "$D/ports" ] && break; sleep 0.1; done
read -r CPORT HPORT < "$D/ports" || { echo "hostile-rest: 0 passed, 1 failed, 0 skipped"; exit 1; }
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL hostile-rest: $1"; }

# psql as the unprivileged role hrole, errors with their SQLSTATE
sql() { printf '\\set VERBOSITY verbose\nSET ROLE hrole;\n%s\n' "$1" | psql -X -q -v ON_ERROR_STOP=0 2>&1; }
# expect_error NAME SQL SQLSTATE TEXT: the statement fails with that code and text
expect_error() {
    local out; out=$(sql "$2")
    # the text may be in the message or its DETAIL (a here-string: with pipefail, a grep -q
    # that stops reading early would fail the check by its writer's SIGPIPE)
    if grep -q -- "ERROR:  $3: " <<<"$out" && grep -q -- "$4" <<<"$out"; then ok
    else bad "$1: want ERROR $3 ~ '$4', got: $out"; fi
}
# count of log lines matching a jq-free pattern (the log is one JSON object a line)
logged() { grep -c -- "$1" "$LOG" || true; }

psql -X -q -v ON_ERROR_STOP=1 <<SQL > "$D/setup.out" 2>&1 || { cat "$D/setup.out"; bad setup; }
DROP SCHEMA IF EXISTS hostile_rest CASCADE;
DROP SERVER IF EXISTS hrest CASCADE;
DROP ROLE IF EXISTS hrole;
DROP ROLE IF EXISTS hview;
CREATE EXTENSION IF NOT EXISTS tablescan_fdw;
CREATE ROLE hrole;
CREATE SCHEMA hostile_rest AUTHORIZATION hrole;
CREATE SERVER hrest FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (catalog 'rest',
  uri 'http://127.0.0.1:$CPORT', "s3.endpoint" 'http://127.0.0.1:$HPORT',
  "s3.path.style.access" 'true', "s3.region" 'us-east-1');
GRANT USAGE ON FOREIGN SERVER hrest TO hrole;
CREATE USER MAPPING FOR hrole SERVER hrest OPTIONS (token '$TOKEN',
  "s3.access-key" 'MAPKEY', "s3.secret-key" 'MAPSECRET', "s3.session-token" 'MAPSESSION');
SQL
for t in redirect partial fileep owntoken keysonly noexpiry soon expired expiredat nulpath nulschema \
         nultoken crlftoken local huge renew renewdeny; do
    psql -X -q -c "CREATE FOREIGN TABLE hostile_rest.$t (id int) SERVER hrest OPTIONS (database 'h', \"table\" '$t'); GRANT SELECT ON hostile_rest.$t TO hrole;" >/dev/null
done
# a view of hrole's read by hview, a role without a user mapping: the view's owner's is used
psql -X -q <<SQL >/dev/null
CREATE ROLE hview;
GRANT USAGE ON SCHEMA hostile_rest TO hview;
SET ROLE hrole;
CREATE VIEW hostile_rest.renew_v AS SELECT id FROM hostile_rest.renew;
GRANT SELECT ON hostile_rest.renew_v TO hview;
SQL

# item 2: a token's endpoint only with the token's own keys; http(s) only; no local location
expect_error redirect "SELECT * FROM hostile_rest.redirect" 28000 \
    'names endpoint "http://127.0.0.1:[0-9]*" without its own access key and secret key'
expect_error partial "SELECT * FROM hostile_rest.partial" 28000 'without its own secret key'
expect_error fileep "SELECT * FROM hostile_rest.fileep" 22023 \
    'names endpoint "file:///etc", which is not an http:// or https:// URL'
expect_error local "SELECT * FROM hostile_rest.local" 42501 \
    'location on the database server.s file system, which role "hrole" may not read'
sql "SELECT * FROM hostile_rest.owntoken" > /dev/null
if [ "$(grep '"store":"foreign"' "$LOG" | grep -c '"key":"TOKENKEY","session":"TOKENSESSION"')" -gt 0 ]; then ok
else bad "owntoken: no request signed with the token's own key and session token reached its endpoint"; fi
sql "SELECT * FROM hostile_rest.keysonly" > /dev/null
if [ "$(grep '"store":"home"' "$LOG" | grep -c '"key":"TOKENKEY","session":null')" -gt 0 ]; then ok
else bad "keysonly: the token's keys without the mapping's session token did not reach the server's endpoint"; fi
# the role's keys and session token never reach the endpoint a token names
if [ "$(grep '"store":"foreign"' "$LOG" | grep -cE 'MAPKEY|MAPSESSION')" -eq 0 ]; then ok
else bad "the user mapping's key or session token reached the catalog's endpoint"; fi
if [ "$(grep '"store":"home"' "$LOG" | grep -c 'MAPSESSION')" -eq 0 ]; then ok
else bad "the mapping's session token went out with a data token's keys"; fi

# item 10 + clarification 15: expiresAtMillis and expiresAt read; expired never sent
expect_error expired "SELECT * FROM hostile_rest.expired" 28000 'gave an expired data token for Paimon table "h.expired"'
expect_error expiredat "SELECT * FROM hostile_rest.expiredat" 28000 'gave an expired data token for Paimon table "h.expiredat"'
if [ "$(logged EXPIREDKEY)" -eq 0 ]; then ok; else bad "an expired token's key reached a store"; fi
# two statements in one session (the cache is the backend's)
before=$(logged '"catalog":"owntoken/token"')
sql "SELECT * FROM hostile_rest.owntoken; SELECT * FROM hostile_rest.owntoken;" > /dev/null
n=$(( $(logged '"catalog":"owntoken/token"') - before ))
if [ "$n" -eq 1 ]; then ok
else bad "owntoken: a token good for 2 h (expiresAtMillis) was fetched $n times in two statements, want 1"; fi
sql "SELECT * FROM hostile_rest.noexpiry; SELECT * FROM hostile_rest.noexpiry;" > /dev/null
n=$(logged '"catalog":"noexpiry/token"')
if [ "$n" -eq 2 ]; then ok
else bad "noexpiry: a token without expiry was fetched $n times in two statements, want 2"; fi
# a token with less than the hour's margin left is fetched again before each statement
sql "SELECT * FROM hostile_rest.soon; SELECT * FROM hostile_rest.soon;" > /dev/null
n=$(logged '"catalog":"soon/token"')
if [ "$n" -eq 2 ]; then ok
else bad "soon: a token 30 min from expiry was fetched $n times in two statements, want 2 (renewed ahead of expiry)"; fi

# item 10, during a long scan: tokens of 8 s, tablescan.token_refresh_margin 3 s (a superuser
# setting); a cursor reads some rows, sleeps past the renewal point, and reads the rest
# renew_sql SQL [ROLE]: SQL in a transaction as ROLE (default hrole)
renew_sql() {
    printf '\\set VERBOSITY verbose\nSET tablescan.token_refresh_margin = 3;\nSET ROLE %s;\nBEGIN;\n%s\nCOMMIT;\n' "${2:-hrole}" "$1" |
        psql -X -q -At -v ON_ERROR_STOP=0 2>&1
}
out=$(renew_sql "DECLARE c CURSOR FOR SELECT id FROM hostile_rest.renew;
FETCH 10 FROM c;
SELECT 'slept' FROM pg_sleep(6);
SELECT 'mark ' || (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
FETCH ALL FROM c;")
mark=$(printf '%s\n' "$out" | sed -n 's/^mark //p')
rows=$(printf '%s\n' "$out" | grep -E '^[0-9]+$' | sort -n)
if [ "$rows" = "$(seq 0 $((RENEW_ROWS - 1)))" ]; then ok
else bad "renew: the cursor's rows are not ids 0..$((RENEW_ROWS - 1)) once each ($(printf '%s\n' "$rows" | grep -c .) rows): $(printf '%s\n' "$out" | grep -vE '^[0-9]+$' | head -5)"; fi
n=$(logged '"catalog":"renew/token"')
if [ "$n" -ge 2 ]; then ok; else bad "renew: the token was fetched $n times during the scan, want a renewal (>= 2)"; fi
# the requests after the sleep: none with the first key, some with a renewed one
after=$(grep '"store":"home"' "$LOG" | grep '"key":"RENEW-' |
    awk -v m="${mark:-0}" -F'"t":' '{ split($2, a, ","); if (a[1] + 0 >= m + 0) print }')
if [ -n "$mark" ] && [ -n "$after" ] && ! printf '%s\n' "$after" | grep -q '"key":"RENEW-1"'; then ok
else bad "renew: after the sleep the store saw $(printf '%s\n' "$after" | grep -c .) requests, want some and none signed with the first token's key RENEW-1"; fi
if [ "$(logged '"expired":true')" -eq 0 ]; then ok
else bad "a request was signed with a token's key at or past its expiry: $(grep '"expired":true' "$LOG" | head -2)"; fi
# a parallel scan: each worker fetches and renews its own token, and none signs with an expired
# one: every process reads for longer than a token lives (3000 rows, 15 ms a row, 3 processes)
psql -X -q <<SQL >/dev/null
ALTER FOREIGN TABLE hostile_rest.renew OPTIONS (ADD parallel_workers '2');
CREATE FUNCTION hostile_rest.slow(int) RETURNS int LANGUAGE sql PARALLEL SAFE
  AS 'SELECT pg_sleep(0.015); SELECT \$1';
SQL
before=$(logged '"catalog":"renew/token"')
par="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET max_parallel_workers_per_gather = 2;
SET tablescan.enable_aggregate_pushdown = off;"
out=$(renew_sql "$par
EXPLAIN (COSTS OFF) SELECT count(hostile_rest.slow(id)) FROM hostile_rest.renew;
SELECT 'count ' || count(hostile_rest.slow(id)) FROM hostile_rest.renew;")
n=$(( $(logged '"catalog":"renew/token"') - before ))
if grep -q -- 'Workers Planned: 2' <<<"$out" && grep -q -- 'Parallel Foreign Scan' <<<"$out" &&
   grep -qx -- "count $RENEW_ROWS" <<<"$out" && [ "$n" -ge 4 ] && [ "$(logged '"expired":true')" -eq 0 ]; then ok
else bad "renew parallel: want a parallel plan, count $RENEW_ROWS, >= 4 token fetches (got $n), no key past its expiry: $(printf '%s' "$out" | grep -v '^ ' | head -8)"; fi
psql -X -q -c "ALTER FOREIGN TABLE hostile_rest.renew OPTIONS (DROP parallel_workers);" >/dev/null

# the margin is the superuser's to set
out=$(printf '\\set VERBOSITY verbose\nLOAD %s;\nSET ROLE hrole;\nSET tablescan.token_refresh_margin = 1;\n' "'tablescan_fdw'" |
    psql -X -q 2>&1)
if grep -q -- 'ERROR:  42501: permission denied to set parameter "tablescan.token_refresh_margin"' <<<"$out"; then ok
else bad "margin: hrole set tablescan.token_refresh_margin: $out"; fi
# the same through hrole's view read by hview: renewed with the view owner's user mapping
before=$(logged '"catalog":"renew/token"')
out=$(renew_sql "DECLARE c CURSOR FOR SELECT id FROM hostile_rest.renew_v;
FETCH 10 FROM c;
SELECT 'slept' FROM pg_sleep(6);
FETCH ALL FROM c;" hview)
rows=$(printf '%s\n' "$out" | grep -E '^[0-9]+$' | sort -n)
n=$(( $(logged '"catalog":"renew/token"') - before ))
if [ "$rows" = "$(seq 0 $((RENEW_ROWS - 1)))" ] && [ "$n" -ge 2 ]; then ok
else bad "renew_v: as hview through hrole's view: $n token fetches (want >= 2), $(printf '%s\n' "$rows" | grep -c .) rows: $(printf '%s\n' "$out" | grep -vE '^[0-9]+$' | head -5)"; fi
# a renewal the catalog refuses mid-scan: an ERROR naming the table, not the token
out=$(renew_sql "DECLARE c CURSOR FOR SELECT id FROM hostile_rest.renewdeny;
FETCH 10 FROM c;
SELECT 'slept' FROM pg_sleep(6);
FETCH ALL FROM c;")
if grep -q -- 'ERROR:  28000: could not refresh the data token of Paimon table "h.renewdeny" from the REST catalog of server "hrest"' <<<"$out" &&
   grep -q -- 'renewing the data token of Paimon table "h.renewdeny" during a scan' <<<"$out" &&
   ! grep -q -- 'DENY-1' <<<"$out"; then ok
else bad "renewdeny: want ERROR 28000 naming h.renewdeny (not its key), got: $out"; fi
if [ "$(logged '"catalog":"renewdeny/token"')" -eq 2 ] && [ "$(logged '"expired":true')" -eq 0 ]; then ok
else bad "renewdeny: want 2 token fetches (the scan's, the refused renewal) and no request past the expiry"; fi

# following changes (src/fdw/changes.c): a wait longer than the token lives polls the LATEST
# hint with a renewed token, never one past its expiry (tokens of 8 s, margin 3 s, 10 s wait)
before=$(logged '"catalog":"renew/token"')
out=$(renew_sql "SELECT 'mark ' || (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
SELECT 'waited ' || coalesce(tablescan_wait_for_snapshot('hostile_rest.renew', 1000000, '10 s')::text, 'none');")
mark=$(printf '%s\n' "$out" | sed -n 's/^mark //p')
n=$(( $(logged '"catalog":"renew/token"') - before ))
late=$(grep '"store":"home"' "$LOG" | grep '"key":"RENEW-' |
    awk -v m="${mark:-0}" -F'"t":' '{ split($2, a, ","); if (a[1] + 0 >= m + 9000) print }')
if grep -qx 'waited none' <<<"$out" && [ "$n" -ge 2 ] && [ -n "$late" ] &&
   [ "$(logged '"expired":true')" -eq 0 ]; then ok
else bad "wait_for_snapshot: want NULL after 10 s, >= 2 token fetches (got $n), polls after 9 s ($(printf '%s\n' "$late" | grep -c .)), none with an expired key: $(printf '%s' "$out" | head -5)"; fi

# item 11: NUL anywhere in the catalog's strings, CR/LF in what becomes a header
expect_error nulpath "SELECT * FROM hostile_rest.nulpath" XX001 'field "path" contains a NUL character'
expect_error nulschema "SELECT * FROM hostile_rest.nulschema" XX001 'field "schema.fields\[0\].name" contains a NUL character'
expect_error nultoken "SELECT * FROM hostile_rest.nultoken" XX001 'field "token.fs.s3a.session.token" contains a NUL character'
expect_error crlftoken "SELECT * FROM hostile_rest.crlftoken" XX001 'value of key "fs.s3a.session.token" contains a control character'
if [ "$(grep -c '"injected":"yes"' "$LOG")" -eq 0 ]; then ok; else bad "a header injected by a catalog's token reached a store"; fi

# catalog answers are read with a cap naming the endpoint
expect_error huge "SELECT * FROM hostile_rest.huge" '54000' 'GET databases/h/tables/huge: the answer is larger than 8 MB, the cap of catalog answers'

# a listing whose next page token repeats ends at once (2 requests), not after 100000 pages
expect_error loop "IMPORT FOREIGN SCHEMA loop FROM SERVER hrest INTO hostile_rest;" '[0-9A-Z]*' \
    'GET databases/loop/tables: the answer gives the page token it was asked with as the next one'
n=$(logged '"catalog":"loop/tables"')
if [ "$n" -eq 2 ]; then ok; else bad "loop: $n listing requests, want 2"; fi

# clarification 13: refused credentials end an IMPORT with an ERROR, not a WARNING a table
out=$(sql "IMPORT FOREIGN SCHEMA deny FROM SERVER hrest INTO hostile_rest;")
if grep -q -- 'ERROR:  28000: the REST catalog of server "hrest" refused the credentials' <<<"$out" &&
   ! grep -q WARNING <<<"$out"; then ok
else bad "import deny: want ERROR 28000 and no WARNING, got: $out"; fi

psql -X -q -c "DROP SCHEMA hostile_rest CASCADE; DROP SERVER hrest CASCADE; DROP ROLE hrole; DROP ROLE hview;" >/dev/null 2>&1
echo "hostile-rest: $pass passed, $fail failed, 0 skipped"
