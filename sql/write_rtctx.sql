-- A transaction reads its own writes (README "Writing", Transactions): a
-- SELECT, and the scan of an UPDATE or DELETE, of a table the transaction
-- wrote sees the rows written by its earlier statements (append and
-- primary-key tables, merged by key), read as level-0 files of the latest
-- snapshot ("Pending Files" in EXPLAIN); another session sees nothing before
-- COMMIT; ROLLBACK and ROLLBACK TO SAVEPOINT take them away.  Counts from
-- metadata, aggregates computed while scanning, pruning, LIMIT and plans made
-- before the write stay right; parallel plans are not made for such scans.
-- Tables are made from hand-written schema files (test/write-rtctx-schema.sh).
CREATE EXTENSION tablescan_fdw;
CREATE EXTENSION dblink;
\set wh /tmp/ts_write_rtctx_wh
\! rm -rf /tmp/ts_write_rtctx_wh && bash test/write-rtctx-schema.sh /tmp/ts_write_rtctx_wh
SET TIME ZONE 'UTC';
CREATE SERVER rlake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
IMPORT FOREIGN SCHEMA r FROM SERVER rlake INTO public;
\i test/sql/fails.sql
CREATE FUNCTION pg_temp.snapshots(t text) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_ls_dir('/tmp/ts_write_rtctx_wh/r.db/' || t || '/snapshot', true, false) f
  WHERE f ~ '^snapshot-[0-9]+$' $$;
-- the EXPLAIN lines of a query that name files (Pending Files, Data Files) or show a Gather
CREATE FUNCTION pg_temp.plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ '(Pending Files|Data Files|Gather|Count From Metadata|Aggregates)' THEN
      RETURN NEXT trim(l);
    END IF;
  END LOOP;
END $$;
-- a second session
SELECT dblink_connect('other', format('dbname=%s user=%s port=%s host=%s', current_database(),
       current_user, current_setting('port'),
       split_part(current_setting('unix_socket_directories'), ',', 1))) AS other;
CREATE FUNCTION pg_temp.other_count(t text) RETURNS bigint LANGUAGE sql AS $$
  SELECT n FROM dblink('other', 'SELECT count(*) FROM ' || t) AS r(n bigint) $$;

-- ---- append table: committed rows, then a transaction's -----------------------
INSERT INTO app VALUES (1, 'a', 10), (2, 'a', 20), (3, 'b', 30);
BEGIN;
INSERT INTO app VALUES (4, 'b', 40), (5, 'c', 50);
SELECT * FROM app ORDER BY id;
-- the count from metadata and the aggregates computed while scanning include them
SELECT count(*) FROM app;
SELECT count(*), sum(v), min(id), max(id) FROM app;
SELECT dt, count(*) FROM app GROUP BY dt ORDER BY dt;
SELECT * FROM pg_temp.plan_lines('SELECT * FROM app');
-- pruning by partition and by the pending file's statistics
SELECT * FROM app WHERE dt = 'c';
SELECT * FROM pg_temp.plan_lines('SELECT * FROM app WHERE dt = ''c''');
SELECT * FROM app WHERE v > 45;
-- LIMIT
SELECT count(*) FROM (SELECT * FROM app LIMIT 4) s;
-- another session sees the committed rows only
SELECT pg_temp.other_count('app') AS other_sees;
-- a second statement's rows join the first's; INSERT ... SELECT reads them
INSERT INTO app SELECT id + 10, dt, v + 100 FROM app WHERE id > 3;
SELECT count(*), sum(v) FROM app;
SELECT pg_temp.other_count('app') AS other_sees;
COMMIT;
SELECT pg_temp.snapshots('app') AS snapshots, count(*), sum(v) FROM app;
SELECT pg_temp.other_count('app') AS other_sees;
-- ROLLBACK takes them away
BEGIN;
INSERT INTO app VALUES (100, 'z', 1000);
SELECT count(*), sum(v) FROM app;
ROLLBACK;
SELECT pg_temp.snapshots('app') AS snapshots, count(*), sum(v) FROM app;

-- ---- a table without any snapshot --------------------------------------------
BEGIN;
INSERT INTO fresh VALUES (1, 'x', 1), (2, 'y', 2);
SELECT * FROM fresh ORDER BY id;
SELECT count(*), sum(v) FROM fresh;
SELECT * FROM pg_temp.plan_lines('SELECT * FROM fresh');
SELECT pg_temp.other_count('fresh') AS other_sees;
ROLLBACK;
SELECT count(*) FROM fresh;

