#!/bin/bash
# write-rtctx-schema.sh WAREHOUSE - the empty tables sql/write_rtctx.sql writes into and reads
# back in the same transaction: schema files written by hand (the Paimon schema JSON of
# PAIMON-FORMAT.md), so that what the suite reads does not depend on a table the code under
# test created.  Every table has the fields id INT NOT NULL, a STRING (dt or name), v INT:
# r.db/app (append, partitioned by dt, bucket -1), r.db/fresh (append, never committed to),
# r.db/bkt (append, 4 buckets by id), r.db/kv (primary key id, 2 buckets), r.db/kvsmall
# (primary key, write-buffer-size 16 kb: buffers flushed while a statement writes).
set -euo pipefail
WH=$1
table() {  # NAME STRING_FIELD PARTITION_KEYS PRIMARY_KEYS OPTIONS
    mkdir -p "$WH/r.db/$1/schema"
    cat > "$WH/r.db/$1/schema/schema-0" <<JSON
{ "version" : 3, "id" : 0,
  "fields" : [ { "id" : 0, "name" : "id", "type" : "INT NOT NULL" },
               { "id" : 1, "name" : "$2", "type" : "STRING" },
               { "id" : 2, "name" : "v", "type" : "INT" } ],
  "highestFieldId" : 2, "partitionKeys" : [ $3 ], "primaryKeys" : [ $4 ],
  "options" : { $5 }, "timeMillis" : 1733400000000 }
JSON
}
table app dt '"dt"' '' '"bucket" : "-1"'
table fresh dt '' '' '"bucket" : "-1"'
table bkt dt '' '' '"bucket" : "4", "bucket-key" : "id"'
table kv name '' '"id"' '"bucket" : "2"'
table kvsmall name '' '"id"' '"bucket" : "1", "write-buffer-size" : "16 kb"'
# the server runs as another user: it must be able to write here
chmod -R a+rwX "$WH"
