#!/bin/bash
# bench/pg.sh ENV - the part of bench/run.sh that runs inside the throwaway
# cluster (pg_virtualenv): loads the heap table from the generator's value
# formulas (src/tools/ts_gen.c, VALUES: not from a read of the foreign table),
# has DuckDB write the Parquet copy of the heap's rows, registers it, runs
# every query and writes RESULTS.md.
# Not meant to be run by hand: bench/run.sh writes ENV (sizes and paths).
set -euo pipefail
. "$1"
cd "$ROOT"
export PGOPTIONS="-c max_parallel_workers_per_gather=0 -c jit=off"
log() { printf '[bench %s] %s\n' "$(date +%T)" "$*" >&2; }
q() { psql -X -At -q -v ON_ERROR_STOP=1 "$@"; }
ms_now() { date +%s%N; }
elapsed() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else printf "-" }'; }
fmt() { awk -v a="$1" 'BEGIN { printf "%.1f", a }'; }
# the figure of a query's runs (one ms a line): the best, or with
# STAT=median their median
STAT=best
pick() {
    if [ "$STAT" = median ]; then
        sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
    else
        sort -g | head -1
    fi
}

log "loading the extension and the heap table"
q -f bench/bench.sql >/dev/null
q <<EOF
CREATE EXTENSION tablescan_fdw;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh');
IMPORT FOREIGN SCHEMA bench LIMIT TO ($([ "$ONLY" = group ] && echo scan || echo 'scan, scan_m, plan, pk, pkc')) FROM SERVER lake INTO public;
CREATE TABLE heap (LIKE scan);
EOF
# the rows ts_gen wrote into "scan" (--null-every 7, no partition or bucket
# keys), by its documented formulas: row i, column c NULL iff c > 0 and
# i % 7 = c; id i, big i * 1000000007, d i * 1.25, amount DECIMAL(18, 4)
# unscaled i, s 's_' || i, the long column its name || '_' || i, ts
# 2020-01-01 + i * 1.001001 s, day 2020-01-01 + i days
t0=$(ms_now)
nul() { echo "CASE WHEN i % 7 = $1 THEN NULL ELSE $2 END"; }
q -c "INSERT INTO heap SELECT i, $(nul 1 'i::bigint * 1000000007'), $(nul 2 "i * 1.25::float8"),
        $(nul 3 '(i::numeric / 10000)::numeric(18, 4)'), $(nul 4 "'s_' || i"), $(nul 5 "'${LONGCOL}_' || i"),
        $(nul 6 "timestamp '2020-01-01' + (i::bigint * 1001001 / 1000000) * interval '1 second'
                                        + (i::bigint * 1001001 % 1000000) * interval '1 microsecond'"),
        $(nul 0 "date '2020-01-01' + i")
      FROM generate_series(0, $ROWS - 1) i"
LOAD_S=$(elapsed "$t0")
t0=$(ms_now)
q -c "\\copy heap TO '$W/rows.csv' CSV"
EXPORT_S=$(elapsed "$t0")
q -c "VACUUM (FREEZE, ANALYZE) heap"
HEAP_MB=$(q -c "SELECT pg_total_relation_size('heap') / 1048576")
AVRO_MB=$(du -sm "$WH/scan" | cut -f1)

log "DuckDB: writing $PQ_FILES Parquet files"
DUCK_COLS="{\"id\":\"INTEGER\",\"big\":\"BIGINT\",\"d\":\"DOUBLE\",\"amount\":\"DECIMAL(18,4)\",\"s\":\"VARCHAR\",\"$LONGCOL\":\"VARCHAR\",\"ts\":\"TIMESTAMP\",\"day\":\"DATE\"}"
DUCK_IDS="{\"id\":0,\"big\":1,\"d\":2,\"amount\":3,\"s\":4,\"$LONGCOL\":5,\"ts\":6,\"day\":7}"
t0=$(ms_now)
mapfile -t PQ < <(cd bench && DUCK_ROW_GROUP_SIZE=$PQ_ROW_GROUP node duck.mjs write "$W/rows.csv" "$WH/scan_pq/bucket-0" "$PQ_FILES" "$DUCK_COLS" "$DUCK_IDS")
PQ_WRITE_S=$(elapsed "$t0")
chmod -R a+rX "$WH/scan_pq"
"$BIN/ts_pq_register" "$WH/scan_pq" "$NCOLS" "${PQ[@]}" >/dev/null
q -c "IMPORT FOREIGN SCHEMA bench LIMIT TO (scan_pq) FROM SERVER lake INTO public"
PQ_MB=$(du -sm "$WH/scan_pq" | cut -f1)
rm -f "$W/rows.csv"

# ---- scan queries ------------------------------------------------------------
declare -A QS=(
    [count]="SELECT count(*) FROM T"
    [count_read]="SELECT count(*) FROM (SELECT 1 FROM T OFFSET 0) s"
    [all_cols]="SELECT count(id), sum(big), sum(d), sum(amount), max(s), max($LONGCOL), max(ts), max(day) FROM T"
    [row_text]="SELECT sum(hashtext(t::text)) FROM T t"
    [two_cols]="SELECT sum(big), max(s) FROM T"
)
ORDER=(count count_read all_cols row_text two_cols)
declare -A LABEL=(
    [count]='`SELECT count(*)` (foreign: from metadata)'
    [count_read]='count of rows read: `count(*)` over `(SELECT 1 FROM T OFFSET 0)`'
    [all_cols]='every column: count/sum/max of each'
    [row_text]='every column as text: `sum(hashtext(t::text))`'
    [two_cols]='two columns: `sum(big), max(s)`'
)
declare -A T
declare -A RES
# time_query KEY TAB: query KEY of QS on table TAB, RUNS times in one backend
# (psql \timing; each run also returns the result): T[KEY,TAB] = best ms,
# RES[KEY,TAB] = its distinct result rows, tab-separated
time_query() {
    local sql=${QS[$1]//FROM T/FROM $2} out
    out=$( { echo '\timing on'; for r in $(seq "$RUNS"); do echo "$sql;"; done; } | q -F '|')
    T[$1,$2]=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | pick)
    RES[$1,$2]=$(grep -v '^Time: ' <<<"$out" | sort -u | tr '\n' '\t')
}
# rows through PostgreSQL's Aggregate (the scan's throughput); count(*)
# from metadata as it is by default
OFF="$PGOPTIONS -c tablescan.enable_aggregate_pushdown=off"
# the queries aggregates are computed for while scanning (the default):
# agg_KEY, timed on the foreign tables beside KEY with pushdown off
QS[agg_all_cols]=${QS[all_cols]}; LABEL[agg_all_cols]=${LABEL[all_cols]}
QS[agg_two_cols]=${QS[two_cols]}; LABEL[agg_two_cols]=${LABEL[two_cols]}
AGG_ORDER=(agg_all_cols agg_two_cols)
# time_pair KEY AGGKEY TAB: query KEY on TAB with pushdown off (T[KEY,TAB])
# and on (T[AGGKEY,TAB]), alternating in one backend, RUNS times each: the
# two figures see the same moments of a noisy machine
time_pair() {
    local sql=${QS[$1]//FROM T/FROM $3} out times
    out=$( { echo '\timing on'; for r in $(seq "$RUNS"); do
               echo "SET tablescan.enable_aggregate_pushdown = off;"; echo "$sql;"
               echo "SET tablescan.enable_aggregate_pushdown = on;"; echo "$sql;"; done; } | q -F '|')
    times=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out")
    T[$1,$3]=$(awk 'NR % 4 == 2' <<<"$times" | pick)
    T[$2,$3]=$(awk 'NR % 4 == 0' <<<"$times" | pick)
    # a query's rows come after the Time line of the SET before it
    RES[$1,$3]=$(awk '/^Time: / { n++; next } n % 4 == 1' <<<"$out" | sort -u | tr '\n' '\t')
    RES[$2,$3]=$(awk '/^Time: / { n++; next } n % 4 == 3' <<<"$out" | sort -u | tr '\n' '\t')
}
if [ "$ONLY" != group ]; then
for name in "${ORDER[@]}"; do
    for tab in scan scan_pq heap; do
        log "$name on $tab (best of $RUNS)"
        if [ "$name" = count ]; then
            time_query "$name" "$tab"
        elif [ "$tab" != heap ] && [ -n "${QS[agg_$name]:-}" ]; then
            time_pair "$name" "agg_$name" "$tab"
        else
            PGOPTIONS=$OFF time_query "$name" "$tab"
        fi
    done
done
for name in "${AGG_ORDER[@]}"; do
    T[$name,heap]=${T[${name#agg_},heap]}; RES[$name,heap]=${RES[${name#agg_},heap]}
done
log "DuckDB read_parquet (threads=1, best of $RUNS)"
DQ="{\"count\":\"SELECT count(*) FROM pq\",\"count_read\":\"SELECT count(*) FROM (SELECT 1 FROM pq OFFSET 0) s\",\"all_cols\":\"SELECT count(id), sum(big), sum(d), sum(amount), max(s), max($LONGCOL), max(ts), max(day) FROM pq\",\"row_text\":\"SELECT sum(hash(CAST(t AS VARCHAR))) FROM pq t\",\"two_cols\":\"SELECT sum(big), max(s) FROM pq\"}"
declare -A DT DR
while IFS=$'\t' read -r name ms res; do
    DT[$name]=$ms; DR[$name]=$res
done < <(cd bench && node duck.mjs time "$WH/scan_pq/bucket-0/*.parquet" "$RUNS" "$DQ")
DT[agg_all_cols]=${DT[all_cols]}; DT[agg_two_cols]=${DT[two_cols]}
fi

# ---- primary-key table: merge-on-read vs a heap table of the merged rows ------
if [ "$ONLY" != group ]; then
log "primary-key table: merge-on-read (best of $RUNS)"
q -c "CREATE TABLE heap_pk AS SELECT * FROM pk" -c "VACUUM (FREEZE, ANALYZE) heap_pk"
q -c "CREATE TABLE heap_pkc AS SELECT * FROM pkc" -c "VACUUM (FREEZE, ANALYZE) heap_pkc"
read -r PK_FILES PK_RECORDS <<<"$(q -F ' ' -c "SELECT count(*), sum(row_count) FROM tablescan_files('pk')")"
PK_ROWS=$(q -c "SELECT count(*) FROM heap_pk")
read -r PKC_FILES PKC_LEVELS <<<"$(q -F ' ' -c "SELECT count(*), string_agg(DISTINCT level::text, ',') FROM tablescan_files('pkc')")"
PKC_ROWS=$(q -c "SELECT count(*) FROM heap_pkc")
PK_ORDER=(all_cols two_cols)
for name in "${PK_ORDER[@]}"; do
    for tab in pk heap_pk pkc heap_pkc; do
        PGOPTIONS=$OFF time_query "$name" "$tab"
    done
done
fi

# ---- parallel: PostgreSQL's default of 2 workers per Gather; DuckDB with 2 threads ----
PAR_WORKERS=2
PAR_OPTIONS="-c max_parallel_workers_per_gather=$PAR_WORKERS -c jit=off"
QS[par_all_cols]=${QS[all_cols]}; LABEL[par_all_cols]=${LABEL[all_cols]}
QS[par_two_cols]=${QS[two_cols]}; LABEL[par_two_cols]=${LABEL[two_cols]}
QS[par_all_cols_agg]=${QS[all_cols]}; LABEL[par_all_cols_agg]="${LABEL[all_cols]}, partial aggregates computed while scanning"
QS[par_two_cols_agg]=${QS[two_cols]}; LABEL[par_two_cols_agg]="${LABEL[two_cols]}, partial aggregates computed while scanning"
declare -A PAR_DOUBLES=([par_all_cols]=3 [par_two_cols]= [par_all_cols_agg]=3 [par_two_cols_agg]=)    # sum(d)
PAR_ORDER=(par_all_cols par_two_cols par_all_cols_agg par_two_cols_agg)
declare -A WL
# workers launched, from EXPLAIN ANALYZE of query KEY on TAB with options OPTS
workers() {
    PGOPTIONS=$3 q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${QS[$1]//FROM T/FROM $2}" |
        sed -n 's/.*Workers Launched: \([0-9]*\).*/\1/p' | head -1
}
if [ "$ONLY" != group ]; then
for name in par_all_cols par_two_cols; do
    for tab in scan scan_pq heap; do
        log "$name on $tab, $PAR_WORKERS workers (best of $RUNS)"
        if [ "$tab" = heap ]; then
            PGOPTIONS=$PAR_OPTIONS time_query "$name" "$tab"
            WL[$name,$tab]=$(workers "$name" "$tab" "$PAR_OPTIONS")
            T[${name}_agg,$tab]=${T[$name,$tab]}; RES[${name}_agg,$tab]=${RES[$name,$tab]}
            WL[${name}_agg,$tab]=${WL[$name,$tab]}
        else
            PGOPTIONS=$PAR_OPTIONS time_pair "$name" "${name}_agg" "$tab"
            WL[$name,$tab]=$(workers "$name" "$tab" "$PAR_OPTIONS -c tablescan.enable_aggregate_pushdown=off")
            WL[${name}_agg,$tab]=$(workers "$name" "$tab" "$PAR_OPTIONS")
        fi
    done
done
log "DuckDB read_parquet (threads=$PAR_WORKERS, best of $RUNS)"
DPQ="{\"par_all_cols\":\"${QS[par_all_cols]//FROM T/FROM pq}\",\"par_two_cols\":\"${QS[par_two_cols]//FROM T/FROM pq}\"}"
while IFS=$'\t' read -r name ms res; do
    DT[$name]=$ms; DR[$name]=$res
done < <(cd bench && DUCK_THREADS=$PAR_WORKERS node duck.mjs time "$WH/scan_pq/bucket-0/*.parquet" "$RUNS" "$DPQ")
DT[par_all_cols_agg]=${DT[par_all_cols]}; DT[par_two_cols_agg]=${DT[par_two_cols]}
fi

# Do two sets of runs (distinct result rows, tab-separated) agree?  Every
# row of one with every row of the other, exactly, except the double fields
# numbered in $3 (1-based, comma-separated), which may differ in their last
# digits (relative 1e-12): a parallel sum of doubles depends on the order
# the processes add in.
same_rows() {
    awk -v a="$1" -v b="$2" -v dbl="${3:-}" 'BEGIN {
        split(dbl, dl, ","); for (i in dl) isdbl[dl[i]] = 1
        na = split(a, x, "\t"); nb = split(b, y, "\t")
        for (i = 1; i <= na; i++) for (j = 1; j <= nb; j++) {
            if (x[i] == "" || y[j] == "") continue
            nf = split(x[i], f, "|"); ng = split(y[j], g, "|")
            if (nf != ng) exit 1
            for (k = 1; k <= nf; k++) {
                if ((f[k] "") == (g[k] "")) continue    # as strings, not numbers
                if (!(k in isdbl)) exit 1
                d = f[k] - g[k]; m = (f[k] < 0 ? -f[k] : f[k])
                if ((d < 0 ? -d : d) > 1e-12 * m) exit 1
            }
        }
    }'
}

if [ "$ONLY" != group ]; then
# ---- row estimates -------------------------------------------------------------
EST_SCAN=$(q -c "SELECT est || ' / ' || act FROM bench_rows('SELECT * FROM scan')")
EST_PLAN=$(q -c "SELECT est || ' / ' || act FROM bench_rows('SELECT * FROM plan WHERE p = 7')")
EST_PQ=$(q -c "SELECT est || ' / ' || act FROM bench_rows('SELECT * FROM scan_pq')")

# ---- planning ------------------------------------------------------------------
# a cold plan takes milliseconds and shared machines stall for as long:
# at least 7 new backends each
PLAN_RUNS=$(( RUNS > 7 ? RUNS : 7 ))
log "planning over $PLAN_FILES files (best of $PLAN_RUNS, each in a new backend)"
POINT_ID=$((7 + 3 * PARTS))
POINT="SELECT * FROM plan WHERE p = 7 AND id = $POINT_ID"
FULL="SELECT count(*) FROM plan"
best() { sort -g | head -1; }
: > "$W/plan.tsv"
for r in $(seq "$PLAN_RUNS"); do
    q -F $'\t' -c "SELECT 'full', bench_plan_ms('$FULL'), bench_plan_ms('$FULL')" >> "$W/plan.tsv"
    q -F $'\t' -c "SELECT 'point', bench_plan_ms('$POINT'), bench_plan_ms('$POINT')" >> "$W/plan.tsv"
    # the library loaded first, then the cold plan
    q -F $'\t' -c "SELECT 'loaded', bench_load_ms(), bench_plan_ms('$FULL')" >> "$W/plan.tsv"
done
P_COLD=$(awk -F'\t' '$1 == "full" { print $2 }' "$W/plan.tsv" | best)
P_WARM=$(awk -F'\t' '$1 == "full" { print $3 }' "$W/plan.tsv" | best)
P_PCOLD=$(awk -F'\t' '$1 == "point" { print $2 }' "$W/plan.tsv" | best)
P_PWARM=$(awk -F'\t' '$1 == "point" { print $3 }' "$W/plan.tsv" | best)
P_LOAD=$(awk -F'\t' '$1 == "loaded" { print $2 }' "$W/plan.tsv" | best)
P_LCOLD=$(awk -F'\t' '$1 == "loaded" { print $3 }' "$W/plan.tsv" | best)
P_PEXEC=$(q -c "SELECT bench_exec_ms(\$q\$$POINT\$q\$, $RUNS)")
READALL="SELECT count(v) FROM plan"
P_FULLEXEC=$(q -c "SELECT bench_exec_ms(\$q\$$READALL\$q\$, $RUNS)")
# what a cold plan of FULL does inside the scan (a new backend each time,
# best of PLAN_RUNS): manifests opened, entries decoded, the scan's own planning time
read -r M_READ M_ENTRIES M_SCAN_MS <<<"$(for r in $(seq "$PLAN_RUNS"); do
    q -F ' ' -c "SELECT bench_plan_ms('$FULL') IS NULL" \
      -c "SELECT manifests_read, entries_read, round(planning_ms::numeric, 1) FROM tablescan_last_metrics()" | tail -1
done | sort -k3 -g | head -1)"
SCAN_ENTRIES_PER_S=$(awk -v n="$M_ENTRIES" -v ms="$M_SCAN_MS" 'BEGIN { if (ms > 0) printf "%.0f", n / (ms / 1000); else printf "-" }')
POINT_EXPLAIN=$(q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $POINT")
FULL_EXPLAIN=$(q -c "EXPLAIN (COSTS OFF) $FULL")
ENTRIES_PER_S=$(awk -v n="$PLAN_FILES" -v ms="$P_COLD" 'BEGIN { printf "%.0f", n / (ms / 1000) }')
LOADED_ENTRIES_PER_S=$(awk -v n="$PLAN_FILES" -v ms="$P_LCOLD" 'BEGIN { printf "%.0f", n / (ms / 1000) }')

# ---- memory --------------------------------------------------------------------
log "peak RSS (VmHWM) of a fresh backend per full scan"
MEMQ=${QS[all_cols]}
BASE_KB=$(q -c "SELECT bench_vmhwm_kb()")
rss() { PGOPTIONS=$OFF q -c "SELECT bench_exec_ms(\$q\$${MEMQ//FROM T/FROM $1}\$q\$, 1)" -c "SELECT bench_vmhwm_kb()" | tail -1; }
RSS_M=$(rss scan_m); RSS_L=$(rss scan); RSS_PQ=$(rss scan_pq); RSS_HEAP=$(rss heap)

# ---- optional profile of the backend (BENCH_PERF=1; perf with the cpu-clock event) ----
PROFILE=""
if [ "${BENCH_PERF:-0}" = 1 ] && command -v perf >/dev/null; then
    for prof in count,scan all_cols,scan all_cols,scan_pq; do
        name=${prof%,*}; tab=${prof#*,}
        sql=${QS[$name]//FROM T/FROM $tab}
        log "perf: $name on $tab"
        PGAPPNAME=bench_perf q -c "SELECT pg_sleep(1)" -c "$sql" >/dev/null &
        qpid=$!
        pid=""
        for i in $(seq 50); do
            pid=$(q -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'bench_perf'")
            [ -n "$pid" ] && break
            sleep 0.1
        done
        perf record -q -e cpu-clock -F 999 -g -p "$pid" -o "$W/perf-$name-$tab.data" >/dev/null 2>&1 &
        ppid=$!
        wait "$qpid"
        kill -INT "$ppid" 2>/dev/null || true; wait "$ppid" || true
        perf report -i "$W/perf-$name-$tab.data" --no-children --sort dso,symbol --stdio 2>/dev/null \
            | grep -E '^ +[0-9.]+%' | sed 's/[ -]*$//' > "$W/perf-$name-$tab.all" || true
        PROFILE+=$'\n'"### \`$name\` on $tab (perf cpu-clock samples, self time, top 20)"$'\n\n```\n'"$(head -20 "$W/perf-$name-$tab.all")"$'\n```\n'
    done
fi
fi

G_LOAD=$(cut -d" " -f1-3 /proc/loadavg)
# ---- GROUP BY, filtered aggregate, top-N (issue #26) ------------------------------
# Table grp: the heap's id, big, d, s, day with g = id % 10 and k = id % 10000
# in front; heap_g holds them, DuckDB writes them as Parquet (grp, registered
# like scan_pq).  Figures: the median of RUNS runs (a shared machine).
log "GROUP BY table: heap_g and its Parquet copy grp"
q -c "CREATE TABLE heap_g AS SELECT id % 10 AS g, id % 10000 AS k, id, big, d, s, day FROM heap" \
  -c "VACUUM (FREEZE, ANALYZE) heap_g"
q -c "\\copy heap_g TO '$W/grp.csv' CSV"
GDUCK_COLS='{"g":"INTEGER","k":"INTEGER","id":"INTEGER","big":"BIGINT","d":"DOUBLE","s":"VARCHAR","day":"DATE"}'
GDUCK_IDS='{"g":0,"k":1,"id":2,"big":3,"d":4,"s":5,"day":6}'
mapfile -t GPQ < <(cd bench && DUCK_ROW_GROUP_SIZE=$PQ_ROW_GROUP node duck.mjs write "$W/grp.csv" "$WH/grp/bucket-0" "$PQ_FILES" "$GDUCK_COLS" "$GDUCK_IDS")
chmod -R a+rX "$WH/grp"
"$BIN/ts_pq_register" "$WH/grp" 7 "${GPQ[@]}" >/dev/null
rm -f "$W/grp.csv"
q -c "IMPORT FOREIGN SCHEMA bench LIMIT TO (grp) FROM SERVER lake INTO public" -c "ANALYZE grp"
STAT=median
GRUNS=$(( RUNS > 5 ? RUNS : 5 ))
# every result is exact whatever the order of the additions (d = i * 1.25:
# every sum of them is a multiple of 0.25 below 2^53), so all compare as text
QS[g_few]="SELECT g, count(*), sum(d) FROM T GROUP BY g ORDER BY g"
QS[g_10k]="SELECT count(*), sum(n), sum(sd), max(sd) FROM (SELECT k, count(*) n, sum(d) sd FROM T GROUP BY k) s"
QS[g_many]="SELECT count(*), sum(n), sum(sd), max(sd) FROM (SELECT id, count(*) n, sum(d) sd FROM T GROUP BY id) s"
QS[g_filter]="SELECT count(*), sum(big), sum(d), max(s) FROM T WHERE k < 1000"
QS[g_topn]="SELECT id, d FROM T ORDER BY d DESC NULLS LAST LIMIT 10"
QS[g_all]=${QS[all_cols]}
LABEL[g_few]='GROUP BY, 10 groups: `SELECT g, count(*), sum(d) ... GROUP BY g`'
LABEL[g_10k]='GROUP BY, 10,000 groups: `k, count(*), sum(d) ... GROUP BY k` (summed over the groups)'
LABEL[g_many]='GROUP BY, a group per row (more than work_mem holds): `GROUP BY id` (summed)'
LABEL[g_filter]='filtered: `count(*), sum(big), sum(d), max(s) ... WHERE k < 1000`'
LABEL[g_topn]='top-N: `SELECT id, d ... ORDER BY d DESC NULLS LAST LIMIT 10`'
LABEL[g_all]="${LABEL[all_cols]} (table scan_pq / heap)"
G_ORDER=(g_few g_10k g_many g_filter g_topn g_all)
# the foreign / heap table of each query
gtab() { [ "$1" = g_all ] && echo "${2/grp/scan_pq}" | sed 's/heap_g/heap/' || echo "$2"; }
GDQ="{" ; sep=""
for name in "${G_ORDER[@]}"; do
    sql=${QS[$name]//FROM T/FROM $( [ "$name" = g_all ] && echo pq || echo grp)}
    GDQ+="$sep\"$name\":\"$sql\""; sep=","
done
GDQ+="}"
declare -A GWL DT DR
# DuckDB's medians (1 thread, or par) into DT[name@par], DR its rows; run
# before and after PostgreSQL's runs of a setting, the machine's load
# changing meanwhile: DT keeps the faster median of the two
duck_group() {
    local par=$1 name ms res
    log "DuckDB read_parquet (threads=$(( par > 0 ? par : 1 )), median of $GRUNS)"
    while IFS=$'\t' read -r name ms res; do
        if [ -z "${DT[$name@$par]:-}" ] || awk -v a="$ms" -v b="${DT[$name@$par]}" 'BEGIN { exit !(a < b) }'; then
            DT[$name@$par]=$ms
        fi
        DR[$name@$par]=$(tr ';' '\n' <<<"${res//,/|}" | sort -u | tr '\n' '\t')
    done < <(cd bench && DUCK_STAT=median DUCK_THREADS=$(( par > 0 ? par : 1 )) DUCK_VIEWS="{\"grp\":\"$WH/grp/bucket-0/*.parquet\"}" \
                 node duck.mjs time "$WH/scan_pq/bucket-0/*.parquet" "$GRUNS" "$GDQ")
}
for par in 0 2; do
    duck_group "$par"
    OPTS="-c max_parallel_workers_per_gather=$par -c jit=off"
    for name in "${G_ORDER[@]}"; do
        ft=$(gtab "$name" grp); ht=$(gtab "$name" heap_g)
        log "$name on $ft and $ht, $par workers (median of $GRUNS)"
        RUNS=$GRUNS PGOPTIONS=$OPTS time_pair "$name" "${name}@on$par" "$ft"
        T[$name@off$par,grp]=${T[$name,$ft]}; RES[$name@off$par,grp]=${RES[$name,$ft]}
        T[$name@on$par,grp]=${T[${name}@on$par,$ft]}; RES[$name@on$par,grp]=${RES[${name}@on$par,$ft]}
        RUNS=$GRUNS PGOPTIONS=$OPTS time_query "$name" "$ht"
        T[$name@$par,heap]=${T[$name,$ht]}; RES[$name@$par,heap]=${RES[$name,$ht]}
        if [ "$par" != 0 ]; then
            GWL[$name@on,grp]=$(workers "$name" "$ft" "$OPTS")
            GWL[$name@off,grp]=$(workers "$name" "$ft" "$OPTS -c tablescan.enable_aggregate_pushdown=off")
            GWL[$name,heap]=$(workers "$name" "$ht" "$OPTS")
        fi
    done
    duck_group "$par"      # again after PostgreSQL's runs: the faster median of the two
done
# every result, for a look when "same" says no
{ for k in "${!RES[@]}"; do [[ $k == g_* ]] && printf 'pg %s\t%s\n' "$k" "${RES[$k]}"; done
  for k in "${!DR[@]}"; do [[ $k == g_* ]] && printf 'duckdb %s\t%s\n' "$k" "${DR[$k]}"; done; } | sort > "$W/group-results.txt"
G_PLAN_SERIAL=$(PGOPTIONS="-c max_parallel_workers_per_gather=0" q -c "EXPLAIN (COSTS OFF) ${QS[g_few]//FROM T/FROM grp}")
G_PLAN_PAR=$(PGOPTIONS="-c max_parallel_workers_per_gather=2" q -c "EXPLAIN (COSTS OFF) ${QS[g_few]//FROM T/FROM grp}")
G_PLAN_MANY=$(PGOPTIONS="-c max_parallel_workers_per_gather=0" q -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${QS[g_many]//FROM T/FROM grp}")
# the GROUP BY section of the report
group_report() {
    local par name same w
    echo "Table \`grp\`: the $ROWS rows' id, big, d, s, day with \`g = id % 10\` and \`k = id % 10000\` in front,"
    echo "$PQ_FILES Parquet files written by DuckDB (foreign table \`grp\`, ANALYZEd) and a heap table \`heap_g\`;"
    echo "the every-column row reads \`scan_pq\` and \`heap\`. Figures: the **median** of $GRUNS runs in one backend"
    echo "(psql \`\\timing\`), pushdown off and on alternating; DuckDB: median of $GRUNS, \`SET threads\` = 1, then 2,"
    echo "timed before and after PostgreSQL's runs of each setting, the faster median kept."
    echo "\"pushdown off\": the rows through PostgreSQL's Aggregate (\`tablescan.enable_aggregate_pushdown = off\`);"
    echo "\"on\": aggregates / groups computed while scanning (the default). \"same\": the foreign table's rows (both"
    echo "settings, every run) are the heap's and DuckDB's, as text (every sum of d is exact)."
    echo "Load average when the section started: $G_LOAD."
    for par in 0 2; do
        echo
        if [ "$par" = 0 ]; then echo "Serial (\`max_parallel_workers_per_gather = 0\`, DuckDB 1 thread):"
        else echo "Parallel (\`max_parallel_workers_per_gather = 2\`, DuckDB 2 threads; workers launched in brackets):"; fi
        echo
        echo "| query | foreign, pushdown off ms | foreign, on ms | heap ms | DuckDB ms | on / heap | on / DuckDB | heap / DuckDB | same |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
        for name in "${G_ORDER[@]}"; do
            same=no
            [ "${RES[$name@off$par,grp]}" = "${RES[$name@$par,heap]}" ] &&
                [ "${RES[$name@on$par,grp]}" = "${RES[$name@$par,heap]}" ] &&
                [ "${DR[$name@$par]}" = "${RES[$name@$par,heap]}" ] && same=yes
            w() { [ "$par" = 0 ] || echo " [${GWL[$1]:-0}]"; }
            echo "| ${LABEL[$name]} | $(fmt "${T[$name@off$par,grp]}")$(w "$name@off,grp") | $(fmt "${T[$name@on$par,grp]}")$(w "$name@on,grp") | $(fmt "${T[$name@$par,heap]}")$(w "$name,heap") | $(fmt "${DT[$name@$par]:-0}") | $(ratio "${T[$name@on$par,grp]}" "${T[$name@$par,heap]}") | $(ratio "${T[$name@on$par,grp]}" "${DT[$name@$par]:-0}") | $(ratio "${T[$name@$par,heap]}" "${DT[$name@$par]:-0}") | $same |"
        done
    done
    echo
    echo "Parallel speed-up (serial ms / 2 workers ms), pushdown on: $(for name in g_few g_10k g_many g_filter g_all; do
        printf '%s %s; ' "$name" "$(ratio "${T[$name@on0,grp]}" "${T[$name@on2,grp]}")"; done)"
    echo
    echo "Plans of the 10-groups query, serial and with 2 workers; the one-group-per-row query (EXPLAIN ANALYZE):"
    echo
    echo '```'
    echo "$G_PLAN_SERIAL"
    echo
    echo "$G_PLAN_PAR"
    echo
    echo "$G_PLAN_MANY"
    echo '```'
}

# ---- report --------------------------------------------------------------------
GIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo " (+ uncommitted changes)" || true)
MEM_GB=$(awk '/MemTotal/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
CPU=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
PGV=$(q -c "SHOW server_version")
DUCKV=$(cd bench && node -e "import('@duckdb/node-api').then(async m => { const i = await m.DuckDBInstance.create(); const c = await i.connect(); console.log((await c.runAndReadAll('SELECT version()')).getRows()[0][0]); })")
mb() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k / 1024 }'; }
if [ "$ONLY" = group ]; then
    {
    echo "# tablescan_fdw benchmark: GROUP BY, filtered aggregate, top-N"
    echo
    echo "Generated by \`BENCH_ONLY=group bash bench/run.sh $SIZE\` (BENCH_ROWS=$ROWS)."
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $GIT$DIRTY"
    echo "- machine: $(nproc) CPUs ($CPU), $MEM_GB GB RAM; PostgreSQL $PGV; DuckDB $DUCKV"
    echo
    group_report
    } > "$RESULTS"
    cat "$RESULTS"
    exit 0
fi
{
echo "# tablescan_fdw benchmark results"
echo
echo "Generated by \`bash bench/run.sh $SIZE\` — do not edit by hand. Figures are from one run on a"
echo "shared, noisy machine: compare the ratios, not absolute times across runs."
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $GIT$DIRTY"
echo "- extension: $(pg_config --pkglibdir)/tablescan_fdw.so as installed at $(stat -c %y "$(pg_config --pkglibdir)/tablescan_fdw.so" | cut -c1-19)"
echo "- machine: $(nproc) CPUs ($CPU), $MEM_GB GB RAM; PostgreSQL $PGV; DuckDB $DUCKV"
echo "- size \`$SIZE\`: $ROWS rows in $FILES Avro files (zstd, $AVRO_MB MB; generated in ${GEN_S} s), the same rows in"
echo "  $PQ_FILES Parquet files (zstd, written by DuckDB, $PQ_MB MB) and in a heap table ($HEAP_MB MB, loaded in ${LOAD_S} s from ts_gen's value formulas,"
echo "  VACUUM FREEZE); columns INT, BIGINT, DOUBLE, DECIMAL(18,4), short STRING, ~60-char STRING, TIMESTAMP(6), DATE;"
echo "  1 value in 7 NULL (except id)."
echo "- scan times: best of $RUNS runs in one backend, psql \`\\timing\` (each query returns one row);"
echo "  \`max_parallel_workers_per_gather = 0\`, \`jit = off\`; DuckDB \`SET threads = 1\`, wall time of the query in node."
echo
# DuckDB's answer to the same SQL as the heap's (queries whose result prints
# alike in both: counts, bigint sums, strings); others are not compared
DUCK_SAME=" count count_read two_cols agg_two_cols "
duck_agrees() {
    local d=${DR[$1]:-${DR[${1#agg_}]:-}} h=${RES[$1,heap]%$'\t'}
    [[ $DUCK_SAME != *" $1 "* ]] && return 0
    [ -n "$d" ] && [ "${h//|/,}" = "$d" ]
}
# a table of serial scans: the queries named, foreign Avro and Parquet
# beside the heap and DuckDB
scan_table() {
    local name same
    echo "| query | foreign Avro ms | foreign Parquet ms | heap ms | DuckDB Parquet ms | Avro / heap | Parquet / heap | Parquet / DuckDB | heap / DuckDB | same result |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for name in "$@"; do
        same=no
        [ "${RES[$name,scan]}" = "${RES[$name,heap]}" ] && [ "${RES[$name,scan_pq]}" = "${RES[$name,heap]}" ] &&
            duck_agrees "$name" && same=yes
        echo "| ${LABEL[$name]} | $(fmt "${T[$name,scan]}") | $(fmt "${T[$name,scan_pq]}") | $(fmt "${T[$name,heap]}") | $(fmt "${DT[$name]:-0}") | $(ratio "${T[$name,scan]}" "${T[$name,heap]}") | $(ratio "${T[$name,scan_pq]}" "${T[$name,heap]}") | $(ratio "${T[$name,scan_pq]}" "${DT[$name]:-0}") | $(ratio "${T[$name,heap]}" "${DT[$name]:-0}") | $same |"
    done
}

echo "## Scan"
echo
echo "The foreign tables' rows go through PostgreSQL's Aggregate here, as the heap's do"
echo "(\`tablescan.enable_aggregate_pushdown = off\`, except for \`count(*)\` from metadata): the scan's throughput."
echo "The next table has the aggregates computed while scanning, as they are by default."
echo
scan_table "${ORDER[@]}"
echo
echo "\"heap / DuckDB\": PostgreSQL over its own heap table against DuckDB, the same query on the same rows:"
echo "how much of \"Parquet / DuckDB\" the executor alone accounts for (every value a Datum, every aggregate"
echo "a transition function call per row), whatever the scan beneath it."
echo "\"same result\": every run of the three PostgreSQL scans returned the same row, and so did DuckDB where the"
echo "query is the same and its result prints alike (count, count of rows read, two columns). DuckDB's"
echo "\`row_text\` uses \`sum(hash(CAST(t AS VARCHAR)))\` (similar work, different hash); its other queries are the same SQL."
echo "Export of the heap table by \`\\copy heap TO csv\`: ${EXPORT_S} s; DuckDB CSV -> Parquet: ${PQ_WRITE_S} s."
echo
echo "### Aggregates computed while scanning"
echo
echo "The same queries with \`tablescan.enable_aggregate_pushdown = on\` (the default): the Foreign Scan replaces"
echo "the Aggregate and calls the aggregates' transition functions itself. Heap and DuckDB: the figures above."
echo
scan_table "${AGG_ORDER[@]}"
echo
echo "Row estimates (EXPLAIN estimated / actual rows of the scan node): \`SELECT * FROM scan\` $EST_SCAN;"
echo "\`SELECT * FROM scan_pq\` $EST_PQ; \`SELECT * FROM plan WHERE p = 7\` $EST_PLAN."
echo
echo "### Parallel"
echo
echo "The same scans with PostgreSQL's default \`max_parallel_workers_per_gather = $PAR_WORKERS\` (a Parallel Foreign Scan"
echo "beside a Parallel Seq Scan; workers launched in brackets, from EXPLAIN ANALYZE), DuckDB with \`SET threads = $PAR_WORKERS\`."
echo "The first rows aggregate in PostgreSQL's Partial Aggregate (pushdown off); the last ones have each process"
echo "compute the partial aggregates while scanning (the default; heap and DuckDB figures repeated)."
echo "\"same result\": as above, except that \`sum(d)\` (double) may differ in its last digits, the"
echo "processes adding in another order."
echo
echo "| query | foreign Avro ms | foreign Parquet ms | heap ms | DuckDB Parquet ms | Avro / heap | Parquet / heap | Parquet / DuckDB | heap / DuckDB | same result |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for name in "${PAR_ORDER[@]}"; do
    same=no
    same_rows "${RES[$name,scan]}" "${RES[$name,heap]}" "${PAR_DOUBLES[$name]}" &&
        same_rows "${RES[$name,scan_pq]}" "${RES[$name,heap]}" "${PAR_DOUBLES[$name]}" && same=yes
    echo "| ${LABEL[$name]} | $(fmt "${T[$name,scan]}") [${WL[$name,scan]:-0}] | $(fmt "${T[$name,scan_pq]}") [${WL[$name,scan_pq]:-0}] | $(fmt "${T[$name,heap]}") [${WL[$name,heap]:-0}] | $(fmt "${DT[$name]:-0}") | $(ratio "${T[$name,scan]}" "${T[$name,heap]}") | $(ratio "${T[$name,scan_pq]}" "${T[$name,heap]}") | $(ratio "${T[$name,scan_pq]}" "${DT[$name]:-0}") | $(ratio "${T[$name,heap]}" "${DT[$name]:-0}") | $same |"
done
# the figures of a primary-key table beside the heap table of its rows
pk_table() {
    local ft=$1 heap=$2 name same
    echo "| query | foreign $ft ms | $heap ms | $ft / $heap | same result |"
    echo "|---|---:|---:|---:|---|"
    for name in "${PK_ORDER[@]}"; do
        same=no
        [ "${RES[$name,$ft]}" = "${RES[$name,$heap]}" ] && same=yes
        echo "| ${LABEL[$name]} | $(fmt "${T[$name,$ft]}") | $(fmt "${T[$name,$heap]}") | $(ratio "${T[$name,$ft]}" "${T[$name,$heap]}") | $same |"
    done
}

echo
echo "## GROUP BY, filtered aggregate, top-N"
echo
group_report
echo
echo "## Primary-key tables"
echo
echo "Table \`pk\`: the same columns, primary key \`id\`, $PK_BUCKETS buckets, $PK_SNAPS commits each writing $PK_KEYS records of"
echo "random keys out of $PK_KEYS (a commit keeps one record per key), no compaction: $PK_FILES level-0 sorted runs (Avro, zstd) whose $PK_RECORDS records merge into"
echo "$PK_ROWS rows (deduplicate, last write wins). \`heap_pk\` holds those $PK_ROWS rows (\`CREATE TABLE AS\`): the foreign"
echo "scan reads and merges $(awk -v a="$PK_RECORDS" -v b="$PK_ROWS" 'BEGIN { printf "%.1f", a / b }') records per row it returns."
echo
echo "Rows through PostgreSQL's Aggregate (pushdown off): the cost of the merge."
echo
pk_table pk heap_pk
echo
echo "Table \`pkc\`: the same commits, then one full compaction (deletion vectors on): $PKC_FILES files of level $PKC_LEVELS,"
echo "$PKC_ROWS rows, read file after file without merging (a raw-convertible split per bucket); \`heap_pkc\` holds its rows."
echo
pk_table pkc heap_pkc
echo
echo "## Planning"
echo
echo "Table \`plan\`: $PLAN_FILES data files over $PARTS partitions x $BUCKETS buckets ($SNAPS APPEND commits, $SNAPS manifests)."
echo "Cold = first EXPLAIN in a new backend (OS page cache warm), best of $PLAN_RUNS backends; warm = the same EXPLAIN again in that backend."
echo
echo "| figure | value |"
echo "|---|---:|"
echo "| cold plan, \`$FULL\` | $(fmt "$P_COLD") ms |"
echo "| warm plan, same query | $(fmt "$P_WARM") ms |"
echo "| manifest entries decoded per second (cold): entries / cold plan time | $ENTRIES_PER_S |"
echo "| loading the library in a new backend (\`LOAD 'tablescan_fdw'\`; the cold plan above includes it) | $(fmt "$P_LOAD") ms |"
echo "| cold plan, \`$FULL\`, the library loaded first | $(fmt "$P_LCOLD") ms |"
echo "| manifest entries decoded per second (cold, library loaded) | $LOADED_ENTRIES_PER_S |"
echo "| cold plan inside the scan (tablescan_last_metrics, best of $PLAN_RUNS new backends): manifests read, entries decoded, ms | $M_READ, $M_ENTRIES, $M_SCAN_MS ms |"
echo "| manifest entries per second inside the scan (cold) | $SCAN_ENTRIES_PER_S |"
echo "| cold plan, point query \`p = 7 AND id = $POINT_ID\` | $(fmt "$P_PCOLD") ms |"
echo "| warm plan, point query | $(fmt "$P_PWARM") ms |"
echo "| execution, point query | $(fmt "$P_PEXEC") ms |"
echo "| execution, \`$READALL\` (opens every data file) | $(fmt "$P_FULLEXEC") ms |"
echo
echo "Point query (EXPLAIN ANALYZE):"
echo
echo '```'
echo "$POINT_EXPLAIN"
echo '```'
echo
echo "## Memory"
echo
echo "Peak RSS (\`VmHWM\` of the backend, \`/proc/self/status\`) of a new backend after one full scan"
echo "(\`all_cols\` query, rows through PostgreSQL's Aggregate); a new backend that ran nothing else: $(mb "$BASE_KB")."
echo
echo "| scan | peak RSS |"
echo "|---|---:|"
echo "| foreign Avro, $ROWS_M rows | $(mb "$RSS_M") |"
echo "| foreign Avro, $ROWS rows | $(mb "$RSS_L") |"
echo "| foreign Parquet, $ROWS rows | $(mb "$RSS_PQ") |"
echo "| heap, $ROWS rows | $(mb "$RSS_HEAP") |"
echo
echo "Avro peak RSS at $ROWS rows / at $ROWS_M rows: $(ratio "$RSS_L" "$RSS_M")."
if [ -n "$PROFILE" ]; then
    echo
    echo "## Backend profile"
    echo "$PROFILE"
fi
} > "$RESULTS"
cat "$RESULTS"
