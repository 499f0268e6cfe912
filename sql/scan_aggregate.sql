-- Aggregates computed while scanning (aggregate pushdown): the ForeignScan
-- that replaces the Aggregate reads the rows, checks the quals and feeds
-- PostgreSQL's own transition functions.  Every query runs pushed and
-- again with tablescan.enable_aggregate_pushdown off (PostgreSQL's
-- Aggregate over a normal scan) and must return the same row.
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
IMPORT FOREIGN SCHEMA types LIMIT TO (all_types, empty) FROM SERVER lake INTO public;
IMPORT FOREIGN SCHEMA bulk LIMIT TO (decimals) FROM SERVER lake INTO public;
IMPORT FOREIGN SCHEMA ft LIMIT TO (events_csv) FROM SERVER lake INTO public;
CREATE SCHEMA pk;
IMPORT FOREIGN SCHEMA pk FROM SERVER lake INTO pk;
-- tables Java Paimon wrote: data evolution, a fallback branch
\getenv shared TS_SHARED
\set warehouse :shared/testdata/parquet
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA data_evolution_with_index FROM SERVER shared INTO public;
IMPORT FOREIGN SCHEMA append_table_with_rt_branch FROM SERVER shared INTO public;
SET max_parallel_workers_per_gather = 0;

-- pushed (computed while scanning)?  the same row as PostgreSQL's Aggregate?
CREATE FUNCTION check_agg(q text, OUT pushed boolean, OUT same boolean, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
  j json;
  local text;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO j;
  pushed := j::text LIKE '%computed while scanning%';
  EXECUTE format('SELECT q_::text FROM (%s) q_', q) INTO result;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'off', true);
  EXECUTE format('SELECT q_::text FROM (%s) q_', q) INTO local;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'on', true);
  same := result IS NOT DISTINCT FROM local;
END $$;

EXPLAIN (VERBOSE, COSTS OFF) SELECT sum(amount), max(customer) FROM orders WHERE id > 100;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*), avg(amount) FROM orders WHERE dt = 'dt_1' AND amount > 50;

