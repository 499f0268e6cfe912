#!/bin/bash
# writes.sh - INSERT, COPY, UPDATE and DELETE into Paimon tables in Azure Blob
# Storage (src/base/fs_azure_write.c) against azurite (test/azure/start.sh:
# an account and a random key of this run), in the cluster of the PG*
# variables (run from test/pg-tests.sh part writes-azure), in a database of
# its own.  The tables are hand-written schema files uploaded by
# test/azure/blob.mjs, which also lists and reads the blobs the checks look
# at (its own signer, not the client under test).  Checks:
#   append-insert    INSERT of 1,000 rows into an append table: the rows read back; snapshot-1, LATEST 1
#   append-copy      COPY FROM: the rows read back, snapshot-2
#   blocks           a data file over one block (8 MiB) went up as Put Blocks + Put Block List
#                    (azurite's committed block list), its rows read back as the model says
#   pk-write         a primary-key table: INSERT, UPDATE, DELETE, COPY, then SELECT: the rows expected
#   pk-transaction   INSERT + UPDATE + DELETE in one transaction: one snapshot
#   concurrent       two sessions inserting 5 transactions each at once: 10 snapshots, every row once
#   rollback         ROLLBACK after several data blobs were written (listed before it): no snapshot, they are deleted
#   error-cleanup    an ERROR after data files were written: the same
#   terminate        pg_terminate_backend of an INSERT once its data blobs are listed: PostgreSQL's FATAL,
#                    no snapshot, every data blob it put deleted
#   sas              a user mapping with an account SAS writes
#   explain          EXPLAIN INSERT names the table, commits nothing; EXPLAIN ANALYZE shows no secret
#   wrong-key        a role whose key is wrong: an error naming HTTP 403, no key, nothing written
#   no-mapping       a role without a user mapping cannot write (user mapping not found)
#   nothing-left     no blob but the data, manifests, snapshots and hints of committed writes
#   consumer-file    tablescan_changes(..., paimon_consumer => true): consumer/consumer-<id> on Azure holds
#                    Java's JSON with the position tablescan_consumers holds, once the read committed
# Prints "writes-azure: N passed, N failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL writes-azure $1: $2"; }
finish() { echo "writes-azure: $pass passed, $fail failed, 0 skipped"; exit 0; }
W=$(mktemp -d /tmp/ts-azure-writes.XXXXXX)
chmod 755 "$W"

if ! eval "$(TS_AZURE_TESTDATA=0 bash test/azure/start.sh)"; then bad setup "azurite did not start"; finish; fi
trap 'kill "$TS_AZURE_PID" 2>/dev/null; rm -f "$TS_AZURE_LOG"; rm -rf "$W"' EXIT
EP=$TS_AZURE_ENDPOINT KEY=$TS_AZURE_KEY ACCT=$TS_AZURE_ACCOUNT
WRONG=$(head -c 32 /dev/urandom | base64)
blob() { node test/azure/blob.mjs "$1" "$EP" "$ACCT" "$KEY" testdata "${@:2}"; }
SAS=$(node test/azure/blob.mjs sas "$ACCT" "$KEY")
sig=${SAS##*sig=}
shows_secret() { grep -qF -e "$KEY" -e "$WRONG" -e "${sig%%&*}" <<<"$1"; }

# the tables: schema files written by hand (test/schema-lib.sh)
source "$(dirname "$0")/../schema-lib.sh"
FIELDS="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 s STRING)")"
schema "$W/src/w.db/t" "$FIELDS" "" "" '"bucket" : "-1", "commit.max-retries" : "20"'
schema "$W/src/w.db/r" "$FIELDS" "" "" '"bucket" : "-1", "target-file-size" : "32 kb"'
schema "$W/src/w.db/m" "$FIELDS" "" "" '"bucket" : "-1"'
schema "$W/src/w.db/k" "$FIELDS" "" '"id"' '"bucket" : "2"'
blob upload-dir "$W/src/w.db" wh/w.db >/dev/null || { bad setup "upload of the schema files failed"; finish; }
WH=abfs://testdata@$ACCT.dfs.core.windows.net/wh

