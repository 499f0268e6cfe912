#!/bin/bash
# Scale-out over postgres_fdw (README "Scaling out"): a coordinator and three
# worker clusters on 127.0.0.1 (initdb / pg_ctl, the installed extension),
# tables of the fixtures (TS_FIXTURES) sharded with tablescan_create_sharded
# over 2 and over 3 workers.  Checks: scan.shard values are validated; the
# rows through the coordinator are the local rows (a multiset: the shares are
# disjoint and cover) for bucketed and bucket-unaware append tables,
# primary-key tables of every merge engine and with deletion vectors, and a
# format table; aggregates and GROUP BY run on the workers (Remote SQL), also with
# a qual on _SHARD beside others; a
# point query on the bucket key keeps files on one worker only; _SHARD prunes;
# a worker that is down is an ERROR naming its server.
# Prints "scaleout: N passed, N failed, N skipped" (1 skipped: no shared testdata).
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${TS_FIXTURES:?TS_FIXTURES must point at the fixtures of test/make-fixtures.sh}"
. test/scaleout/clusters.sh
passed=0 failed=0
check() {	# check name expected actual
    if [ "$2" == "$3" ]; then passed=$((passed + 1))
    else failed=$((failed + 1)); echo "FAIL $1: expected [$2] got [$3]"; fi
}
check_match() {	# check_match name regex actual
    if printf '%s' "$3" | grep -Eq -- "$2"; then passed=$((passed + 1))
    else failed=$((failed + 1)); echo "FAIL $1: [$3] does not match /$2/"; fi
}

