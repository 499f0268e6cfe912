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
#   DIR/warehouse/rowtrack.db/events   row tracking: 40 files, _FIRST_ROW_ID 0, 200, ...
#   DIR/warehouse/rowtrack.db/groups   row tracking: 6 files of 333/334 rows, row groups of 64
#   DIR/warehouse/rowtrack.db/avro_blocks  the same in Avro files of blocks of 64 rows
#   DIR/warehouse/btree.db/events      row tracking + a btree global index on name and v;
#                                      events_bad: its index files corrupt (sql/row_ids.sql);
#                                      nulls: the same with NULL keys (null bitmaps), nulls_bad:
#                                      their CRCs broken (sql/btree_nulls.sql)
#   DIR/warehouse/idx.db/*             file indexes: bloom, bitmap, BSI, range-bitmap, embedded
#                                      (events) and sidecar (events_sidecar; a corrupt copy:
#                                      events_bad) (sql/file_index_gen.sql)
#   DIR/warehouse/casts.db/*           type changes Java Paimon allows (sql/casts.sql),
#                                      VECTOR and unreadable types (sql/vectors.sql)
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
# the flat columns both casts tables walk through (old type, then --retype new type)
CAST_FLAT=(
    --column 'c_ts_ltz:TIMESTAMP(6)' --retype 'c_ts_ltz:TIMESTAMP(6) WITH LOCAL TIME ZONE'
    --column 'c_ltz_ts:TIMESTAMP(3) WITH LOCAL TIME ZONE' --retype 'c_ltz_ts:TIMESTAMP(3)'
    --column 'c_ltz_date:TIMESTAMP(6) WITH LOCAL TIME ZONE' --retype c_ltz_date:DATE
    --column 'c_ltz_str:TIMESTAMP(6) WITH LOCAL TIME ZONE' --retype c_ltz_str:STRING
    --column 'c_ltz_bigint:TIMESTAMP(3) WITH LOCAL TIME ZONE' --retype c_ltz_bigint:BIGINT
    --column c_int_ltz:INT --retype 'c_int_ltz:TIMESTAMP(6) WITH LOCAL TIME ZONE'
    --column c_date_ltz:DATE --retype 'c_date_ltz:TIMESTAMP(6) WITH LOCAL TIME ZONE'
    --column 'c_ts_int:TIMESTAMP(6)' --retype c_ts_int:INT
    --column c_int_ts:INT --retype 'c_int_ts:TIMESTAMP(3)'
    --column 'c_ts_date:TIMESTAMP(3)' --retype c_ts_date:DATE
    --column 'c_ts_time:TIMESTAMP(3)' --retype 'c_ts_time:TIME(3)'
    --column c_int_str:INT --retype c_int_str:STRING
    --column c_dbl_int:DOUBLE --retype c_dbl_int:INT
    --column c_big_small:BIGINT --retype c_big_small:SMALLINT
    --column c_big_dec:BIGINT --retype 'c_big_dec:DECIMAL(10, 0)'
    --column c_dbl_dec:DOUBLE --retype 'c_dbl_dec:DECIMAL(5, 1)'
    --column 'c_dec_dec:DECIMAL(10, 2)' --retype 'c_dec_dec:DECIMAL(4, 1)'
    --column c_bool_str:BOOLEAN --retype c_bool_str:STRING
    --column c_bool_int:BOOLEAN --retype c_bool_int:INT
    --column c_date_str:DATE --retype c_date_str:STRING
    --column 'c_time_str:TIME(3)' --retype c_time_str:STRING
    --column 'c_ts_str:TIMESTAMP(3)' --retype c_ts_str:STRING
    --column 'c_vc_len:VARCHAR(20)' --retype 'c_vc_len:VARCHAR(8)'
    --column c_bin_str:BYTES --retype c_bin_str:STRING
    --column 't:VARCHAR(1)' --retype t:BOOLEAN
)
# nested columns: element and field casts, nested values to STRING
CAST_NESTED=(
    --column 'c_arr:ARRAY<INT>' --retype 'c_arr:ARRAY<BIGINT>'
    --column 'c_arr_str:ARRAY<INT>' --retype c_arr_str:STRING
    --column 'c_row:ROW<x INT, y STRING, z DATE>' --retype 'c_row:ROW<x BIGINT, y STRING, z STRING>'
)
# rows 0-99 in files of schema 0 read through the cast rules, 100-199 native
$GEN "$W/casts.db/casts" --rows 100 --snapshots 2 --column 'id:INT NOT NULL' "${CAST_FLAT[@]}" \
    "${CAST_NESTED[@]}"
