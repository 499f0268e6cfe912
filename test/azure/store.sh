#!/bin/bash
# store.sh - tables read from Azure Blob Storage through the file system
# (src/base/fs_azure.c) against azurite (test/azure/start.sh: an account and
# a random key of this run), in the cluster of the PG* variables (run from
# test/pg-tests.sh part azure-store).  ../shared/testdata's
# parquet/append_09.db is uploaded under abfs://testdata@tsconf.../wh.
# The reads run as azrole, a role without pg_read_server_files.  Checks:
#   import-rows       IMPORT FOREIGN SCHEMA from the abfs:// warehouse: the rows of the local table
#   wasb-path         the same table by a wasb:// path (the blob endpoint's name): the same rows
#   hadoop-key        the key as fs.azure.account.key.<account>.dfs.core.windows.net: the same rows
#   other-account-key a per-account key of another account is not sent: 403, said anonymous
#   sas               an account SAS in the mapping: the same rows; a bad one: 403, not the token
#   explain           EXPLAIN VERBOSE / ANALYZE name the abfs:// table, never the key
#   wrong-key         a wrong key: an error naming HTTP 403, not either key
#   missing           a missing table: an error naming its abfs:// path, not the key
#   server-key, table-key  the key as a SERVER or FOREIGN TABLE option: refused, the value not shown
#   no-mapping        a role without a user mapping cannot read (user mapping not found)
#   write-no-mapping  INSERT by a role without a user mapping: refused (writes: test/azure/writes.sh)
# Prints "azure-store: N passed, N failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
SHARED=${TS_SHARED:-/work/shared}
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL azure-store $1: $2"; }
finish() { echo "azure-store: $pass passed, $fail failed, 0 skipped"; exit 0; }

if ! eval "$(TS_AZURE_TESTDATA=0 bash test/azure/start.sh)"; then bad setup "azurite did not start"; finish; fi
trap 'kill "$TS_AZURE_PID" 2>/dev/null; rm -f "$TS_AZURE_LOG"' EXIT
EP=$TS_AZURE_ENDPOINT KEY=$TS_AZURE_KEY
WRONG=$(head -c 32 /dev/urandom | base64)
node test/azure/blob.mjs upload-dir "$EP" "$TS_AZURE_ACCOUNT" "$KEY" testdata \
    "$SHARED/testdata/parquet/append_09.db" wh/append_09.db >/dev/null ||
    { bad setup "upload of append_09.db failed"; finish; }
SAS=$(node test/azure/blob.mjs sas "$TS_AZURE_ACCOUNT" "$KEY")
WH=abfs://testdata@$TS_AZURE_ACCOUNT.dfs.core.windows.net/wh
T=$WH/append_09.db/append_09

psql -X -q -v ON_ERROR_STOP=1 >/tmp/azure-store-setup.$$ 2>&1 <<SQL || { bad setup "$(cat /tmp/azure-store-setup.$$)"; rm -f /tmp/azure-store-setup.$$; finish; }
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS az_imp, az_loc, az_t CASCADE;
DROP SERVER IF EXISTS az_store, az_local CASCADE;
DROP ROLE IF EXISTS azrole;
DROP ROLE IF EXISTS aznomap;
CREATE EXTENSION IF NOT EXISTS tablescan_fdw;
CREATE ROLE azrole;
CREATE ROLE aznomap;
CREATE SERVER az_store FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '$WH', "azure.endpoint" '$EP');
CREATE SERVER az_local FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '$SHARED/testdata/parquet');
GRANT USAGE ON FOREIGN SERVER az_store TO azrole, aznomap;
CREATE USER MAPPING FOR azrole SERVER az_store OPTIONS ("azure.account-key" '$KEY');
CREATE SCHEMA az_imp AUTHORIZATION azrole;
CREATE SCHEMA az_t AUTHORIZATION azrole;
GRANT USAGE ON SCHEMA az_t TO aznomap;
CREATE SCHEMA az_loc;
IMPORT FOREIGN SCHEMA append_09 FROM SERVER az_local INTO az_loc;
GRANT USAGE ON SCHEMA az_loc TO azrole;
GRANT SELECT ON ALL TABLES IN SCHEMA az_loc TO azrole;
SQL
rm -f /tmp/azure-store-setup.$$

