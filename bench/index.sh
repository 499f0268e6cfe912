#!/bin/bash
# bench/index.sh [FILES] [ROWS_PER_FILE] - a point query on a column with a
# bloom-filter file index, with and without index use (issue #23 item 7).
#
# Generates an append table of FILES Parquet files (src/tools/ts_gen --format
# parquet: columns id BIGINT, name STRING 'name_<i>', amount INT; no partition,
# bucket-unaware), re-registers the files with bench/ts_pq_register --bloom
# name:1:STRING (manifest value stats unknown, so no file is pruned by its
# statistics; each file gets a sidecar "<file>.index" bloom filter of "name",
# listed in _EXTRA_FILES as Java lists one above file-index.in-manifest-threshold),
# starts a throwaway cluster (pg_virtualenv -t -v 15) and runs
#   SELECT * FROM points WHERE name = 'name_<k>'
# for 5 values k spread over the table, each best of BENCH_RUNS (default 5),
# with tablescan.enable_file_index on and off; prints files read / skipped by
# the index (EXPLAIN ANALYZE) and the times, and appends nothing anywhere:
# copy the table into bench/RESULTS.md by hand.  Figures only, no asserts.
#
# Installs the extension (make install): run it under the PG lock
#   flock /tmp/tablescan-pg.lock bash bench/index.sh
# BENCH_DIR (default /tmp/tablescan_bench_index), BENCH_NO_INSTALL=1.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
FILES=${1:-256}
PER=${2:-10000}
RUNS=${BENCH_RUNS:-5}
W=${BENCH_DIR:-/tmp/tablescan_bench_index}
log() { printf '[bench-index %s] %s\n' "$(date +%T)" "$*" >&2; }

make -s -j2 tools bench-bins >/dev/null
if [ "${BENCH_NO_INSTALL:-0}" != 1 ]; then
    make -s -j2 >/dev/null
    make -s install >/dev/null
fi

log "writing $FILES Parquet files of $PER rows"
rm -rf "$W"
T=$W/wh/bench.db/points
build/tools/ts_gen "$T" --column id:BIGINT --column name:STRING --column amount:INT \
    --rows $((FILES * PER)) --files "$FILES" --format parquet >/dev/null
(cd "$T/bucket-0" && "$ROOT/build/bench/ts_pq_register" --bloom name:1:STRING "$T" 3 \
    $(ls -- *.parquet | sed 's/$/:/')) >/dev/null
chmod -R a+rX "$W"
DATA_MB=$(du -sm "$T/bucket-0" | cut -f1)
INDEX_KB=$(cat "$T"/bucket-0/*.index | wc -c | awk '{ printf "%d", $1 / 1024 }')

cat > "$W/run.sh" <<EOF
set -euo pipefail
export PGOPTIONS="-c max_parallel_workers_per_gather=0 -c jit=off"
q() { psql -X -At -q -v ON_ERROR_STOP=1 "\$@"; }
q -c "CREATE EXTENSION tablescan_fdw"
q -c "CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh')"
q -c "IMPORT FOREIGN SCHEMA bench FROM SERVER lake INTO public"
q <<'SQL'
CREATE FUNCTION best_ms(query text, runs int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; best float8 := 'Infinity'; n bigint;
BEGIN
  FOR r IN 1..runs LOOP
    t0 := clock_timestamp();
    EXECUTE 'SELECT count(*) FROM (' || query || ' OFFSET 0) x' INTO n;
    best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
  RETURN best;
END \$\$;
CREATE FUNCTION explain_line(query text, label text) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE r text;
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
    IF trim(r) LIKE label || ':%' THEN RETURN trim(split_part(r, ':', 2)); END IF;
  END LOOP;
  RETURN '0';
END \$\$;
SQL
for setting in on off; do
  for k in 7 $((FILES * PER / 4 + 3)) $((FILES * PER / 2 + 11)) $((FILES * PER * 3 / 4 + 5)) $((FILES * PER - 2)); do
    query="SELECT * FROM points WHERE name = 'name_\$k'"
    q -c "SET tablescan.enable_file_index = \$setting" \
      -c "SELECT '\$setting', \$k, (SELECT count(*) FROM points WHERE name = 'name_\$k'),
                 explain_line(\\\$q\\\$\$query\\\$q\\\$, 'Files Read'),
                 explain_line(\\\$q\\\$\$query\\\$q\\\$, 'Files Skipped By Index'),
                 round(best_ms(\\\$q\\\$\$query\\\$q\\\$, $RUNS)::numeric, 1)"
  done
done
EOF
log "running the queries (best of $RUNS)"
echo "files=$FILES rows_per_file=$PER data_mb=$DATA_MB index_kb=$INDEX_KB"
echo "setting|k|rows|files_read|files_skipped_by_index|best_ms"
pg_virtualenv -t -v 15 bash "$W/run.sh"
