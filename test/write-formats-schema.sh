#!/bin/bash
# write-formats-schema.sh WAREHOUSE - the empty tables sql/write_formats.sql writes into:
# schema files written by hand (the Paimon schema JSON of PAIMON-FORMAT.md), so that what
# the suite reads back does not depend on a table the code under test created.
# f.db/app_orc and app_avro (append, every type both formats take, default zstd),
# part_orc (partitioned by p, 2 buckets, lz4) and part_avro (the same, deflate),
# pk_orc and pk_avro (primary key id, 2 buckets), avro_bz (codec bzip2: refused),
# man_deflate (partitioned, manifest.compression deflate), man_bz (manifest.compression bzip2: refused),
# avro_codec (avro, avro.codec deflate over file.compression zstd and manifest.compression snappy),
# codec_xz (parquet, avro.codec xz: refused).
set -euo pipefail
WH=$1
source "$(dirname "$0")/schema-lib.sh"
mkdir -p "$WH/f.db"
TYPED="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 b BOOLEAN)" "$(f 2 big BIGINT)" "$(f 3 d DOUBLE)" \
    "$(f 4 dec 'DECIMAL(10, 2)')" "$(f 5 dec18 'DECIMAL(18, 4)')" "$(f 6 s STRING)" \
    "$(f 7 vc 'VARCHAR(20)')" "$(f 8 bin BYTES)" "$(f 9 dt DATE)" "$(f 10 ts 'TIMESTAMP(6)')" \
    "$(f 11 ts3 'TIMESTAMP(3)')" "$(f 12 tsl 'TIMESTAMP(6) WITH LOCAL TIME ZONE')")"
schema "$WH/f.db/app_orc" "$TYPED" "" "" '"bucket" : "-1", "file.format" : "orc"'
schema "$WH/f.db/app_avro" "$TYPED" "" "" '"bucket" : "-1", "file.format" : "avro"'
PARTED="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 p STRING)" "$(f 2 v STRING)")"
schema "$WH/f.db/part_orc" "$PARTED" '"p"' "" \
    '"bucket" : "2", "bucket-key" : "id", "file.format" : "orc", "file.compression" : "lz4"'
schema "$WH/f.db/part_avro" "$PARTED" '"p"' "" \
    '"bucket" : "2", "bucket-key" : "id", "file.format" : "avro", "file.compression" : "deflate"'
KV="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 name STRING)" "$(f 2 amount 'DECIMAL(12, 2)')" \
    "$(f 3 at 'TIMESTAMP(6)')" "$(f 4 day DATE)" "$(f 5 raw BYTES)")"
schema "$WH/f.db/pk_orc" "$KV" "" '"id"' '"bucket" : "2", "file.format" : "orc"'
schema "$WH/f.db/pk_avro" "$KV" "" '"id"' '"bucket" : "2", "file.format" : "avro"'
schema "$WH/f.db/avro_bz" "$PARTED" "" "" '"bucket" : "-1", "file.format" : "avro", "file.compression" : "bzip2"'
schema "$WH/f.db/man_deflate" "$PARTED" '"p"' "" '"bucket" : "-1", "manifest.compression" : "deflate"'
schema "$WH/f.db/man_bz" "$PARTED" "" "" '"bucket" : "-1", "manifest.compression" : "bzip2"'
schema "$WH/f.db/avro_codec" "$PARTED" '"p"' "" \
    '"bucket" : "-1", "file.format" : "avro", "file.compression" : "zstd", "manifest.compression" : "snappy", "avro.codec" : "deflate"'
schema "$WH/f.db/codec_xz" "$PARTED" "" "" '"bucket" : "-1", "avro.codec" : "xz"'
chmod -R a+rwX "$WH"