-- every type of all_types, NULLs among them
SELECT q, (check_agg(q)).* FROM (VALUES
  ('SELECT count(*), count(b), bool_and(b), bool_or(b), every(b) FROM all_types'),
  ('SELECT min(ti), max(ti), sum(ti), avg(ti), min(si), max(si), sum(si), avg(si) FROM all_types'),
  ('SELECT min(i), max(i), sum(i), avg(i), bit_and(i), bit_or(i), variance(i) FROM all_types'),
  ('SELECT min(bi), max(bi), sum(bi), avg(bi), stddev(bi), bit_xor(bi) FROM all_types'),
  ('SELECT min(f), max(f), sum(f), avg(f), min(d), max(d), sum(d), avg(d), stddev_pop(d) FROM all_types'),
  ('SELECT min(dec_s), max(dec_s), sum(dec_s), avg(dec_s), var_samp(dec_s) FROM all_types'),
  ('SELECT min(dec_l), max(dec_l), sum(dec_l), avg(dec_l) FROM all_types'),
  ('SELECT min(c), max(c), min(vc), max(vc), min(s), max(s), max(s COLLATE "C") FROM all_types'),
  -- text by its bytes (C, POSIX, the database's C.UTF-8) or by ICU
  ('SELECT min(s COLLATE "POSIX"), max(vc), min(s COLLATE "und-x-icu"), max(s COLLATE "und-x-icu") FROM all_types WHERE i > 4'),
  ('SELECT min(dt), max(dt), min(tm), max(tm), min(ts), max(ts), max(ts3), min(ltz), max(ltz) FROM all_types'),
  ('SELECT count(arr), count(m), count(bin), max(p) FROM all_types'),
  ('SELECT sum(i)::numeric / count(*) AS mean, max(s) || ''!'' AS s FROM all_types'),
  ('SELECT sum(i), max(s) FROM all_types WHERE i > 2 AND s IS NOT NULL'),
  ('SELECT sum(bi) FROM all_types WHERE d > 0.5 OR b'),
  ('SELECT count(*), sum(bi) FROM all_types WHERE i = ti AND i = 4'),
  ('SELECT count(*), max(si) FROM all_types WHERE i = ti AND si > 10'),
  -- not pushed: PostgreSQL aggregates
  ('SELECT max(arr) FROM all_types'),
  ('SELECT string_agg(s, '','') FROM all_types'),
  ('SELECT array_agg(i) FROM all_types'),
  ('SELECT count(DISTINCT i) FROM all_types'),
  ('SELECT sum(i) FILTER (WHERE i > 1) FROM all_types'),
  ('SELECT sum(i + 1) FROM all_types'),
  ('SELECT sum(i) FROM all_types HAVING sum(i) > 0'),
  ('SELECT p, sum(i) FROM all_types GROUP BY p ORDER BY p LIMIT 1')) v(q);

-- other tables: partitions and buckets (pruned and filtered), decimals of
-- every scale, an empty table, primary-key tables (merged on read), a
-- format table
SELECT q, (check_agg(q)).* FROM (VALUES
  ('SELECT count(*), sum(amount), avg(amount), min(ts), max(customer) FROM orders'),
  ('SELECT count(*), sum(amount) FROM orders WHERE dt = ''dt_2'' AND id % 7 = 1'),
  ('SELECT count(id), max(amount) FROM orders WHERE id = 43'),
  ('SELECT max(amount), min(customer) FROM orders WHERE customer LIKE ''customer\_1%'''),
  ('SELECT sum(d0), sum(d1), sum(d5), sum(d9), sum(d18), avg(e2), max(e5) FROM decimals'),
  ('SELECT count(*), sum(a), max(b) FROM empty'),
  ('SELECT count(*), sum(n), max(v), avg(d) FROM pk.pk_dedup_dv'),
  ('SELECT count(*), sum(n), min(v), sum(d) FROM pk.pk_dedup_levels'),
  ('SELECT count(*), sum(n), max(v) FROM pk.pk_aggregation'),
  ('SELECT count(*), sum(n), max(v) FROM pk.pk_partial_update'),
  ('SELECT count(*), sum(n), max(v) FROM pk.pk_first_row WHERE p = 1'),
  ('SELECT count(*), max(region), min(dt) FROM events_csv WHERE dt = ''2024-01-01'''),
  ('SELECT count(*), count(f0), max(f0), sum(f1), avg(f2), sum(f3) FROM data_evolution_with_index'),
  ('SELECT count(*), max(f0), sum(f2) FROM data_evolution_with_index WHERE f1 > 1'),
  ('SELECT count(*), max(name) FROM append_table_with_rt_branch')) v(q);

-- Params: a prepared statement (a generic plan keeps $1 to the rows);
-- outer Params of a subquery are not pushed (a rescan would change them)
PREPARE a(int) AS SELECT count(*), sum(amount) FROM orders WHERE id < $1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE a(100);
EXECUTE a(100);
EXECUTE a(2000);
RESET plan_cache_mode;
SELECT count(*), sum(amount) FROM (SELECT * FROM orders WHERE id < 100 OFFSET 0) s;
EXPLAIN (COSTS OFF)
  SELECT x, (SELECT max(amount) FROM orders WHERE id < x) FROM generate_series(10, 30, 10) x;
SELECT x, (SELECT max(amount) FROM orders WHERE id < x) FROM generate_series(10, 30, 10) x;

-- rescanned under a nested loop: aggregated again each time
EXPLAIN (COSTS OFF)
  SELECT x, s.* FROM generate_series(1, 3) x,
    LATERAL (SELECT count(*), max(id) FROM orders WHERE dt = 'dt_1') s;
SELECT x, s.* FROM generate_series(1, 3) x,
  LATERAL (SELECT count(*), max(id) FROM orders WHERE dt = 'dt_1') s;

-- a serial scan: not parallel safe (force_parallel_mode finds no plan for a worker)
SET force_parallel_mode = on;
EXPLAIN (COSTS OFF) SELECT max(amount) FROM orders;
RESET force_parallel_mode;

-- in a parallel plan: each process aggregates the rows of the tasks it
-- takes into partial states (internal ones serialized), which a Gather
-- and a Finalize Aggregate combine
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET cpu_tuple_cost = 1;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
  SELECT count(*), sum(amount), avg(id), max(customer) FROM orders WHERE id % 5 <> 0;
SELECT q, (check_agg(q)).* FROM (VALUES
  ('SELECT count(*), sum(amount), avg(id), max(customer), min(ts) FROM orders WHERE id % 5 <> 0'),
  ('SELECT sum(bi), avg(bi), stddev(i), bool_or(b), max(s), sum(dec_l), var_pop(dec_s) FROM all_types'),
  ('SELECT count(*), sum(n), max(v) FROM pk.pk_dedup_dv'),
  ('SELECT sum(d0), sum(d18), avg(e2) FROM decimals WHERE d2 > 5')) v(q);
-- EXPLAIN ANALYZE: the Foreign Scan's loops and rows read, the workers' included
CREATE FUNCTION figures(q text, OUT parallel boolean, OUT loops int, OUT rows_read int)
LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
  scan jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
  scan := jsonb_path_query_first(j, 'strict $.**?(@."Node Type" == "Foreign Scan")');
  parallel := (scan->>'Parallel Aware')::boolean;
  loops := (scan->>'Actual Loops')::int;
  rows_read := (scan->>'Rows Read')::int;
END $$;
SELECT count(*), sum(amount) FROM orders WHERE dt = 'dt_0';
SELECT parallel, rows_read FROM figures('SELECT count(*), sum(amount) FROM orders WHERE dt = ''dt_0''');
-- rescanned: the leader plans and publishes the scan again for the new workers
SET enable_material = off;
EXPLAIN (COSTS OFF)
  SELECT x, s.* FROM generate_series(1, 3) x
    LEFT JOIN (SELECT count(*), sum(amount) FROM orders WHERE dt = 'dt_0') s ON true;
SELECT parallel, rows_read FROM figures($$SELECT x, s.* FROM generate_series(1, 3) x
  LEFT JOIN (SELECT count(*), sum(amount) FROM orders WHERE dt = 'dt_0') s ON true$$);
SELECT x, s.* FROM generate_series(1, 3) x
  LEFT JOIN (SELECT count(*), sum(amount) FROM orders WHERE dt = 'dt_0') s ON true;
RESET enable_material;
-- an error in a worker is the query's
SELECT max(customer), count(*) FROM orders WHERE id / (id - 43) > 0;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET cpu_tuple_cost;
SET max_parallel_workers_per_gather = 0;

-- errors of the scan or of the quals are the query's
CREATE FOREIGN TABLE missing (id int, v text) SERVER lake
  OPTIONS (database 'sales', "table" 'no_such_table');
SELECT pg_temp.error_of('SELECT max(v) FROM missing');
SELECT max(customer), count(*) FROM orders WHERE id / (id - 43) > 0;

-- quals decided on the values before conversion (read/row_filter.c): the
-- rows for which a conjunct of the scan's predicate is certainly not true
-- go before their Datums are built.  The same rows as with pruning off (no
-- predicate: every row converted, every qual PostgreSQL's) and as through
-- PostgreSQL's Aggregate; NULLs fail every comparison; equality under a
-- nondeterministic collation, ranges under a non-C collation and char(n)
-- are never decided early (their rows are PostgreSQL's to judge).
CREATE COLLATION ci_filter (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE FUNCTION check_filter(q text, OUT same boolean, OUT result text)
LANGUAGE plpgsql AS $$
DECLARE
  unpruned text;
  local text;
BEGIN
  EXECUTE format('SELECT q_::text FROM (%s) q_', q) INTO result;
  PERFORM set_config('tablescan.enable_pruning', 'off', true);
  EXECUTE format('SELECT q_::text FROM (%s) q_', q) INTO unpruned;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'off', true);
  EXECUTE format('SELECT q_::text FROM (%s) q_', q) INTO local;
  PERFORM set_config('tablescan.enable_pruning', 'on', true);
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'on', true);
  same := result IS NOT DISTINCT FROM unpruned AND result IS NOT DISTINCT FROM local;
END $$;
SELECT q, (check_filter(q)).* FROM (VALUES
  ('SELECT count(*), sum(i), max(s) FROM all_types WHERE i < 17'),
  ('SELECT count(*), sum(i), min(bi) FROM all_types WHERE bi >= 21000000147 AND si <> 30'),
  ('SELECT count(*), sum(i) FROM all_types WHERE i IN (1, 3, 8, 13, 40)'),
  ('SELECT count(*), sum(i) FROM all_types WHERE i NOT IN (1, 3, 8, 13)'),
  ('SELECT count(*), sum(i) FROM all_types WHERE i IS NULL OR d IS NULL'),
  ('SELECT count(*), sum(i) FROM all_types WHERE i IS NOT NULL AND d > 10.5'),
  ('SELECT count(*), sum(d), max(f) FROM all_types WHERE d <= 0 OR f > 15'),
  ('SELECT count(*), max(d) FROM all_types WHERE d <> 0 AND d < ''NaN'''),
  ('SELECT count(*), max(d) FROM all_types WHERE d = ''NaN'' OR d >= ''Infinity'''),
  ('SELECT count(*), min(dt), max(dt) FROM all_types WHERE dt >= ''2020-01-10'' AND dt < ''2020-02-01'''),
  ('SELECT count(*), max(s) FROM all_types WHERE s = ''s_12'''),
  ('SELECT count(*), max(s) FROM all_types WHERE s < ''s_2'' COLLATE "C"'),
  ('SELECT count(*), max(vc) FROM all_types WHERE vc LIKE ''vc\_1%'''),
  ('SELECT count(*), max(i) FROM all_types WHERE NOT (i < 30)'),
  ('SELECT count(*), max(i) FROM all_types WHERE i::bigint < 5000000000 AND f < 3.3'),
  -- never decided early: PostgreSQL's collations and char(n)
  ('SELECT count(*), max(s) FROM all_types WHERE s = ''S_12'' COLLATE ci_filter'),
  ('SELECT count(*), max(s) FROM all_types WHERE s COLLATE ci_filter IN (''S_12'', ''s_13'')'),
  ('SELECT count(*), max(s) FROM all_types WHERE s < ''s_2'''),
  ('SELECT count(*), max(c) FROM all_types WHERE c = ''c_1'''),
  -- GROUP BY over filtered rows
  ('SELECT string_agg(g::text, '','' ORDER BY g) FROM (SELECT p, count(*) AS g FROM all_types WHERE i > 6 AND s <> ''s_9'' GROUP BY p) x')) v(q);
-- the rows of a plain scan, too
SELECT i, d, s FROM all_types WHERE i > 33 AND d IS NOT NULL ORDER BY i;
DROP FUNCTION check_filter(text);
DROP COLLATION ci_filter;

-- sum(numeric) by a chunk's exact sum (scan_vector.c) where the column's
-- typmod keeps the file's scale (dec_s: DECIMAL(10, 2)); another scale
-- rounds each value first (value by value), a value past the typmod errs
-- as it does row by row; dec_l's values past int64 go value by value
SELECT q, (check_agg(q)).* FROM (VALUES
  ('SELECT sum(dec_s), count(dec_s), sum(dec_l) FROM all_types'),
  ('SELECT sum(dec_s), avg(dec_s), sum(dec_s) FILTER (WHERE i > 20) FROM all_types'),
  ('SELECT sum(dec_s) FROM all_types WHERE i > 4')) v(q);
ALTER FOREIGN TABLE all_types ALTER COLUMN dec_s TYPE numeric(20, 1);
SELECT q, (check_agg(q)).* FROM (VALUES
  ('SELECT sum(dec_s), count(dec_s) FROM all_types')) v(q);
ALTER FOREIGN TABLE all_types ALTER COLUMN dec_s TYPE numeric(1, 2);
SELECT pg_temp.error_of('SELECT sum(dec_s) FROM all_types');
SET tablescan.enable_aggregate_pushdown = off;
SELECT pg_temp.error_of('SELECT sum(dec_s) FROM all_types');
RESET tablescan.enable_aggregate_pushdown;
ALTER FOREIGN TABLE all_types ALTER COLUMN dec_s TYPE numeric(10, 2);

-- off: PostgreSQL's Aggregate over the scan
SET tablescan.enable_aggregate_pushdown = off;
EXPLAIN (COSTS OFF) SELECT sum(amount) FROM orders;
RESET tablescan.enable_aggregate_pushdown;

DROP FUNCTION check_agg(text);
DROP SERVER shared CASCADE;
DROP FUNCTION figures(text);
DROP SERVER lake CASCADE;
DROP SCHEMA pk;
DROP EXTENSION tablescan_fdw;