# STRING -> other types (the text of column NAME cut to n characters is the
# value; such names are no Avro names)
CAST_STR=(
    --column '42x:VARCHAR(2)' --retype 42x:INT --column '-7x:VARCHAR(2)' --retype -7x:BIGINT
    --column '1.25x:VARCHAR(4)' --retype '1.25x:DECIMAL(5, 1)'
    --column '2.5e3x:VARCHAR(5)' --retype 2.5e3x:DOUBLE
    --column '2020-01-31x:VARCHAR(10)' --retype 2020-01-31x:DATE
    --column '2020-03-08x:VARCHAR(10)' --retype '2020-03-08x:TIMESTAMP(6) WITH LOCAL TIME ZONE'
    --column '2020-03-09x:VARCHAR(10)' --retype '2020-03-09x:TIMESTAMP(3)'
    --column c_str_bin:STRING --retype c_str_bin:BYTES
)
# the same flat, STRING -> other type and nested columns in Parquet and in ORC
# data files
$GEN "$W/casts.db/casts_parquet" --format parquet --rows 100 --snapshots 2 --column 'id:INT NOT NULL' \
    "${CAST_FLAT[@]}" "${CAST_STR[@]}" "${CAST_NESTED[@]}"
$GEN "$W/casts.db/casts_orc" --format orc --rows 100 --snapshots 2 --column 'id:INT NOT NULL' \
    "${CAST_FLAT[@]}" "${CAST_STR[@]}" "${CAST_NESTED[@]}"
# a STRING -> INT change Java reads only when every old value parses
$GEN "$W/casts.db/casts_bad" --rows 3 --snapshots 2 --column 'id:INT NOT NULL' \
    --column s:STRING --retype s:INT
# VECTOR columns (Paimon 1.3), stored as arrays: real[] / double precision[] / integer[]
$GEN "$W/casts.db/vectors" --rows 5 --column 'id:INT NOT NULL' --column 'v:VECTOR<FLOAT, 3>' \
    --column 'vd:VECTOR<DOUBLE, 2>' --column 'vi:VECTOR<INT, 4>' --null-every 4
# the same in Parquet data files: Paimon's Parquet writer stores a VECTOR as a LIST
$GEN "$W/casts.db/vectors_parquet" --format parquet --rows 5 --column 'id:INT NOT NULL' \
    --column 'v:VECTOR<FLOAT, 3>' --column 'vd:VECTOR<DOUBLE, 2>' --column 'vi:VECTOR<INT, 4>' \
    --null-every 4
# VECTOR inside ARRAY / ROW / MAP (Paimon's types allow it; jsonb like any nested value)
$GEN "$W/casts.db/vectors_nested" --rows 5 --column 'id:INT NOT NULL' \
    --column 'av:ARRAY<VECTOR<FLOAT, 2>>' --column 'rv:ROW<a INT, v VECTOR<DOUBLE, 2>>' \
    --column 'mv:MAP<INT, VECTOR<SMALLINT, 2>>' --null-every 4
# types no reader decodes (VARIANT, GEOMETRY): IMPORT refuses or leaves them out
mkdir -p "$W/casts.db/unreadable/schema"
cat > "$W/casts.db/unreadable/schema/schema-0" <<'JSON'
{"version": 3, "id": 0, "fields": [{"id": 0, "name": "id", "type": "INT"},
  {"id": 1, "name": "var", "type": "VARIANT"}, {"id": 2, "name": "geo", "type": "GEOMETRY"},
  {"id": 3, "name": "vs", "type": {"type": "ARRAY", "element": "VARIANT"}},
  {"id": 4, "name": "v", "type": {"type": "VECTOR", "element": "FLOAT", "length": 2}}],
 "highestFieldId": 4, "partitionKeys": [], "primaryKeys": [],
 "options": {"bucket": "-1", "file.format": "avro"}, "timeMillis": 1700000000000}
