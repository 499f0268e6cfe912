-- count(*) answered from Paimon metadata (aggregate pushdown): the
-- manifests' row counts minus deletion vectors, no data file read.  Every
-- pushed count is checked against the count PostgreSQL computes over a
-- normal scan (OFFSET 0 keeps that subquery from being flattened, so
-- nothing is pushed there).  sales.orders: 3000 rows, dt = 'dt_' || (id % 3),
-- 4 buckets, 3 snapshots of 1000 rows.
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
IMPORT FOREIGN SCHEMA types LIMIT TO (empty, evolve, all_types) FROM SERVER lake INTO public;
CREATE SCHEMA pk;
IMPORT FOREIGN SCHEMA pk LIMIT TO (pk_dedup_dv) FROM SERVER lake INTO pk;

EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM orders;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM orders WHERE dt = 'dt_1';

-- counted from metadata or not (scan_aggregate has the aggregates computed
-- while scanning), and the same number as PostgreSQL's own count
CREATE FUNCTION pushed(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO j;
  RETURN j::text LIKE '%manifest row counts%';
END $$;
CREATE FUNCTION check_count(tab text, cond text, OUT pushed boolean, OUT n bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT count(*) FROM %s %s', tab, cond);
  local bigint;
BEGIN
  pushed := pushed(q);
  EXECUTE q INTO n;
  EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %s %s OFFSET 0) s', tab, cond) INTO local;
  same := n = local;
END $$;
SELECT cond, (check_count('orders', cond)).* FROM (VALUES
  (''),
  ('WHERE dt = ''dt_1'''),
  ('WHERE dt <> ''dt_1'''),
  ('WHERE dt IN (''dt_0'', ''dt_2'')'),
  ('WHERE dt NOT IN (''dt_0'', ''dt_2'')'),
  ('WHERE dt > ''dt_0'' COLLATE "C" OR dt IS NULL'),
  ('WHERE dt IS NULL'),
  ('WHERE dt IS NOT NULL AND dt <= ''dt_1'' COLLATE "C"'),
  ('WHERE dt = ''dt_9'''),
  ('WHERE NOT (dt = ''dt_1'')'),
  -- not decidable per partition: PostgreSQL counts
  ('WHERE id = 43'),
  ('WHERE dt = ''dt_1'' OR id = 1'),
  ('WHERE dt LIKE ''dt\_1%'''),
  ('WHERE upper(dt) = ''DT_1'''),
  ('WHERE dt::text = ''dt_1''::varchar'),
  ('WHERE dt = ''dt_1'' AND amount > 50')) v(cond);

-- other tables: an empty one, one with an evolved schema, a primary-key
-- table (merged on read: never pushed)
SELECT tab, (check_count(tab, '')).* FROM (VALUES ('empty'), ('evolve'), ('pk.pk_dedup_dv')) v(tab);

-- shapes of the query
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) + 1, count(*) * 2 FROM orders WHERE dt = 'dt_2';
SELECT count(*) + 1 AS plus_one, count(*) * 2 AS twice FROM orders WHERE dt = 'dt_2';
SELECT q, pushed(q) FROM (VALUES
  ('SELECT count(id) FROM orders'),
  ('SELECT count(*) FILTER (WHERE id > 5) FROM orders'),
  ('SELECT count(DISTINCT dt) FROM orders'),
  ('SELECT count(*), sum(amount) FROM orders'),
  ('SELECT dt, count(*) FROM orders GROUP BY dt HAVING count(*) > 1'),
  ('SELECT dt, count(*) FROM orders GROUP BY ROLLUP (dt)'),
  ('SELECT count(*) FROM orders HAVING count(*) > 1'),
  ('SELECT count(*) FROM orders o JOIN empty e ON true'),
  ('SELECT count(*) FROM orders LIMIT 1')) v(q);
-- GROUP BY partition keys: counts per partition, the same groups as PostgreSQL's own
CREATE FUNCTION check_groups(tab text, keys text, cond text,
                             OUT pushed boolean, OUT groups bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  q text := format('SELECT %s, count(*) FROM %s %s GROUP BY %s', keys, tab, cond, keys);
  diff bigint;
BEGIN
  pushed := pushed(q);
  EXECUTE format('SELECT count(*) FROM (%s) g', q) INTO groups;
  EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT ALL (SELECT %s, count(*) FROM '
                 '(SELECT * FROM %s %s OFFSET 0) s GROUP BY %s)) d',
                 q, keys, tab, cond, keys) INTO diff;
  same := diff = 0;
END $$;
SELECT tab, keys, cond, (check_groups(tab, keys, cond)).* FROM (VALUES
  ('orders', 'dt', ''),
  ('orders', 'dt', 'WHERE dt IN (''dt_0'', ''dt_2'')'),
  ('orders', 'dt', 'WHERE dt = ''dt_9'''),
  ('all_types', 'p', ''),
  ('all_types', 'p', 'WHERE p > 0'),
  ('orders', 'id', ''),
  ('orders', 'dt', 'WHERE id > 5')) v(tab, keys, cond);
EXPLAIN (VERBOSE, COSTS OFF) SELECT dt, count(*) FROM orders GROUP BY dt ORDER BY dt;
SELECT dt, count(*) FROM orders GROUP BY dt ORDER BY dt;

-- a correlated subquery: a Param, never pushed, still right
SELECT g, (SELECT count(*) FROM orders WHERE dt = 'dt_' || g) FROM generate_series(0, 3) g;

-- time travel: the count of the snapshot read
CREATE FOREIGN TABLE orders_v1 (id int, dt text) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.snapshot-id" '1');
SELECT (check_count('orders_v1', '')).*;

-- prepared statements: custom plans count from metadata; the generic plan (a
-- Param) counts while scanning
PREPARE c(text) AS SELECT count(*) FROM orders WHERE dt = $1;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE c('dt_0');
EXECUTE c('dt_0');
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE c('dt_0');
EXECUTE c('dt_0');
RESET plan_cache_mode;

-- with pruning off the count still applies the filter itself
SET tablescan.enable_pruning = off;
SELECT (check_count('orders', 'WHERE dt IN (''dt_0'', ''dt_1'')')).*;
RESET tablescan.enable_pruning;

-- the setting that turns it off
SET tablescan.enable_aggregate_pushdown = off;
SELECT (check_count('orders', '')).*;
RESET tablescan.enable_aggregate_pushdown;

-- metadata alone: a missing data file does not stop count(*), reading does
\set path :fixtures/broken/missing_data
CREATE FOREIGN TABLE missing_data (id int, name text) SERVER lake
  OPTIONS (path :'path');
SELECT count(*) FROM missing_data;
SELECT pg_temp.error_of('SELECT count(id) FROM missing_data');

DROP SERVER lake CASCADE;
DROP SCHEMA pk;
DROP EXTENSION tablescan_fdw;
