-- The rest of the scan context: LIMIT pushdown, metrics, per-query options.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
-- a statement's error as psql prints it, the fixtures directory shown as <fixtures>
SET regress.fixtures = :'fixtures';
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  fx text := current_setting('regress.fixtures');
  msg text; det text; hint text; ctx text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
                          hint = PG_EXCEPTION_HINT, ctx = PG_EXCEPTION_CONTEXT;
  RETURN NEXT replace('ERROR:  ' || msg, fx, '<fixtures>');
  RETURN QUERY SELECT replace(k || ':  ' || v, fx, '<fixtures>')
    FROM (VALUES (1, 'DETAIL', det), (2, 'HINT', hint)) AS f(o, k, v) WHERE v <> '' ORDER BY o;
  RETURN QUERY SELECT 'CONTEXT:  ' || replace(l, fx, '<fixtures>')
    FROM regexp_split_to_table(ctx, E'\n') WITH ORDINALITY AS c(l, o)
    WHERE l <> '' AND l !~ '^(PL/pgSQL function|SQL statement)' ORDER BY o;
END $$;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
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

-- time travel by time: the newest snapshot committed at or before it
-- (snapshots 1..3 of orders were committed at 1700000001000 + 1000 * (n - 1) ms)
CREATE FOREIGN TABLE orders_t (id int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.timestamp-millis" '1700000002500');
SELECT count(*) FROM orders_t;
SET TIME ZONE 'UTC';
CREATE FOREIGN TABLE orders_ts (id int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.timestamp" '2023-11-14 22:13:21.999');
SELECT count(*) FROM orders_ts;
SET TIME ZONE 'Asia/Tokyo';
SELECT pg_temp.error_of('SELECT count(*) FROM orders_ts');  -- the same text is 9 hours earlier there: before every snapshot
RESET TIME ZONE;
CREATE FOREIGN TABLE orders_both (id int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.timestamp-millis" '1700000002500',
           "scan.snapshot-id" '1');
SELECT count(*) FROM orders_both;

-- the live manifest-entry cache: a second plan of the same snapshot reads no
-- manifest (the first query's plan fills it and is executed as planned; the
-- second query's plan hits it)
SELECT tablescan_cache_reset();
SELECT count(*) FROM orders WHERE dt = 'dt_2';
SELECT count(*) FROM orders WHERE dt = 'dt_2';
SELECT cache_hit, manifests_read FROM tablescan_last_metrics();
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(id) FROM orders WHERE dt = 'dt_2';
SELECT cache_hit, manifests_read, files_kept FROM tablescan_last_metrics();
CREATE FOREIGN TABLE orders_nocache (id int, dt text) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', cache 'false');
SELECT count(*) FROM orders_nocache WHERE dt = 'dt_2';
SELECT cache_hit, manifests_read FROM tablescan_last_metrics();
SET tablescan.cache_size = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM orders WHERE id = 5;
RESET tablescan.cache_size;

-- incremental reads: the rows appended by snapshots 2 and 3 (start exclusive)
CREATE FOREIGN TABLE orders_inc (id int, dt text) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "incremental-between" '1,3');
SELECT count(*), min(id), max(id) FROM orders_inc;
EXPLAIN (COSTS OFF) SELECT * FROM orders_inc WHERE dt = 'dt_0';
SET tablescan.scan_options = 'incremental-between=2,3';
SELECT count(*), min(id), max(id) FROM orders;
RESET tablescan.scan_options;
CREATE FOREIGN TABLE orders_inc_bad (id int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "incremental-between" '3,1');
CREATE FOREIGN TABLE orders_inc_far (id int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "incremental-between" '1,9');
SELECT pg_temp.error_of('SELECT count(*) FROM orders_inc_far');

DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
