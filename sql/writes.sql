-- INSERT and COPY FROM into Paimon append tables (README "Writing"): rows
-- read back equal to what was written, buckets where the pruner looks for
-- them, one snapshot per table per transaction, nothing left by ROLLBACK
-- or an error, refusals with their SQLSTATE.  Tables are made here from
-- hand-written schema files (test/writes-schema.sh), not by the code under test.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set wh /tmp/ts_writes_wh
\! rm -rf /tmp/ts_writes_wh /tmp/ts_writes_outside && bash test/writes-schema.sh /tmp/ts_writes_wh /tmp/ts_writes_outside "$TS_FIXTURES"
SET TIME ZONE 'UTC';
CREATE SERVER wlake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
-- a statement's SQLSTATE and message
\i test/sql/fails.sql
-- files and snapshots of a table, as the file system has them
CREATE FUNCTION pg_temp.snapshots(t text) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_ls_dir('/tmp/ts_writes_wh/w.db/' || t || '/snapshot', true, false) f
  WHERE f ~ '^snapshot-[0-9]+$' $$;
CREATE FUNCTION pg_temp.latest(t text) RETURNS text LANGUAGE sql AS $$
  SELECT pg_read_file('/tmp/ts_writes_wh/w.db/' || t || '/snapshot/LATEST') $$;
CREATE FUNCTION pg_temp.data_files(t text) RETURNS bigint LANGUAGE sql AS $$
  WITH RECURSIVE d(p) AS (SELECT '/tmp/ts_writes_wh/w.db/' || t
     UNION ALL SELECT d.p || '/' || f FROM d, pg_ls_dir(d.p, true, false) f
     WHERE (pg_stat_file(d.p || '/' || f, true)).isdir)
  SELECT count(*) FROM d, pg_ls_dir(d.p, true, false) f
  WHERE f ~ '\.parquet$' OR f ~ '\.tmp$' $$;

-- ---- every type the writer takes, with NULLs -------------------------------
IMPORT FOREIGN SCHEMA w LIMIT TO (typed) FROM SERVER wlake INTO public;
\d typed
CREATE TEMP TABLE src AS
SELECT i AS id,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
       CASE WHEN i % 7 = 1 THEN NULL ELSE (i % 200 - 100)::smallint END AS ti,
       CASE WHEN i % 7 = 2 THEN NULL ELSE (i * 3 - 30000)::smallint END AS si,
       CASE WHEN i % 7 = 3 THEN NULL ELSE i::bigint * 1000003 - 5000000000 END AS big,
       CASE WHEN i % 7 = 4 THEN NULL ELSE (i / 8.0)::real END AS f,
       CASE WHEN i % 7 = 5 THEN NULL ELSE i / 3.0::double precision END AS d,
       CASE WHEN i % 7 = 6 THEN NULL ELSE (i * 1.25 - 50)::numeric(10, 2) END AS dec,
       CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 12345.6789)::numeric(18, 4) END AS dec18,
       CASE WHEN i % 5 = 1 THEN NULL ELSE repeat(chr(97 + i % 26), i % 40) || 'ü€' || i END AS s,
       CASE WHEN i % 5 = 2 THEN NULL ELSE 'v' || i END::varchar(20) AS vc,
       CASE WHEN i % 5 = 3 THEN NULL ELSE decode(md5(i::text), 'hex') END AS bin,
       CASE WHEN i % 5 = 4 THEN NULL ELSE date '2024-01-01' + i END AS dt,
       CASE WHEN i % 6 = 0 THEN NULL ELSE timestamp '2024-01-01' + i * interval '1.000001 s' END AS ts,
       CASE WHEN i % 6 = 1 THEN NULL ELSE timestamp '1969-12-31 23:59:00' + i * interval '0.001 s' END::timestamp(3) AS ts3,
       CASE WHEN i % 6 = 2 THEN NULL ELSE timestamptz '2024-06-01 00:00:00+00' + i * interval '1 min' END AS tsl
FROM generate_series(1, 300) i;
INSERT INTO typed VALUES (0, true, 1, 2, 3, 1.5, 2.5, 3.25, 4.5, 'a', 'b', '\x00ff', '2024-02-29', '2024-02-29 12:00:00.123456', '2024-02-29 12:00:00.123', '2024-02-29 12:00:00+00')
  RETURNING id, s, ts;
