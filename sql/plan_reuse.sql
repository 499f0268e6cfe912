-- Plan once (README "Plan reuse"): the Paimon plan made while PostgreSQL
-- plans is the one executed when it still holds; a scan whose quals need
-- run-time values, whose options changed or whose snapshot is no longer
-- the latest plans again.  EXPLAIN ANALYZE says which ("Plan Reused", not
-- under COSTS OFF); DEBUG1 says why.  A second session commits in between
-- (psql through \!); the tables are made by hand (test/writes-schema.sh).
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\setenv PGDATABASE :DBNAME
\set wh /tmp/ts_reuse_wh
\! rm -rf /tmp/ts_reuse_wh /tmp/ts_reuse_outside && bash test/writes-schema.sh /tmp/ts_reuse_wh /tmp/ts_reuse_outside "$TS_FIXTURES"
CREATE SERVER rlake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
CREATE FOREIGN TABLE t (id int, name text, k int) SERVER rlake OPTIONS (database 'w', "table" 'big');
CREATE FOREIGN TABLE t_v1 (id int, name text, k int) SERVER rlake
  OPTIONS (database 'w', "table" 'big', "scan.snapshot-id" '1');
INSERT INTO t SELECT i, 'n' || i, i % 10 FROM generate_series(1, 100) i;   -- snapshot 1
INSERT INTO t SELECT i, 'n' || i, i % 10 FROM generate_series(101, 150) i; -- snapshot 2
-- the "Plan Reused" line of a query's EXPLAIN ANALYZE (the other lines hold costs)
CREATE FUNCTION pg_temp.reused(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Plan Reused' THEN RETURN NEXT btrim(l); END IF;
  END LOOP;
END $$;
-- plans of this backend alive now (a context each)
CREATE FUNCTION pg_temp.plans() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_backend_memory_contexts WHERE name = 'tablescan_fdw plan' $$;

-- ---- a plain query executes the plan made while planning -------------------
SELECT * FROM pg_temp.reused('SELECT * FROM t WHERE k = 3');
SELECT count(*), sum(id) FROM t WHERE k = 3;
-- JSON: a boolean
CREATE FUNCTION pg_temp.reused_json(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO j;
  RETURN json_typeof(j->0->'Plan'->'Plan Reused') || ' ' || (j->0->'Plan'->>'Plan Reused');
END $$;
SELECT pg_temp.reused_json('SELECT * FROM t WHERE k = 3');
-- not in the output of COSTS OFF (the other suites' expected files)
DO $$
DECLARE l text; n int := 0;
BEGIN
  FOR l IN EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM t WHERE k = 3 LOOP
    IF l ~ 'Plan Reused' THEN n := n + 1; END IF;
  END LOOP;
  RAISE NOTICE 'Plan Reused lines under COSTS OFF: %', n;
END $$;
-- time travel too
SELECT * FROM pg_temp.reused('SELECT * FROM t_v1 WHERE k = 3');
-- count(*) from metadata, and aggregates computed while scanning
SELECT * FROM pg_temp.reused('SELECT count(*) FROM t');
SELECT * FROM pg_temp.reused('SELECT max(id), sum(k) FROM t WHERE k = 3');
SELECT count(*) FROM t;
SELECT max(id), sum(k) FROM t WHERE k = 3;
-- the setting that turns it off: planned again, the same rows
SET tablescan.reuse_plan = off;
SELECT * FROM pg_temp.reused('SELECT * FROM t WHERE k = 3');
SELECT count(*), sum(id) FROM t WHERE k = 3;
SELECT count(*), sum(id) FROM t_v1 WHERE k = 3;
RESET tablescan.reuse_plan;
SELECT count(*), sum(id) FROM t_v1 WHERE k = 3;

-- ---- quals with run-time values plan again -----------------------------------
SET client_min_messages = debug1;
SELECT count(*) FROM (SELECT id FROM t WHERE id::float8 < date_part('epoch', now()) OFFSET 0) s;
RESET client_min_messages;
PREPARE byk(int) AS SELECT count(*), sum(id) FROM (SELECT id FROM t WHERE k = $1 OFFSET 0) s;
-- a custom plan: the parameter is a constant while planning
SELECT * FROM pg_temp.reused('EXECUTE byk(3)');
EXECUTE byk(3);
-- the generic plan: a Param, planned again with its value
SET plan_cache_mode = force_generic_plan;
SET client_min_messages = debug1;
EXECUTE byk(3);
RESET client_min_messages;
SELECT * FROM pg_temp.reused('EXECUTE byk(4)');
EXECUTE byk(4);
RESET plan_cache_mode;
DEALLOCATE byk;

-- ---- a prepared statement after a commit sees the new rows -------------------
PREPARE three AS SELECT id, name FROM t WHERE k = 3 AND id > 120 ORDER BY id;
-- the first execution plans (the generic plan) and executes that plan
SELECT * FROM pg_temp.reused('EXECUTE three');
EXECUTE three;
\! psql -X -q -c "INSERT INTO t VALUES (1003, 'new', 3), (1004, 'other', 4)"
-- the other session's INSERT invalidated the cached plan (a write invalidates the
-- table's relcache entry, see write_rtctx): planned again, and that plan executed
SELECT * FROM pg_temp.reused('EXECUTE three');
EXECUTE three;
DEALLOCATE three;

-- ---- a cursor: planned and taken at DECLARE, checked at its first FETCH -------
BEGIN;
DECLARE c CURSOR FOR SELECT id, name FROM t WHERE k = 3 AND id > 120 ORDER BY id;
SELECT pg_temp.plans() AS plans_held;
\! psql -X -q -c "INSERT INTO t VALUES (2003, 'newer', 3)"
SET client_min_messages = debug1;
FETCH ALL FROM c;
RESET client_min_messages;
COMMIT;
-- no commit in between: the plan is executed
BEGIN;
DECLARE c CURSOR FOR SELECT id, name FROM t WHERE k = 3 AND id > 120 ORDER BY id;
SET client_min_messages = debug1;
FETCH ALL FROM c;
RESET client_min_messages;
COMMIT;
-- time travel: a commit does not change the snapshot it reads
BEGIN;
DECLARE c CURSOR FOR SELECT count(*), sum(id) FROM (SELECT id FROM t_v1 WHERE k = 3 OFFSET 0) s;
\! psql -X -q -c "INSERT INTO t VALUES (3003, 'newest', 3)"
SET client_min_messages = debug1;
FETCH ALL FROM c;
RESET client_min_messages;
COMMIT;
-- count(*) from metadata: the same
BEGIN;
DECLARE c CURSOR FOR SELECT count(*) FROM t;
\! psql -X -q -c "INSERT INTO t VALUES (4003, 'last', 3)"
SET client_min_messages = debug1;
FETCH ALL FROM c;
RESET client_min_messages;
COMMIT;
-- options changed between planning and execution: planned again, with them
BEGIN;
DECLARE c CURSOR FOR SELECT count(*), sum(id) FROM (SELECT id FROM t WHERE k = 3 OFFSET 0) s;
SET LOCAL tablescan.scan_options = 'scan.snapshot-id=2';
SET client_min_messages = debug1;
FETCH ALL FROM c;
RESET client_min_messages;
COMMIT;

-- ---- plans do not outlive their query ------------------------------------------
-- plain EXPLAIN: the plan goes with the planner's memory
EXPLAIN (COSTS OFF) SELECT * FROM t WHERE k = 3;
SELECT pg_temp.plans() AS plans_left;
-- a cursor closed, or rolled back, before its first FETCH
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM t WHERE k = 3;
DECLARE d CURSOR FOR SELECT * FROM t_v1 WHERE k = 3;
SELECT pg_temp.plans() AS plans_held;
CLOSE c;
SELECT pg_temp.plans() AS plans_held;
ROLLBACK;
SELECT pg_temp.plans() AS plans_left;
-- an ERROR while the plan is read, and one after DECLARE in the transaction
SELECT count(*) FROM t WHERE 100 / (id - 50) > -1000;
SELECT pg_temp.plans() AS plans_left;
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM t WHERE k = 3;
SELECT 1 / 0;
ROLLBACK;
SELECT pg_temp.plans() AS plans_left;
-- a rescan with other parameter values plans again (the taken plan is used once)
SELECT v, (SELECT count(*) FROM (SELECT id FROM t WHERE k = v OFFSET 0) s) FROM (VALUES (3), (4), (3)) x(v);
SELECT pg_temp.plans() AS plans_left;

-- ---- parallel scans: the leader executes its plan, the workers plan theirs ------
SET tablescan.enable_aggregate_pushdown = off;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id), count(DISTINCT k) FROM t;
SELECT * FROM pg_temp.reused('SELECT count(*), sum(id), count(DISTINCT k) FROM t');
SELECT count(*), sum(id), count(DISTINCT k) FROM t;
SET tablescan.reuse_plan = off;
SELECT count(*), sum(id), count(DISTINCT k) FROM t;
RESET ALL;

\! rm -rf /tmp/ts_reuse_wh /tmp/ts_reuse_outside
SET client_min_messages = warning;
DROP EXTENSION tablescan_fdw CASCADE;
RESET client_min_messages;
