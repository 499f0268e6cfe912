#!/bin/bash
# write-pk-meta.sh TABLE_DIR [SNAPSHOT] - the data-file entries a snapshot's delta manifest list
# (default: the LATEST one) adds, one line each, as the manifests have them (read with
# build/tools/ts_avro_dump, not with the extension): kind, partition and key BinaryRows (hex),
# bucket, rows, key stats, sequence numbers, level, delete rows, file source.  Sorted, so
# the output does not depend on file names.
set -euo pipefail
T=$1
S=${2:-$(cat "$T/snapshot/LATEST")}
DUMP=${TS_AVRO_DUMP:-build/tools/ts_avro_dump}
delta=$(jq -r .deltaManifestList "$T/snapshot/snapshot-$S")
"$DUMP" "$T/manifest/$delta" _FILE_NAME | sed -n 's/^_FILE_NAME=//p' | while read -r m; do
    "$DUMP" "$T/manifest/$m" | grep '^_VERSION=' | python3 -c '
import json, re, sys
for line in sys.stdin:
    kind = re.search(r"_KIND=(\d+)", line).group(1)
    part = re.search(r"_PARTITION=(\S+)", line).group(1)
    bucket = re.search(r"_BUCKET=(-?\d+)", line).group(1)
    total = re.search(r"_TOTAL_BUCKETS=(-?\d+)", line).group(1)
    f = json.loads(line[line.index("_FILE=") + 6:].replace("\"\\x", "\"x"))
    ks = f["_KEY_STATS"]
    print("kind=%s partition=%s bucket=%s/%s rows=%d min_key=%s max_key=%s key_stats=[%s..%s nulls %s] seq=%d..%d level=%d deletes=%d source=%d value_stats_nulls=%s" % (
        kind, part, bucket, total, f["_ROW_COUNT"], f["_MIN_KEY"], f["_MAX_KEY"],
        ks["_MIN_VALUES"], ks["_MAX_VALUES"], ks["_NULL_COUNTS"],
        f["_MIN_SEQUENCE_NUMBER"], f["_MAX_SEQUENCE_NUMBER"], f["_LEVEL"],
        f["_DELETE_ROW_COUNT"], f["_FILE_SOURCE"], f["_VALUE_STATS"]["_NULL_COUNTS"]))
'
done | sort
