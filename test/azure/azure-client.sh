#!/bin/bash
# azure-client.sh - the Azure Blob client (src/base/azure*.c, through
# build/tools/ts_azure) against azurite (npm, blob service only, in memory,
# on 127.0.0.1, telemetry off) with an account and a random key of this
# run, and against test/azure/stub.mjs for what azurite does not do.  The
# blobs are uploaded by test/azure/blob.mjs, which signs with node's crypto
# (independent of the client).  Checks:
#   head, head-missing      size of a blob; a missing one is "missing", or NOT_FOUND naming it
#   get-whole, get-range    bytes equal to the uploaded file (whole, 3 ranges)
#   range-size, range-end   a size other than the one opened with; past the end
#   whole-cap               a 9 MB blob under snapshot/: TS_ERR_LIMIT naming the cap
#   list-pages              7 blobs by pages of 2: all, sorted, in 4 requests
#   list-dirs, list-missing directories below a prefix; none: NOT_FOUND
#   encoded-name            a blob name with a space and a '%'
#   put-if-absent           created, then exists (412/409); the bytes read back
#   delete                  deleted, then absent; a read after: NOT_FOUND
#   put-replace             a Put Blob without condition replaces the blob's bytes
#   put-blocks              a blob of 3 Put Blocks and a Put Block List: 3 committed blocks
#                           (azurite's block list, read by blob.mjs), the bytes read back
#   put-blocks-none         an empty block list commits an empty blob (an upload's abort)
#   missing, no-container   404s naming the URI and BlobNotFound / the container
#   wrong-key               403 naming HTTP 403, not the key
#   anonymous               a request without key or token: 403 saying it was anonymous
#   sas, sas-denied         reads and lists with an account SAS; a bad one: 403, not the token
#   retry-503               ServerBusy answers retried, then an error after 3 attempts
#   timeout                 a silent endpoint: 2 attempts of 300 ms, then an error (not the SAS)
#   cancel                  an interrupt 300 ms into a wait for a silent endpoint: canceled in < 0.8 s (the transfer polls every 50 ms)
#   short-range             a short 206 retried, then an error (never data)
#   endless                 an endless body: TS_ERR_LIMIT
#   list-cut, list-loop     a listing page cut short is asked again (2 requests, the entries);
#                           a marker handed out twice stops the listing at once (2 requests)
#   put-landed              a Put Blob whose reply was lost (500) and whose retry finds the
#                           blob (409): created when the blob has this content (length, MD5),
#                           exists when it has another writer's
# Prints "azure: N passed, N failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
TOOL=$ROOT/build/tools/ts_azure
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
check() { if [ "$2" = 0 ]; then ok "$1"; else bad "$1" "$3"; fi; }
pids=()
W=$(mktemp -d /tmp/ts-azure.XXXXXX)
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$W"; }
trap cleanup EXIT
trap 'exit 1' TERM INT
finish() { echo "azure: $pass passed, $fail failed, 0 skipped"; exit 0; }

[ -x "$TOOL" ] || { bad setup "$TOOL is not built (make tools)"; finish; }
if [ ! -x test/azure/node_modules/.bin/azurite-blob ]; then
    (cd test/azure && npm install --no-audit --no-fund >"$W/npm.log" 2>&1) ||
        { bad setup "npm install in test/azure failed: $(tail -3 "$W/npm.log")"; finish; }
fi

# start LOG CMD...: run CMD in the background (ended on exit), its port in LOG -> $port
start() {
    local log=$1; shift
    "$@" >"$log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
        grep -qE 'PORT=[0-9]+|listens on http://127.0.0.1:[0-9]+' "$log" && break
        sleep 0.1
    done
    port=$(grep -oE 'PORT=[0-9]+|listens on http://127.0.0.1:[0-9]+' "$log" | head -1 | grep -oE '[0-9]+$')
}

ACCOUNT=tsacct1
KEY=$(head -c 32 /dev/urandom | base64)
WRONG=$(head -c 32 /dev/urandom | base64)
AZURITE_ACCOUNTS="$ACCOUNT:$KEY" start "$W/azurite.log" test/azure/node_modules/.bin/azurite-blob \
    --blobHost 127.0.0.1 --blobPort 0 --inMemoryPersistence --extentMemoryLimit 256 \
    --skipApiVersionCheck --disableProductStyleUrl --disableTelemetry
