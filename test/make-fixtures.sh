#!/bin/bash
# Generate the regression fixtures (our own Paimon tables) into $1 with our
# generator build/tools/ts_gen.  Readable by the cluster's postgres user.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: make-fixtures.sh DIR}
rm -rf "$OUT"
mkdir -p "$OUT"
GEN=build/tools/ts_gen
[ -x "$GEN" ] || { echo "generator $GEN not built"; exit 1; }
# (tables added as the generator grows)
chmod -R a+rX "$OUT"