export PGDATABASE=ts_writes_azure
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes_azure" >/dev/null 2>&1
psql -X -q -d postgres -c "CREATE DATABASE ts_writes_azure" >/dev/null 2>&1 || { bad setup "CREATE DATABASE"; finish; }
psql -X -q -v ON_ERROR_STOP=1 >"$W/setup.log" 2>&1 <<SQL || { bad setup "$(head -5 "$W/setup.log")"; finish; }
SET client_min_messages = warning;
DROP ROLE IF EXISTS azw_wrong;
DROP ROLE IF EXISTS azw_none;
DROP ROLE IF EXISTS azw_sas;
CREATE EXTENSION tablescan_fdw;
CREATE SERVER azw FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$WH', "azure.endpoint" '$EP');
CREATE USER MAPPING FOR CURRENT_USER SERVER azw OPTIONS ("azure.account-key" '$KEY');
CREATE FOREIGN TABLE t (id int NOT NULL, s text) SERVER azw OPTIONS (database 'w', "table" 't');
CREATE FOREIGN TABLE r (id int NOT NULL, s text) SERVER azw OPTIONS (database 'w', "table" 'r');
CREATE FOREIGN TABLE m (id int NOT NULL, s text) SERVER azw OPTIONS (database 'w', "table" 'm');
CREATE FOREIGN TABLE k (id int NOT NULL, s text) SERVER azw OPTIONS (database 'w', "table" 'k');
CREATE ROLE azw_wrong;
CREATE ROLE azw_none;
CREATE ROLE azw_sas;
GRANT USAGE ON FOREIGN SERVER azw TO azw_wrong, azw_none, azw_sas;
GRANT SELECT, INSERT ON t TO azw_wrong, azw_none, azw_sas;
CREATE USER MAPPING FOR azw_wrong SERVER azw OPTIONS ("azure.account-key" '$WRONG');
CREATE USER MAPPING FOR azw_sas SERVER azw OPTIONS ("azure.sas-token" '$SAS');
SQL

q() { psql -X -q -At -v ON_ERROR_STOP=0 "$@" 2>&1; }
blobs() { blob list "wh/w.db/$1/" 2>&1 | sort; }
snapshots() { blobs "$1" | grep -c '/snapshot/snapshot-[0-9]*$'; }
latest() { blob get "wh/w.db/$1/snapshot/LATEST" 2>&1; }

# ---- append: INSERT and COPY -------------------------------------------------
out=$(q -c "INSERT INTO t SELECT g, 's' || g FROM generate_series(1, 1000) g")
got=$(q -c "SELECT count(*), sum(id), count(DISTINCT s), min(s), max(s) FROM t")
[ "$got" = "1000|500500|1000|s1|s999" ] && [ "$(snapshots t)" = 1 ] && [ "$(latest t)" = 1 ] &&
    ok append-insert || bad append-insert "rows '$got', $(snapshots t) snapshots, LATEST '$(latest t)' $out"
out=$(printf '2001\tcopied one\n2002\t\\N\n2003\tcopied three\n' | q -c "COPY t FROM STDIN")
got=$(q -c "SELECT count(*), sum(id), count(s) FROM t WHERE id > 2000")
[ "$got" = "3|6006|2" ] && [ "$(snapshots t)" = 2 ] && [ "$(latest t)" = 2 ] && ok append-copy ||
    bad append-copy "rows '$got', $(snapshots t) snapshots $out"

# ---- a data file of several blocks --------------------------------------------
VALUES="g, md5(g::text) || md5((g * 3)::text) || md5((g * 7)::text) || md5((g * 11)::text)"
out=$(q -c "INSERT INTO m SELECT $VALUES FROM generate_series(1, 400000) g")
model=$(q -c "SELECT count(*), sum(id), sum(length(s)), count(DISTINCT s) FROM (SELECT $VALUES FROM generate_series(1, 400000) g) x(id, s)")
ours=$(q -c "SELECT count(*), sum(id), sum(length(s)), count(DISTINCT s) FROM m")
data=$(blobs m | grep '\.parquet$' | head -1)
blocks=$( [ -n "$data" ] && blob blocks "$data")
nblocks=$(sed -n 's/^committed \([0-9]*\) uncommitted 0$/\1/p' <<<"$blocks")
[ "${nblocks:-0}" -ge 2 ] && [ -n "$model" ] && [ "$ours" = "$model" ] &&
    ok "blocks ($nblocks blocks, rows $ours)" || bad blocks "blocks '$blocks' of '$data', rows '$ours', model '$model' $out"