[ -n "$port" ] || { bad setup "azurite did not start: $(head -5 "$W/azurite.log")"; finish; }
EP=http://127.0.0.1:$port/$ACCOUNT
U=abfs://lake@$ACCOUNT.dfs.core.windows.net
export TS_AZURE_ENDPOINT=$EP TS_AZURE_KEY=$KEY

# the blobs, uploaded by the tests' own signer
up() { node test/azure/blob.mjs upload "$EP" "$ACCOUNT" "$KEY" lake "$1" "$2" || bad setup "upload $1"; }
node test/azure/blob.mjs container "$EP" "$ACCOUNT" "$KEY" lake || { bad setup "could not create the container"; finish; }
head -c 3000000 /dev/urandom > "$W/data.bin"
head -c 9437184 /dev/urandom > "$W/big.bin"
printf 'snapshot-7' > "$W/latest"
up wh/db.db/t/bucket-0/data-1.parquet "$W/data.bin"
up wh/db.db/t/snapshot/LATEST "$W/latest"
up wh/db.db/t/snapshot/snapshot-big "$W/big.bin"
up "wh/db.db/t/odd name%.txt" "$W/latest"
for i in 1 2 3 4 5 6 7; do printf 'file %s' $i > "$W/f$i"; up "wh/many/f$i" "$W/f$i"; done

# ---- reads ---------------------------------------------------------------
DATA=$U/wh/db.db/t/bucket-0/data-1.parquet
out=$($TOOL head "$DATA" 2>&1)
check head $([ "$out" = "size 3000000" ]; echo $?) "$out"
out=$($TOOL head "$U/wh/db.db/t/none" 2>&1)
o2=$($TOOL size "$U/wh/db.db/t/none" 2>&1)
check head-missing $([ "$out" = "missing" ] &&
    [ "$o2" = "ERROR NOT_FOUND: HEAD \"$U/wh/db.db/t/none\": no such blob (HTTP 404, BlobNotFound)" ]; echo $?) "$out / $o2"
$TOOL get "$DATA" > "$W/got" 2>"$W/err"
check get-whole $(cmp -s "$W/got" "$W/data.bin"; echo $?) "$(cat "$W/err")"
r=0
for range in "0 4096" "1234567 100001" "2999000 1000"; do
    set -- $range
    $TOOL get "$DATA" "$1" "$2" 3000000 > "$W/got" 2>"$W/err" || r=1
    tail -c +$(($1 + 1)) "$W/data.bin" | head -c "$2" > "$W/want"
    cmp -s "$W/got" "$W/want" || { r=1; echo "range $range: $(cat "$W/err")"; }
done
check get-range $r "a range differs"
out=$($TOOL get "$DATA" 0 10 2999999 2>&1)
check range-size $([[ "$out" == *"gives its size as 3000000 bytes, not the 2999999"* ]]; echo $?) "$out"
out=$($TOOL get "$DATA" 2999990 20 3000000 2>&1)
check range-end $([[ "$out" == ERROR* && "$out" == *"$DATA"* ]]; echo $?) "$out"
out=$($TOOL get "$U/wh/db.db/t/snapshot/snapshot-big" 2>&1 >/dev/null)
check whole-cap $([[ "$out" == "ERROR LIMIT:"*"more than 8388608 bytes, the cap of snapshot"* ]]; echo $?) "$out"
$TOOL get "$U/wh/db.db/t/odd name%.txt" > "$W/got" 2>"$W/err"
check encoded-name $(cmp -s "$W/got" "$W/latest"; echo $?) "$(cat "$W/err")"

# ---- listings ------------------------------------------------------------
out=$(TS_AZURE_PAGE=2 $TOOL list "$U/wh/many/" 2>"$W/err" | tr '\n' ' ')
check list-pages $([ "$out" = "f1 f2 f3 f4 f5 f6 f7 " ] && grep -qx 'requests 4' "$W/err"; echo $?) \
    "$out / $(cat "$W/err")"
out=$($TOOL list "$U/wh/db.db/t" 2>/dev/null | tr '\n' ' ')
check list-dirs $([ "$out" = "bucket-0 odd name%.txt snapshot " ]; echo $?) "$out"
out=$($TOOL list "$U/wh/nothing" 2>&1)
check list-missing $([[ "$out" == "ERROR NOT_FOUND:"*"no blobs below it"* ]]; echo $?) "$out"