# as azrole (or ROLE), errors verbose; prints what psql printed
sql() { printf '\\set VERBOSITY verbose\nSET ROLE %s;\n%s\n' "${ROLE:-azrole}" "$1" | psql -X -q -At -v ON_ERROR_STOP=0 2>&1; }
# shows_secret TEXT: does TEXT hold a key or the SAS's signature?
sig=${SAS##*sig=}
shows_secret() { grep -qF -e "$KEY" -e "$WRONG" -e "${sig%%&*}" <<<"$1"; }
# same_rows NAME TABLE: TABLE holds the local table's rows (and some)
same_rows() {
    local out
    out=$(sql "SELECT (SELECT count(*) FROM $2) || ' ' ||
                      (SELECT count(*) FROM (TABLE $2 EXCEPT ALL TABLE az_loc.append_09) d) || ' ' ||
                      (SELECT count(*) FROM (TABLE az_loc.append_09 EXCEPT ALL TABLE $2) d) || ' ' ||
                      (SELECT count(*) FROM az_loc.append_09);")
    local n extra missing want
    read -r n extra missing want <<<"$(tail -1 <<<"$out")"
    if [ "${n:-x}" = "${want:-y}" ] && [ "${want:-0}" -gt 0 ] && [ "$extra" = 0 ] && [ "$missing" = 0 ]; then ok "$1"
    else bad "$1" "want the $want local rows, got: $out"; fi
}
# expect_error NAME SQL TEXT: the statement fails, its error holds TEXT and no secret
expect_error() {
    local out; out=$(sql "$2")
    if ! grep -q 'ERROR:' <<<"$out"; then bad "$1" "no error: $out"
    elif ! grep -qF -- "$3" <<<"$out"; then bad "$1" "want '$3' in: $out"
    elif shows_secret "$out"; then bad "$1" "the error shows a secret"
    else ok "$1"; fi
}

out=$(sql "IMPORT FOREIGN SCHEMA append_09 FROM SERVER az_store INTO az_imp;")
grep -q ERROR <<<"$out" && bad import-rows "$out"
same_rows import-rows az_imp.append_09

cols=$(psql -X -At -c "SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum)
                        FROM pg_attribute WHERE attrelid = 'az_loc.append_09'::regclass AND attnum > 0")
# the tables naming a path are made by the superuser (option path needs pg_read_server_files)
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<SQL || bad setup "could not create the tables by path"
CREATE FOREIGN TABLE az_t.by_wasb ($cols) SERVER az_store OPTIONS
  (path 'wasb://testdata@$TS_AZURE_ACCOUNT.blob.core.windows.net/wh/append_09.db/append_09');
CREATE FOREIGN TABLE az_t.missing (a int) SERVER az_store OPTIONS (path '$WH/nodb.db/none');
CREATE FOREIGN TABLE az_t.w ($cols) SERVER az_store OPTIONS (path '$T', updatable 'true');
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA az_t TO azrole;
GRANT SELECT ON az_t.by_wasb TO aznomap;
SQL
same_rows wasb-path az_t.by_wasb

# the mapping's forms of a key
remap() { psql -X -q -c "DROP USER MAPPING FOR azrole SERVER az_store; CREATE USER MAPPING FOR azrole SERVER az_store OPTIONS ($1);" >/dev/null; }
remap "\"fs.azure.account.key.$TS_AZURE_ACCOUNT.dfs.core.windows.net\" '$KEY'"
same_rows hadoop-key az_imp.append_09
remap "\"fs.azure.account.key.other$TS_AZURE_ACCOUNT.dfs.core.windows.net\" '$KEY'"
expect_error other-account-key "SELECT count(*) FROM az_imp.append_09;" "anonymous"
remap "\"azure.sas-token\" '$SAS'"
same_rows sas az_imp.append_09
remap "\"azure.sas-token\" '${SAS/sig=/sig=AAAA}'"
expect_error sas-denied "SELECT count(*) FROM az_imp.append_09;" "HTTP 403"
remap "\"azure.account-key\" '$WRONG'"
expect_error wrong-key "SELECT count(*) FROM az_imp.append_09;" "HTTP 403"
remap "\"azure.account-key\" '$KEY'"

out=$(sql "EXPLAIN (VERBOSE) SELECT * FROM az_imp.append_09 WHERE f0 IS NOT NULL;
           EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) SELECT * FROM az_imp.append_09;")
if grep -q ERROR <<<"$out" || ! grep -qF "append_09" <<<"$out"; then bad explain "$out"
elif shows_secret "$out"; then bad explain "EXPLAIN shows the key"
else ok explain; fi

expect_error missing "SELECT * FROM az_t.missing;" "$WH/nodb.db/none"

# a key anywhere but a user mapping: refused without its value
out=$(psql -X -q -c "ALTER SERVER az_store OPTIONS (ADD \"azure.account-key\" '$KEY')" 2>&1)
if grep -q 'may only be set in a USER MAPPING' <<<"$out" && ! shows_secret "$out"; then ok server-key
else bad server-key "$out"; fi
out=$(psql -X -q -c "CREATE FOREIGN TABLE az_t.keyed (a int) SERVER az_store OPTIONS (path '$T', \"fs.azure.account.key.$TS_AZURE_ACCOUNT.dfs.core.windows.net\" '$KEY')" 2>&1)
if grep -q 'may only be set in a USER MAPPING' <<<"$out" && ! shows_secret "$out"; then ok table-key
else bad table-key "$out"; fi

ROLE=aznomap expect_error no-mapping "SELECT count(*) FROM az_t.by_wasb;" 'user mapping not found for "aznomap"'

psql -X -q -c "GRANT INSERT ON az_t.w TO aznomap; GRANT USAGE ON SCHEMA az_loc TO aznomap; GRANT SELECT ON az_loc.append_09 TO aznomap" >/dev/null
ROLE=aznomap expect_error write-no-mapping "INSERT INTO az_t.w SELECT * FROM az_loc.append_09 LIMIT 1;" 'user mapping not found for "aznomap"'

psql -X -q -c "DROP SCHEMA az_imp, az_loc, az_t CASCADE; DROP SERVER az_store, az_local CASCADE; DROP ROLE azrole; DROP ROLE aznomap;" >/dev/null 2>&1
finish