INSERT INTO src VALUES (0, true, 1, 2, 3, 1.5, 2.5, 3.25, 4.5, 'a', 'b', '\x00ff', '2024-02-29', '2024-02-29 12:00:00.123456', '2024-02-29 12:00:00.123', '2024-02-29 12:00:00+00');
SELECT pg_temp.snapshots('typed') AS snapshots, pg_temp.latest('typed') AS latest;
INSERT INTO typed SELECT * FROM src WHERE id > 0;
SELECT pg_temp.snapshots('typed') AS snapshots, pg_temp.latest('typed') AS latest;
-- equal as multisets, both ways
SELECT count(*) AS missing FROM (SELECT * FROM src EXCEPT ALL SELECT * FROM typed) x;
SELECT count(*) AS extra FROM (SELECT * FROM typed EXCEPT ALL SELECT * FROM src) x;
SELECT count(*), count(s), count(bin), sum(big), sum(dec18) FROM typed;
-- statistics are true bounds: a range query pruned by them still finds every row
SELECT count(*) FROM typed WHERE s > 'zzzzzzzzzzzzzzzz';
SELECT count(*) FROM typed WHERE big BETWEEN -4999000000 AND -4700000000;
SELECT count(*) FROM src WHERE big BETWEEN -4999000000 AND -4700000000;

-- ---- many rows, several files (target-file-size 64 kb) --------------------
IMPORT FOREIGN SCHEMA w LIMIT TO (big) FROM SERVER wlake INTO public;
INSERT INTO big SELECT i, 'row ' || i, i % 1000 FROM generate_series(1, 100000) i;
SELECT pg_temp.snapshots('big') AS snapshots, pg_temp.data_files('big') > 3 AS several_files;
SELECT count(*), count(DISTINCT id), sum(id), sum(k), min(name), max(name) FROM big;
SELECT count(*) AS files, sum(row_count) AS rows FROM tablescan_files('big');
-- batches of rows (batch_size) write the same
ALTER FOREIGN TABLE big OPTIONS (ADD batch_size '100');
INSERT INTO big SELECT i, 'batched ' || i, 7 FROM generate_series(150001, 150250) i;
SELECT count(*), sum(k), min(name) FROM big WHERE id > 150000;
ALTER FOREIGN TABLE big OPTIONS (DROP batch_size);
SELECT pg_temp.snapshots('big') AS snapshots;
EXPLAIN (COSTS OFF) INSERT INTO big VALUES (1, 'x', 1);
CREATE FOREIGN TABLE parted_x (id int NOT NULL, p text, v text) SERVER wlake
  OPTIONS (database 'w', table 'parted');
EXPLAIN (COSTS OFF) INSERT INTO parted_x VALUES (1, 'x', 'y');
-- COPY FROM
COPY big FROM STDIN (FORMAT csv);
100001,copied one,1
100002,"copied, two",2
\.
SELECT * FROM big WHERE id > 100000 AND id < 150000 ORDER BY id;
SELECT pg_temp.snapshots('big') AS snapshots;

-- ---- transactions ------------------------------------------------------------
BEGIN;
INSERT INTO big VALUES (200001, 'tx a', 1);
INSERT INTO big VALUES (200002, 'tx b', 2);
SELECT pg_temp.snapshots('big') AS snapshots_before_commit;
COMMIT;
SELECT pg_temp.snapshots('big') AS snapshots, count(*) FROM big WHERE id > 200000;
SELECT pg_temp.data_files('big') AS files_before;
BEGIN;
INSERT INTO big SELECT i, 'rolled back', 0 FROM generate_series(300001, 301000) i;
ROLLBACK;
SELECT pg_temp.snapshots('big') AS snapshots, pg_temp.data_files('big') AS files_after,
       (SELECT count(*) FROM big WHERE id > 300000) AS rows;
-- an error in the middle of a statement: no snapshot, no file
INSERT INTO big SELECT i, 'fails', 1 / (301500 - i) FROM generate_series(301001, 302000) i;
SELECT pg_temp.snapshots('big') AS snapshots, pg_temp.data_files('big') AS files_after;
-- a savepoint rolled back after writing cannot be taken out of the files
BEGIN;
INSERT INTO big VALUES (400001, 'kept?', 1);
SAVEPOINT s;
INSERT INTO big VALUES (400002, 'rolled back', 1);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT pg_temp.snapshots('big') AS snapshots, count(*) FROM big WHERE id > 400000;
-- a table first written inside a rolled-back savepoint: its writer goes with it
BEGIN;
SAVEPOINT s;
INSERT INTO typed (id) VALUES (1000);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT pg_temp.snapshots('typed') AS snapshots, count(*) FROM typed WHERE id = 1000;
-- PREPARE TRANSACTION with pending writes
BEGIN;
INSERT INTO big VALUES (500001, 'prepared', 1);
PREPARE TRANSACTION 'w1';
SELECT pg_temp.snapshots('big') AS snapshots, count(*) FROM big WHERE id > 500000;

