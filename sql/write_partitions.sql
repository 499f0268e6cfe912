-- Writes into many partitions (README "Writing", tablescan.max_open_writers): the
-- same rows whatever the bound on open data files; past the bound the file written
-- least recently is finished, so a bucket gets several files; rows sorted by
-- partition keep one file per bucket; an INSERT that fails or is rolled back
-- leaves none of the partition directories it created, and keeps those it did not.
-- Tables are made from hand-written schema files (test/write-partitions-schema.sh).
CREATE EXTENSION tablescan_fdw;
\set wh /tmp/ts_wparts_wh
\! rm -rf /tmp/ts_wparts_wh && bash test/write-partitions-schema.sh /tmp/ts_wparts_wh
CREATE SERVER plake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
\i test/sql/fails.sql
-- the partition directories of a table, as the file system has them
CREATE FUNCTION pg_temp.partition_dirs(t text) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_ls_dir('/tmp/ts_wparts_wh/w.db/' || t, true, false) f WHERE f ~ '^p=' $$;
-- how many (partition, bucket)s have how many files
CREATE FUNCTION pg_temp.files_per_bucket(t regclass, OUT files bigint, OUT buckets bigint)
  RETURNS SETOF record LANGUAGE sql AS $$
  SELECT files, count(*) FROM (SELECT partition, bucket, count(*) AS files
                                 FROM tablescan_files(t) GROUP BY 1, 2) x GROUP BY 1 ORDER BY 1 $$;
IMPORT FOREIGN SCHEMA w FROM SERVER plake INTO public;
SHOW tablescan.max_open_writers;

-- ---- 3000 partitions, rows round-robin ------------------------------------------
-- the default bound (1000, capped at a third of the descriptors: ~330 here): two rows per
-- partition, each finds its file finished, and a NOTICE counts the 3000 extra files
INSERT INTO many SELECT g % 3000, g, 'v' || g FROM generate_series(1, 6000) g;
SELECT count(*), count(DISTINCT p), sum(id) FROM many;
SELECT count(*) AS rows_missing FROM (SELECT g % 3000, g, 'v' || g FROM generate_series(1, 6000) g
                                      EXCEPT ALL SELECT p, id, v FROM many) x;
SELECT * FROM pg_temp.files_per_bucket('many');
SELECT pg_temp.partition_dirs('many');
-- rows sorted by partition: one file per bucket under a bound of 1
SET tablescan.max_open_writers = 1;
INSERT INTO sorted SELECT g % 3000, g, 'v' || g FROM generate_series(1, 9000) g ORDER BY g % 3000, g;
SELECT count(*), count(DISTINCT p), sum(id) FROM sorted;
SELECT * FROM pg_temp.files_per_bucket('sorted');
-- fixed buckets, 2 open files over 100 partitions x 2 buckets: the same rows, where the pruner looks
SET tablescan.max_open_writers = 2;
INSERT INTO fixed SELECT g % 100, g, 'v' || g FROM generate_series(1, 600) g;
SELECT count(*), count(DISTINCT p), sum(id) FROM fixed;
CREATE FOREIGN TABLE fixed_b0 (p int, id int, v text) SERVER plake
  OPTIONS (database 'w', table 'fixed', bucket_filter '0');
CREATE FOREIGN TABLE fixed_b1 (p int, id int, v text) SERVER plake
  OPTIONS (database 'w', table 'fixed', bucket_filter '1');
SELECT (SELECT count(*) FROM fixed_b0 WHERE tablescan_bucket('fixed', id) <> 0) +
       (SELECT count(*) FROM fixed_b1 WHERE tablescan_bucket('fixed', id) <> 1) AS rows_elsewhere,
       (SELECT count(*) FROM fixed_b0) + (SELECT count(*) FROM fixed_b1) AS rows_in_buckets;
SELECT count(*) AS point_rows FROM fixed WHERE p = 17 AND id = 217;
-- 200 (partition, bucket)s round-robin over 2 open: a file per row
SELECT count(*) AS files, sum(row_count) AS rows FROM tablescan_files('fixed');
SELECT pg_temp.fails('SET tablescan.max_open_writers = 0');
RESET tablescan.max_open_writers;
-- a bound above the backend's share of descriptors is capped at a third of them
-- (max_files_per_process 1000 here: ~330 open files): 3000 partitions round-robin
-- still get two files each, not one
SET tablescan.max_open_writers = 65536;
INSERT INTO capped SELECT g % 3000, g, 'v' || g FROM generate_series(1, 6000) g;
SELECT count(*), count(DISTINCT p), sum(id) FROM capped;
SELECT * FROM pg_temp.files_per_bucket('capped');
RESET tablescan.max_open_writers;

-- ---- an INSERT that fails, one rolled back: no directory of theirs left ----------
SELECT pg_temp.partition_dirs('fresh');
SELECT pg_temp.fails($$INSERT INTO fresh SELECT g % 500, 1000 / (1200 - g), 'x' FROM generate_series(1, 2000) g$$);
SELECT pg_temp.partition_dirs('fresh');
\! ls /tmp/ts_wparts_wh/w.db/fresh /tmp/ts_wparts_wh/w.db/fresh/p=7
BEGIN;
INSERT INTO fresh SELECT g % 50, g, 'x' FROM generate_series(1, 100) g;
SELECT pg_temp.partition_dirs('fresh');
ROLLBACK;
SELECT pg_temp.partition_dirs('fresh');
-- a failed INSERT into partitions that have files keeps them, and their rows
INSERT INTO fresh SELECT g % 5, g, 'kept' FROM generate_series(1, 10) g;
SELECT pg_temp.fails($$INSERT INTO fresh SELECT g % 10, 100 / (20 - g), 'x' FROM generate_series(1, 30) g$$);
SELECT pg_temp.partition_dirs('fresh');
SELECT p, count(*) FROM fresh GROUP BY p ORDER BY p;
\! rm -rf /tmp/ts_wparts_wh
-- the extension and everything made here go (the next suite creates its own)
SET client_min_messages = warning;
DROP EXTENSION tablescan_fdw CASCADE;
RESET client_min_messages;
