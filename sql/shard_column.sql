-- The pseudo-column _SHARD of a foreign table (README "Scaling out"): K of
-- option "scan.shard" 'K/N' on every row (1 without the option), of the
-- integer types a user declares; quals on it decided for the whole scan
-- at plan time (false: no file kept, true: dropped); GROUP BY "_SHARD"
-- with aggregate pushdown and count(*) from metadata; a real Paimon field
-- _SHARD wins; writing it is refused unless NULL.  References: the table
-- read without the option, and PostgreSQL's own aggregation.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
SET max_parallel_workers_per_gather = 0;
\i test/sql/fails.sql

-- orders: 4 fixed buckets (shards by bucket); customers: bucket-unaware (by file path)
CREATE FOREIGN TABLE o_all (id int, customer text, amount numeric(10,2), dt text) SERVER lake
  OPTIONS (database 'sales', "table" 'orders');
CREATE FOREIGN TABLE o_1 (id int, customer text, amount numeric(10,2), dt text, "_SHARD" smallint)
  SERVER lake OPTIONS (database 'sales', "table" 'orders', "scan.shard" '1/3');
CREATE FOREIGN TABLE o_2 (id int, customer text, "_SHARD" integer, amount numeric(10,2), dt text)
  SERVER lake OPTIONS (database 'sales', "table" 'orders', "scan.shard" '2/3');
CREATE FOREIGN TABLE o_3 ("_SHARD" bigint, id int, customer text, amount numeric(10,2), dt text)
  SERVER lake OPTIONS (database 'sales', "table" 'orders', "scan.shard" '3/3');
CREATE FOREIGN TABLE o_3n (id int, shard numeric(3,0) OPTIONS (column_name '_SHARD'))
  SERVER lake OPTIONS (database 'sales', "table" 'orders', "scan.shard" '3/3');
