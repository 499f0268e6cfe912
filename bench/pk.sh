#!/bin/bash
# bench/pk.sh - the primary-key section of bench/run.sh on its own: table
# `pk` (the bench's columns, primary key id, 4 buckets, 4 commits of KEYS
# records of random keys out of KEYS, no compaction: 16 level-0 sorted runs
# merged on read) beside `heap_pk`, a heap table of its merged rows, with
# the same two queries, pushdown off (the rows go through PostgreSQL's
# Aggregate).  The foreign and the heap query alternate in one backend,
# RUNS times each: wall time, best run (as bench/pg.sh's), and the
# backend's CPU time (user + system from /proc, the decompression thread
# included), median run: on a loaded machine the CPU figures hold better.
#
# USAGE: run inside a cluster with the extension installed (PG* set, e.g.
# under pg_virtualenv):  bash bench/pk.sh [KEYS] [RUNS] [FORMAT]
# FORMAT: avro (default: Avro/zstd runs, schema pk_bench) or parquet
# (Parquet/zstd runs, Paimon's default file.format, schema pk_bench_parquet).
# PK_PUSHDOWN=on measures with tablescan.enable_aggregate_pushdown on (its
# default; the aggregates then run in the foreign scan), off by default.
# The table is generated once into $PK_BENCH_DIR (default
# /tmp/tablescan_pk_bench) with build/tools/ts_gen (make tools).  Parquet
# runs are laid out as Java's parquet-mr writes them (pages of 1 MiB, one
# row group per run); PK_GEN_ARGS adds generator options, e.g.
# PK_GEN_ARGS='--parquet-block-size 1048576 --parquet-page-size 2147483647'
# for runs of 1 MiB row groups of one page per column (the layout before).
set -euo pipefail
KEYS=${1:-1000000}
RUNS=${2:-5}
FORMAT=${3:-avro}
case $FORMAT in
    avro) SCHEMA=pk_bench; WH=wh ;;
    parquet) SCHEMA=pk_bench_parquet; WH=wh-parquet ;;
    *) echo "FORMAT: avro or parquet" >&2; exit 2 ;;
esac
W=${PK_BENCH_DIR:-/tmp/tablescan_pk_bench}
BUILD=${BENCH_BUILD:-build}
LONGCOL=long_text_column_whose_values_are_about_sixty_characters_long
export PGOPTIONS="-c max_parallel_workers_per_gather=0 -c jit=off -c tablescan.enable_aggregate_pushdown=${PK_PUSHDOWN:-off}"
q() { psql -X -At -q -v ON_ERROR_STOP=1 "$@"; }

# the marker names the layout: Parquet runs since 2026-12-07 have parquet-mr's
# level runs (bit-packed groups), which the generator did not write before
LAYOUT=pages; [ "$FORMAT" = parquet ] && LAYOUT=pages-hybrid-levels
DONE="$W/done-$KEYS-$FORMAT-$LAYOUT$(tr -c 'a-zA-Z0-9\n' _ <<<"${PK_GEN_ARGS:-}")"
if [ ! -f "$DONE" ]; then
    rm -rf "${W:?}/$WH"; mkdir -p "$W/$WH/bench.db"
    "$BUILD/tools/ts_gen" "$W/$WH/bench.db/pk" --format "$FORMAT" --column 'id:INT NOT NULL' --column big:BIGINT \
        --column d:DOUBLE --column 'amount:DECIMAL(18, 4)' --column s:STRING \
        --column "$LONGCOL:STRING" --column 'ts:TIMESTAMP(6)' --column day:DATE \
        --primary-key id --buckets 4 --rows "$KEYS" --snapshots 4 --keys "$KEYS" \
        --null-every 7 --no-ops ${PK_GEN_ARGS:-} >/dev/null
    rm -f "$W"/done-"$KEYS"-"$FORMAT"*
    touch "$DONE"
fi
q <<EOF
CREATE EXTENSION IF NOT EXISTS tablescan_fdw;
DROP SERVER IF EXISTS $SCHEMA CASCADE;
CREATE SERVER $SCHEMA FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/$WH');
CREATE SCHEMA IF NOT EXISTS $SCHEMA;
IMPORT FOREIGN SCHEMA bench LIMIT TO (pk) FROM SERVER $SCHEMA INTO $SCHEMA;
CREATE TABLE IF NOT EXISTS $SCHEMA.heap_pk AS SELECT * FROM $SCHEMA.pk;
VACUUM (FREEZE, ANALYZE) $SCHEMA.heap_pk;
EOF
read -r FILES RECORDS <<<"$(q -F ' ' -c "SELECT count(*), sum(row_count) FROM tablescan_files('$SCHEMA.pk')")"
ROWS=$(q -c "SELECT count(*) FROM $SCHEMA.heap_pk")
echo "pk ($FORMAT): $FILES files, $RECORDS records merged into $ROWS rows; RUNS=$RUNS, foreign and heap alternating in one backend"
echo "tablescan.enable_aggregate_pushdown=${PK_PUSHDOWN:-off}; foreign plan: $(q -c "EXPLAIN (COSTS OFF) SELECT sum(big), max(s) FROM $SCHEMA.pk" | head -1)"
echo "(wall: best run, psql \\timing; cpu: the backend's user + system time for the query, /proc/PID/stat, median run)"
echo
echo "| query | foreign pk ms | heap_pk ms | pk / heap_pk | pk cpu ms | heap_pk cpu ms | cpu ratio | same result |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
TCK=$(getconf CLK_TCK)
cpu='\! awk '"'"'{ print "CPU", $14 + $15 }'"'"' /proc/$PK_BENCH_PID/stat'
for sql in "SELECT count(id), sum(big), sum(d), sum(amount), max(s), max($LONGCOL), max(ts), max(day) FROM T" \
           "SELECT sum(big), max(s) FROM T"; do
    out=$( { echo 'SELECT pg_backend_pid() AS pid \gset'; echo '\setenv PK_BENCH_PID :pid'; echo '\timing on'
             for r in $(seq "$RUNS"); do
                 for tab in pk heap_pk; do
                     echo "$cpu"; echo "${sql//FROM T/FROM $SCHEMA.$tab};"; echo "$cpu"
                 done
             done; } | q -F '|')
    times=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out")
    ft=$(awk 'NR % 2 == 1' <<<"$times" | sort -g | head -1)
    ht=$(awk 'NR % 2 == 0' <<<"$times" | sort -g | head -1)
    # CPU lines come in pairs around each query: foreign, heap, foreign, ...
    cpus=$(awk '/^CPU / { if (n++ % 2) print ($2 - a) * 1000 / '"$TCK"'; else a = $2 }' <<<"$out")
    med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    fc=$(awk 'NR % 2 == 1' <<<"$cpus" | med)
    hc=$(awk 'NR % 2 == 0' <<<"$cpus" | med)
    same=no
    [ "$(grep -v '^Time: \|^CPU ' <<<"$out" | sort -u | wc -l)" = 1 ] && same=yes
    label=$([ "${sql:7:5}" = count ] && echo 'every column: count/sum/max of each' || echo 'two columns: `sum(big), max(s)`')
    awk -v l="$label" -v a="$ft" -v b="$ht" -v c="$fc" -v d="$hc" -v s="$same" \
        'BEGIN { printf "| %s | %.1f | %.1f | %.2fx | %.0f | %.0f | %.2fx | %s |\n", l, a, b, a / b, c, d, (d > 0 ? c / d : 0), s }'
done