for i in 0 1 2 3; do start_node $i; done
W=$TS_FIXTURES/warehouse
q 0 "CREATE EXTENSION tablescan_fdw; CREATE EXTENSION postgres_fdw; CREATE EXTENSION dblink;
     SET TIME ZONE 'UTC';
     CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W');
     CREATE SCHEMA sales; CREATE SCHEMA pk; CREATE SCHEMA ft;
     IMPORT FOREIGN SCHEMA sales LIMIT TO (orders, customers) FROM SERVER lake INTO sales;
     IMPORT FOREIGN SCHEMA pk FROM SERVER lake INTO pk;
     CREATE FOREIGN TABLE ft.events (id integer, name text, amount numeric(10,2), dt date, region text)
       SERVER lake OPTIONS (path '$TS_FIXTURES/formattable/events_csv', table_schema '{\"version\": 3, \"id\": 0, \"fields\": [
         {\"id\": 0, \"name\": \"id\", \"type\": \"INT\"}, {\"id\": 1, \"name\": \"name\", \"type\": \"STRING\"},
         {\"id\": 2, \"name\": \"amount\", \"type\": \"DECIMAL(10, 2)\"}, {\"id\": 3, \"name\": \"dt\", \"type\": \"DATE\"},
         {\"id\": 4, \"name\": \"region\", \"type\": \"STRING\"}], \"partitionKeys\": [\"dt\", \"region\"],
         \"primaryKeys\": [], \"options\": {\"type\": \"format-table\", \"file.format\": \"csv\"}}');" >/dev/null \
    || { echo "coordinator setup failed"; q 0 "SELECT 1"; }
for i in 1 2 3; do
    q 0 "CREATE SERVER w$i FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '${PORTS[$i]}', dbname 'postgres');
         CREATE USER MAPPING FOR postgres SERVER w$i OPTIONS (user 'postgres');" >/dev/null
done

# scan.shard values
for bad in 0/2 3/2 1/0 x 2 1/2x -1/2; do
    out=$(q 0 "CREATE FOREIGN TABLE bad_shard (id int) SERVER lake OPTIONS (database 'sales', \"table\" 'orders', \"scan.shard\" '$bad')")
    check_match "scan.shard '$bad' refused" '22023.*invalid value for option "scan.shard"' "$out"
done
check "scan.shard '1/1' reads the whole table" "$(q 0 "SELECT count(*) FROM sales.orders")" \
    "$(q 0 "CREATE FOREIGN TABLE one_of_one (id bigint) SERVER lake OPTIONS (database 'sales', \"table\" 'orders', \"scan.shard\" '1/1');
            SELECT count(*) FROM one_of_one")"

check "the pseudo-column _SHARD of the foreign table holds K" "2" \
    "$(q 0 "CREATE FOREIGN TABLE shard_col (id bigint, \"_SHARD\" int) SERVER lake OPTIONS (database 'sales', \"table\" 'orders', \"scan.shard\" '2/2');
            SELECT string_agg(DISTINCT \"_SHARD\"::text, ',') FROM shard_col")"
check_match "_SHARD of another type: ERROR naming it" 'column "_SHARD" of foreign table "shard_txt" is the pseudo-column _SHARD and cannot be of type text' \
    "$(q 0 "CREATE FOREIGN TABLE shard_txt (id bigint, \"_SHARD\" text) SERVER lake OPTIONS (database 'sales', \"table\" 'orders', \"scan.shard\" '1/2');
            SELECT * FROM shard_txt")"
# time travel passes through: the first snapshot of orders
q 0 "CREATE FOREIGN TABLE sales.orders_first (id bigint, customer text, amount numeric, ts timestamp, dt text)
     SERVER lake OPTIONS (database 'sales', \"table\" 'orders', \"scan.snapshot-id\" '1')" >/dev/null

TABLES="sales.orders_first sales.orders sales.customers pk.pk_dedup_dv pk.pk_dedup_levels pk.pk_dedup_level0 pk.pk_aggregation pk.pk_first_row pk.pk_partial_update ft.events"
# a selection of the shared testdata tables (Java-written): merge-on-read, deletion vectors,
# first-row, partial-update primary-key tables and append tables
TD=${TS_SHARED:-../shared}/testdata/parquet
skipped=0
if [ -d "$TD" ]; then
    q 0 "CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$TD')" >/dev/null
    for db in pk_09 pk_table_scan_and_read_dv pk_table_scan_and_read_mor pk_table_scan_and_read_first_row \
              pk_table_partial_update append_09 append_with_empty_partition; do
        q 0 "CREATE SCHEMA $db; IMPORT FOREIGN SCHEMA $db FROM SERVER shared INTO $db" >/dev/null
        TABLES="$TABLES $(q 0 "SELECT string_agg('$db.' || quote_ident(relname), ' ') FROM pg_class WHERE relnamespace = '$db'::regnamespace AND relkind = 'f'")"
    done
    q 0 "CREATE SCHEMA de; IMPORT FOREIGN SCHEMA data_evolution_with_dense_stats FROM SERVER shared INTO de" >/dev/null
    t=$(q 0 "SELECT quote_ident(relname) FROM pg_class WHERE relnamespace = 'de'::regnamespace AND relkind = 'f' LIMIT 1")
    check_match "data-evolution table: scan.shard refused" '0A000: scan.shard cannot split table .*data-evolution' \
        "$(q 0 "ALTER FOREIGN TABLE de.$t OPTIONS (ADD \"scan.shard\" '1/2'); SELECT count(*) FROM de.$t")"
else
    echo "SKIP shared testdata tables: $TD is absent"; skipped=1
fi
rows_of() {	# the multiset of rows of a table as one digest (without _SHARD)
    local cols
    cols=$(q 0 "SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) FROM pg_attribute
                WHERE attrelid = '$2'::regclass AND attnum > 0 AND NOT attisdropped AND attname <> '_SHARD'")
    q 0 "SET TIME ZONE 'UTC'; SELECT count(*) || ' ' || md5(coalesce(string_agg(r, E'\\n' ORDER BY r), ''))
         FROM (SELECT ($cols)::text AS r FROM $2) s"
}
for n in 2 3; do
    servers="{w1,w2}"; [ $n = 3 ] && servers="{w1,w2,w3}"
    for t in $TABLES; do
        out=$(q 0 "SELECT tablescan_create_sharded('$t', '$servers', '${t#*.}_s$n')")
        check "create $t over $n workers" "${t}_s$n" "$out"
        local_rows=$(rows_of 0 "$t")
        check "$t over $n workers: the local rows" "$local_rows" "$(rows_of 0 "${t}_s$n")"
        # each shard's rows on its own: their counts add up to the table's
        sum=$(q 0 "SELECT sum(c) FROM (SELECT (SELECT count(*) FROM ${t}_s$n WHERE \"_SHARD\" = k) c FROM generate_series(1, $n) k) s")
        check "$t over $n workers: shard counts add up" "${local_rows%% *}" "$sum"
    done
done
check_match "rows spread over the shards (orders)" '^[1-9][0-9]*,[1-9][0-9]*,[1-9]' \
    "$(q 0 "SELECT string_agg(c::text, ',' ORDER BY k) FROM (SELECT \"_SHARD\" k, count(*) c FROM sales.orders_s3 GROUP BY 1) s")"
check_match "files spread over the shards (customers, unaware)" '^[1-9][0-9]*,[1-9]' \
    "$(q 0 "SELECT string_agg(c::text, ',' ORDER BY k) FROM (SELECT \"_SHARD\" k, count(*) c FROM sales.customers_s2 GROUP BY 1) s")"

# EXPLAIN on a worker names the shard
check_match "EXPLAIN shows the shard" 'Shard: 2 of 3 \(by bucket, kept [0-9]+ files, other shards. [0-9]+\)' \
    "$(q 2 "EXPLAIN SELECT * FROM sales.orders_shard_2_of_3")"
check_match "EXPLAIN shows the shard of an unaware table" 'Shard: 1 of 2 \(by file path hash' \
    "$(q 1 "EXPLAIN SELECT * FROM sales.customers_shard_1_of_2")"

# aggregates and GROUP BY run on the workers: postgres_fdw (PostgreSQL 15) pushes whole
# aggregates of a partition, so the query groups by "_SHARD" and combines the shards' results
AGG='SELECT sum(c), sum(s), min(mi), max(ma) FROM (SELECT count(*) c, sum(amount) s, min(id) mi, max(id) ma FROM sales.orders_s2 GROUP BY "_SHARD") x'
ex=$(q 0 "SET enable_partitionwise_aggregate = on; EXPLAIN VERBOSE $AGG")
check_match "count/sum/min/max pushed to the workers" 'Remote SQL: SELECT count\(\*\), sum\(amount\), min\(id\), max\(id\), "_SHARD" FROM sales.orders_shard_2_of_2 GROUP BY 5' "$ex"
check "aggregates through the coordinator = local" \
    "$(q 0 "SELECT count(*), sum(amount), min(id), max(id) FROM sales.orders")" \
    "$(q 0 "SET enable_partitionwise_aggregate = on; $AGG")"
GRP='SELECT customer, sum(c), sum(s) FROM (SELECT customer, count(*) c, sum(amount) s FROM sales.orders_s3 GROUP BY customer, "_SHARD") x GROUP BY 1 ORDER BY 1'
ex=$(q 0 "SET enable_partitionwise_aggregate = on; EXPLAIN VERBOSE $GRP")
check_match "GROUP BY pushed to the workers" 'Remote SQL: SELECT customer, count\(\*\), sum\(amount\), "_SHARD" FROM sales.orders_shard_3_of_3 GROUP BY 1, 4' "$ex"
check "GROUP BY through the coordinator = local" \
    "$(q 0 "SELECT customer, count(*), sum(amount) FROM sales.orders GROUP BY 1 ORDER BY 1")" \
    "$(q 0 "SET enable_partitionwise_aggregate = on; $GRP")"
# _SHARD beside another qual under GROUP BY "_SHARD": still pushed (the coordinator plans with the
# workers' estimates, use_remote_estimate), to worker 2 only; the worker computes it while scanning
SQ='SELECT "_SHARD", count(*), sum(amount) FROM sales.orders_s3 WHERE "_SHARD" = 2 AND id > 5 GROUP BY "_SHARD"'
check_match "_SHARD = 2 and another qual, GROUP BY \"_SHARD\": pushed to worker 2" \
    'Remote SQL: SELECT "_SHARD", count\(\*\), sum\(amount\) FROM sales.orders_shard_2_of_3 WHERE .*id > 5.*GROUP BY 1' \
    "$(q 0 "SET enable_partitionwise_aggregate = on; EXPLAIN VERBOSE $SQ")"
check "_SHARD = 2 and another qual, GROUP BY \"_SHARD\": the rows of shard 2" \
    "$(q 2 "SELECT 2, count(*), sum(amount) FROM sales.orders_shard_2_of_3 WHERE id > 5")" \
    "$(q 0 "SET enable_partitionwise_aggregate = on; $SQ")"
SQ='SELECT sum(c) FROM (SELECT count(*) c FROM sales.orders_s3 WHERE "_SHARD" IN (1, 3) AND customer > '"'"'a'"'"' GROUP BY "_SHARD") s'
check_match "_SHARD IN (1, 3) and another qual: pushed to workers 1 and 3" \
    'Remote SQL: SELECT count\(\*\), "_SHARD" FROM sales.orders_shard_1_of_3 WHERE .*GROUP BY 2.*Remote SQL: SELECT count\(\*\), "_SHARD" FROM sales.orders_shard_3_of_3 WHERE .*GROUP BY 2' \
    "$(q 0 "SET enable_partitionwise_aggregate = on; EXPLAIN VERBOSE $SQ" | tr '\n' ' ')"
check "_SHARD IN (1, 3) and another qual: the count = workers 1 and 3's" \
    "$(( $(q 1 "SELECT count(*) FROM sales.orders_shard_1_of_3 WHERE customer > 'a'") + \
         $(q 3 "SELECT count(*) FROM sales.orders_shard_3_of_3 WHERE customer > 'a'") ))" \
    "$(q 0 "SET enable_partitionwise_aggregate = on; $SQ")"
check_match "a worker estimates one group for GROUP BY \"_SHARD\" alone" 'HashAggregate  \(cost=[0-9.]+ rows=1 ' \
    "$(q 2 'EXPLAIN SELECT count(*), "_SHARD" FROM sales.orders_shard_2_of_3 WHERE id > 5 GROUP BY 2')"
check_match "async Append over the workers" 'Async Foreign Scan' \
    "$(q 0 "EXPLAIN SELECT * FROM sales.orders_s3")"

# a point query on the bucket key: files kept on one worker only
id=$(q 0 "SELECT min(id) FROM sales.orders")
local_kept=$(q 0 "EXPLAIN SELECT * FROM sales.orders WHERE id = $id" | sed -n 's/.*Data Files: \([0-9]*\) of.*/\1/p')
kept=""
for k in 1 2 3; do
    kept="$kept$(q $k "EXPLAIN SELECT * FROM sales.orders_shard_${k}_of_3 WHERE id = $id" | sed -n 's/.*Data Files: \([0-9]*\) of.*/\1/p'),"
done
check_match "point query: the local plan keeps files" '^[1-9]' "$local_kept"
check "point query: one worker keeps the local plan's files, the others none" \
    "1 $local_kept" "$(printf '%s' "$kept" | tr ',' '\n' | grep -v '^0*$' | awk '{n++; s=$1} END {print n, s}')"
check "point query through the coordinator = local" \
    "$(q 0 "SELECT * FROM sales.orders WHERE id = $id ORDER BY 1")" \
    "$(q 0 "SELECT id, customer, amount, ts, dt FROM sales.orders_s3 WHERE id = $id ORDER BY 1")"

# _SHARD: the coordinator prunes partitions; on a worker, a qual naming another K keeps no file
check "_SHARD = 2 reads one partition" 'orders_s3_2' \
    "$(q 0 "EXPLAIN (COSTS OFF) SELECT * FROM sales.orders_s3 WHERE \"_SHARD\" = 2" | grep -o 'orders_s3_[0-9]*' | sort -u | tr -d '\n')"
check_match "_SHARD of another shard on a worker: no scan, no file kept" 'One-Time Filter: false.*Shard Quals: false for _SHARD = 1: no file kept' \
    "$(q 1 "EXPLAIN SELECT * FROM sales.orders_shard_1_of_3 WHERE \"_SHARD\" = 2" | tr '\n' ' ')"
check "_SHARD holds K on every row" "1" "$(q 1 "SELECT count(DISTINCT \"_SHARD\") || '' FROM sales.orders_shard_1_of_3 WHERE \"_SHARD\" = 1")"
check "the worker tables carry _SHARD themselves: no view" "0" \
    "$(q 1 "SELECT count(*) FROM pg_views WHERE viewname LIKE '%_shard_%'")"
check_match "a worker computes the pushed GROUP BY \"_SHARD\" while scanning" 'Aggregate Pushdown: partial aggregates per group computed while scanning' \
    "$(q 2 'EXPLAIN SELECT count(*), sum(amount), min(id), max(id), "_SHARD" FROM sales.orders_shard_2_of_2 GROUP BY 5')"

# re-shard: the same call with another list
q 0 "SELECT tablescan_create_sharded('sales.orders', '{w2,w3}', 'orders_s3')" >/dev/null
check "re-shard over other workers = local" "$(rows_of 0 sales.orders)" "$(rows_of 0 sales.orders_s3)"

# a worker that is down: an ERROR naming it, not fewer rows
as_pg "$BIN/pg_ctl" -D "$TMP/n3" -m fast -w stop >/dev/null
check_match "worker down: ERROR naming it" 'could not connect to server "w3"' \
    "$(q 0 "SELECT count(*) FROM sales.orders_s3")"
check_match "setup refuses a non-postgres_fdw server" 'not a postgres_fdw server' \
    "$(q 0 "SELECT tablescan_create_sharded('sales.orders', '{lake}')")"

echo "scaleout: $passed passed, $failed failed, $skipped skipped"
