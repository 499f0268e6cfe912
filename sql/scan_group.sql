-- GROUP BY computed while scanning: the ForeignScan aggregates partial
-- states per group in a hash table (PostgreSQL's hash and equality
-- functions and collations) under PostgreSQL's Finalize Aggregate, which
-- combines them and applies HAVING.  Every query runs pushed and again with
-- tablescan.enable_aggregate_pushdown off, and must return the same rows.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders) FROM SERVER lake INTO public;
IMPORT FOREIGN SCHEMA types LIMIT TO (all_types, empty) FROM SERVER lake INTO public;
IMPORT FOREIGN SCHEMA bulk LIMIT TO (decimals, groups) FROM SERVER lake INTO public;
CREATE SCHEMA pk;
IMPORT FOREIGN SCHEMA pk LIMIT TO (pk_first_row) FROM SERVER lake INTO pk;
SET max_parallel_workers_per_gather = 0;

-- pushed (per group, computed while scanning)?  the same rows (in any
-- order) as PostgreSQL's aggregation?  how many groups?
CREATE FUNCTION check_group(q text, OUT pushed boolean, OUT same boolean, OUT groups int)
LANGUAGE plpgsql AS $$
DECLARE
  j json;
  result text;
  local text;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO j;
  pushed := j::text LIKE '%per group computed while scanning%';
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text), count(*) FROM (%s) q_', q)
    INTO result, groups;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'off', true);
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text) FROM (%s) q_', q) INTO local;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'on', true);
  same := result IS NOT DISTINCT FROM local;
END $$;

-- a view with a constant column, as tablescan_create_sharded makes on a worker
CREATE VIEW groups_shard AS SELECT *, 2 AS "_SHARD" FROM groups;

-- the plan: a Finalize HashAggregate over the scan of partial aggregates
EXPLAIN (VERBOSE, COSTS OFF)
  SELECT dt, count(*), sum(amount), max(customer) FROM orders WHERE id > 100 GROUP BY dt;
SELECT dt, count(*), sum(amount), max(customer) FROM orders WHERE id > 100 GROUP BY dt ORDER BY dt;
-- a constant key: the scan groups by tag and returns the constant beside it
EXPLAIN (VERBOSE, COSTS OFF)
  SELECT "_SHARD", tag, count(*) FROM groups_shard GROUP BY "_SHARD", tag;
-- HAVING, ORDER BY and LIMIT stay PostgreSQL's
EXPLAIN (COSTS OFF)
  SELECT tag, sum(amount) FROM groups GROUP BY tag HAVING count(*) > 200
  ORDER BY 2 DESC NULLS LAST, 1 LIMIT 3;
SELECT tag, sum(amount) FROM groups GROUP BY tag HAVING count(*) > 200
  ORDER BY 2 DESC NULLS LAST, 1 LIMIT 3;

