#!/bin/bash
# run.sh - what a hostile object store may not make a backend do, checked
# with SQL against test/hostile/s3.mjs (started here on 127.0.0.1, ended on
# every path).  Runs inside a cluster (PG* variables set, the extension
# installed: test/pg-tests.sh), in a database of its own.  Each check is an
# ERROR with its SQLSTATE and a message naming the object, never the secret:
#   huge      a 2 GB Content-Length on a schema file: 54000 naming the cap
#   endless   an endless chunked body: 54000; the backend's peak RSS (VmHWM)
#             stays under 200 MB across both, and the backend answers after
#   loop      a listing repeating its continuation token: XX001 at once
#             (at most 3 listing requests, not a loop until the timeout)
#   crlf      a session token with CR/LF: refused (22023, naming the option,
#             at CREATE USER MAPPING or before sending); no request carries
#             the injected header
#   missing   a 404 NoSuchKey: 58P01 naming the object; HTTP 404, NoSuchKey
#             in the message or its detail
#   denied    a 403: names HTTP 403 and AccessDenied, not the secret key
#   address   the IP endpoint is addressed path-style without the option;
#             set to virtual-hosted, the first "Couldn't resolve host" is
#             the ERROR with the s3.path.style.access hint (one attempt, < 5 s)
# Prints "hostile-s3: N passed, N failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
finish() { echo "hostile-s3: $pass passed, $fail failed, 0 skipped"; exit 0; }

log=$(mktemp /tmp/hostile-s3.XXXXXX)
node test/hostile/s3.mjs >"$log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 50); do grep -q '^PORT=' "$log" && break; sleep 0.1; done
port=$(sed -n 's/^PORT=//p' "$log")
if [ -z "$port" ]; then bad server "the hostile store did not start: $(head -3 "$log")"; finish; fi
EP=http://127.0.0.1:$port
stats() { curl -s "$EP/__stats" | python3 -c "import json,sys; print(json.load(sys.stdin).get('$1', {}).get('$2', 0))"; }

DB=ts_hostile_s3
PGOPTIONS="-c client_min_messages=warning" psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" \
     -c "CREATE DATABASE $DB" >/dev/null || {
    bad setup "could not create database $DB"; finish; }
sql() { psql -X -q -d $DB -v ep="$EP" -v VERBOSITY=verbose 2>&1; }

