-- Parallel Foreign Scan: the leader and the workers share out the splits
-- (each file of a split read file by file, whole splits otherwise) and
-- every row is read once.  Each query runs in parallel and again serially
-- (max_parallel_workers_per_gather = 0) and must return the same rows;
-- EXPLAIN ANALYZE's Files Read / Rows Read include the workers' figures.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders) FROM SERVER lake INTO public;
IMPORT FOREIGN SCHEMA bulk LIMIT TO (decimals) FROM SERVER lake INTO public;
-- bulk.wide: ~2 KB strings (batches converted in several windows)
\set wide_name `printf 'x%.0s' $(seq 2000)`
CREATE FOREIGN TABLE wide (id integer, w text, n integer, big bigint)
  SERVER lake OPTIONS (database 'bulk', "table" 'wide');
ALTER FOREIGN TABLE wide ALTER COLUMN w OPTIONS (column_name :'wide_name');
IMPORT FOREIGN SCHEMA types FROM SERVER lake INTO public;
IMPORT FOREIGN SCHEMA ft FROM SERVER lake INTO public;
CREATE SCHEMA pk;
IMPORT FOREIGN SCHEMA pk FROM SERVER lake INTO pk;
\getenv shared TS_SHARED
\set warehouse :shared/testdata/parquet
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA append_table_with_rt_branch FROM SERVER shared INTO public;
IMPORT FOREIGN SCHEMA data_evolution_with_index FROM SERVER shared INTO public;
IMPORT FOREIGN SCHEMA pk_table_scan_and_read_dv FROM SERVER shared INTO public;
IMPORT FOREIGN SCHEMA append_complex_data FROM SERVER shared INTO public;
IMPORT FOREIGN SCHEMA append_table_with_alter_table FROM SERVER shared INTO public;

-- parallel plans however small the table; aggregates computed by
-- PostgreSQL over the scans (not pushed into a serial scan: scan_aggregate)
SET tablescan.enable_aggregate_pushdown = off;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET cpu_tuple_cost = 1;
SET max_parallel_workers_per_gather = 2;

EXPLAIN (COSTS OFF) SELECT count(*), sum(amount) FROM orders;
EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE dt = 'dt_1' AND id > 100;