-- ---- partitions and fixed buckets ---------------------------------------------
IMPORT FOREIGN SCHEMA w LIMIT TO (parted) FROM SERVER wlake INTO public;
INSERT INTO parted SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'p' || (i % 3) END, 'v' || i
  FROM generate_series(1, 400) i;
SELECT partition, bucket, total_buckets, count(*) AS files, sum(row_count) AS rows
  FROM tablescan_files('parted') GROUP BY 1, 2, 3 ORDER BY partition::text COLLATE "C", 2;
-- every row lies in the bucket the reader computes for its key
DO $$
DECLARE b int; bad bigint;
BEGIN
  FOR b IN 0..3 LOOP
    EXECUTE format('CREATE FOREIGN TABLE pb%s (id int, p text, v text) SERVER wlake
                    OPTIONS (database ''w'', table ''parted'', bucket_filter %L)', b, b);
    EXECUTE format('SELECT count(*) FROM pb%s WHERE tablescan_bucket(''parted'', id) <> %s', b, b)
      INTO bad;
    RAISE NOTICE 'bucket %: % rows elsewhere', b, bad;
  END LOOP;
END $$;
SELECT (SELECT count(*) FROM pb0) + (SELECT count(*) FROM pb1) + (SELECT count(*) FROM pb2)
     + (SELECT count(*) FROM pb3) AS rows_in_buckets;
-- a point query reads one file and finds its row
SELECT * FROM parted WHERE id = 77 AND p = 'p2';
SELECT files_kept FROM tablescan_last_metrics();
SELECT count(*) FROM parted WHERE p IS NULL;
-- directories as Java names them
\! cd /tmp/ts_writes_wh/w.db/parted && ls -d p=* | sort && ls -d 'p=p1'/bucket-* | sort

-- ---- appending to a copy of a generated table keeps its rows ---------------
IMPORT FOREIGN SCHEMA w LIMIT TO (orders) FROM SERVER wlake INTO public;
-- its files are Avro; new ones are Parquet (readers go by each file's extension)
ALTER FOREIGN TABLE orders OPTIONS (ADD "file.format" 'parquet');
CREATE TEMP TABLE orders_before AS SELECT * FROM orders;
INSERT INTO orders VALUES (5000, 'new customer', 12.50, '2024-05-05 10:00:00', 'dt_1'),
                          (5001, NULL, NULL, NULL, 'dt_9');
SELECT count(*) FROM orders_before;
SELECT count(*) AS old_rows_missing FROM (SELECT * FROM orders_before EXCEPT ALL SELECT * FROM orders) x;
SELECT * FROM orders WHERE id >= 5000 ORDER BY id;
SELECT * FROM orders WHERE id = 5000 AND dt = 'dt_1';
SELECT files_pruned_bucket > 0 AS bucket_pruned FROM tablescan_last_metrics();

-- ---- appending to a copy of a Java-written table (two schemas, partitioned) -----
\! cp -r "$TS_SHARED"/testdata/parquet/append_table_with_alter_table.db/append_table_with_alter_table /tmp/ts_writes_wh/w.db/java_alter && chmod -R a+rwX /tmp/ts_writes_wh/w.db/java_alter
IMPORT FOREIGN SCHEMA w LIMIT TO (java_alter) FROM SERVER wlake INTO public;
CREATE TEMP TABLE java_before AS SELECT * FROM java_alter;
INSERT INTO java_alter (key0, key1, k, c, d, a, e) VALUES (1, 1, 62, 63, 64, 65, 66), (2, 0, NULL, 1, 2, 3, 4);
SELECT count(*) FROM java_before;
SELECT count(*) AS old_rows_missing FROM (SELECT * FROM java_before EXCEPT ALL SELECT * FROM java_alter) x;
SELECT * FROM java_alter ORDER BY key0, key1, c;
SELECT pg_temp.snapshots('java_alter') AS snapshots, pg_temp.latest('java_alter') AS latest;
SELECT partition, schema_id, row_count FROM tablescan_files('java_alter') ORDER BY partition::text COLLATE "C", 2, 3;

-- ---- refusals ---------------------------------------------------------------
IMPORT FOREIGN SCHEMA w LIMIT TO (pk, dv, orcfmt, timecol) FROM SERVER wlake INTO public;
CREATE FOREIGN TABLE ro (id int, name text, k int) SERVER wlake
  OPTIONS (database 'w', table 'big', updatable 'false');
CREATE SERVER s3lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 's3://bucket/wh',
  "s3.endpoint" 'http://127.0.0.1:1', "s3.path.style.access" 'true');
CREATE FOREIGN TABLE s3t (id int) SERVER s3lake OPTIONS (database 'w', table 't');
CREATE FOREIGN TABLE orders_b2 (id int NOT NULL, customer text, amount numeric(10,2), ts timestamp, dt text)
  SERVER wlake OPTIONS (database 'w', "table" 'orders', bucket '2');
\getenv rest_uri TS_REST_URI
\getenv rest_token TS_REST_TOKEN
CREATE SERVER wcat FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri :'rest_uri', warehouse 'test');
CREATE USER MAPPING FOR CURRENT_USER SERVER wcat OPTIONS (token :'rest_token');
-- REST catalog tables are written (test/writes/rest.sh), but not its format tables
CREATE FOREIGN TABLE restt (id int, name text, amount numeric(10,2), region text)
  SERVER wcat OPTIONS (database 'ft', "table" 'events_rest');
