#!/bin/bash
# bench/plan_reuse.sh - a simple query on a table of many files, with the plan
# made while PostgreSQL plans executed (tablescan.reuse_plan on, the default)
# and planned a second time at the first fetch (off), side by side.
#
#   flock /tmp/ts-install.lock bash -c 'make -s install && pg_virtualenv -t -v 15 bash bench/plan_reuse.sh'
#
# or, without installing, with the libraries given by path (BENCH_SO: this
# build; BENCH_SO_BEFORE: another build, e.g. the main branch's, shown as
# "before"; each loaded in a database of its own, only the FDW's handler and
# validator created):
#
#   BENCH_SO=$PWD/tablescan_fdw.so BENCH_SO_BEFORE=/path/main/tablescan_fdw.so \
#       pg_virtualenv -t -v 15 -c '-p 54991' bash bench/plan_reuse.sh
#
# (a port of its own: another cluster of the machine may hold 5432).  QUERIES
# picks some of point, count, partition (default all).
#
# Needs a running server (PG* environment) and the tools built (make tools).
# Generates table `plan` with our generator (PARTS partitions x 16 buckets,
# SNAPS commits of PARTS rows: PARTS x SNAPS data files, default 1,120 x 10 =
# 11,200), then runs each query with pgbench (one client, one backend for
# the whole run, -T SECS) ROUNDS times per setting in turn, and prints the
# median latency of each.  Checks that every setting returns the same rows;
# prints figures only, asserts no time.
set -euo pipefail
BUILD=${BENCH_BUILD:-build}
W=${BENCH_DIR:-/tmp/tablescan_plan_reuse}
PARTS=${PARTS:-1120}
SNAPS=${SNAPS:-10}
SECS=${SECS:-5}
ROUNDS=${ROUNDS:-3}
PGBENCH=${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}

rm -rf "$W"; mkdir -p "$W/wh/bench.db"
"$BUILD/tools/ts_gen" "$W/wh/bench.db/plan" --column 'id:INT NOT NULL' --column p:INT --column v:STRING \
    --partition p --partitions "$PARTS" --buckets 16 --bucket-key id \
    --rows "$PARTS" --snapshots "$SNAPS" >/dev/null
FILES=$(find "$W/wh/bench.db/plan" -name '*.avro' -path '*bucket-*' | wc -l)

# database DB with the FDW from library SO (empty: the installed extension)
setup_db() {
    psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
    if [ -z "$2" ]; then
        psql -X -q -v ON_ERROR_STOP=1 -d "$1" -c "CREATE EXTENSION tablescan_fdw"
    else
        psql -X -q -v ON_ERROR_STOP=1 -d "$1" <<SQL
CREATE FUNCTION tablescan_fdw_handler() RETURNS fdw_handler AS '$2' LANGUAGE C STRICT;
CREATE FUNCTION tablescan_fdw_validator(text[], oid) RETURNS void AS '$2' LANGUAGE C STRICT;
CREATE FOREIGN DATA WRAPPER tablescan_fdw HANDLER tablescan_fdw_handler VALIDATOR tablescan_fdw_validator;
SQL
    fi
    psql -X -q -v ON_ERROR_STOP=1 -d "$1" <<SQL
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh');
IMPORT FOREIGN SCHEMA bench LIMIT TO (plan) FROM SERVER lake INTO public;
SQL
}
# the settings compared: label, database, PGOPTIONS
LABELS=(); DBS=(); OPTS=()
if [ -n "${BENCH_SO_BEFORE:-}" ]; then
    setup_db plan_reuse_before "$BENCH_SO_BEFORE"
    LABELS+=("before (${BENCH_SO_BEFORE})"); DBS+=(plan_reuse_before); OPTS+=("")
fi
setup_db plan_reuse_after "${BENCH_SO:-}"
LABELS+=("reuse_plan off (planned twice)" "reuse_plan on (planned once)")
DBS+=(plan_reuse_after plan_reuse_after)
OPTS+=("-c tablescan.reuse_plan=off" "-c tablescan.reuse_plan=on")

POINT_ID=$((7 + 3 * PARTS))
read -r -a QNAMES <<<"${QUERIES:-point count partition}"
declare -A QS=(
    [point]="SELECT * FROM plan WHERE p = 7 AND id = $POINT_ID"
    [count]="SELECT count(*) FROM plan"
    [partition]="SELECT max(id) FROM plan WHERE p = 7"
)
# the same rows under every setting
for q in "${QNAMES[@]}"; do
    first=""
    for i in "${!DBS[@]}"; do
        r=$(PGOPTIONS="${OPTS[$i]}" psql -X -qAt -d "${DBS[$i]}" -c "${QS[$q]}")
        [ -z "$first" ] && first=$r
        [ "$r" = "$first" ] || { echo "different results for $q: $r / $first" >&2; exit 1; }
    done
done
latency() {  # DB PGOPTIONS QUERY -> ms per query (pgbench's latency average)
    echo "${3};" > "$W/q.sql"
    PGOPTIONS="$2" "$PGBENCH" -n -c 1 -T "$SECS" -f "$W/q.sql" "$1" 2>/dev/null |
        awk '/latency average/ { print $4 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "Table \`plan\`: $FILES data files, $PARTS partitions x 16 buckets, $SNAPS commits; pgbench -c 1 -T $SECS (one backend), median of $ROUNDS rounds, the settings in turn; ms per query."
echo
head="| query |"; sep="|---|"
for l in "${LABELS[@]}"; do head+=" $l |"; sep+="---:|"; done
echo "$head last / first |"; echo "$sep---:|"
for q in "${QNAMES[@]}"; do
    for i in "${!DBS[@]}"; do : > "$W/lat$i"; done
    for r in $(seq "$ROUNDS"); do
        for i in "${!DBS[@]}"; do latency "${DBS[$i]}" "${OPTS[$i]}" "${QS[$q]}" >> "$W/lat$i"; done
    done
    line="| \`${QS[$q]}\` |"; firstm=""; m=""
    for i in "${!DBS[@]}"; do
        m=$(median < "$W/lat$i"); [ -z "$firstm" ] && firstm=$m
        line+=" $m |"
    done
    echo "$line $(awk -v a="$m" -v b="$firstm" 'BEGIN { printf "%.2fx", a / b }') |"
done
for d in $(printf '%s\n' "${DBS[@]}" | sort -u); do psql -X -q -d postgres -c "DROP DATABASE $d"; done
rm -rf "$W"
