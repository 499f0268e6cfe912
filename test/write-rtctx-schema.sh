#!/bin/bash
# write-rtctx-schema.sh WAREHOUSE - the empty tables sql/write_rtctx.sql writes into and reads
# back in the same transaction: schema files written by hand (the Paimon schema JSON of
# PAIMON-FORMAT.md), so that what the suite reads does not depend on a table the code under
# test created.  r.db/app (append, partitioned by dt, bucket -1), r.db/fresh (append, never
# committed to), r.db/bkt (append, 4 buckets by id), r.db/kv (primary key id, 2 buckets),
# r.db/kvsmall (primary key, write-buffer-size 16 kb: buffers flushed while a statement writes).
set -euo pipefail
WH=$1
schema() {  # DIR FIELDS PARTITION_KEYS PRIMARY_KEYS OPTIONS
    mkdir -p "$1/schema"
    local n; n=$(grep -o '{ "id"' <<<"$2" | wc -l)
    printf '{\n  "version" : 3,\n  "id" : 0,\n  "fields" : [ %s ],\n  "highestFieldId" : %d,\n  "partitionKeys" : [ %s ],\n  "primaryKeys" : [ %s ],\n  "options" : { %s },\n  "timeMillis" : 1733400000000\n}' \
        "$2" $((n - 1)) "$3" "$4" "$5" > "$1/schema/schema-0"
}
f() { printf '{ "id" : %d, "name" : "%s", "type" : "%s" }' "$1" "$2" "$3"; }
fields() { local IFS=,; echo "$*"; }
mkdir -p "$WH/r.db"
APP="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 dt STRING)" "$(f 2 v INT)")"
KV="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 name STRING)" "$(f 2 v INT)")"
schema "$WH/r.db/app" "$APP" '"dt"' "" '"bucket" : "-1"'
schema "$WH/r.db/fresh" "$APP" "" "" '"bucket" : "-1"'
schema "$WH/r.db/bkt" "$APP" "" "" '"bucket" : "4", "bucket-key" : "id"'
schema "$WH/r.db/kv" "$KV" "" '"id"' '"bucket" : "2"'
schema "$WH/r.db/kvsmall" "$KV" "" '"id"' '"bucket" : "1", "write-buffer-size" : "16 kb"'
# the server runs as another user: it must be able to write here
chmod -R a+rwX "$WH"
