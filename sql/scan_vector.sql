-- Aggregates computed by columns (src/fdw/scan_vector.c): a pushed
-- aggregation whose inputs are fixed-width columns and whose aggregates
-- are count, sum of int2 / int4 / float4 / float8, min / max, bool_and /
-- bool_or runs over the batches without Datum rows.  Every query runs
-- pushed and again with tablescan.enable_aggregate_pushdown off (PostgreSQL
-- aggregating the same rows) and must return the same rows; "Rows
-- Aggregated By Column" of EXPLAIN ANALYZE says the path was taken.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA types LIMIT TO (empty) FROM SERVER lake INTO public;
IMPORT FOREIGN SCHEMA bulk LIMIT TO (groups) FROM SERVER lake INTO public;
SET max_parallel_workers_per_gather = 0;
SET TIME ZONE 'UTC';

-- pushed?  the same rows (in any order) as PostgreSQL's aggregation?  how
-- many rows?  rows aggregated by columns (NULL: row by row)?
CREATE FUNCTION check_vec(q text, OUT pushed boolean, OUT same boolean, OUT nrows int,
                          OUT by_column int)
LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
  result text;
  local text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
  pushed := j::text LIKE '%computed while scanning%';
  by_column := (jsonb_path_query_first(j, 'strict $.**?(@."Node Type" == "Foreign Scan")')
                ->>'Rows Aggregated By Column')::int;
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text), count(*) FROM (%s) q_', q)
    INTO result, nrows;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'off', true);
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text) FROM (%s) q_', q) INTO local;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'on', true);
  same := result IS NOT DISTINCT FROM local;
END $$;

-- a CSV format table written here: 3000 rows of every fixed-width type
-- with NULLs, then groups of special values (k 100 ...): NaN, 0 and -0 in
-- both orders, infinities, a group whose values are all NULL, int4 values
-- whose sum leaves int4's range, a NULL key
SELECT current_setting('data_directory') || '/regress_vector' AS vecdir,
       current_setting('data_directory') || '/regress_vector_ovf' AS ovfdir,
       current_setting('data_directory') || '/regress_vector_big' AS bigdir \gset
COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf regress_vector regress_vector_ovf regress_vector_big; mkdir -p -m 0755 regress_vector regress_vector_ovf regress_vector_big';
\set vecfile :vecdir/part-0.csv
SET DateStyle = ISO;
COPY (
  SELECT CASE WHEN n % 11 = 0 THEN NULL ELSE n % 7 END AS k,
         CASE WHEN n % 13 = 0 THEN NULL ELSE (n % 200 - 100)::smallint END AS s,
         CASE WHEN n % 5 = 0 THEN NULL ELSE 2147483647 - n END AS i,
         CASE WHEN n % 6 = 0 THEN NULL ELSE n::bigint * 1000000007 * (1 - 2 * (n % 2)) END AS b,
         CASE WHEN n % 9 = 0 THEN NULL ELSE (n / 7.0)::real END AS r,
         CASE WHEN n % 4 = 0 THEN NULL ELSE n / 3.0 + 0.1 END::float8 AS f,
         CASE WHEN n % 8 = 0 THEN NULL ELSE date '2020-01-01' + n % 400 END AS d,
         CASE WHEN n % 10 = 0 THEN NULL
              ELSE timestamp '2020-01-01' + n * interval '37 minutes 13.123456 seconds' END AS t,
         CASE WHEN n % 12 = 0 THEN NULL WHEN n % 3 = 0 THEN 'true' ELSE 'false' END AS z,
         CASE WHEN n % 14 = 0 THEN NULL ELSE 'w_' || (n * 7919) % 1000 END AS w,
         CASE WHEN n % 15 = 0 THEN NULL ELSE (n * 1.37)::numeric(10, 2) END AS m
    FROM generate_series(1, 3000) n
  UNION ALL
  SELECT * FROM (VALUES
    (100, 1::smallint, 1, 1::bigint, 'NaN'::real, 'NaN'::float8, date '2020-01-01', timestamp '2020-01-01', 'true', 'é', 1.5),
    (100, 2::smallint, 2, 2, 1.5, 1.5, date '2019-01-01', timestamp '2019-01-01', 'true', NULL, NULL),
    (101, 3::smallint, 3, 3, 0, 0, NULL, NULL, 'false', NULL, NULL),
    (101, 4::smallint, 4, 4, '-0', '-0', NULL, NULL, 'false', NULL, NULL),
    (102, 5::smallint, 5, 5, '-0', '-0', NULL, NULL, NULL, NULL, NULL),
    (102, 6::smallint, 6, 6, 0, 0, NULL, NULL, 'true', NULL, NULL),
    (103, 7::smallint, 2147483647, 9223372036854775807, 'Infinity', 'Infinity', NULL, NULL, 'false', NULL, NULL),
    (103, 8::smallint, 2147483647, -9223372036854775808, '-Infinity', '-Infinity', NULL, NULL, 'true', NULL, NULL),
    (103, NULL::smallint, -2147483648, NULL, 2, 2, NULL, NULL, NULL, NULL, NULL),
    (104, NULL::smallint, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (104, NULL::smallint, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (NULL, 9::smallint, 9, 9, 'NaN', 9, date '2020-02-02', NULL, 'false', 'zz', -1)) v)
  TO :'vecfile' CSV;
CREATE FOREIGN TABLE vec (k int, s smallint, i int, b bigint, r real, f float8, d date,
                          t timestamp, z boolean, w text, m numeric(10, 2))
  SERVER lake OPTIONS (path :'vecdir', format 'csv');
SELECT count(*), count(k), count(s), count(i), count(b), count(r), count(f), count(d), count(t),
       count(z), sum(i) FROM vec;

SELECT q, (check_vec(q)).* FROM (VALUES
  -- no GROUP BY
  ('SELECT count(*), count(k), count(t), sum(s), sum(i), sum(r), sum(f) FROM vec'),
  ('SELECT min(s), max(s), min(i), max(i), min(b), max(b), min(r), max(r), min(f), max(f) FROM vec'),
  ('SELECT min(d), max(d), min(t), max(t), bool_and(z), bool_or(z), count(z) FROM vec'),
  ('SELECT min(t::timestamptz), count(*) FROM vec'),
  -- GROUP BY one fixed-width key of each type, NULL keys included
  ('SELECT k, count(*), count(f), sum(i), sum(s), sum(f), sum(r), min(f), max(f), min(r), max(r) FROM vec GROUP BY k'),
  ('SELECT k, min(b), max(b), min(d), max(d), min(t), max(t), bool_and(z), bool_or(z) FROM vec GROUP BY k'),
  ('SELECT s, count(*), sum(f), max(i) FROM vec GROUP BY s'),
  ('SELECT z, count(*), sum(i), min(f), max(r) FROM vec GROUP BY z'),
  ('SELECT d, count(*), sum(f), max(t) FROM vec GROUP BY d'),
  ('SELECT t, count(*), sum(s) FROM vec GROUP BY t'),
  ('SELECT b, count(*), max(f) FROM vec GROUP BY b'),
  ('SELECT r, count(*), sum(i) FROM vec GROUP BY r'),
  ('SELECT f, count(*), sum(i) FROM vec WHERE true GROUP BY f'),
  -- HAVING and expressions stay PostgreSQL''s
  ('SELECT k, sum(f) / count(*) FROM vec GROUP BY k HAVING max(i) > 0'),
  -- by columns, the aggregates without a loop of their own called value by
  -- value: avg(int4) (an internal state), text, numeric
  ('SELECT k, sum(b), avg(i), count(*) FROM vec GROUP BY k'),
  ('SELECT k, count(w), max(w), min(w), sum(m), max(m), avg(f), sum(f) FROM vec GROUP BY k'),
  ('SELECT max(w), sum(m), count(*), sum(f), stddev(i), max(d) FROM vec'),
  -- max / min of text by the strings' bytes (the database's collation
  -- orders by bytes): a loop of ours, no Datum made for w
  ('SELECT k, max(w), min(w) FROM vec GROUP BY k'),
  ('SELECT max(w), min(w) FROM vec'),
  ('SELECT max(w COLLATE "C"), min(w COLLATE "POSIX"), count(w) FROM vec'),
  -- sum(numeric) without GROUP BY: each chunk's exact sum into
  -- numeric_avg_accum (avg(numeric) and GROUP BY: value by value)
  ('SELECT sum(m) FROM vec'),
  ('SELECT sum(m), avg(m), count(m), max(w) FROM vec'),
  -- row by row: no loop of ours (text under a collation that does not
  -- order by bytes), a text key, two keys (the qual: decided exactly by the
  -- row filter, by columns; sum(int8): a loop of ours)
  ('SELECT k, max(w), sum(b) FROM vec GROUP BY k'),
  ('SELECT max(w COLLATE "und-x-icu"), min(w COLLATE "und-x-icu") FROM vec'),
  ('SELECT w, count(*), sum(f) FROM vec GROUP BY w'),
  ('SELECT k, count(*), sum(f) FROM vec WHERE i > 2147480000 GROUP BY k'),
  ('SELECT k, z, count(*), sum(f) FROM vec GROUP BY k, z'),
  ('SELECT max(t::text), count(*) FROM vec')) v(q);

-- with quals (no GROUP BY): a batch whose rows the row filter decided
-- every qual on exactly is aggregated by columns, any other row by row with
-- the quals checked.  Each query against PostgreSQL's aggregation (same),
-- against its rows with nothing pushed to the scan (tablescan.enable_pruning
-- off: no row filter, every qual checked on every row) and with
-- tablescan.enable_columnar_aggregate off; matching: the rows the WHERE
-- keeps (counted with nothing pushed); by_column: rows aggregated by
-- columns, NULL where the quals went row by row.
CREATE FUNCTION check_filtered(q text, OUT same boolean, OUT same_unpushed boolean,
                               OUT same_rows boolean, OUT matching int, OUT by_column int)
LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
  result text;
  other text;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
  by_column := (jsonb_path_query_first(j, 'strict $.**?(@."Node Type" == "Foreign Scan")')
                ->>'Rows Aggregated By Column')::int;
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text) FROM (%s) q_', q) INTO result;
  same := (check_vec(q)).same;
  PERFORM set_config('tablescan.enable_pruning', 'off', true);
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'off', true);
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text) FROM (%s) q_', q) INTO other;
  same_unpushed := result IS NOT DISTINCT FROM other;
  EXECUTE 'SELECT count(*) FROM vec ' ||
    regexp_replace(substring(q from ' WHERE .*$'), ' GROUP BY .*$', '') INTO matching;
  PERFORM set_config('tablescan.enable_pruning', 'on', true);
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'on', true);
  PERFORM set_config('tablescan.enable_columnar_aggregate', 'off', true);
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text) FROM (%s) q_', q) INTO other;
  same_rows := result IS NOT DISTINCT FROM other;
  PERFORM set_config('tablescan.enable_columnar_aggregate', 'on', true);
