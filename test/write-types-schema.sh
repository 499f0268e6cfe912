#!/bin/bash
# write-types-schema.sh WAREHOUSE - the empty tables sql/write_types.sql writes into:
# schema files written by hand (the Paimon schema JSON of PAIMON-FORMAT.md), so that what
# the suite reads back does not depend on a table the code under test created.
# t.db/alltypes (every type the reader maps, nested ones at depth 2 and more),
# t.db/pknest (a primary-key table with nested value columns, 2 buckets),
# t.db/nestkey (an append table bucketed by an ARRAY column: refused).
set -euo pipefail
WH=$1
schema() {  # DIR FIELDS HIGHEST_ID PRIMARY_KEYS OPTIONS
    mkdir -p "$1/schema"
    printf '{\n  "version" : 3,\n  "id" : 0,\n  "fields" : [ %s ],\n  "highestFieldId" : %d,\n  "partitionKeys" : [ ],\n  "primaryKeys" : [ %s ],\n  "options" : { %s },\n  "timeMillis" : 1733400000000\n}' \
        "$2" "$3" "$4" "$5" > "$1/schema/schema-0"
}
f() { printf '{ "id" : %d, "name" : "%s", "type" : %s }' "$1" "$2" "$3"; }
fields() { local IFS=,; echo "$*"; }
arr() { printf '{ "type" : "ARRAY", "element" : %s }' "$1"; }
map() { printf '{ "type" : "MAP", "key" : %s, "value" : %s }' "$1" "$2"; }
row() { printf '{ "type" : "ROW", "fields" : [ %s ] }' "$1"; }
mkdir -p "$WH/t.db"
schema "$WH/t.db/alltypes" "$(fields "$(f 0 id '"INT NOT NULL"')" "$(f 1 b '"BOOLEAN"')" \
    "$(f 2 ti '"TINYINT"')" "$(f 3 si '"SMALLINT"')" "$(f 4 i '"INT"')" "$(f 5 big '"BIGINT"')" \
    "$(f 6 fl '"FLOAT"')" "$(f 7 db '"DOUBLE"')" "$(f 8 d9 '"DECIMAL(9, 2)"')" \
    "$(f 9 d18 '"DECIMAL(18, 4)"')" "$(f 10 d38 '"DECIMAL(38, 10)"')" "$(f 11 d38i '"DECIMAL(38, 0)"')" \
    "$(f 12 d19 '"DECIMAL(19, 19)"')" "$(f 13 ch '"CHAR(5)"')" "$(f 14 vc '"VARCHAR(20)"')" \
    "$(f 15 s '"STRING"')" "$(f 16 vb '"BYTES"')" "$(f 17 dt '"DATE"')" "$(f 18 t0 '"TIME(0)"')" \
    "$(f 19 t3 '"TIME(3)"')" "$(f 20 ts0 '"TIMESTAMP(0)"')" "$(f 21 ts9 '"TIMESTAMP(9)"')" \
    "$(f 22 ts7 '"TIMESTAMP(7)"')" "$(f 23 ltz3 '"TIMESTAMP(3) WITH LOCAL TIME ZONE"')" \
    "$(f 24 ltz9 '"TIMESTAMP(9) WITH LOCAL TIME ZONE"')" \
    "$(f 25 ai "$(arr '"INT"')")" "$(f 26 ast "$(arr '"STRING"')")" \
    "$(f 27 ad "$(arr '"DECIMAL(38, 2)"')")" "$(f 28 ats "$(arr '"TIMESTAMP(9)"')")" \
    "$(f 29 aai "$(arr "$(arr '"INT"')")")" "$(f 30 msi "$(map '"STRING"' '"INT"')")" \
    "$(f 31 mr "$(map '"INT NOT NULL"' "$(row "$(fields "$(f 32 a '"STRING"')" "$(f 33 b "$(arr '"DECIMAL(38, 2)"')")")")")")" \
    "$(f 34 r "$(row "$(fields "$(f 35 x '"INT"')" "$(f 36 y "$(row "$(fields "$(f 37 z '"STRING"')" "$(f 38 w '"DATE"')")")")" "$(f 39 tz '"TIMESTAMP(9) WITH LOCAL TIME ZONE"')" "$(f 40 tm '"TIME(3)"')")")")" \
    "$(f 41 ms '{ "type" : "MULTISET", "element" : "STRING" }')" \
    "$(f 42 an "$(arr '"BIGINT NOT NULL"')")")" 42 "" '"bucket" : "-1"'
schema "$WH/t.db/pknest" "$(fields "$(f 0 id '"INT NOT NULL"')" "$(f 1 tags "$(arr '"STRING"')")" \
    "$(f 2 attrs "$(map '"STRING"' '"DECIMAL(20, 3)"')")" \
    "$(f 3 info "$(row "$(fields "$(f 4 n '"INT"')" "$(f 5 at '"TIMESTAMP(9)"')" "$(f 6 l "$(arr "$(arr '"INT"')")")")")")")" \
    6 '"id"' '"bucket" : "2"'
schema "$WH/t.db/nestkey" "$(fields "$(f 0 id '"INT"')" "$(f 1 tags "$(arr '"INT"')")")" 1 "" \
    '"bucket" : "2", "bucket-key" : "tags"'
# the server runs as another user: it must be able to write here
chmod -R a+rwX "$WH"
