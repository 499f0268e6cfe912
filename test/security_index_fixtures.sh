#!/bin/bash
# security_index_fixtures.sh DIR - hostile copies of generated tables for
# sql/security_index.sql: index manifests naming btree global-index files and
# deletion-vector files outside the table (../, absolute paths, external
# paths, symbolic links), and DIR/secret holding the files they point at.
# Copies only: the fixtures of test/make-fixtures.sh are never changed.
set -euo pipefail
D=$1
FIX=${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}/warehouse
EDIT="python3 $(cd "$(dirname "$0")" && pwd)/avro_edit.py"
rm -rf "$D"; mkdir -p "$D/wh/db.db" "$D/secret"
# the outside files: what an escaping read would find (not an index: reading it would fail to decode)
printf 'top secret\n' > "$D/secret/secret.index"
# the index manifest a table's latest snapshot (or snapshot $2) names
index_manifest() {
    local t=$1 s=${2:-$(cat "$1/snapshot/LATEST")}
    echo "$t/manifest/$(grep -o 'index-manifest-[^"]*' "$t/snapshot/snapshot-$s")"
}
# every index file of table $1 renamed by sed expression $2 in manifest $3
rename_all() {
    local f
    for f in $(ls "$1/index"); do $EDIT "$3" --rename "$f=$(echo "$f" | sed "$2")"; done
}
BT=$FIX/btree.db/events
for c in bt bt_dotdot bt_abs bt_link bt_ext bt_ext_dotdot; do cp -r "$BT" "$D/wh/db.db/$c"; done
W=$D/wh/db.db
rename_all "$W/bt_dotdot" "s|^|../../../secret/|" "$(index_manifest "$W/bt_dotdot")"
rename_all "$W/bt_abs" "s|^|$D/secret/|" "$(index_manifest "$W/bt_abs")"
# a symbolic link in index/ (the name in the manifest is the usual one)
for f in $(ls "$W/bt_link/index"); do ln -sf "$D/secret/secret.index" "$W/bt_link/index/$f"; done
for f in $(ls "$W/bt_ext/index"); do
    $EDIT "$(index_manifest "$W/bt_ext")" --external "$f=$D/secret/secret.index"
    $EDIT "$(index_manifest "$W/bt_ext_dotdot")" --external "$f=file:$W/bt_ext_dotdot/index/../../../../secret/secret.index"
done
DV=$FIX/pk.db/pk_dedup_dv
for c in dv dv_dotdot dv_abs dv_link; do cp -r "$DV" "$W/$c"; done
# snapshot 8 has deletion vectors (the latest has none left)
rename_all "$W/dv_dotdot" "s|^|../../../secret/|" "$(index_manifest "$W/dv_dotdot" 8)"
rename_all "$W/dv_abs" "s|^|$D/secret/|" "$(index_manifest "$W/dv_abs" 8)"
for f in $(ls "$W/dv_link/index"); do ln -sf "$D/secret/secret.index" "$W/dv_link/index/$f"; done
chmod -R a+rX "$D"
