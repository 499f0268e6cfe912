#!/bin/bash
# write-pk-schema.sh WAREHOUSE - the empty primary-key tables sql/write_pk.sql writes into:
# schema files written by hand (the Paimon schema JSON of PAIMON-FORMAT.md), so that what
# the suite reads back does not depend on a table the code under test created.
# p.db/dedup (deduplicate, 2 buckets), parted (partitioned by dt, 2 buckets), partial
# (partial-update), agg (aggregation, sum), small (write-buffer-size 16 kb, target-file-size
# 2 kb: several flushes and files), and refused ones: first (first-row), dyn (bucket -1),
# clog (changelog-producer lookup), seqf (sequence.field); app is an append table.
set -euo pipefail
WH=$1
source "$(dirname "$0")/schema-lib.sh"
mkdir -p "$WH/p.db"
KV="$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 name STRING)" "$(f 2 v INT)")"
schema "$WH/p.db/dedup" "$KV" "" '"id"' '"bucket" : "2"'
schema "$WH/p.db/parted" "$(fields "$(f 0 dt 'STRING NOT NULL')" "$(f 1 id 'INT NOT NULL')" "$(f 2 v STRING)")" \
    '"dt"' '"dt", "id"' '"bucket" : "2"'
schema "$WH/p.db/partial" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 a STRING)" "$(f 2 b INT)")" "" '"id"' \
    '"bucket" : "1", "merge-engine" : "partial-update"'
schema "$WH/p.db/agg" "$KV" "" '"id"' \
    '"bucket" : "1", "merge-engine" : "aggregation", "fields.v.aggregate-function" : "sum"'
schema "$WH/p.db/small" "$KV" "" '"id"' \
    '"bucket" : "2", "write-buffer-size" : "16 kb", "target-file-size" : "2 kb"'
schema "$WH/p.db/first" "$KV" "" '"id"' '"bucket" : "1", "merge-engine" : "first-row"'
schema "$WH/p.db/dyn" "$KV" "" '"id"' '"bucket" : "-1"'
schema "$WH/p.db/clog" "$KV" "" '"id"' '"bucket" : "1", "changelog-producer" : "lookup"'
schema "$WH/p.db/seqf" "$KV" "" '"id"' '"bucket" : "1", "sequence.field" : "v"'
schema "$WH/p.db/app" "$KV" "" "" '"bucket" : "-1"'
# the server runs as another user: it must be able to write here
chmod -R a+rwX "$WH"