-- partition keys, bucket keys and other columns; NULL groups; every
-- hashable key type; expressions over the aggregates
SELECT q, (check_group(q)).* FROM (VALUES
  ('SELECT day, count(*), sum(amount), avg(score), max(tag) FROM groups GROUP BY day'),
  ('SELECT tag, count(*), count(grade), sum(grade), min(seen), max(big) FROM groups GROUP BY tag'),
  ('SELECT grade, count(*), sum(small), avg(amount), stddev(big), variance(id) FROM groups GROUP BY grade'),
  ('SELECT flag, small, count(*), bool_and(flag), bit_or(small), bit_xor(big), sum(score) FROM groups GROUP BY flag, small'),
  ('SELECT day, tag, count(*), max(amount) FROM groups GROUP BY day, tag'),
  ('SELECT tag, grade, flag, count(*), min(id) FROM groups GROUP BY tag, grade, flag'),
  ('SELECT tag FROM groups GROUP BY tag'),
  ('SELECT count(*), sum(amount) FROM groups GROUP BY grade'),
  ('SELECT tag, sum(amount) / count(*) AS mean, max(tag) || ''!'' AS t FROM groups GROUP BY tag'),
  ('SELECT grade, count(*) FROM groups WHERE amount > 50 AND tag LIKE ''tag\_1%'' GROUP BY grade'),
  ('SELECT tag, count(*), sum(amount) FROM groups GROUP BY tag HAVING sum(amount) > 100 AND max(id) > 0'),
  ('SELECT dt, count(*), sum(amount), avg(amount) FROM orders GROUP BY dt'),
  ('SELECT dt, customer, count(*), max(amount) FROM orders GROUP BY dt, customer'),
  ('SELECT p, b, count(*), sum(i), max(s) FROM all_types GROUP BY p, b'),
  ('SELECT d2 IS NULL, count(*) FROM decimals GROUP BY 1'),
  ('SELECT p, count(*), sum(n), max(v) FROM pk.pk_first_row GROUP BY p'),
  ('SELECT a, count(*) FROM empty GROUP BY a'),
  -- constant keys (a view's constant column, as a scale-out worker's "_SHARD"):
  -- grouped by the other keys, the constant beside them; no row read, no group
  ('SELECT "_SHARD", count(*), sum(amount), max(tag) FROM groups_shard GROUP BY "_SHARD"'),
  ('SELECT "_SHARD", tag, count(*), avg(score) FROM groups_shard GROUP BY "_SHARD", tag'),
  ('SELECT tag, "_SHARD", day, count(*) FROM groups_shard GROUP BY day, "_SHARD", tag'),
  ('SELECT "_SHARD", count(*), sum(amount) FROM groups_shard WHERE length(tag) > 100 GROUP BY "_SHARD"'),
  ('SELECT "_SHARD", tag, count(*) FROM groups_shard WHERE length(tag) > 100 GROUP BY "_SHARD", tag'),
  ('SELECT 7 AS k, count(*) FROM empty GROUP BY k'),
  -- not pushed: PostgreSQL groups
  ('SELECT id % 3, count(*) FROM groups GROUP BY id % 3'),
  ('SELECT tag, count(DISTINCT grade) FROM groups GROUP BY tag'),
  ('SELECT tag, sum(amount + 1) FROM groups GROUP BY tag'),
  ('SELECT day, string_agg(tag, '','') FROM groups GROUP BY day'),
  ('SELECT tag, count(*) FILTER (WHERE flag) FROM groups GROUP BY tag'),
  ('SELECT day, tag, count(*) FROM groups GROUP BY ROLLUP (day, tag)')) v(q);

