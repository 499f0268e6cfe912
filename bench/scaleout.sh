#!/bin/bash
# bench/scaleout.sh - scale out over postgres_fdw (README "Scaling out"): a
# coordinator with 2 workers vs one node, serial, on the same generated table.
#
#   bash bench/scaleout.sh          (BENCH_ROWS, default 2,000,000; BENCH_RUNS, default 3)
#
# Needs the extension installed (hold /tmp/ts-install.lock while it runs when
# others share the machine) and the tools built (make tools).  Generates a
# fixed-bucket append table (ts_gen: 8 buckets on id), starts 3 clusters on
# 127.0.0.1 (test/scaleout/clusters.sh), shards the table over 2 workers with
# tablescan_create_sharded and prints, best of BENCH_RUNS: wall ms of a full-scan
# aggregate and of a GROUP BY on one node and through the coordinator, their
# ratio, the CPU seconds all processes of the clusters used (from /proc: each
# postmaster's own and reaped children's time plus its live children's), the
# point query's wall time both ways, and planning times (coordinator, one worker).
# Prints figures only; nothing is asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${BENCH_ROWS:-2000000}
RUNS=${BENCH_RUNS:-3}
BUILD=${BUILD:-build}
. test/scaleout/clusters.sh
WH=$TMP/wh/bench.db
mkdir -p "$WH"
$BUILD/tools/ts_gen "$WH/t" --column 'id:INT NOT NULL' --column big:BIGINT --column d:DOUBLE \
    --column 'amount:DECIMAL(18, 4)' --column s:STRING --column day:DATE --column g:TINYINT \
    --buckets 8 --bucket-key id --rows "$ROWS" --files 2 --null-every 7 >/dev/null
[ "$(id -u)" = 0 ] && chown -R postgres "$TMP/wh"
for i in 0 1 2; do start_node $i "jit = off"; done
for i in 0 1 2; do
    q $i "CREATE EXTENSION tablescan_fdw; CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$TMP/wh');
          IMPORT FOREIGN SCHEMA bench FROM SERVER lake INTO public;" >/dev/null
done
q 0 "CREATE EXTENSION postgres_fdw; CREATE EXTENSION dblink;" >/dev/null
for i in 1 2; do
    q 0 "CREATE SERVER w$i FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '${PORTS[$i]}', dbname 'postgres');
         CREATE USER MAPPING FOR postgres SERVER w$i OPTIONS (user 'postgres');" >/dev/null
done
out=$(q 0 "SELECT tablescan_create_sharded('t', '{w1,w2}')") || { echo "$out"; exit 1; }

