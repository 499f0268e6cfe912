#!/bin/bash
# shard-schema.sh WAREHOUSE - the empty tables sql/shard_column.sql writes into, from
# hand-written schema files: s.db/plain (id, v: no field _SHARD) and s.db/real (a real
# field named _SHARD, which a foreign table's column of that name reads), s.db/pk (a
# primary key id, 2 buckets: UPDATE and DELETE carry the pseudo-column's value over).
set -euo pipefail
WH=$1
source "$(dirname "$0")/schema-lib.sh"
mkdir -p "$WH/s.db"
schema "$WH/s.db/plain" "$(fields "$(f 0 id INT)" "$(f 1 v STRING)")" "" "" '"bucket" : "-1"'
schema "$WH/s.db/real" "$(fields "$(f 0 id INT)" "$(f 1 _SHARD INT)")" "" "" '"bucket" : "-1"'
schema "$WH/s.db/pk" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 v STRING)")" "" '"id"' '"bucket" : "2"'
chmod -R a+rwX "$WH"
