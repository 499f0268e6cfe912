#!/bin/bash
# Generate the regression fixtures into DIR with our own generator
# (build/tools/ts_gen) and derive the broken copies the error tests read.
# Everything is readable by the cluster's postgres user.
#
#   DIR/warehouse/sales.db/orders      partitioned (dt), 4 fixed buckets on id, 3 snapshots
#   DIR/warehouse/sales.db/customers   unpartitioned, bucket-unaware
#   DIR/warehouse/types.db/all_types   every mapped type, 2 snapshots, NULLs
#   DIR/warehouse/types.db/evolve      schema evolution: rename, drop, add, INT->BIGINT
#   DIR/warehouse/types.db/empty       a schema and no snapshot (reads 0 rows)
#   DIR/broken/<case>                  copies of customers with one thing broken
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: make-fixtures.sh DIR}
GEN=${TS_GEN:-build/tools/ts_gen}
[ -x "$GEN" ] || { echo "generator $GEN not built (make tools)"; exit 1; }
rm -rf "$OUT"
W=$OUT/warehouse
mkdir -p "$W/sales.db" "$W/types.db" "$OUT/broken"

$GEN "$W/sales.db/orders" --column 'id:INT NOT NULL' --column customer:STRING \
    --column 'amount:DECIMAL(10, 2)' --column 'ts:TIMESTAMP(6)' --column dt:STRING \
    --partition dt --partitions 3 --buckets 4 --bucket-key id --rows 1000 --snapshots 3 \
    --null-every 7
$GEN "$W/sales.db/customers" --column 'id:INT NOT NULL' --column name:STRING \
    --column 'city:VARCHAR(20)' --rows 50 --files 2
$GEN "$W/types.db/all_types" --preset all-types --rows 20 --snapshots 2 --null-every 5
$GEN "$W/types.db/evolve" --preset evolve --rows 10
$GEN "$W/types.db/empty" --column a:INT --column b:STRING
rm -rf "$W/types.db/empty/snapshot" "$W/types.db/empty/manifest"
find "$W/types.db/empty" -name '*.avro' -delete

# broken copies: each case breaks exactly one file of customers
B=$OUT/broken
src=$W/sales.db/customers
mk() { rm -rf "$B/$1"; cp -r "$src" "$B/$1"; }
mk no_schema;        rm -rf "$B/no_schema/schema"
mk bad_schema;       printf '{"version": 3, "id": 0, "fields": [ {"id": 0, "name": "a", "type": "WIDGET"} ]}' \
                         > "$B/bad_schema/schema/schema-0"
mk truncated_schema; truncate -s 40 "$B/truncated_schema/schema/schema-0"
mk bad_latest;       echo 99 > "$B/bad_latest/snapshot/LATEST"; rm -f "$B/bad_latest/snapshot/snapshot-1"
mk missing_list;     rm -f "$B"/missing_list/manifest/manifest-list-*
mk truncated_manifest
for f in "$B"/truncated_manifest/manifest/manifest-*; do
    case "$f" in */manifest-list-*) ;; *) truncate -s 100 "$f" ;; esac
done
mk corrupt_manifest
for f in "$B"/corrupt_manifest/manifest/manifest-*; do
    case "$f" in */manifest-list-*) ;; *) printf 'garbage!' | dd of="$f" bs=1 seek=60 conv=notrunc status=none ;; esac
done
mk missing_data;     rm -f "$(find "$B/missing_data" -name '*.avro' | sort | head -1)"
mk truncated_data;   f=$(find "$B/truncated_data" -name '*.avro' | sort | head -1); truncate -s 50 "$f"
mk empty_data;       f=$(find "$B/empty_data" -name '*.avro' | sort | head -1); : > "$f"
mk bad_zstd
f=$(find "$B/bad_zstd" -name '*.avro' | sort | head -1)
size=$(stat -c %s "$f"); printf '\377\377\377\377' | dd of="$f" bs=1 seek=$((size - 30)) conv=notrunc status=none

chmod -R a+rX "$OUT"
echo "fixtures written to $OUT"
