#!/bin/bash
# start.sh - start the test Azure store (npm azurite, blob service only, in
# memory, on 127.0.0.1, telemetry off) with an account and a random key of
# this run, and upload the whole ../shared/testdata tree into container
# "testdata" (by test/azure/blob.mjs upload-dir: node's crypto signs, 16
# uploads at a time).  For the conformance run over Azure (test/pg-tests.sh
# part conformance-azure) and test/azure/store.sh.  Prints shell
# assignments to eval: TS_AZURE_ENDPOINT (http://127.0.0.1:PORT/ACCOUNT),
# TS_AZURE_ACCOUNT, TS_AZURE_KEY, TS_AZURE_PREFIX (the abfs:// URI of
# testdata/), TS_AZURE_PID, TS_AZURE_LOG (azurite's output).
#   eval "$(bash test/azure/start.sh)"; ...; kill "$TS_AZURE_PID"; rm -f "$TS_AZURE_LOG"
# With TS_AZURE_TESTDATA=0 nothing is uploaded (the container is made).
set -euo pipefail
cd "$(dirname "$0")"
SHARED=${TS_SHARED:-/work/shared}
LOG=$(mktemp /tmp/ts-azurite.XXXXXX)
if [ ! -x node_modules/.bin/azurite-blob ]; then
    npm install --no-audit --no-fund >"$LOG.npm" 2>&1 ||
        { echo "echo 'npm install in test/azure failed' >&2"; exit 1; }
fi
ACCOUNT=tsconf
KEY=$(head -c 32 /dev/urandom | base64)
AZURITE_ACCOUNTS="$ACCOUNT:$KEY" node_modules/.bin/azurite-blob \
    --blobHost 127.0.0.1 --blobPort 0 --inMemoryPersistence --extentMemoryLimit 512 \
    --skipApiVersionCheck --disableProductStyleUrl --disableTelemetry >"$LOG" 2>&1 &
pid=$!
port=
for _ in $(seq 100); do
    port=$(grep -oE 'listens on http://127.0.0.1:[0-9]+' "$LOG" | head -1 | grep -oE '[0-9]+$' || true)
    [ -n "$port" ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "echo 'azurite did not start: $(head -3 "$LOG" | tr -d "'")' >&2"
    kill $pid 2>/dev/null
    rm -f "$LOG"
    exit 1
fi
EP=http://127.0.0.1:$port/$ACCOUNT
fail() { echo "echo '$1' >&2"; kill $pid 2>/dev/null; rm -f "$LOG" "$LOG.up"; exit 1; }
node blob.mjs container "$EP" "$ACCOUNT" "$KEY" testdata >/dev/null 2>"$LOG.up" ||
    fail "could not create container testdata: $(head -1 "$LOG.up" | tr -d "'")"
if [ "${TS_AZURE_TESTDATA:-1}" = 1 ]; then
    node blob.mjs upload-dir "$EP" "$ACCOUNT" "$KEY" testdata "$SHARED/testdata" >/dev/null 2>"$LOG.up" ||
        fail "could not upload testdata: $(head -1 "$LOG.up" | tr -d "'")"
fi
rm -f "$LOG.up" "$LOG.npm"
echo "export TS_AZURE_ENDPOINT=$EP TS_AZURE_ACCOUNT=$ACCOUNT TS_AZURE_KEY=$KEY" \
    "TS_AZURE_PREFIX=abfs://testdata@$ACCOUNT.dfs.core.windows.net TS_AZURE_PID=$pid TS_AZURE_LOG=$LOG"