-- ---- fixed buckets: bucket pruning finds the pending rows ----------------------
BEGIN;
INSERT INTO bkt SELECT g, 'd', g * 2 FROM generate_series(1, 40) g;
SELECT * FROM bkt WHERE id = 17;
SELECT * FROM pg_temp.plan_lines('SELECT * FROM bkt WHERE id = 17');
SELECT count(*), sum(v) FROM bkt;
COMMIT;
SELECT count(*), sum(v) FROM bkt;

-- ---- primary-key table: merged by key with their sequence numbers ---------------
INSERT INTO kv VALUES (1, 'a', 10), (2, 'b', 20);
BEGIN;
INSERT INTO kv VALUES (3, 'c', 30);
SELECT * FROM kv ORDER BY id;
-- an UPDATE after the INSERT of its key updates it; a DELETE removes a committed row
UPDATE kv SET v = 31, name = 'c2' WHERE id = 3 RETURNING *;
DELETE FROM kv WHERE id = 1 RETURNING *;
UPDATE kv SET v = v + 1 WHERE id = 2;
SELECT * FROM kv ORDER BY id;
-- a key inserted and deleted in the transaction is gone
INSERT INTO kv VALUES (4, 'd', 40);
DELETE FROM kv WHERE id = 4;
SELECT * FROM kv ORDER BY id;
SELECT count(*), sum(v) FROM kv;
SELECT n FROM dblink('other', 'SELECT string_agg(id || '':'' || v, '','' ORDER BY id) FROM kv') AS r(n text);
COMMIT;
SELECT * FROM kv ORDER BY id;
SELECT n FROM dblink('other', 'SELECT string_agg(id || '':'' || v, '','' ORDER BY id) FROM kv') AS r(n text);
-- buffers flushed while one statement writes: the UPDATE's scan sees the earlier statements only
BEGIN;
INSERT INTO kvsmall SELECT g, repeat('x', 100), g FROM generate_series(1, 600) g;
UPDATE kvsmall SET v = v + 1000;
SELECT count(*), sum(v), min(v), max(v) FROM kvsmall;
COMMIT;
SELECT count(*), sum(v), min(v), max(v) FROM kvsmall;

-- ---- savepoints ------------------------------------------------------------------
-- a writer opened in the rolled-back subtransaction goes with it
BEGIN;
SAVEPOINT s;
INSERT INTO app VALUES (200, 'y', 1);
SELECT count(*) FROM app;
ROLLBACK TO SAVEPOINT s;
SELECT count(*) FROM app;
COMMIT;
SELECT pg_temp.snapshots('app') AS snapshots, count(*) FROM app;
-- rows of a rolled-back subtransaction that cannot be taken out: refused, not shown
BEGIN;
INSERT INTO app VALUES (201, 'y', 1);
SAVEPOINT s;
INSERT INTO app VALUES (202, 'y', 1);
ROLLBACK TO SAVEPOINT s;
SELECT pg_temp.fails('SELECT count(*) FROM app');
ROLLBACK;

-- ---- a statement that writes and reads the table ----------------------------------
BEGIN;
INSERT INTO app VALUES (300, 'w', 1);
SELECT count(*) FROM app;
-- the CTE's rows are not read by the statement that writes them (as for heap tables)
WITH ins AS (INSERT INTO app VALUES (301, 'w', 1) RETURNING id) SELECT count(*) FROM app;
SELECT count(*) FROM app;
ROLLBACK;
-- without a read before it: the statement's planning finishes the earlier rows' files first
BEGIN;
INSERT INTO app VALUES (300, 'w', 1);
WITH ins AS (INSERT INTO app VALUES (301, 'w', 1) RETURNING id) SELECT count(*) FROM app;
SELECT count(*) FROM app;
ROLLBACK;

-- ---- parallel plans and plans made before the write -------------------------------
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET force_parallel_mode = on;
PREPARE q AS SELECT id, v FROM app WHERE v > 0 ORDER BY id;
-- before the write: a parallel plan (cached)
EXPLAIN (COSTS OFF) EXECUTE q;
EXECUTE q;
BEGIN;
INSERT INTO app VALUES (400, 'p', 7);
-- after it: planned again, without workers, the pending file read
EXPLAIN (COSTS OFF) EXECUTE q;
EXECUTE q;
EXPLAIN (COSTS OFF) SELECT * FROM app WHERE v > 0;
SELECT count(*), sum(v) FROM (SELECT * FROM app WHERE v > 0) s;
SELECT pg_temp.other_count('app') AS other_sees;
ROLLBACK;
EXECUTE q;
RESET force_parallel_mode;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SELECT dblink_disconnect('other');
\! rm -rf /tmp/ts_write_rtctx_wh
SET client_min_messages = warning;
DROP EXTENSION dblink;
DROP EXTENSION tablescan_fdw CASCADE;
RESET client_min_messages;
