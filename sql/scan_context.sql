-- The rest of the scan context: LIMIT pushdown, metrics, per-query options.
CREATE EXTENSION tablescan_fdw;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '/tmp/tablescan_fdw_fixtures/warehouse');
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders) FROM SERVER lake INTO public;

-- the metrics of the last plan in this backend
SELECT count(*) FROM orders WHERE dt = 'dt_1' AND id = 43;
SELECT files_total, files_kept, files_pruned_partition, files_pruned_bucket,
       partitions_total, partitions_kept, buckets_total, manifests_read, entries_read,
       planning_ms >= 0 AS timed
  FROM tablescan_last_metrics();

-- LIMIT with nothing in between plans only the files it needs
EXPLAIN (COSTS OFF) SELECT * FROM orders LIMIT 5;
SELECT count(*) FROM (SELECT * FROM orders LIMIT 5) x;
SELECT files_kept, files_total FROM tablescan_last_metrics();
SELECT count(*) FROM (SELECT * FROM orders LIMIT 2500) x;
-- ...but not under ORDER BY, a filter or an aggregate
EXPLAIN (COSTS OFF) SELECT * FROM orders ORDER BY id LIMIT 5;
EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE amount > 1 LIMIT 5;
SELECT count(*) FROM (SELECT * FROM orders WHERE amount > 29.9 LIMIT 100) x;

-- per-query options replace nothing else and win over table options
CREATE FOREIGN TABLE orders_s1 (id int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.snapshot-id" '1');
SELECT count(*) FROM orders_s1;
SET tablescan.scan_options = 'scan.snapshot-id=2';
SELECT count(*) FROM orders_s1;
SET tablescan.scan_options = 'scan.snapshot-id = 0';
SELECT count(*) FROM orders_s1;
RESET tablescan.scan_options;

DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
