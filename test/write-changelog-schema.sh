#!/bin/bash
# write-changelog-schema.sh WAREHOUSE - the empty tables sql/write_changelog.sql writes into:
# schema files written by hand (schema-lib.sh), so that what the suite reads back does not
# depend on a table the code under test created.
# c.db/cl (changelog-producer input, partitioned by dt, 2 buckets), cl_avro (the same in
# file.format avro, 1 bucket), and refused ones: app (an append table with a producer),
# look (changelog-producer lookup), clfmt (changelog-file.format).
set -euo pipefail
WH=$1
source "$(dirname "$0")/schema-lib.sh"
mkdir -p "$WH/c.db"
F="$(fields "$(f 0 dt 'STRING NOT NULL')" "$(f 1 id 'INT NOT NULL')" "$(f 2 name STRING)" "$(f 3 v INT)")"
schema "$WH/c.db/cl" "$F" '"dt"' '"dt", "id"' '"bucket" : "2", "changelog-producer" : "input"'
schema "$WH/c.db/cl_avro" "$F" "" '"dt", "id"' \
    '"bucket" : "1", "changelog-producer" : "input", "file.format" : "avro"'
schema "$WH/c.db/app" "$F" "" "" '"bucket" : "-1", "changelog-producer" : "input"'
schema "$WH/c.db/look" "$F" "" '"dt", "id"' '"bucket" : "1", "changelog-producer" : "lookup"'
schema "$WH/c.db/clfmt" "$F" "" '"dt", "id"' \
    '"bucket" : "1", "changelog-producer" : "input", "changelog-file.format" : "orc"'
# the server runs as another user: it must be able to write here
chmod -R a+rwX "$WH"
