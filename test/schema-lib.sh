# schema-lib.sh - sourced by the scripts that write the hand-written Paimon schema files of
# the write suites (writes-schema.sh, write-pk-schema.sh, write-formats-schema.sh, and the
# scripts writes/s3.sh, writes/rest.sh, writes/concurrent.sh, azure/writes.sh,
# stream/consumer-s3.sh): the schema
# JSON of PAIMON-FORMAT.md, so that what a suite reads back does not depend on a table the
# code under test created.
#   schema DIR FIELDS PARTITION_KEYS PRIMARY_KEYS OPTIONS   writes DIR/schema/schema-0
#   f ID NAME TYPE                                          one field
#   fields F...                                             the fields joined by commas
schema() {
    mkdir -p "$1/schema"
    local n; n=$(grep -o '{ "id"' <<<"$2" | wc -l)
    printf '{\n  "version" : 3,\n  "id" : 0,\n  "fields" : [ %s ],\n  "highestFieldId" : %d,\n  "partitionKeys" : [ %s ],\n  "primaryKeys" : [ %s ],\n  "options" : { %s },\n  "timeMillis" : 1733400000000\n}' \
        "$2" $((n - 1)) "$3" "$4" "$5" > "$1/schema/schema-0"
}
f() { printf '{ "id" : %d, "name" : "%s", "type" : "%s" }' "$1" "$2" "$3"; }
fields() { local IFS=,; echo "$*"; }
