#!/bin/bash
# Generate deterministic Paimon primary-key tables with ts_gen into $1 (a
# warehouse database directory), one per merge engine / layout, each with
# its <table>.ops.jsonl write-stream description (format: the comment at the
# top of src/tools/ts_gen_pk_write.h).  The unit test test/unit/test_pk_model.c
# checks our reader on the same kinds of tables against a brute-force model.
#   usage: test/pk/make-pk-tables.sh DIR [GENERATOR]   (default build/tools/ts_gen)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?usage: make-pk-tables.sh DIR [GENERATOR]}
GEN=${2:-build/tools/ts_gen}
[ -x "$GEN" ] || { echo "generator $GEN not built"; exit 1; }
mkdir -p "$OUT"
COLS="--column id:INT --column p:INT --column v:STRING --column n:BIGINT --column d:DOUBLE
      --partition p --partitions 2 --primary-key id --buckets 2"
gen() { local name=$1; shift; rm -rf "$OUT/$name" "$OUT/$name.ops.jsonl"; "$GEN" "$OUT/$name" "$@"; }
gen pk_dedup_level0      $COLS --rows 30 --keys 20 --snapshots 4 --files 3 --delete-every 6 --retract-every 9 --null-every 4
gen pk_dedup_levels      $COLS --rows 40 --keys 24 --snapshots 6 --files 3 --compact-every 2 --levels 3 \
                               --delete-every 6 --retract-every 9 --null-every 5 --compact-file-rows 3
gen pk_dedup_dv          $COLS --rows 40 --keys 24 --snapshots 6 --files 2 --compact-every 2 --levels 2 \
                               --delete-every 6 --retract-every 9 --null-every 5 --deletion-vectors
gen pk_first_row         $COLS --merge-engine first-row --option ignore-delete=true --rows 30 --keys 20 \
                               --snapshots 6 --files 2 --compact-every 2 --levels 2 --delete-every 7
gen pk_partial_update    $COLS --merge-engine partial-update --option partial-update.remove-record-on-delete=true \
                               --rows 30 --keys 16 --snapshots 6 --files 2 --compact-every 2 --levels 2 \
                               --null-every 2 --delete-every 8
gen pk_aggregation       $COLS --merge-engine aggregation --agg n:sum --agg d:sum --rows 40 --keys 16 \
                               --snapshots 6 --files 3 --compact-every 2 --levels 3 --null-every 5 \
                               --delete-every 6 --retract-every 11
chmod -R a+rX "$OUT"