SELECT q, pg_temp.fails(q) FROM (VALUES
  ('UPDATE big SET name = ''x'' WHERE id = 1'),
  ('DELETE FROM big WHERE id = 1'),
  ('INSERT INTO big VALUES (1, ''x'', 1) ON CONFLICT DO NOTHING'),
  ('INSERT INTO pk VALUES (1, ''x'')'),
  ('EXPLAIN INSERT INTO pk VALUES (1, ''x'')'),
  ('INSERT INTO dv VALUES (1, ''x'')'),
  ('INSERT INTO orcfmt VALUES (1, ''x'')'),
  ('INSERT INTO timecol VALUES (1, ''10:00'')'),
  ('INSERT INTO ro VALUES (1, ''x'', 1)'),
  ('INSERT INTO s3t VALUES (1)'),
  ('INSERT INTO restt (id, region) VALUES (1, ''eu'')'),
  ('INSERT INTO orders_b2 VALUES (1, NULL, NULL, NULL, ''dt_0'')'),
  ('INSERT INTO typed (id, tsl) VALUES (1, NULL), (NULL, NULL)'),
  ('CREATE FOREIGN TABLE bad_opt (id int) SERVER wlake OPTIONS (database ''w'', table ''big'', updatable ''maybe'')')
) AS t(q);
SELECT pg_temp.data_files('pk') + pg_temp.data_files('dv') + pg_temp.data_files('orcfmt') + pg_temp.data_files('timecol') AS files;
ALTER SERVER wlake OPTIONS (ADD updatable 'false');
SELECT pg_temp.fails('INSERT INTO big VALUES (1, ''x'', 1)');
ALTER SERVER wlake OPTIONS (DROP updatable);
-- a role without pg_read_server_files cannot make the extension write outside the warehouse
CREATE ROLE writes_user;
GRANT USAGE ON FOREIGN SERVER wlake TO writes_user;
GRANT CREATE ON SCHEMA public TO writes_user;
CREATE FOREIGN TABLE escape (id int, name text, k int) SERVER wlake OPTIONS (database 'w', table 'escape');
-- "linked": a table inside the warehouse whose bucket-0 is a symbolic link out of it
CREATE FOREIGN TABLE linked (id int, name text, k int) SERVER wlake OPTIONS (database 'w', table 'linked');
GRANT INSERT, SELECT ON escape, linked, big TO writes_user;
SET ROLE writes_user;
INSERT INTO big VALUES (600001, 'by writes_user', 1);
SELECT pg_temp.fails('INSERT INTO escape VALUES (1, ''out'', 1)');
SELECT pg_temp.fails('INSERT INTO linked VALUES (1, ''out'', 1)');
SELECT pg_temp.fails('CREATE FOREIGN TABLE mine (id int) SERVER wlake OPTIONS (path ''/tmp/ts_writes_outside/escape'')');
RESET ROLE;
SELECT count(*) FROM big WHERE id = 600001;
SELECT pg_temp.snapshots('linked') AS snapshots;
-- nothing was written outside: the two directories and the one schema file made for the test
\! find /tmp/ts_writes_outside -mindepth 1 | sort
REVOKE CREATE ON SCHEMA public FROM writes_user;
DROP OWNED BY writes_user;
DROP ROLE writes_user;
\! rm -rf /tmp/ts_writes_wh /tmp/ts_writes_outside
-- the extension and everything made here go (the next suite creates its own)
SET client_min_messages = warning;
DROP EXTENSION tablescan_fdw CASCADE;
RESET client_min_messages;
