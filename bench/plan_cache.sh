#!/bin/bash
# bench/plan_cache.sh - the first plan of a new connection with the decoded
# manifest cache off and on (src/meta/manifest_cache.c).
#
#   bash bench/plan_cache.sh            (installs the extension: hold /tmp/ts-install.lock)
#
# Table bench.plan11k: ts_gen, 70 partitions x 16 buckets x 10 APPEND commits
# = 11,200 data files in 10 Avro manifests of 1,120 entries, deflate
# manifests.  In a throwaway cluster (pg_virtualenv), each figure is the
# best and the median of PC_RUNS (default 9) new backends: the planning time
# of EXPLAIN SELECT count(*) (bench/bench.sql bench_plan_ms), with the
# library loaded first (LOAD, timed apart) and without; the warm plan is the
# same EXPLAIN again in that backend.  "cache on": tablescan.metadata_cache_dir
# set for the database and filled by one connection before the runs.
# A second throwaway cluster loads the library in the postmaster
# (shared_preload_libraries = tablescan_fdw): its backends inherit it, and
# with tablescan.shared_cache_size = 64MB the live set the first connection
# planned is in shared memory (src/fdw/shared_cache.c; used only when that
# memory is in huge pages: PC_HUGE_PAGES=on): the "on, preloaded, shared
# memory" row is what a new connection costs there; a third, the same
# without it (the default size 0), plans from the on-disk records.
# Prints a Markdown table.  Environment: PC_DIR (work dir, default
# /tmp/tablescan_bench_pc), PC_RUNS, PC_PRELOAD=0 (no preloaded cluster),
# PC_HUGE_PAGES=on (the preloaded clusters' huge_pages: their shared memory
# in 2 MB pages, which needs vm.nr_hugepages reserved),
# BENCH_NO_INSTALL=1.
set -euo pipefail
cd "$(dirname "$0")/.."
W=${PC_DIR:-/tmp/tablescan_bench_pc}
RUNS=${PC_RUNS:-9}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ "${BENCH_NO_INSTALL:-0}" != 1 ]; then
    make -s -j2 >/dev/null
    $SUDO make -s install >/dev/null
fi
make -s -j2 tools >/dev/null
rm -rf "$W"; mkdir -p "$W/wh/bench.db"
build/tools/ts_gen "$W/wh/bench.db/plan11k" --column 'id:INT NOT NULL' --column p:INT --column v:STRING \
    --partition p --partitions 70 --buckets 16 --bucket-key id --rows 40000 --snapshots 10 \
    --manifest-codec deflate >/dev/null
FILES=$(find "$W/wh/bench.db/plan11k" -name 'data-*' | wc -l)
MANIFESTS=$(find "$W/wh/bench.db/plan11k/manifest" -name 'manifest-*' ! -name 'manifest-list-*' | wc -l)
chmod -R a+rwX "$W"
cat > "$W/run.sh" <<EOF
set -euo pipefail
MODE=\${1:-full}
q() { psql -X -A -t -q -v ON_ERROR_STOP=1 "\$@"; }
q -c "CREATE EXTENSION tablescan_fdw" -f '$PWD/bench/bench.sql' >/dev/null
q -c "CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh')" \
  -c "IMPORT FOREIGN SCHEMA bench FROM SERVER lake INTO public" >/dev/null
FULL="SELECT count(*) FROM plan11k"
stats() { sort -g | awk '{ v[NR] = \$1 } END { printf "%.1f ms (median %.1f)", v[1], v[int((NR + 1) / 2)] }'; }
measure() {
    : > "$W/\$1.tsv"
    for r in \$(seq $RUNS); do
        q -F \$'\t' -c "SELECT bench_load_ms(), bench_plan_ms('\$FULL'), bench_plan_ms('\$FULL')" >> "$W/\$1.tsv"
        q -c "SELECT bench_plan_ms('\$FULL')" >> "$W/\$1.first"
    done
    echo "| \$1 | \$(cut -f2 "$W/\$1.tsv" | stats) | \$(stats < "$W/\$1.first") | \$(cut -f3 "$W/\$1.tsv" | stats) | \$(cut -f1 "$W/\$1.tsv" | stats) |"
}
if [ "\$MODE" = full ]; then
    echo "| metadata cache | cold plan, library loaded | first plan of a connection (library load included) | warm plan | LOAD |"
    echo "|---|---:|---:|---:|---:|"
    measure off
fi
DB=\$(q -c "SELECT current_database()")
q -c "ALTER DATABASE \"\$DB\" SET tablescan.metadata_cache_dir = 'bench_plan_cache'"
q -c "SELECT bench_plan_ms('\$FULL') IS NOT NULL" \
  -c "SELECT 'filled: ' || records_stored || ' records, ' || live_sets_stored || ' live set records' FROM tablescan_metadata_cache_stats()" >&2
case "\$MODE" in
    full) measure on ;;
    preloaded) measure "on, preloaded, shared memory" ;;
    *) measure "on, preloaded, no shared memory" ;;
esac
q -c "SELECT bench_plan_ms('\$FULL') IS NOT NULL" \
  -c "SELECT 'a connection with the cache on: ' || live_sets_from_records || ' live sets from records, ' || manifests_from_cache || ' manifests from records, ' || manifests_decoded || ' decoded, ' || live_sets_found || ' from shared memory' FROM tablescan_metadata_cache_stats(), tablescan_shared_cache_stats()" >&2
EOF
echo "bench.plan11k: $FILES data files, $MANIFESTS manifests (deflate); best of $RUNS new backends"
pg_virtualenv -t -v 15 bash "$W/run.sh" full
if [ "${PC_PRELOAD:-1}" != 0 ]; then
    PRE=(-o shared_preload_libraries=tablescan_fdw)
    [ -n "${PC_HUGE_PAGES:-}" ] && PRE+=(-o "huge_pages=$PC_HUGE_PAGES")
    pg_virtualenv -t -v 15 "${PRE[@]}" -o tablescan.shared_cache_size=64MB bash "$W/run.sh" preloaded
    pg_virtualenv -t -v 15 "${PRE[@]}" bash "$W/run.sh" preloaded-noshm
fi