setup="
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS tablescan_fdw;
CREATE SERVER IF NOT EXISTS hostile FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (\"s3.endpoint\" :'ep', \"s3.region\" 'us-east-1');
CREATE USER MAPPING IF NOT EXISTS FOR CURRENT_USER SERVER hostile
  OPTIONS (\"s3.access-key\" 'HOSTILEKEY', \"s3.secret-key\" 'hostile-secret-value');
RESET client_min_messages;
SET statement_timeout = '60s';
\\set VERBOSITY verbose
"
hwm="SELECT 'hwm=' || (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), 'VmHWM:\\s+(\\d+)'))[1];"

# ---- huge, endless, memory -------------------------------------------------
out=$(sql <<SQL
$setup
CREATE FOREIGN TABLE huge (a int) SERVER hostile OPTIONS (path 's3://huge/t');
CREATE FOREIGN TABLE endless (a int) SERVER hostile OPTIONS (path 's3://endless/t');
$hwm
SELECT * FROM huge;
SELECT * FROM endless;
$hwm
SELECT 'alive=' || 1;
SQL
)
if grep -qE 'ERROR: +54000: .*"s3://huge/t/schema/schema-0".*8388608 bytes' <<<"$out"; then ok huge
else bad huge "$(grep ERROR <<<"$out" | head -2)"; fi
if grep -qE 'ERROR: +54000: .*"s3://endless/t/schema/schema-0"' <<<"$out"; then ok endless
else bad endless "$(grep ERROR <<<"$out" | head -2)"; fi
h0=$(sed -n 's/^ *hwm=//p' <<<"$out" | head -1)
h1=$(sed -n 's/^ *hwm=//p' <<<"$out" | tail -1)
if [ -n "$h1" ] && [ "$h1" -lt 204800 ] && grep -q 'alive=1' <<<"$out"; then
    ok "memory (VmHWM ${h0} kB -> ${h1} kB, backend alive)"
else bad memory "VmHWM ${h0:-?} kB -> ${h1:-?} kB; $(grep -E 'alive|FATAL|terminated' <<<"$out" | head -2)"; fi

# ---- loop -------------------------------------------------------------------
start=$(date +%s)
out=$(sql <<SQL
$setup
CREATE FOREIGN TABLE loop (a int) SERVER hostile OPTIONS (path 's3://loop/t');
SELECT * FROM loop;
SQL
)
lists=$(stats loop lists)
if grep -qE 'ERROR: +XX001: .*"s3://loop/t/schema.*repeats a continuation token' <<<"$out" &&
   [ "$lists" -le 3 ] && [ $(( $(date +%s) - start )) -lt 20 ]; then ok "loop ($lists listing requests)"
else bad loop "$lists listing requests; $(grep ERROR <<<"$out" | head -2)"; fi

# ---- crlf -------------------------------------------------------------------
out=$(sql <<SQL
$setup
CREATE SERVER crlf FOREIGN DATA WRAPPER tablescan_fdw OPTIONS ("s3.endpoint" :'ep');
CREATE USER MAPPING FOR CURRENT_USER SERVER crlf
  OPTIONS ("s3.access-key" 'K', "s3.secret-key" 'S', "s3.session-token" E'tok\r\nX-Injected: 1');
CREATE FOREIGN TABLE crlf (a int) SERVER crlf OPTIONS (path 's3://crlf/t');
SELECT * FROM crlf;
SQL
)
if grep -qE 'ERROR: +22023: .*s3.session-token' <<<"$out" && ! grep -q 'X-Injected' <<<"$out" &&
   [ "$(stats crlf injected)" = 0 ]; then ok crlf
else bad crlf "$(stats crlf requests) requests, $(stats crlf injected) injected; $(grep ERROR <<<"$out" | head -3)"; fi

# ---- missing, denied ----------------------------------------------------------
out=$(sql <<SQL
$setup
CREATE FOREIGN TABLE missing (a int) SERVER hostile OPTIONS (path 's3://missing/t');
SELECT * FROM missing;
CREATE FOREIGN TABLE denied (a int) SERVER hostile OPTIONS (path 's3://denied/t');
SELECT * FROM denied;
SQL
)
if grep -qE 'ERROR: +58P01: .*"s3://missing/t/schema/schema-0"' <<<"$out" &&
   grep -qE '(ERROR|DETAIL): .*"s3://missing/t/schema/schema-0".*HTTP 404, NoSuchKey' <<<"$out"; then ok missing
else bad missing "$(grep ERROR <<<"$out" | head -1)"; fi
if grep -qE 'ERROR: .*"s3://denied/t.*HTTP 403.*AccessDenied' <<<"$out" &&
   ! grep -q 'hostile-secret-value' <<<"$out"; then ok denied
else bad denied "$(grep ERROR <<<"$out" | tail -1)"; fi

# ---- addressing -----------------------------------------------------------------
if [ "$(stats missing virtualHosted)" = 0 ] && [ "$(stats missing requests)" -gt 0 ]; then
    ok "address (IP endpoint path-style by itself)"
else bad address "$(stats missing virtualHosted) virtual-hosted requests of $(stats missing requests)"; fi
start=$(date +%s%N)
out=$(sql <<SQL
$setup
CREATE SERVER vhost FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS ("s3.endpoint" :'ep', "s3.path.style.access" 'false');
CREATE USER MAPPING FOR CURRENT_USER SERVER vhost OPTIONS ("s3.access-key" 'K', "s3.secret-key" 'S');
CREATE FOREIGN TABLE vhost (a int) SERVER vhost OPTIONS (path 's3://vhost/t');
SELECT * FROM vhost;
SQL
)
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if grep -qE "ERROR: .*s3://vhost/t.*after 1 attempt|ERROR: .*s3://vhost/t.*resolve" <<<"$out" &&
   grep -q 'HINT: .*s3.path.style.access' <<<"$out" && [ "$ms" -lt 5000 ]; then
    ok "address (virtual-hosted IP endpoint: one attempt, ${ms} ms)"
else bad address "${ms} ms; $(grep -E 'ERROR|HINT' <<<"$out" | head -2)"; fi

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
finish