# ---- writes --------------------------------------------------------------
NEW=$U/wh/db.db/t/snapshot/snapshot-8
printf 'the commit of snapshot 8' > "$W/s8"
printf 'another writer' > "$W/s8b"
o1=$($TOOL put "$NEW" "$W/s8" 2>&1); o2=$($TOOL put "$NEW" "$W/s8b" 2>&1)
$TOOL get "$NEW" > "$W/got" 2>&1
check put-if-absent $([ "$o1" = created ] && [ "$o2" = exists ] && cmp -s "$W/got" "$W/s8"; echo $?) "$o1 / $o2"
o1=$($TOOL delete "$NEW" 2>&1); o2=$($TOOL delete "$NEW" 2>&1); o3=$($TOOL get "$NEW" 2>&1)
check delete $([ "$o1" = deleted ] && [ "$o2" = absent ] && [[ "$o3" == "ERROR NOT_FOUND:"* ]]; echo $?) "$o1 / $o2 / $o3"
o1=$($TOOL put "$NEW" "$W/s8" 2>&1); o2=$($TOOL replace "$NEW" "$W/s8b" 2>&1)
$TOOL get "$NEW" > "$W/got" 2>&1
check put-replace $([ "$o1" = created ] && [ "$o2" = replaced ] && cmp -s "$W/got" "$W/s8b"; echo $?) "$o1 / $o2"
BLK=$U/wh/db.db/t/bucket-0/data-blocks.parquet
o1=$($TOOL put-blocks "$BLK" "$W/data.bin" 1000000 2>&1)
$TOOL get "$BLK" > "$W/got" 2>&1
o2=$(node test/azure/blob.mjs blocks "$EP" "$ACCOUNT" "$KEY" lake wh/db.db/t/bucket-0/data-blocks.parquet 2>&1)
check put-blocks $([ "$o1" = "3 blocks" ] && [ "$o2" = "committed 3 uncommitted 0" ] &&
    cmp -s "$W/got" "$W/data.bin"; echo $?) "$o1 / $o2"
o1=$($TOOL put-blocks "$BLK" "$W/latest" 0 2>&1); o2=$($TOOL size "$BLK" 2>&1)
check put-blocks-none $([ "$o1" = "0 blocks" ] && [ "$o2" = 0 ]; echo $?) "$o1 / $o2"

# ---- errors --------------------------------------------------------------
out=$($TOOL get "$U/wh/db.db/t/snapshot/snapshot-9" 2>&1)
check missing $([[ "$out" == "ERROR NOT_FOUND: GET \"$U/wh/db.db/t/snapshot/snapshot-9\": no such blob (HTTP 404, BlobNotFound)" ]]; echo $?) "$out"
out=$($TOOL get "abfs://gone@$ACCOUNT.dfs.core.windows.net/x" 2>&1)
check no-container $([[ "$out" == *"no such container (HTTP 404, ContainerNotFound)"* ]]; echo $?) "$out"
out=$(TS_AZURE_KEY=$WRONG $TOOL get "$DATA" 2>&1 >/dev/null)
check wrong-key $([[ "$out" == *"HTTP 403"* && "$out" == *"azure.account-key"* && "$out" != *"$WRONG"* &&
    "$out" != *"$KEY"* ]]; echo $?) "$out"
SAS=$(node test/azure/blob.mjs sas "$ACCOUNT" "$KEY")
TS_AZURE_SAS=$SAS env -u TS_AZURE_KEY $TOOL get "$DATA" > "$W/got" 2>"$W/err"
r=$(cmp -s "$W/got" "$W/data.bin"; echo $?)
out=$(TS_AZURE_SAS=$SAS env -u TS_AZURE_KEY $TOOL list "$U/wh/many" 2>/dev/null | wc -l)
check sas $([ "$r" = 0 ] && [ "$out" = 7 ]; echo $?) "$(cat "$W/err") / $out entries"
out=$(env -u TS_AZURE_KEY $TOOL head "$DATA" 2>&1)
check anonymous $([[ "$out" == *"HTTP 403"*"the requests were anonymous"* ]]; echo $?) "$out"
BADSAS=${SAS/sig=/sig=AAAA}
out=$(TS_AZURE_SAS=$BADSAS env -u TS_AZURE_KEY $TOOL head "$DATA" 2>&1)
check sas-denied $([[ "$out" == *"HTTP 403"* && "$out" == *"azure.sas-token"* && "$out" != *"sig="* &&
    "$out" != *"${SAS#*sig=}"* ]]; echo $?) "$out"

