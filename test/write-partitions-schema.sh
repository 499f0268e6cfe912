#!/bin/bash
# write-partitions-schema.sh WAREHOUSE - the empty tables sql/write_partitions.sql writes into,
# from hand-written schema files (test/schema-lib.sh): w.db/many, w.db/sorted and w.db/capped (append,
# partitioned by p INT, bucket -1), w.db/fixed (partitioned by p, 2 buckets on id), w.db/fresh
# (as many, with an empty p=7/bucket-0 made here: not the writer's, so never removed by it).
set -euo pipefail
WH=$1
source "$(dirname "$0")/schema-lib.sh"
mkdir -p "$WH/w.db"
F="$(fields "$(f 0 p INT)" "$(f 1 id 'INT NOT NULL')" "$(f 2 v STRING)")"
for t in many sorted fresh capped; do
    schema "$WH/w.db/$t" "$F" '"p"' "" '"bucket" : "-1", "file.format" : "parquet"'
done
schema "$WH/w.db/fixed" "$F" '"p"' "" '"bucket" : "2", "bucket-key" : "id", "file.format" : "parquet"'
mkdir -p "$WH/w.db/fresh/p=7/bucket-0"
chmod -R a+rwX "$WH"