-- Is the query's scan a Parallel Foreign Scan, and does it return the same
-- rows (count and a hash of every row as text) as a serial scan?
CREATE FUNCTION parallel_plan(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%Parallel Foreign Scan%' THEN RETURN true; END IF;
  END LOOP;
  RETURN false;
END $$;
CREATE FUNCTION check_parallel(q text, OUT parallel boolean, OUT n bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  agg text := format('SELECT count(*), sum(hashtext(t::text)::numeric) FROM (%s) t', q);
  h numeric;
  n0 bigint;
  h0 numeric;
BEGIN
  parallel := parallel_plan(agg);
  EXECUTE agg INTO n, h;
  PERFORM set_config('max_parallel_workers_per_gather', '0', true);
  EXECUTE agg INTO n0, h0;
  PERFORM set_config('max_parallel_workers_per_gather', '2', true);
  same := n = n0 AND h IS NOT DISTINCT FROM h0;
END $$;

SELECT q, (check_parallel(q)).* FROM (VALUES
  ('SELECT * FROM orders'),
  ('SELECT * FROM orders WHERE dt = ''dt_1'''),
  ('SELECT * FROM orders WHERE id = 17'),
  ('SELECT id, amount FROM orders WHERE amount > 5'),
  ('SELECT * FROM wide'),
  ('SELECT * FROM decimals'),
  ('SELECT * FROM all_types'),
  ('SELECT * FROM evolve'),
  ('SELECT * FROM empty'),
  ('SELECT * FROM events_csv'),
  ('SELECT * FROM events_json'),
  ('SELECT * FROM pk.pk_dedup_level0'),
  ('SELECT * FROM pk.pk_dedup_levels'),
  ('SELECT * FROM pk.pk_dedup_dv'),
  ('SELECT * FROM pk.pk_first_row'),
  ('SELECT * FROM pk.pk_partial_update'),
  ('SELECT * FROM pk.pk_aggregation'),
  ('SELECT * FROM pk_table_scan_and_read_dv'),
  ('SELECT * FROM append_table_with_rt_branch'),
  ('SELECT * FROM data_evolution_with_index'),
  ('SELECT a.id, b.customer FROM orders a JOIN orders b ON a.id = b.id AND a.dt = b.dt'),
  ('SELECT o.id, d.d9 FROM orders o JOIN decimals d ON d.id = o.id')
) v(q);

-- with the leader reading nothing, every row comes from the workers
SET parallel_leader_participation = off;
SELECT (check_parallel('SELECT * FROM orders')).*;
RESET parallel_leader_participation;

-- EXPLAIN ANALYZE: the workers ran, and the files and rows read by all
-- processes are those of the serial scan
CREATE FUNCTION figures(q text, OUT workers_launched int, OUT files_read int, OUT rows_read int)
LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
  scan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
  scan := jsonb_path_query_first(j, 'strict $.**?(@."Node Type" == "Foreign Scan")');
  workers_launched := coalesce(jsonb_path_query_first(j, 'strict $.**."Workers Launched"')::int, 0);
  files_read := (scan->>'Files Read')::int;
  rows_read := (scan->>'Rows Read')::int;
END $$;
SELECT (figures('SELECT count(amount) FROM orders')).workers_launched > 0 AS parallel,
       (figures('SELECT count(amount) FROM orders')).files_read,
       (figures('SELECT count(amount) FROM orders')).rows_read;
SET max_parallel_workers_per_gather = 0;
SELECT * FROM figures('SELECT count(amount) FROM orders');
-- files count when opened: a LIMIT stops in the first file
SELECT * FROM figures('SELECT * FROM orders LIMIT 5');
SET max_parallel_workers_per_gather = 2;

-- large Parquet files in parts (tablescan.parallel_task_size): with 1 kB
-- parts, each Parquet file of an append table is several tasks, each
-- reading the row groups that start in its bytes; every row still once
SET tablescan.parallel_task_size = '1kB';
SELECT q, (check_parallel(q)).* FROM (VALUES
  ('SELECT * FROM append_complex_data'),
  ('SELECT * FROM append_table_with_alter_table'),
  ('SELECT * FROM append_table_with_alter_table WHERE k > 2')
) v(q);
EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT * FROM append_complex_data OFFSET 0) s;
CREATE FUNCTION row_groups(q text, OUT row_groups text, OUT rows_read int)
LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
  j := jsonb_path_query_first(j, 'strict $.**?(@."Node Type" == "Foreign Scan")');
  row_groups := (j->>'Row Groups Kept') || ' of ' || (j->>'Row Groups Total');
  rows_read := (j->>'Rows Read')::int;
END $$;
SELECT * FROM row_groups('SELECT * FROM append_table_with_alter_table');
SET max_parallel_workers_per_gather = 0;
SELECT * FROM row_groups('SELECT * FROM append_table_with_alter_table');
SET max_parallel_workers_per_gather = 2;
-- parts only for Parquet files of append / format tables without deletion
-- vectors: not for primary-key files, Avro files (orders)
CREATE FUNCTION tasks(q text, part text, OUT tasks int)
LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
BEGIN
  PERFORM set_config('tablescan.parallel_task_size', part, true);
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO j;
  tasks := (jsonb_path_query_first(j, 'strict $.**."Parallel Tasks"') #>> '{}')::int;
END $$;
SELECT q, tasks(q, '1kB') AS in_1kb_parts, tasks(q, '16MB') AS whole_files FROM (VALUES
  ('SELECT * FROM append_complex_data'),
  ('SELECT * FROM pk_table_scan_and_read_dv'),
  ('SELECT * FROM orders')
) v(q);
SELECT (check_parallel('SELECT * FROM pk_table_scan_and_read_dv')).*;
RESET tablescan.parallel_task_size;

-- a Gather rescanned by a nested loop (its outer side, a temporary table,
-- cannot be read by workers): the scan is shared out again for every
-- outer row
CREATE TEMP TABLE xs (x int);
INSERT INTO xs VALUES (0), (1), (2);
ANALYZE xs;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT xs.x, count(*) FROM xs JOIN orders o ON o.id % 3 = xs.x GROUP BY xs.x;
SELECT xs.x, count(*), sum(hashtext(o::text)::numeric) AS h
  FROM xs JOIN orders o ON o.id % 3 = xs.x GROUP BY xs.x ORDER BY xs.x;
SELECT (figures('SELECT xs.x FROM xs JOIN orders o ON o.id % 3 = xs.x')).files_read;
SET max_parallel_workers_per_gather = 0;
SELECT xs.x, count(*), sum(hashtext(o::text)::numeric) AS h
  FROM xs JOIN orders o ON o.id % 3 = xs.x GROUP BY xs.x ORDER BY xs.x;
SET max_parallel_workers_per_gather = 2;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- a format table imported as a partitioned table (a foreign table per
-- partition, two files each): a Parallel Append over the partitions'
-- parallel scans
CREATE SCHEMA ftp;
IMPORT FOREIGN SCHEMA ft LIMIT TO (events_csv) FROM SERVER lake INTO ftp
  OPTIONS (import_partitions 'true');
EXPLAIN (COSTS OFF) SELECT count(*) FROM ftp.events_csv WHERE region IN ('eu', 'us') AND dt = '2024-01-01';
SELECT (check_parallel('SELECT * FROM ftp.events_csv')).*;
SELECT (check_parallel('SELECT * FROM ftp.events_csv WHERE dt < ''2024-01-03'' AND region IS NOT NULL')).*;
DROP SCHEMA ftp CASCADE;

-- a serial scan never runs inside a worker (each would plan the latest
-- snapshot on its own): force_parallel_mode finds no parallel-safe plan
SET force_parallel_mode = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM decimals WHERE d2 > 5;
RESET force_parallel_mode;

-- the option parallel_workers (the heap's reloption): on the table or its
-- server, 0 turns parallel scans off
ALTER FOREIGN TABLE orders OPTIONS (ADD parallel_workers '1');
EXPLAIN (COSTS OFF) SELECT count(*), sum(amount) FROM orders;
ALTER FOREIGN TABLE orders OPTIONS (SET parallel_workers '0');
SELECT parallel_plan('SELECT count(*), sum(amount) FROM orders');
ALTER FOREIGN TABLE orders OPTIONS (DROP parallel_workers);
ALTER SERVER lake OPTIONS (ADD parallel_workers '0');
SELECT parallel_plan('SELECT count(*), sum(amount) FROM orders');
ALTER SERVER lake OPTIONS (DROP parallel_workers);
SELECT parallel_plan('SELECT count(*), sum(amount) FROM orders');
ALTER FOREIGN TABLE orders OPTIONS (ADD parallel_workers '-1');
ALTER FOREIGN TABLE orders OPTIONS (ADD parallel_workers '1025');
ALTER FOREIGN TABLE orders OPTIONS (ADD parallel_workers 'two');

-- a scan of one task (one file) stays serial (its partial path costs what
-- the serial scan does), and so does every scan with parallel query off
EXPLAIN (COSTS OFF) SELECT * FROM decimals;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT count(*), sum(amount) FROM orders;
RESET max_parallel_workers_per_gather;
RESET cpu_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

DROP FUNCTION figures(text);
DROP FUNCTION check_parallel(text);
DROP FUNCTION parallel_plan(text);
DROP SCHEMA pk CASCADE;
DROP SERVER shared CASCADE;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