# ---- a primary-key table -------------------------------------------------------
out=$(q -c "INSERT INTO k VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')" \
        -c "UPDATE k SET s = 'B' WHERE id = 2" -c "DELETE FROM k WHERE id = 3")
out+=$(printf '6,f\n1,a again\n' | q -c "COPY k FROM STDIN (FORMAT csv)")
got=$(q -c "SELECT string_agg(id || '=' || s, ' ' ORDER BY id) FROM k")
[ "$got" = "1=a again 2=B 4=d 5=e 6=f" ] && [ "$(snapshots k)" = 4 ] && ok pk-write ||
    bad pk-write "rows '$got', $(snapshots k) snapshots $out"
out=$(q -c "BEGIN" -c "INSERT INTO k VALUES (7, 'g')" -c "UPDATE k SET s = 'E' WHERE id = 5" \
        -c "DELETE FROM k WHERE id = 1" -c "COMMIT")
got=$(q -c "SELECT string_agg(id || '=' || s, ' ' ORDER BY id) FROM k")
[ "$got" = "2=B 4=d 5=E 6=f 7=g" ] && [ "$(snapshots k)" = 5 ] && ok pk-transaction ||
    bad pk-transaction "rows '$got', $(snapshots k) snapshots $out"

# ---- two sessions at once ------------------------------------------------------
before=$(snapshots t)
session() {
    for x in 1 2 3 4 5; do
        echo "INSERT INTO t SELECT g, 'c$1' FROM generate_series($1 * 100000 + $x * 100, $1 * 100000 + $x * 100 + 49) g;"
    done | psql -X -q -v ON_ERROR_STOP=1 >"$W/session$1.log" 2>&1
}
session 1 & A=$!
session 2 & B=$!
wait $A; ra=$?; wait $B; rb=$?
got=$(q -c "SELECT count(*), count(DISTINCT id) FROM t WHERE s IN ('c1', 'c2')")
[ $ra = 0 ] && [ $rb = 0 ] && [ "$got" = "500|500" ] && [ "$(snapshots t)" = $((before + 10)) ] &&
    ok "concurrent ($got)" ||
    bad concurrent "rc $ra/$rb, rows '$got', $(snapshots t) snapshots after $before $(cat "$W"/session*.log)"

# ---- ROLLBACK and an ERROR remove the data blobs ---------------------------------
before=$(blobs r)
# the data blobs while the transaction is open are counted from the shell
out=$(printf '%s\n' "BEGIN;" "INSERT INTO r SELECT g, md5(g::text) FROM generate_series(1, 20000) g;" \
        "\\! node test/azure/blob.mjs list '$EP' '$ACCT' '$KEY' testdata wh/w.db/r/ | grep -c 'parquet\$'" \
        "ROLLBACK;" | q)
inside=$(sed -n '1p' <<<"$out")
[ "${inside:-0}" -ge 2 ] && [ "$(blobs r)" = "$before" ] && ok "rollback ($inside data blobs written, then deleted)" ||
    bad rollback "data blobs before ROLLBACK '$inside'; blobs now: $(blobs r | tr '\n' ' ') $out"
out=$(q -c "INSERT INTO r SELECT CASE WHEN g < 20000 THEN g END, md5(g::text) FROM generate_series(1, 20000) g")
grep -q "NOT NULL" <<<"$out" && [ "$(blobs r)" = "$before" ] && ok error-cleanup ||
    bad error-cleanup "$out; blobs now: $(blobs r | tr '\n' ' ')"
# a backend terminated while it puts data blobs: its exit removes them, no snapshot
PGAPPNAME=azw_kill psql -X -q -c "INSERT INTO r SELECT g, md5(g::text) FROM generate_series(1, 5000000) g" \
    >"$W/kill.log" 2>&1 &