# ---- transport: retries, timeouts, short and endless answers -------------
start "$W/busy.log" node test/azure/stub.mjs busy; sp=$port
out=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$sp/$ACCOUNT TS_AZURE_ATTEMPTS=3 $TOOL head "$DATA" 2>&1)
n=$(curl -s "http://127.0.0.1:$sp/__count")
check retry-503 $([[ "$out" == *"failed after 3 attempts: HTTP 503 (ServerBusy)"* && "$n" = 3 ]]; echo $?) "$out ($n requests)"
start "$W/hang.log" node test/azure/stub.mjs hang; hp=$port
t0=$SECONDS
out=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$hp/$ACCOUNT TS_AZURE_ATTEMPTS=2 TS_AZURE_TIMEOUT_MS=300 \
    TS_AZURE_SAS=$SAS env -u TS_AZURE_KEY $TOOL head "$DATA" 2>&1)
check timeout $([[ "$out" == *"failed after 2 attempts: Timeout"* && "$out" != *"sig="* ]] &&
    [ $((SECONDS - t0)) -lt 10 ]; echo $?) "$out"
t0=$(date +%s%N)
out=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$hp/$ACCOUNT TS_AZURE_CANCEL_MS=300 $TOOL head "$DATA" 2>&1)
ms=$((($(date +%s%N) - t0) / 1000000))
check cancel $([[ "$out" == "ERROR CANCELED: HEAD \"$DATA\": canceled" ]] && [ "$ms" -lt 800 ]; echo $?) "$out ($ms ms)"
start "$W/short.log" node test/azure/stub.mjs short; shp=$port
out=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$shp/$ACCOUNT TS_AZURE_ATTEMPTS=2 $TOOL get "$DATA" 0 100 1000 2>&1 >"$W/got")
n=$(curl -s "http://127.0.0.1:$shp/__count")
check short-range $([[ "$out" == *"failed after 2 attempts: HTTP 206 with 50 bytes, short of the range"* && "$n" = 2 ]] &&
    [ ! -s "$W/got" ]; echo $?) "$out ($n requests)"
start "$W/endless.log" node test/azure/stub.mjs endless; ep=$port
out=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$ep/$ACCOUNT $TOOL get "$U/wh/db.db/t/snapshot/snapshot-1" 2>&1 >/dev/null)
check endless $([[ "$out" == "ERROR LIMIT:"*"the cap of snapshot"* ]]; echo $?) "$out"
start "$W/listcut.log" node test/azure/stub.mjs listcut; lc=$port
out=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$lc/$ACCOUNT $TOOL list "$U/wh/t" 2>/dev/null | tr '\n' ' ')
n=$(curl -s "http://127.0.0.1:$lc/__count")
check list-cut $([ "$out" = "a b " ] && [ "$n" = 2 ]; echo $?) "$out ($n requests)"
start "$W/listloop.log" node test/azure/stub.mjs listloop; ll=$port
out=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$ll/$ACCOUNT $TOOL list "$U/wh/t" 2>&1)
n=$(curl -s "http://127.0.0.1:$ll/__count")
check list-loop $([[ "$out" == "ERROR CORRUPT:"*"repeats a continuation token"* ]] && [ "$n" = 2 ]; echo $?) "$out ($n requests)"
start "$W/landed.log" node test/azure/stub.mjs landed; lp=$port
o1=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$lp/$ACCOUNT $TOOL put "$U/wh/t/snapshot/snapshot-9" "$W/s8" 2>&1)
o2=$(TS_AZURE_ENDPOINT=http://127.0.0.1:$lp/$ACCOUNT $TOOL put "$U/wh/t/snapshot/theirs-9" "$W/s8" 2>&1)
check put-landed $([ "$o1" = created ] && [ "$o2" = exists ]; echo $?) "$o1 / $o2"
finish