-- collations: a key's own (COLLATE "C"), and a nondeterministic one whose
-- equal strings are one group
CREATE COLLATION case_insensitive (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT q, (check_group(q)).* FROM (VALUES
  ('SELECT tag COLLATE "C" AS c, count(*), max(tag COLLATE "C") FROM groups GROUP BY 1'),
  ('SELECT upper(c), n FROM (SELECT tag COLLATE case_insensitive AS c, count(*) AS n FROM groups GROUP BY 1) s')) v(q);

-- more groups than the hash table may hold (work_mem): the scan returns
-- its partial states each time the table is full and starts again; the
-- Finalize Aggregate combines the groups that come out more than once
CREATE FUNCTION group_figures(q text, OUT groups_returned int, OUT flushes int, OUT rows_aggregated int)
LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
  scan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
  scan := jsonb_path_query_first(j, 'strict $.**?(@."Node Type" == "Foreign Scan")');
  groups_returned := (scan->>'Groups Returned')::int;
  flushes := (scan->>'Group Table Flushes')::int;
  rows_aggregated := (scan->>'Rows Aggregated')::int;
END $$;
SET work_mem = '64kB';
SELECT q, (check_group(q)).*, (group_figures(q)).flushes > 0 AS flushed FROM (VALUES
  ('SELECT id, count(*), sum(amount), avg(grade), max(tag), stddev(big) FROM groups GROUP BY id'),
  ('SELECT amount, count(*), sum(score), min(seen) FROM groups GROUP BY amount'),
  ('SELECT seen, tag, count(*), avg(small) FROM groups GROUP BY seen, tag'),
  ('SELECT id, count(*), sum(d0), sum(d18), avg(e2), max(d9) FROM decimals GROUP BY id'),
  ('SELECT id, count(*) FROM groups GROUP BY id HAVING sum(amount) > 1000')) v(q);
-- a group that comes out more than once
SELECT groups_returned > (SELECT count(*) FROM (SELECT 1 FROM groups GROUP BY tag, grade, flag) s)
  AS groups_out_again, flushes > 0 AS flushed, rows_aggregated
  FROM group_figures('SELECT tag, grade, flag, count(*), avg(amount) FROM groups GROUP BY tag, grade, flag');
RESET work_mem;
SELECT * FROM group_figures('SELECT tag, count(*), avg(grade) FROM groups WHERE small < 100 GROUP BY tag');

-- a generic plan keeps $1 to the rows; outer Params are not pushed
PREPARE g(int) AS SELECT day, count(*), sum(amount) FROM groups WHERE id < $1 GROUP BY day ORDER BY day;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE g(100);
EXECUTE g(100);
EXECUTE g(2000);
RESET plan_cache_mode;
EXPLAIN (COSTS OFF)
  SELECT x, (SELECT count(*) FROM (SELECT tag FROM groups WHERE id < x GROUP BY tag) s)
  FROM generate_series(10, 30, 10) x;

-- under a nested loop: the same groups each time
SET enable_material = off;
SELECT x, s.* FROM generate_series(1, 3) x
  LEFT JOIN (SELECT day, count(*), sum(amount) FROM groups GROUP BY day) s
  ON s.day <> '2020-01-01'::date + x ORDER BY x, day;
RESET enable_material;

-- an error in a qual is the query's
SELECT tag, count(*) FROM groups WHERE id / (id - 4300) > 0 GROUP BY tag;

-- in a parallel plan: each process aggregates the rows of the tasks it
-- takes into partial states per group, which a Gather and a Finalize
-- Aggregate combine
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
  SELECT tag, count(*), sum(amount), avg(id), max(seen) FROM groups WHERE id % 5 <> 0 GROUP BY tag;
SELECT q, (check_group(q)).* FROM (VALUES
  ('SELECT tag, count(*), sum(amount), avg(id), max(seen) FROM groups WHERE id % 5 <> 0 GROUP BY tag'),
  ('SELECT day, count(*), sum(score), avg(big), stddev(small) FROM groups GROUP BY day HAVING count(*) > 2'),
  ('SELECT flag, grade, sum(big), avg(amount), var_pop(grade), max(tag) FROM groups GROUP BY flag, grade'),
  ('SELECT tag COLLATE "C" AS c, count(*), max(tag COLLATE "C") FROM groups GROUP BY 1')) v(q);
SET work_mem = '64kB';
SELECT q, (check_group(q)).* FROM (VALUES
  ('SELECT id, count(*), sum(amount), avg(grade) FROM groups GROUP BY id'),
  ('SELECT seen, count(*), sum(big) FROM groups GROUP BY seen')) v(q);
RESET work_mem;
-- sorted: a Gather Merge and a Finalize GroupAggregate above, rescanned
-- under a nested loop (the leader plans and publishes the scan again)
SET enable_hashagg = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
  SELECT x, s.* FROM generate_series(1, 3) x
    LEFT JOIN (SELECT day, count(*), sum(amount) FROM groups GROUP BY day) s
    ON s.day <> '2020-01-01'::date + x;
SELECT x, s.* FROM generate_series(1, 3) x
  LEFT JOIN (SELECT day, count(*), sum(amount) FROM groups GROUP BY day) s
  ON s.day <> '2020-01-01'::date + x ORDER BY x, day;
RESET enable_material;
RESET enable_hashagg;
-- an error in a worker is the query's (terse: whether the leader or a worker
-- reaches the row first decides whether a "parallel worker" CONTEXT line follows)
\set VERBOSITY terse
SELECT tag, max(seen), count(*) FROM groups WHERE id / (id - 4300) > 0 GROUP BY tag;
\set VERBOSITY default
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- off: PostgreSQL's HashAggregate over the scan
SET tablescan.enable_aggregate_pushdown = off;
EXPLAIN (COSTS OFF) SELECT day, sum(amount) FROM groups GROUP BY day;
RESET tablescan.enable_aggregate_pushdown;

-- the cost: the scan's group table hashes each row as a HashAggregate
-- would, and its states are combined again above it, so it is chosen when
-- the groups are well below the rows.  Without statistics the planner
-- guesses 200 groups and pushes both; after ANALYZE a near-unique key (id)
-- is left to PostgreSQL's HashAggregate and a key of few values (tag) is
-- still pushed.  The rows are the same either way.
SELECT q, (check_group(q)).* FROM (VALUES
  ('SELECT id, count(*), sum(amount) FROM groups GROUP BY id'),
  ('SELECT tag, count(*), sum(amount) FROM groups GROUP BY tag')) v(q);
ANALYZE groups;
SELECT q, (check_group(q)).* FROM (VALUES
  ('SELECT id, count(*), sum(amount) FROM groups GROUP BY id'),
  ('SELECT tag, count(*), sum(amount) FROM groups GROUP BY tag')) v(q);
EXPLAIN (COSTS OFF) SELECT id, count(*), sum(amount) FROM groups GROUP BY id;

DROP FUNCTION check_group(text);
DROP FUNCTION group_figures(text);
DROP COLLATION case_insensitive;
DROP SERVER lake CASCADE;
DROP SCHEMA pk;
DROP EXTENSION tablescan_fdw;