kpid=$!
seen=0
for i in $(seq 1 100); do
    [ "$(blobs r | grep -c '\.parquet$')" -ge 2 ] && { seen=1; break; }
    sleep 0.2
done
bpid=$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'azw_kill'")
q -c "SELECT pg_terminate_backend(${bpid:-0})" >/dev/null
wait $kpid
krc=$?
# the backend deletes its blobs while it exits, after its client saw the FATAL
for i in $(seq 1 300); do
    [ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE pid = ${bpid:-0}")" = 0 ] && break
    sleep 0.1
done
[ $seen = 1 ] && [ $krc -ne 0 ] && grep -q "FATAL:  terminating connection due to administrator command" "$W/kill.log" &&
    [ "$(blobs r)" = "$before" ] && ok "terminate (data blobs seen, then deleted; no snapshot)" ||
    bad terminate "seen $seen, rc $krc: $(head -2 "$W/kill.log"); blobs now: $(blobs r | grep -vc '/schema/')"

# ---- credentials -----------------------------------------------------------------
before=$(snapshots t)
out=$(q -c "SET ROLE azw_sas" -c "INSERT INTO t VALUES (50001, 'sas')" -c "SELECT count(*) FROM t WHERE s = 'sas'")
[ "$(tail -1 <<<"$out")" = 1 ] && [ "$(snapshots t)" = $((before + 1)) ] && ! shows_secret "$out" && ok sas ||
    bad sas "$out"
out=$(q -c "EXPLAIN (VERBOSE) INSERT INTO t VALUES (1, 'x')" -c "EXPLAIN (ANALYZE, VERBOSE) SELECT count(*) FROM t")
grep -q "Paimon Table: w.t" <<<"$out" && [ "$(snapshots t)" = $((before + 1)) ] && ! shows_secret "$out" &&
    ok explain || bad explain "$out"
before=$(blobs t)
out=$(q -c "\\set VERBOSITY verbose" -c "SET ROLE azw_wrong" -c "INSERT INTO t VALUES (60001, 'wrong')")
grep -q "HTTP 403" <<<"$out" && ! shows_secret "$out" && [ "$(blobs t)" = "$before" ] && ok wrong-key ||
    bad wrong-key "$out"
out=$(q -c "SET ROLE azw_none" -c "INSERT INTO t VALUES (60002, 'none')")
grep -q 'user mapping not found for "azw_none"' <<<"$out" && [ "$(blobs t)" = "$before" ] && ok no-mapping ||
    bad no-mapping "$out"

# ---- nothing but what committed writes keep --------------------------------------
left=$(blob list wh/w.db/ | grep -vE '/(schema/schema-0|snapshot/(snapshot-[0-9]+|LATEST|EARLIEST)|manifest/manifest-(list-)?[0-9a-f-]+-[0-9]+|bucket-[0-9]+/data-[0-9a-f-]+-[0-9]+\.parquet)$')
[ -z "$left" ] && ok nothing-left || bad nothing-left "$(head -5 <<<"$left" | tr '\n' ' ')"

# ---- a Paimon consumer file on Azure: written at COMMIT as Java's JSON -------------
out=$(q -c "SELECT count(*) FROM tablescan_changes(NULL::t, consumer => 'az1', paimon_consumer => true)")
pos=$(q -c "SELECT next_snapshot FROM tablescan_consumers WHERE consumer = 'az1'")
got=$(blob get wh/w.db/t/consumer/consumer-az1 2>&1)
[ -n "$pos" ] && [ "$got" = "$(printf '{\n  "nextSnapshot" : %s\n}' "$pos")" ] && ! shows_secret "$out" &&
    ok consumer-file || bad consumer-file "position '$pos', blob '$got', $out"

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ts_writes_azure" >/dev/null 2>&1
psql -X -q -d postgres -c "DROP ROLE IF EXISTS azw_wrong; DROP ROLE IF EXISTS azw_none; DROP ROLE IF EXISTS azw_sas;" >/dev/null 2>&1
finish