CREATE FOREIGN TABLE o_whole (id int, "_SHARD" int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders');
CREATE FOREIGN TABLE c_1 (id int, name text, "_SHARD" int) SERVER lake
  OPTIONS (database 'sales', "table" 'customers', "scan.shard" '1/2');
CREATE FOREIGN TABLE c_2 (id int, name text, "_SHARD" int) SERVER lake
  OPTIONS (database 'sales', "table" 'customers', "scan.shard" '2/2');

-- ---- the value: K on every row, of the declared type ------------------------
SELECT DISTINCT "_SHARD", pg_typeof("_SHARD") FROM o_1;
SELECT DISTINCT "_SHARD", pg_typeof("_SHARD") FROM o_2;
SELECT DISTINCT "_SHARD", pg_typeof("_SHARD") FROM o_3;
SELECT DISTINCT shard, pg_typeof(shard) FROM o_3n;
SELECT DISTINCT "_SHARD" FROM c_2;
-- without "scan.shard" (the whole table, '1/1'): 1
SELECT "_SHARD", count(*) = (SELECT count(*) FROM o_all) AS every_row FROM o_whole GROUP BY 1;
-- with other columns, and alone (no field read), NULL never
SELECT count(*) FILTER (WHERE "_SHARD" IS NULL) AS nulls, count(*) > 0 AS rows FROM o_2;
SELECT sum("_SHARD") = 2 * count(*) AS sum_is_k_per_row FROM o_2;

-- ---- the shards together are the table ---------------------------------------
SELECT (SELECT count(*) FROM o_1) > 0 AND (SELECT count(*) FROM o_2) > 0
       AND (SELECT count(*) FROM o_3) > 0 AS every_shard_has_rows,
       (SELECT md5(string_agg(r::text, ';' ORDER BY r::text)) FROM o_all r)
     = (SELECT md5(string_agg(r::text, ';' ORDER BY r::text)) FROM (
          SELECT id, customer, amount, dt FROM o_1 UNION ALL
          SELECT id, customer, amount, dt FROM o_2 UNION ALL
          SELECT id, customer, amount, dt FROM o_3) r) AS union_is_table;
-- with the pseudo-column: each row once, tagged with its shard
SELECT count(*) = (SELECT count(*) FROM o_all) AS rows, count(DISTINCT s) AS shards,
       bool_and(s BETWEEN 1 AND 3) AS k_in_range
  FROM (SELECT "_SHARD" s FROM o_1 UNION ALL SELECT "_SHARD" FROM o_2
        UNION ALL SELECT "_SHARD" FROM o_3) u;
CREATE FOREIGN TABLE c_all (id int, name text) SERVER lake OPTIONS (database 'sales', "table" 'customers');
SELECT (SELECT count(*) FROM c_1) > 0 AND (SELECT count(*) FROM c_2) > 0 AS both_have_rows,
       (SELECT md5(string_agg(r::text, ';' ORDER BY r::text)) FROM c_all r)
     = (SELECT md5(string_agg(r::text, ';' ORDER BY r::text)) FROM (
          SELECT id, name FROM c_1 UNION ALL SELECT id, name FROM c_2) r) AS union_is_table;

-- ---- quals on _SHARD: decided at plan time ------------------------------------
SELECT count(*) FROM o_2 WHERE "_SHARD" = 3;
SELECT count(*) FROM o_2 WHERE "_SHARD" IN (1, 3);
SELECT count(*) FROM o_2 WHERE "_SHARD" > 2;
SELECT count(*) FROM o_2 WHERE "_SHARD" IS NULL;
SELECT count(*) = (SELECT count(*) FROM o_2) AS all_rows FROM o_2 WHERE "_SHARD" = 2;
SELECT count(*) = (SELECT count(*) FROM o_2) AS all_rows FROM o_2 WHERE "_SHARD" < 3 AND "_SHARD" IS NOT NULL;
-- mixed with other columns: the rest of the qual stays
SELECT count(*) = (SELECT count(*) FROM o_2 WHERE id < 100) AS same
  FROM o_2 WHERE "_SHARD" = 3 OR id < 100;
-- false: a One-Time Filter above a scan that keeps no file
EXPLAIN (COSTS OFF) SELECT * FROM o_2 WHERE "_SHARD" = 3;
SELECT files_kept, manifests_read FROM tablescan_last_metrics();
-- true: dropped (no Filter), the shard's files kept
EXPLAIN (COSTS OFF) SELECT id FROM o_2 WHERE "_SHARD" = 2;
SELECT files_kept > 0 AS kept FROM tablescan_last_metrics();
-- a prepared statement: the parameter decides in a custom plan
PREPARE p(int) AS SELECT count(*) FROM o_2 WHERE "_SHARD" = $1;
EXECUTE p(2) \gset
SELECT :count = (SELECT count(*) FROM o_2) AS p2_all;
EXECUTE p(1);
DEALLOCATE p;
-- a join on _SHARD (not a restriction: the scan returns K)
SELECT count(*) = (SELECT count(*) FROM o_2) AS joined
  FROM o_2 JOIN (VALUES (2), (5)) v(k) ON v.k = o_2."_SHARD";

-- ---- aggregates: GROUP BY "_SHARD" pushed --------------------------------------
-- pushed (computed while scanning, or from metadata)?  the rows PostgreSQL's aggregation gives?
CREATE FUNCTION check_agg(q text, OUT pushed text, OUT same boolean, OUT groups int)
LANGUAGE plpgsql AS $$
DECLARE
  j json;
  result text;
  local text;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO j;
  pushed := substring(j::text from '"Aggregate Pushdown": "([^"]*)"');
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text), count(*) FROM (%s) q_', q)
    INTO result, groups;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'off', true);
  EXECUTE format('SELECT string_agg(q_::text, '';'' ORDER BY q_::text) FROM (%s) q_', q) INTO local;
  PERFORM set_config('tablescan.enable_aggregate_pushdown', 'on', true);
  same := result IS NOT DISTINCT FROM local;