JSON
# a type this reader does not know (BLOB_REF, Paimon 1.5): IMPORT refuses the table
mkdir -p "$W/casts.db/unknown_type/schema"
cat > "$W/casts.db/unknown_type/schema/schema-0" <<'JSON'
{"version": 3, "id": 0, "fields": [{"id": 0, "name": "id", "type": "INT"},
  {"id": 1, "name": "ref", "type": "BLOB_REF"}],
 "highestFieldId": 1, "partitionKeys": [], "primaryKeys": [],
 "options": {"bucket": "-1", "file.format": "avro"}, "timeMillis": 1700000000000}
JSON
# a change Java refuses: the read names both types
$GEN "$W/casts.db/casts_refused" --rows 3 --snapshots 2 --column 'id:INT NOT NULL' \
    --column 'l:TIMESTAMP(6) WITH LOCAL TIME ZONE' --retype 'l:DECIMAL(10, 2)'
# rows of ~2 KB strings (a 2000-character column name): batches are
# converted to Datums a window of at most 1 MB of strings at a time
$GEN "$W/bulk.db/wide" --column 'id:INT NOT NULL' --column "$(printf 'x%.0s' $(seq 2000)):STRING" \
    --column n:INT --column big:BIGINT --rows 3000 --null-every 5
# decimals of every scale class: batches write them as numerics in place
$GEN "$W/bulk.db/decimals" --column 'id:INT NOT NULL' --column 'd0:DECIMAL(18, 0)' \
    --column 'd1:DECIMAL(18, 1)' --column 'd2:DECIMAL(18, 2)' --column 'd3:DECIMAL(18, 3)' \
    --column 'd4:DECIMAL(18, 4)' --column 'd5:DECIMAL(18, 5)' --column 'd9:DECIMAL(18, 9)' \
    --column 'd18:DECIMAL(18, 18)' --column 'e2:DECIMAL(10, 2)' --column 'e5:DECIMAL(5, 5)' \
    --rows 3000 --null-every 13
# GROUP BY keys that repeat (sql/scan_group.sql): a DATE partition key, a
# bucket key, short strings ('tag_' || n cut to 6), DECIMAL(2, 1) (n mod 100)
$GEN "$W/bulk.db/groups" --column 'id:INT NOT NULL' --column day:DATE --column 'tag:VARCHAR(6)' \
    --column 'grade:DECIMAL(2, 1)' --column flag:BOOLEAN --column small:TINYINT \
    --column 'amount:DECIMAL(10, 2)' --column score:DOUBLE --column big:BIGINT --column seen:DATE \
    --partition day --partitions 5 --buckets 4 --bucket-key id --rows 10000 --snapshots 2 \
    --null-every 9
# row tracking (sql/row_ids.sql): 40 files of 200 rows, each with its _FIRST_ROW_ID
# (row ids 0..7999, consecutive from file to file)
mkdir -p "$W/rowtrack.db"
$GEN "$W/rowtrack.db/events" --column 'id:INT NOT NULL' --column name:STRING --column dt:STRING \
    --partition dt --partitions 2 --rows 4000 --files 10 --snapshots 2 --format parquet \
    --option row-tracking.enabled=true
# row ids inside files (sql/row_ids.sql): 6 Parquet files of 333 / 333 / 334 rows (2 commits),
# row groups of 64 rows; row ids 0..1999 in write order, so _ROW_ID = id
$GEN "$W/rowtrack.db/groups" --column 'id:INT NOT NULL' --column name:STRING \
    --rows 1000 --files 3 --snapshots 2 --format parquet --row-group-rows 64 --null-every 5 \
    --option row-tracking.enabled=true
# Avro blocks and row ids (sql/row_ids_avro.sql): as groups, in Avro files (zstd) of blocks of
# 64 rows (the last of a file the rest); _ROW_ID = id
$GEN "$W/rowtrack.db/avro_blocks" --column 'id:INT NOT NULL' --column name:STRING \
    --rows 1000 --files 3 --snapshots 2 --row-group-rows 64 --null-every 5 \
    --option row-tracking.enabled=true
