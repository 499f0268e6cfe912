#!/bin/bash
# manifests-table.sh - a table whose last snapshot has N manifests and no
# data: ts_gen's N one-row commits with every snapshot but the last, the
# manifest lists it does not name and the data files removed (a cold plan
# then reads N manifests).  Used by bench/s3.sh and test/s3/latency.sh.
#   bash test/s3/manifests-table.sh N DIR [BUILD]
set -euo pipefail
N=$1 M=$2 BUILD=${3:-build}
rm -rf "$M"
"$BUILD/tools/ts_gen" "$M" --column id:INT --column v:STRING --rows 3 --snapshots "$N" >/dev/null
keep=" $(grep -o 'manifest-list-[^"]*' "$M/snapshot/snapshot-$N" | tr '\n' ' ') "
find "$M/snapshot" -name 'snapshot-*' ! -name "snapshot-$N" -delete
printf '%s' "$N" > "$M/snapshot/EARLIEST"
for f in "$M"/manifest/manifest-list-*; do
    case "$keep" in *" $(basename "$f") "*) ;; *) rm "$f" ;; esac
done
rm -rf "$M/bucket-0"
