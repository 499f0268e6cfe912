#!/bin/bash
# conformance.sh - the conformance cases over a copy of ../shared/testdata in
# the test Azure store (test/azure/start.sh: azurite, container testdata;
# option path 'abfs://testdata@tsconf.dfs.core.windows.net/<table>', the
# account key in the user mapping), in the cluster of the PG* variables.
# Prints what test/conformance/run.py --mode azure prints, closing with
# "conformance-azure: N passed, N failed, N skipped" (or a failure of its own
# when the store did not start).
set -uo pipefail
cd "$(dirname "$0")/../.."
if ! eval "$(bash test/azure/start.sh)"; then
    echo "conformance-azure: 0 passed, 1 failed, 0 skipped"
    exit 0
fi
trap 'kill "$TS_AZURE_PID" 2>/dev/null; rm -f "$TS_AZURE_LOG"' EXIT
python3 test/conformance/run.py --shared "${TS_SHARED:-/work/shared}" --mode azure "$@"