# btree global index (sql/row_ids.sql): 3 commits x 4 Parquet files of 50 rows, row i has
# _ROW_ID i; after each commit one btree index file per column over its 200 rows (name STRING
# 'name_' || i, v BIGINT i * 1000000007; data blocks of 128 bytes, so several per file);
# events_bad is a copy whose index files' footers are overwritten.
mkdir -p "$W/btree.db"
$GEN "$W/btree.db/events" --column 'id:INT NOT NULL' --column name:STRING --column v:BIGINT \
    --rows 200 --files 4 --snapshots 3 --format parquet --option row-tracking.enabled=true \
    --btree-index name --btree-index v --btree-block-size 128
# primary-key global index (Paimon 2.0 pk-btree; sql/pk_global_index.sql): a deduplicate table
# with deletion vectors, 2 buckets, compactions to levels 5, 4, 5, 4 in files of at most 5 rows
# (the last one marks rows of level-5 files in their deletion vectors);
# each index manifest lists one btree payload per (bucket, level) over its COMPACT files
# (ts_gen_pk_gi.h); pkidx.db/items_bad: the same with every payload truncated to 8 bytes
mkdir -p "$W/pkidx.db"
rm -rf "$W/pkidx.db/items" "$W/pkidx.db/items_bad"
$GEN "$W/pkidx.db/items" --column id:INT --column v:STRING --column n:BIGINT --primary-key id \
    --buckets 2 --rows 60 --keys 40 --snapshots 8 --files 2 --compact-every 2 --levels 2 \
    --compact-file-rows 5 --delete-every 6 --deletion-vectors --option pk-btree.index.columns=n >/dev/null
cp -r "$W/pkidx.db/items" "$W/pkidx.db/items_bad"
# pkidx.db/items_nulls: as items with --null-every 3 (v NULL where the row's i % 3 = 1, n where
# i % 3 = 2): the payloads' null bitmaps hold the ordinals of the rows whose n is NULL
rm -rf "$W/pkidx.db/items_nulls"
$GEN "$W/pkidx.db/items_nulls" --column id:INT --column v:STRING --column n:BIGINT --primary-key id \
    --buckets 2 --rows 60 --keys 40 --snapshots 8 --files 2 --compact-every 2 --levels 2 \
    --compact-file-rows 5 --delete-every 6 --deletion-vectors --null-every 3 \
    --option pk-btree.index.columns=n >/dev/null
# pkidx.db/items_bitmap: as items_nulls with a pk-bitmap index on n (one bitmap file-index body
# per group over its ordinals, ts_gen_pk_gi.h)
rm -rf "$W/pkidx.db/items_bitmap"
$GEN "$W/pkidx.db/items_bitmap" --column id:INT --column v:STRING --column n:BIGINT --primary-key id \
    --buckets 2 --rows 60 --keys 40 --snapshots 8 --files 2 --compact-every 2 --levels 2 \
    --compact-file-rows 5 --delete-every 6 --deletion-vectors --null-every 3 \
    --option pk-bitmap.index.columns=n >/dev/null
# pkidx.db/items_bgix: items_bitmap with every payload replaced by 16 bytes + the 48-byte footer of
# Java's BitmapGlobalIndexFormat (blocks (0, 4), (4, 4), (8, 8), 1 value, version 1, magic
# "BGIX"): left unused (rows as without the index), never decoded as a BitmapFileIndex body
rm -rf "$W/pkidx.db/items_bgix"
cp -r "$W/pkidx.db/items_bitmap" "$W/pkidx.db/items_bgix"
for f in "$W"/pkidx.db/items_bgix/index/bitmap-global-index-*.index; do
    printf '%016d\0\0\0\0\0\0\0\0\0\0\0\4\0\0\0\0\0\0\0\4\0\0\0\4\0\0\0\0\0\0\0\10\0\0\0\10\0\0\0\1\0\0\0\1BGIX' 0 >"$f"
done
for f in "$W"/pkidx.db/items_bad/index/btree-global-index-*.index; do
    truncate -s 8 "$f"