cpu_ticks() {	# CPU clock ticks used so far by every process of the clusters
    local total=0 pm f
    for d in "$TMP"/n*; do
        pm=$(head -1 "$d/postmaster.pid")
        f=($(sed 's/^.*) //' /proc/$pm/stat))
        total=$((total + f[11] + f[12] + f[13] + f[14]))
        for c in $(cat /proc/$pm/task/*/children 2>/dev/null); do
            f=($(sed 's/^.*) //' /proc/$c/stat 2>/dev/null)) || continue
            total=$((total + f[11] + f[12]))
        done
    done
    echo $total
}
# run node sql: best wall ms of RUNS runs (psql \timing) and CPU s per run (all clusters)
run() {
    local n=$1 sql=$2 t0 t1
    t0=$(cpu_ticks)
    best=$( { echo '\timing on'; echo "SET enable_partitionwise_aggregate = on;"; for r in $(seq $RUNS); do echo "$sql;"; done; } |
        "$BIN/psql" -X -q -At -h 127.0.0.1 -p "${PORTS[$n]}" -U postgres -d postgres -v ON_ERROR_STOP=1 |
        sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n $RUNS | sort -g | head -1)
    t1=$(cpu_ticks)
    cpu=$(awk -v a=$t0 -v b=$t1 -v r=$RUNS -v hz=$(getconf CLK_TCK) 'BEGIN { printf "%.2f", (b - a) / hz / r }')
    echo "$best $cpu"
}
AGG_ONE='SELECT count(*), sum(d), min(big), max(amount) FROM t'
AGG_CO='SELECT sum(c), sum(sd), min(mb), max(ma) FROM (SELECT count(*) c, sum(d) sd, min(big) mb, max(amount) ma FROM t_sharded GROUP BY "_SHARD") x'
GRP_ONE='SELECT day, count(*), sum(d) FROM t GROUP BY day'
GRP_CO='SELECT day, sum(c), sum(sd) FROM (SELECT day, count(*) c, sum(d) sd FROM t_sharded GROUP BY day, "_SHARD") x GROUP BY day'
# g: n % 128, a key of few values (the workers reduce the rows; day is near-unique)
GRPG_ONE='SELECT g, count(*), sum(d) FROM t GROUP BY g'
GRPG_CO='SELECT g, sum(c), sum(sd) FROM (SELECT g, count(*) c, sum(d) sd FROM t_sharded GROUP BY g, "_SHARD") x GROUP BY g'
id=$((ROWS / 3))
same() { [ "$(q $1 "$2 ORDER BY 1")" = "$(q $3 "$4 ORDER BY 1")" ] && echo yes || echo no; }
# warm both ways (connections to the workers, file cache), then measure
run 1 "$AGG_ONE" >/dev/null; run 0 "$AGG_CO" >/dev/null
read agg1 aggc1 <<<"$(run 1 "$AGG_ONE")"; read agg2 aggc2 <<<"$(run 0 "$AGG_CO")"
read grp1 grpc1 <<<"$(run 1 "$GRP_ONE")"; read grp2 grpc2 <<<"$(run 0 "$GRP_CO")"
read grpg1 grpgc1 <<<"$(run 1 "$GRPG_ONE")"; read grpg2 grpgc2 <<<"$(run 0 "$GRPG_CO")"
read pt1 _ <<<"$(run 1 "SELECT * FROM t WHERE id = $id")"; read pt2 _ <<<"$(run 0 "SELECT * FROM t_sharded WHERE id = $id")"
plan_co=$(q 0 "EXPLAIN (SUMMARY) $AGG_CO" | sed -n 's/Planning Time: \([0-9.]*\) ms/\1/p')
plan_w=$(q 1 "EXPLAIN (SUMMARY) SELECT count(*), sum(d) FROM t_shard_1_of_2" | sed -n 's/Planning Time: \([0-9.]*\) ms/\1/p')
plan_one=$(q 1 "EXPLAIN (SUMMARY) $AGG_ONE" | sed -n 's/Planning Time: \([0-9.]*\) ms/\1/p')
wplan=$(q 1 'EXPLAIN SELECT count(*), sum(d), min(big), max(amount), "_SHARD" FROM t_shard_1_of_2 GROUP BY 5' | head -2 | sed 's/  (cost.*//; s/^ *//' | paste -sd' ')
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
cat <<OUT
## Scale out over postgres_fdw (bench/scaleout.sh)

\`BENCH_ROWS=$ROWS bash bench/scaleout.sh\` on $(nproc) cores ($(date -u +%F)): a fixed-bucket append
table (8 buckets on id, 7 columns, Avro zstd), one node serial vs a coordinator over 2 workers
(all three clusters on this machine). Wall: best of $RUNS; CPU: seconds per run of every process of
the three clusters (coordinator + workers), from /proc.

| query | one node ms | coordinator + 2 workers ms | wall ratio | CPU s one node | CPU s all nodes | CPU ratio | same result |
|---|---|---|---|---|---|---|---|
| full-scan aggregate | $agg1 | $agg2 | $(r $agg2 $agg1) | $aggc1 | $aggc2 | $(r $aggc2 $aggc1) | $(same 1 "$AGG_ONE" 0 "$AGG_CO") |
| GROUP BY day (near-unique) | $grp1 | $grp2 | $(r $grp2 $grp1) | $grpc1 | $grpc2 | $(r $grpc2 $grpc1) | $(same 1 "$GRP_ONE" 0 "$GRP_CO") |
| GROUP BY g (128 values) | $grpg1 | $grpg2 | $(r $grpg2 $grpg1) | $grpgc1 | $grpgc2 | $(r $grpgc2 $grpgc1) | $(same 1 "$GRPG_ONE" 0 "$GRPG_CO") |
| point query id = $id | $pt1 | $pt2 | $(r $pt2 $pt1) | | | | |

Planning: one node ${plan_one} ms; coordinator ${plan_co} ms (postgres_fdw, no remote estimate:
no worker contacted); each worker plans its shard when the query reaches it, ${plan_w} ms here.
A worker's plan of the aggregate's remote SQL: \`$wplan\`.
OUT