END $$;
SELECT q, c.* FROM (VALUES
  ('SELECT "_SHARD", count(*), sum(amount), min(id), max(id) FROM o_2 GROUP BY "_SHARD"'),
  ('SELECT count(*), sum(amount), "_SHARD" FROM o_1 GROUP BY 3'),
  ('SELECT "_SHARD", customer, count(*), avg(amount) FROM o_3 GROUP BY "_SHARD", customer'),
  ('SELECT customer, "_SHARD", dt, count(*) FROM o_2 GROUP BY dt, "_SHARD", customer'),
  ('SELECT "_SHARD", count(*) FROM o_2 WHERE length(customer) > 100 GROUP BY "_SHARD"'),
  ('SELECT "_SHARD", count(*) FROM o_2 WHERE "_SHARD" = 2 AND id < 50 GROUP BY "_SHARD"'),
  ('SELECT shard, count(*), max(id) FROM o_3n GROUP BY shard'),
  ('SELECT "_SHARD", count(*) FROM c_1 GROUP BY "_SHARD"'),
  ('SELECT "_SHARD", dt, count(*) FROM o_3 GROUP BY "_SHARD", dt'),
  ('SELECT sum("_SHARD"), count(*) FROM o_2')
) v(q), check_agg(v.q) c;
EXPLAIN (VERBOSE, COSTS OFF) SELECT "_SHARD", count(*), sum(amount) FROM o_2 GROUP BY "_SHARD";

-- ---- types: the integer types and numeric; another is an ERROR naming it -------
CREATE FOREIGN TABLE bad_text (id int, "_SHARD" text) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.shard" '1/2');
SELECT pg_temp.fails('SELECT * FROM bad_text');
CREATE FOREIGN TABLE bad_bool (id int, "_SHARD" boolean) SERVER lake
  OPTIONS (database 'sales', "table" 'orders');
SELECT pg_temp.fails('SELECT id FROM bad_bool');
CREATE FOREIGN TABLE bad_small (id int, "_SHARD" numeric(1,0)) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.shard" '10/12');
SELECT pg_temp.fails('SELECT DISTINCT "_SHARD" FROM bad_small');

-- ---- a real field _SHARD wins; writing the pseudo-column -----------------------
\set wh /tmp/ts_shard_wh
\! rm -rf /tmp/ts_shard_wh && bash test/shard-schema.sh /tmp/ts_shard_wh
CREATE SERVER wlake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
CREATE FOREIGN TABLE real_field (id int, "_SHARD" int) SERVER wlake
  OPTIONS (database 's', "table" 'real', "scan.shard" '1/1');
INSERT INTO real_field VALUES (1, 7), (2, NULL);
SELECT * FROM real_field ORDER BY id;
SELECT id FROM real_field WHERE "_SHARD" = 7;
CREATE FOREIGN TABLE plain (id int, v text, "_SHARD" int) SERVER wlake
  OPTIONS (database 's', "table" 'plain');
INSERT INTO plain (id, v) VALUES (1, 'a');
INSERT INTO plain VALUES (2, 'b', NULL), (3, 'c', DEFAULT);
SELECT pg_temp.fails($$INSERT INTO plain VALUES (4, 'd', 2)$$);
-- its own value (K = 1 here) changes nothing: accepted
INSERT INTO plain VALUES (5, 'e', 1);
SELECT * FROM plain ORDER BY id;
-- UPDATE and DELETE of a primary-key table carry the value over; another value is refused
CREATE FOREIGN TABLE pk (id int, v text, "_SHARD" bigint) SERVER wlake
  OPTIONS (database 's', "table" 'pk', "scan.shard" '1/1');
INSERT INTO pk (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c');
UPDATE pk SET v = upper(v) WHERE id < 3 RETURNING *;
DELETE FROM pk WHERE id = 3;
SELECT pg_temp.fails($$UPDATE pk SET "_SHARD" = 9 WHERE id = 1$$);
SELECT * FROM pk ORDER BY id;
\! rm -rf /tmp/ts_shard_wh
-- the extension and everything made here go (the next suite creates its own)
DROP FUNCTION check_agg(text);
SET client_min_messages = warning;
DROP EXTENSION tablescan_fdw CASCADE;
RESET client_min_messages;