done
cp -r "$W/btree.db/events" "$W/btree.db/events_bad"
for f in "$W"/btree.db/events_bad/index/*.index; do
    printf 'garbage!' | dd of="$f" bs=1 seek=$(( $(stat -c %s "$f") - 8 )) conv=notrunc status=none
done
# btree null bitmaps (sql/btree_nulls.sql): as events, with name NULL where i % 3 = 1 and v
# NULL where i % 3 = 2 (each index file's null bitmap holds those rows); nulls_bad is a copy
# whose index files' null bitmap CRCs are overwritten.
$GEN "$W/btree.db/nulls" --column 'id:INT NOT NULL' --column name:STRING --column v:BIGINT \
    --rows 200 --files 4 --snapshots 3 --format parquet --option row-tracking.enabled=true \
    --btree-index name --btree-index v --btree-block-size 128 --null-every 3
cp -r "$W/btree.db/nulls" "$W/btree.db/nulls_bad"
for f in "$W"/btree.db/nulls_bad/index/*.index; do
    # the footer's null bitmap handle (offset u64 at 32, size u32 at 40): its CRC follows it
    sz=$(stat -c %s "$f")
    off=$(od -An -tu8 -j $(( sz - 52 + 32 )) -N8 "$f" | tr -d ' ')
    len=$(od -An -tu4 -j $(( sz - 52 + 40 )) -N4 "$f" | tr -d ' ')
    printf 'crc!' | dd of="$f" bs=1 seek=$(( off + len )) conv=notrunc status=none
done
# file indexes (sql/file_index_gen.sql): 8 Parquet files of 100 rows (i = 100 k .. 100 k + 99),
# one index kind per column: bloom-filter on a string column whose values are too long for
# min / max stats, bitmap on kind (i % 128) and on a string, BSI on level (i % 128),
# range-bitmap on grade (i % 128); NULL where i % 7 = the column's position.  events holds
# every index in its manifest entries (threshold 64kb), events_sidecar in <file>.index
# (Java's default threshold, 500 bytes); events_bad is events_sidecar with one sidecar's
# magic overwritten.
mkdir -p "$W/idx.db"
IDX=(--column 'id:INT NOT NULL' --column customer_reference_code:STRING --column kind:TINYINT
     --column level:TINYINT --column grade:TINYINT --column status_description_text:STRING
     --rows 800 --files 8 --null-every 7 --format parquet
     --option file-index.bloom-filter.columns=customer_reference_code
     --option file-index.bloom-filter.customer_reference_code.items=100
     --option file-index.bloom-filter.customer_reference_code.fpp=0.001
     --option file-index.bitmap.columns=kind,status_description_text
     --option file-index.bitmap.version=1
     --option file-index.bsi.columns=level --option file-index.range-bitmap.columns=grade)
$GEN "$W/idx.db/events" "${IDX[@]}" --option file-index.in-manifest-threshold=64kb
$GEN "$W/idx.db/events_sidecar" "${IDX[@]}"
# bitmap v2 (Java's default; sql/file_index_gen.sql): 2 Parquet files of 400 rows i, kind = i % 128,
# tag 'tag_' || i; NULL where i % 7 = the column's position; index blocks of 64 bytes
$GEN "$W/idx.db/bitmap_v2" --column 'id:INT NOT NULL' --column kind:TINYINT --column tag:STRING \
    --rows 800 --files 2 --null-every 7 --format parquet \
    --option file-index.bitmap.columns=kind,tag --option file-index.bitmap.index-block-size=64
cp -r "$W/idx.db/events_sidecar" "$W/idx.db/events_bad"
printf 'garbage!' | dd of="$(find "$W/idx.db/events_bad" -name '*.index' | sort | head -1)" \
    bs=1 conv=notrunc status=none
$GEN "$W/types.db/empty" --column a:INT --column b:STRING
rm -rf "$W/types.db/empty/snapshot" "$W/types.db/empty/manifest"
find "$W/types.db/empty" -name '*.avro' -delete

# a table outside the warehouse reached through a symbolic link inside it
mkdir -p "$OUT/outside" "$W/links.db"
cp -r "$W/sales.db/customers" "$OUT/outside/customers"
ln -s "$OUT/outside/customers" "$W/links.db/escape"

# primary-key tables (one per merge engine / layout) with their write streams
bash test/pk/make-pk-tables.sh "$W/pk.db" "$GEN" >/dev/null

# following changes (sql/changes.sql): primary-key tables with changelog-producer input, whose
# APPEND commits also write their records as changelog files (a deduplicate and an aggregation
# table), outside the warehouse (the test follows copies of them)
PKCOLS="--column id:INT --column p:INT --column v:STRING --column n:BIGINT --column d:DOUBLE
        --partition p --partitions 2 --primary-key id --buckets 2"
rm -rf "$OUT/stream"; mkdir -p "$OUT/stream"
$GEN "$OUT/stream/pk_input" $PKCOLS --option changelog-producer=input --rows 40 --keys 24 \
     --snapshots 6 --files 3 --compact-every 2 --levels 3 --delete-every 6 --retract-every 9 \
     --null-every 5 --compact-file-rows 3 >/dev/null
$GEN "$OUT/stream/pk_input_agg" $PKCOLS --option changelog-producer=input --merge-engine aggregation \
     --agg n:sum --agg d:sum --rows 40 --keys 16 --snapshots 6 --files 3 --compact-every 2 --levels 3 \
     --null-every 5 --delete-every 6 --retract-every 11 >/dev/null
# streams of overwrites (sql/changes_overwrite.sql): commit 4 (snapshot 5) is an INSERT OVERWRITE of
# the whole table, on a deduplicate table, an aggregation table and one with changelog-producer input
$GEN "$OUT/stream/pk_overwrite" $PKCOLS --rows 40 --keys 24 --snapshots 5 --files 3 --compact-every 2 \
     --levels 2 --delete-every 6 --retract-every 9 --null-every 5 --overwrite-at 4 >/dev/null
$GEN "$OUT/stream/pk_overwrite_agg" $PKCOLS --merge-engine aggregation --agg n:sum --agg d:sum \
     --rows 40 --keys 16 --snapshots 5 --files 3 --compact-every 2 --levels 2 --null-every 5 \
     --delete-every 6 --retract-every 11 --overwrite-at 4 >/dev/null
$GEN "$OUT/stream/pk_overwrite_input" $PKCOLS --option changelog-producer=input --rows 40 --keys 24 \
     --snapshots 5 --files 3 --compact-every 2 --levels 2 --delete-every 6 --retract-every 9 \
     --null-every 5 --overwrite-at 4 >/dev/null
# ... with deletion vectors: commit 6 (snapshot 8) overwrites the whole table, whose snapshot 7
# has deletion vectors and a level-0 file (a deduplicate and an aggregation table), or partition 1
# alone; and an append table whose commit 3 (an OVERWRITE) also removes and re-adds commit 1's files
DVOW="$PKCOLS --rows 40 --snapshots 7 --files 3 --compact-every 2 --levels 2 --null-every 5
      --overwrite-at 6 --deletion-vectors"
$GEN "$OUT/stream/pk_overwrite_dv" $DVOW --keys 24 --delete-every 6 --retract-every 9 >/dev/null
$GEN "$OUT/stream/pk_overwrite_dv_agg" $DVOW --merge-engine aggregation --agg n:sum --agg d:sum \
     --keys 16 --delete-every 6 --retract-every 11 >/dev/null
$GEN "$OUT/stream/pk_overwrite_dv_part" $DVOW --keys 24 --delete-every 6 --retract-every 9 \
     --overwrite-partition p=1 >/dev/null
$GEN "$OUT/stream/append_readd" --column 'id:INT NOT NULL' --column customer:STRING \
     --column 'amount:DECIMAL(10, 2)' --column dt:STRING --partition dt --partitions 3 --buckets 4 \
     --bucket-key id --rows 100 --snapshots 3 --readd-at 3 >/dev/null

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

# ---- format tables (issue 7): plain CSV / JSON trees, Hive-partitioned ----
#   DIR/formattable/events_csv     no schema: dt (DATE) / region (STRING) partitions,
#                                  columns id, name, amount in the files (no header);
#                                  row i (1..120): dt = 2024-01-0(1 + i%3),
#                                  region = eu|us|NULL (default partition)|"x/y" (escaped) by i%4,
#                                  name = "n<i>" (empty = NULL when i%10 = 0), amount = i * 1.25,
#                                  file part-1.csv when i%5 = 0 else part-0.csv (12 partitions,
#                                  24 files); plus staging / hidden / non-partition entries
#   DIR/formattable/logs_text      TEXT files in dt= partitions (plain, .gz, .bz2)
#   DIR/warehouse/ft.db/events_json  a table directory whose schema/schema-0 says
#                                  type=format-table, file.format=json, partition key k INT;
#                                  row i (1..30): k = i%3 (k=0 written as the default partition
#                                  -> NULL), v = "v<i>", n = i * 1000000007
FT=$OUT/formattable/events_csv
mkdir -p "$FT"
awk -v root="$FT" 'BEGIN {
    split("eu us __DEFAULT_PARTITION__ x%2Fy", reg, " ");
    for (i = 1; i <= 120; i++) {
        dir = sprintf("%s/dt=2024-01-0%d/region=%s", root, 1 + i % 3, reg[1 + i % 4]);
        system("mkdir -p \"" dir "\"");
        name = (i % 10 == 0) ? "" : "n" i;
        printf "%d,%s,%.2f\n", i, name, i * 1.25 >> (dir "/part-" (i % 5 == 0 ? 1 : 0) ".csv");
    }
}'
mkdir -p "$FT/_temporary/0/dt=2024-01-01/region=eu"
echo '999,ghost,0' > "$FT/_temporary/0/dt=2024-01-01/region=eu/part-9.csv"
echo '997,ghost,0' > "$FT/dt=2024-01-01/region=eu/.part-0.csv.crc"
: > "$FT/_SUCCESS"
# a malformed row (FAILFAST / DROPMALFORMED tests) in a separate tree
mkdir -p "$OUT/formattable/bad_csv"
printf '1,a,1.00\n2,b,not-a-number\n3,c,3.00\n' > "$OUT/formattable/bad_csv/part-0.csv"

FJ=$W/ft.db/events_json
mkdir -p "$FJ/schema"
cat > "$FJ/schema/schema-0" <<'JSON'
{"version": 3, "id": 0,
 "fields": [ {"id": 0, "name": "k", "type": "INT"},
             {"id": 1, "name": "v", "type": "STRING"},
             {"id": 2, "name": "n", "type": "BIGINT"} ],
 "highestFieldId": 2, "partitionKeys": ["k"], "primaryKeys": [],
 "options": {"type": "format-table", "file.format": "json"}}
JSON
awk -v root="$FJ" 'BEGIN {
    for (i = 1; i <= 30; i++) {
        k = i % 3; kd = (k == 0) ? "__DEFAULT_PARTITION__" : k;
        dir = root "/k=" kd;
        system("mkdir -p \"" dir "\"");
        printf "{\"v\": \"v%d\", \"n\": %.0f}\n", i, i * 1000000007 >> (dir "/data-0.json");
    }
}'
# the CSV tree again, as a format table of the warehouse (schema in schema/)
FC=$W/ft.db/events_csv
cp -r "$FT" "$FC"
mkdir -p "$FC/schema"
cat > "$FC/schema/schema-0" <<'JSON'
{"version": 3, "id": 0,
 "fields": [ {"id": 0, "name": "id", "type": "INT"}, {"id": 1, "name": "name", "type": "STRING"},
             {"id": 2, "name": "amount", "type": "DECIMAL(10, 2)"}, {"id": 3, "name": "dt", "type": "DATE"},
             {"id": 4, "name": "region", "type": "STRING"} ],
 "highestFieldId": 4, "partitionKeys": ["dt", "region"], "primaryKeys": [],
 "options": {"type": "format-table", "file.format": "csv"}}
JSON
# TEXT files: DIR/formattable/logs_text/dt=2024-01-0<d>/ (d = 1..3), lines
# "d<d>-<j>" for j = 1..20 with line 10 empty; d=1 plain (\n, the last line
# without terminator), d=2 gzip with \r\n, d=3 bzip2 written as two streams
python3 - "$OUT/formattable/logs_text" <<'PY'
import bz2, gzip, os, sys
root = sys.argv[1]
for d in (1, 2, 3):
    lines = ["" if j == 10 else "d%d-%d" % (d, j) for j in range(1, 21)]
    part = os.path.join(root, "dt=2024-01-0%d" % d)
    os.makedirs(part, exist_ok=True)
    if d == 1:
        open(os.path.join(part, "part-0.text"), "wb").write("\n".join(lines).encode())
    elif d == 2:
        with gzip.open(os.path.join(part, "part-0.text.gz"), "wb") as f:
            f.write(("\r\n".join(lines) + "\r\n").encode())
    else:
        text = ("\n".join(lines) + "\n").encode()
        open(os.path.join(part, "part-0.text.bz2"), "wb").write(
            bz2.compress(text[:37]) + bz2.compress(text[37:]))
PY
# TEXT lines that are not UTF-8 text: an invalid byte (line 3 of bad_text),
# a NUL byte (line 2 of nul_text)
mkdir -p "$OUT/formattable/bad_text" "$OUT/formattable/nul_text"
printf 'ok 1\nok 2\nbad \377\376\n' > "$OUT/formattable/bad_text/part-0.text"
printf 'ok 1\nnul \000 x\n' > "$OUT/formattable/nul_text/part-0.text"
# Files a parallel scan reads in parts (sql/csv_split.sql), 20,000 rows each,
# row i: split_csv (header line, csv.include-header) id i, name 'n_<i>' or
# for i%5 = 0 '"n,""<i>"""' (n,"<i>"), amount i*0.25 (empty for i%11 = 0),
# day 2024-01-01 + i%365, lines ending \r\n for i%3 = 0 else \n, and a
# gzip file of rows 20000..20099 (read whole); split_json {"id":i,"s":"j_<i>"};
# split_text 't_<i>' ending \n, \r\n or \r by i%3; split_multiline as
# split_csv but with records spanning lines everywhere: for i%7 = 3 the
# name 'l"<i>"' LF 'break' (quoted, quotes doubled, the break \n for odd i
# else \r\n), for i%7 = 5 'e"<i>' LF 'z' (quoted, the quote escaped \",
# so its first line holds an even number of quotes), for i%7 = 6 'q"<i>'
# (unquoted: a quote inside a field is text).
python3 - "$OUT/formattable" <<'PY'
import datetime, gzip, os, sys
root = sys.argv[1]
def csv_line(i, name=None):
    if name is None:
        name = '"n,""%d"""' % i if i % 5 == 0 else "n_%d" % i
    amount = "" if i % 11 == 0 else "%.2f" % (i * 0.25)
    day = datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 365)
    return "%d,%s,%s,%s%s" % (i, name, amount, day, "\r\n" if i % 3 == 0 else "\n")
for d in ("split_csv", "split_json", "split_text", "split_multiline"):
    os.makedirs(os.path.join(root, d), exist_ok=True)
with open(os.path.join(root, "split_csv", "part-0.csv"), "w", newline="") as f:
    f.write("id,name,amount,day\n" + "".join(csv_line(i) for i in range(20000)))
with gzip.open(os.path.join(root, "split_csv", "part-1.csv.gz"), "wt", newline="") as f:
    f.write("id,name,amount,day\n" + "".join(csv_line(i) for i in range(20000, 20100)))
with open(os.path.join(root, "split_json", "part-0.json"), "w", newline="") as f:
    f.write("".join('{"id":%d,"s":"j_%d"}\n' % (i, i) for i in range(20000)))
with open(os.path.join(root, "split_text", "part-0.text"), "w", newline="") as f:
    f.write("".join("t_%d%s" % (i, ("\n", "\r\n", "\r")[i % 3]) for i in range(20000)))
def multiline_name(i):
    if i % 7 == 3:
        return '"l""%d""%sbreak"' % (i, "\n" if i % 2 else "\r\n")
    if i % 7 == 5:
        return '"e\\"%d\nz"' % i
    if i % 7 == 6:
        return 'q"%d' % i
    return None
with open(os.path.join(root, "split_multiline", "part-0.csv"), "w", newline="") as f:
    f.write("id,name,amount,day\n" + "".join(
        csv_line(i, multiline_name(i)) for i in range(20000)))
PY
chmod -R a+rX "$OUT"
echo "format-table fixtures written to $OUT/formattable and $W/ft.db"

# last, after every chmod: a data file the server cannot read (the cluster
# runs as postgres, not as the user who made the fixtures)
rm -rf "$B/unreadable_data"; cp -r "$W/sales.db/customers" "$B/unreadable_data"
chmod 000 "$(find "$B/unreadable_data" -name '*.avro' | sort | head -1)"