END $$;
-- the Foreign Scan's EXPLAIN ANALYZE figures
CREATE FUNCTION scan_figures(q text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
  RETURN jsonb_path_query_first(j, 'strict $.**?(@."Node Type" == "Foreign Scan")');
END $$;
SELECT q, (check_filtered(q)).* FROM (VALUES
  -- decided exactly: by columns
  ('SELECT count(*), sum(i), sum(f), max(t) FROM vec WHERE k = 3'),
  ('SELECT count(*), sum(s), min(r), max(r) FROM vec WHERE i < 2147482000'),
  ('SELECT count(*), sum(f), min(b) FROM vec WHERE d BETWEEN ''2020-03-01'' AND ''2020-06-30'''),
  ('SELECT count(*), sum(i), max(f) FROM vec WHERE k IN (1, 4, 100)'),
  ('SELECT count(*), count(k), sum(i), bool_or(z) FROM vec WHERE f IS NULL'),
  ('SELECT count(*), sum(r), max(d) FROM vec WHERE k = 2 AND f > 100 AND t IS NOT NULL'),
  ('SELECT count(*), sum(f), max(i) FROM vec WHERE f > 900 OR k = 1'),
  ('SELECT count(*), sum(i), min(t) FROM vec WHERE w = ''w_123'' COLLATE "C"'),
  ('SELECT count(*), sum(i), min(t) FROM vec WHERE w < ''w_2'' COLLATE "C"'),
  ('SELECT count(*), min(f), max(i) FROM vec WHERE f >= ''NaN'''),
  ('SELECT count(*), sum(i), min(r) FROM vec WHERE r = 0 AND f = 0'),
  -- by columns with aggregates called value by value (text, int8, numeric)
  ('SELECT count(*), sum(b), max(w), sum(m), sum(f) FROM vec WHERE k IS NULL'),
  -- not decided exactly: row by row
  ('SELECT count(*), sum(i), sum(f) FROM vec WHERE abs(k) = 3'),
  ('SELECT count(*), sum(i), max(f) FROM vec WHERE r > 0.1::float8'),
  ('SELECT count(*), sum(i), max(f) FROM vec WHERE w LIKE ''w_1%'''),
  ('SELECT count(*), sum(i), max(f) FROM vec WHERE k = 3 AND i % 2 = 0'),
  ('SELECT count(*), sum(i), max(f) FROM vec WHERE k = 3 OR abs(s) < 5'),
  -- NOT over an OR: PostgreSQL makes it k <> 3 AND f <= 10, decided exactly
  ('SELECT count(*), sum(i), max(f) FROM vec WHERE NOT (k = 3 OR f > 10)')) v(q);
SET tablescan.enable_pruning = off;
SELECT q, (check_vec(q)).by_column FROM (VALUES
  ('SELECT count(*), sum(i), sum(f), max(t) FROM vec WHERE k = 3')) v(q);
RESET tablescan.enable_pruning;

-- with quals and GROUP BY one key: the same, each batch the row filter
-- decided exactly by columns (each row's group by its key), any other row
-- by row with the quals checked and each kept row's group found by its
-- key.  Quals on the key (NULL groups kept or not) and on other columns;
-- the rows of each query as PostgreSQL's aggregation, as its rows with
-- nothing pushed, and with tablescan.enable_columnar_aggregate off.
-- (vec has no statistics: with few rows estimated to pass the quals the
-- costs of the two plans are close; the settings make the pushed one win.)
SET cpu_operator_cost = 0;
SET enable_sort = off;
SELECT q, (check_vec(q)).pushed, (check_filtered(q)).* FROM (VALUES
  -- decided exactly: by columns
  ('SELECT k, count(*), sum(i), sum(f), max(t) FROM vec WHERE k IN (1, 4, 100) GROUP BY k'),
  ('SELECT k, count(*), count(f), sum(f), min(r), max(r) FROM vec WHERE k IS NULL OR k > 100 GROUP BY k'),
  ('SELECT k, count(*), sum(i), min(b) FROM vec WHERE k IS NOT NULL AND i < 2147482000 GROUP BY k'),
  ('SELECT k, count(*), sum(s), max(d) FROM vec WHERE f > 900 OR f IS NULL GROUP BY k'),
  ('SELECT z, count(*), sum(i), min(f), max(r) FROM vec WHERE d BETWEEN ''2020-03-01'' AND ''2020-06-30'' GROUP BY z'),
  ('SELECT d, count(*), sum(f), bool_or(z) FROM vec WHERE k = 2 AND t IS NOT NULL GROUP BY d'),
  ('SELECT f, count(*), sum(i) FROM vec WHERE f >= ''NaN'' OR f = 0 GROUP BY f'),
  ('SELECT r, count(*), sum(i), max(f) FROM vec WHERE r = 0 OR r IS NULL GROUP BY r'),
  ('SELECT k, count(*), sum(b), max(w), sum(m), sum(f) FROM vec WHERE w < ''w_2'' COLLATE "C" GROUP BY k'),
  ('SELECT s, count(*), sum(i) FROM vec WHERE k = 999 GROUP BY s'),
  -- not decided exactly: row by row
  ('SELECT k, count(*), sum(i), sum(f) FROM vec WHERE abs(k) < 5 GROUP BY k'),
  ('SELECT k, count(*), sum(i), max(f) FROM vec WHERE w LIKE ''w_1%'' GROUP BY k'),
  ('SELECT z, count(*), sum(i), max(f) FROM vec WHERE k = 3 OR abs(s) < 5 GROUP BY z'),
  ('SELECT k, count(*), sum(r) FROM vec WHERE r > 0.1::float8 GROUP BY k')) v(q);
-- more groups than work_mem holds, with quals: the groups go out in the
-- middle of a batch (by columns, and row by row) and the scan reads on
SET work_mem = '64kB';
SELECT q, (check_vec(q)).pushed, (check_filtered(q)).*,
       (scan_figures(q)->>'Group Table Flushes')::int > 0 AS flushed FROM (VALUES
  ('SELECT i, count(*), sum(s), max(f), min(r) FROM vec WHERE k <> 3 GROUP BY i'),
  ('SELECT i, count(*), sum(s), max(f), min(r) FROM vec WHERE abs(k) <> 3 GROUP BY i')) v(q);
RESET work_mem;
RESET cpu_operator_cost;
RESET enable_sort;

-- the special groups one by one: NaN above every number, of 0 and -0 the
-- later input, inf + -inf is NaN, all-NULL sums NULL, int4 sums past int4
WITH x AS MATERIALIZED (
  SELECT k, count(*), count(f), sum(f), min(f), max(f), sum(r), min(r), max(r), sum(i), sum(s)
    FROM vec GROUP BY k)
SELECT * FROM x WHERE k >= 100 OR k IS NULL ORDER BY k;
SET tablescan.enable_aggregate_pushdown = off;
WITH x AS MATERIALIZED (
  SELECT k, count(*), count(f), sum(f), min(f), max(f), sum(r), min(r), max(r), sum(i), sum(s)
    FROM vec GROUP BY k)
SELECT * FROM x WHERE k >= 100 OR k IS NULL ORDER BY k;
RESET tablescan.enable_aggregate_pushdown;

-- float sums past the type's range: the same ERROR as float8pl / float4pl
\set ovffile :ovfdir/part-0.csv
COPY (SELECT 1, 1e308::float8, 3e38::real UNION ALL SELECT 1, 1e308, 3e38) TO :'ovffile' CSV;
CREATE FOREIGN TABLE vec_ovf (k int, f float8, r real)
  SERVER lake OPTIONS (path :'ovfdir', format 'csv');
SELECT k, sum(f) FROM vec_ovf GROUP BY k;
SELECT sum(r) FROM vec_ovf;
SET tablescan.enable_aggregate_pushdown = off;
SELECT k, sum(f) FROM vec_ovf GROUP BY k;
SELECT sum(r) FROM vec_ovf;
RESET tablescan.enable_aggregate_pushdown;

-- sum(int8) / avg(int8) by columns (int8_avg_accum's int128 state, added
-- as it adds): sums beyond bigint's range, both signs, NULLs, a NULL key,
-- a group of NULLs only, each row 300 times; serial, and with the partial
-- states serialized (GROUP BY: a Finalize Aggregate above)
\set bigfile :bigdir/part-0.csv
COPY (SELECT k, b FROM (VALUES
  (1, 9223372036854775807), (1, 9223372036854775807), (1, 9223372036854775806), (1, NULL),
  (2, -9223372036854775808), (2, -9223372036854775808), (2, 1),
  (3, NULL), (3, NULL),
  (4, 9223372036854775807), (4, -9223372036854775808), (4, 5),
  (NULL, 7), (NULL, -3)) v(k, b), generate_series(1, 300)) TO :'bigfile' CSV;
CREATE FOREIGN TABLE vec_big (k int, b bigint) SERVER lake OPTIONS (path :'bigdir', format 'csv');
SELECT q, (check_vec(q)).* FROM (VALUES
  ('SELECT k, sum(b), avg(b), count(b), count(*) FROM vec_big GROUP BY k'),
  ('SELECT sum(b), avg(b), count(b) FROM vec_big'),
  ('SELECT sum(b), avg(b) FROM vec_big WHERE k = 3'),
  ('SELECT k, sum(b), avg(b), sum(i), min(b) FROM vec GROUP BY k'),
  ('SELECT sum(b), avg(b), max(b) FROM vec')) v(q);
SELECT k, sum(b), avg(b), count(b) FROM vec_big GROUP BY k ORDER BY k;
SELECT sum(b), avg(b), count(b) FROM vec_big;

-- a table of partitions, buckets and two snapshots; an empty one
SELECT q, (check_vec(q)).* FROM (VALUES
  ('SELECT day, count(*), sum(score), min(big), max(seen), sum(small) FROM groups GROUP BY day'),
  ('SELECT flag, count(*), count(score), bool_and(flag), min(score), max(id) FROM groups GROUP BY flag'),
  ('SELECT small, count(*), sum(id), max(score) FROM groups GROUP BY small'),
  ('SELECT count(*), sum(id), sum(score), min(seen), max(big) FROM groups'),
  ('SELECT a, count(*), sum(a), max(a) FROM empty GROUP BY a'),
  ('SELECT count(*), sum(a), min(a) FROM empty')) v(q);

-- more groups than work_mem holds: the groups go out and the scan reads on
SET work_mem = '64kB';
SELECT q, (check_vec(q)).* FROM (VALUES
  ('SELECT id, count(*), sum(score), max(big), min(seen) FROM groups GROUP BY id'),
  ('SELECT i, count(*), sum(s), max(f), min(r) FROM vec GROUP BY i')) v(q);
-- (a float sum of a group that comes out more than once is added in row
-- order per part, then the parts, as in PostgreSQL's parallel plans: not
-- the serial HashAggregate's order, row by row or by columns)
SELECT (f->>'Group Table Flushes')::int > 0 AS flushed, f->>'Rows Aggregated' AS rows_aggregated,
       f->>'Rows Aggregated By Column' AS by_column
  FROM scan_figures('SELECT id, count(*), sum(score) FROM groups GROUP BY id') f;
RESET work_mem;

-- tablescan.enable_columnar_aggregate off: row by row, the same rows
SET tablescan.enable_columnar_aggregate = off;
SELECT q, (check_vec(q)).* FROM (VALUES
  ('SELECT k, count(*), count(f), sum(i), sum(s), sum(f), sum(r), min(f), max(f), min(r), max(r) FROM vec GROUP BY k')) v(q);
RESET tablescan.enable_columnar_aggregate;

-- under a nested loop: aggregated again at each rescan, the same groups
SET enable_material = off;
SELECT x, s.* FROM generate_series(1, 3) x
  LEFT JOIN (SELECT day, count(*), sum(score), max(big) FROM groups GROUP BY day) s
  ON s.day <> '2020-01-01'::date + x ORDER BY x, day;
RESET enable_material;

-- in a parallel plan: each process aggregates its tasks' rows by columns
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
  SELECT day, count(*), sum(score), max(big) FROM groups GROUP BY day;
SELECT q, (scan_figures(q)->>'Parallel Aware')::boolean AS parallel, c.pushed, c.same, c.nrows
  FROM (VALUES
  ('SELECT day, count(*), sum(score), max(big), min(small) FROM groups GROUP BY day'),
  ('SELECT flag, count(*), sum(id), min(score) FROM groups GROUP BY flag'),
  ('SELECT count(*), sum(id), max(score), bool_or(flag) FROM groups'),
  -- with quals: by columns where decided exactly, row by row where not
  ('SELECT day, count(*), sum(score), max(big) FROM groups WHERE small < 5 OR small IS NULL GROUP BY day'),
  ('SELECT flag, count(*), sum(id), min(score) FROM groups WHERE id % 3 = 0 OR day IS NULL GROUP BY flag'),
  ('SELECT count(*), sum(small), max(score) FROM groups WHERE big > 0'),
  ('SELECT day, sum(big), avg(big), count(*) FROM groups GROUP BY day'),
  ('SELECT sum(big), avg(big), sum(id) FROM groups'),
  ('SELECT k, count(*), sum(i), sum(f), max(t) FROM vec WHERE k > 2 OR k IS NULL GROUP BY k'),
  ('SELECT k, count(*), sum(i), sum(f) FROM vec WHERE abs(k) < 5 GROUP BY k')) v(q),
  LATERAL check_vec(q) c;
-- EXPLAIN ANALYZE of a parallel plan: the rows the processes aggregated
-- (the workers' left at their shutdown), of them by columns; the rows the
-- WHERE keeps counted by PostgreSQL
SELECT f->>'Parallel Aware' AS parallel, f->>'Rows Aggregated' AS rows_aggregated,
       f->>'Rows Aggregated By Column' AS by_column
  FROM scan_figures('SELECT day, count(*), sum(score) FROM groups WHERE small < 5 OR small IS NULL GROUP BY day') f;
SELECT f->>'Rows Aggregated' AS rows_aggregated, f->>'Rows Aggregated By Column' AS by_column
  FROM scan_figures('SELECT flag, count(*), sum(id) FROM groups WHERE id % 3 = 0 OR day IS NULL GROUP BY flag') f;
-- the same when the leader reads nothing (the workers' counts alone)
SET parallel_leader_participation = off;
SELECT f->>'Rows Aggregated' AS rows_aggregated, f->>'Rows Aggregated By Column' AS by_column
  FROM scan_figures('SELECT day, count(*), sum(score) FROM groups WHERE small < 5 OR small IS NULL GROUP BY day') f;
RESET parallel_leader_participation;
SET tablescan.enable_aggregate_pushdown = off;
SELECT count(*) FILTER (WHERE small < 5 OR small IS NULL) AS small_matching,
       count(*) FILTER (WHERE id % 3 = 0 OR day IS NULL) AS id_matching FROM groups;
RESET tablescan.enable_aggregate_pushdown;
RESET max_parallel_workers_per_gather;

COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf regress_vector regress_vector_ovf regress_vector_big';
DROP FUNCTION check_filtered(text);
DROP FUNCTION check_vec(text);
DROP FUNCTION scan_figures(text);
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
