-- INSERT, UPDATE and DELETE into Paimon primary-key tables (README "Writing"):
-- level-0 files in the KeyValue layout that the merging reader reads back as
-- the merge engine says, sequence numbers after the bucket's, key statistics
-- and key BinaryRows as a Java-written table has them, refusals naming the
-- option.  Tables are made from hand-written schema files
-- (test/write-pk-schema.sh); file metadata is read with ts_avro_dump
-- (test/write-pk-meta.sh), not with the code under test.
CREATE EXTENSION tablescan_fdw;
\set wh /tmp/ts_write_pk_wh
\! rm -rf /tmp/ts_write_pk_wh && bash test/write-pk-schema.sh /tmp/ts_write_pk_wh
SET TIME ZONE 'UTC';
CREATE SERVER pklake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
\i test/sql/fails.sql
CREATE FUNCTION pg_temp.snapshots(t text) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_ls_dir('/tmp/ts_write_pk_wh/p.db/' || t || '/snapshot', true, false) f
  WHERE f ~ '^snapshot-[0-9]+$' $$;
IMPORT FOREIGN SCHEMA p FROM SERVER pklake INTO public;

-- ---- deduplicate: the last write of a key wins ------------------------------
INSERT INTO dedup VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40);
SELECT * FROM dedup ORDER BY id;
-- a key written again replaces its row; twice in one statement: the last one
INSERT INTO dedup VALUES (2, 'b2', 21), (5, 'e', 50), (5, 'e2', 51), (5, 'e3', 52);
SELECT * FROM dedup ORDER BY id;
SELECT pg_temp.snapshots('dedup') AS snapshots;
-- the files: sorted by key, each key once, numbers after the bucket's (2 then 3 rows per bucket)
\! bash test/write-pk-meta.sh /tmp/ts_write_pk_wh/p.db/dedup 1
\! bash test/write-pk-meta.sh /tmp/ts_write_pk_wh/p.db/dedup 2
-- UPDATE writes +U rows, DELETE -D rows; RETURNING shows them
UPDATE dedup SET v = v + 100, name = upper(name) WHERE id IN (1, 2) RETURNING *;
DELETE FROM dedup WHERE id = 3 RETURNING *;
SELECT * FROM dedup ORDER BY id;
\! bash test/write-pk-meta.sh /tmp/ts_write_pk_wh/p.db/dedup 4
-- the kinds written, as an incremental read of the two snapshots shows them
CREATE FOREIGN TABLE dedup_delta (id int, name text, v int, "_ROW_KIND" text) SERVER pklake
  OPTIONS (database 'p', "table" 'dedup', "incremental-between" '2,4');
SELECT * FROM dedup_delta ORDER BY id;
-- a transaction: INSERT, UPDATE and DELETE are one snapshot; a key's writes in statement order
BEGIN;
INSERT INTO dedup VALUES (6, 'f', 60), (7, 'g', 70);
UPDATE dedup SET v = -1 WHERE id = 4;
DELETE FROM dedup WHERE id = 5;
INSERT INTO dedup VALUES (4, 'd again', 44);
COMMIT;
SELECT pg_temp.snapshots('dedup') AS snapshots;
SELECT * FROM dedup ORDER BY id;
-- a rolled-back transaction leaves nothing
BEGIN;
DELETE FROM dedup WHERE id = 1;
ROLLBACK;
SELECT pg_temp.snapshots('dedup') AS snapshots, count(*) FROM dedup;
-- another writer numbering the same bucket first: this commit fails, nothing of it is left
BEGIN;
INSERT INTO dedup VALUES (8, 'mine', 1);
\setenv PKW_DB :DBNAME
\! psql -X -q -d "$PKW_DB" -c "INSERT INTO dedup VALUES (8, 'other', 2)"
COMMIT;
SELECT pg_temp.snapshots('dedup') AS snapshots;
SELECT * FROM dedup WHERE id = 8;
-- refused: a new key, and rows without a match are no error
SELECT pg_temp.fails('UPDATE dedup SET id = 100 WHERE id = 1');
UPDATE dedup SET v = 0 WHERE id = 12345;
SELECT pg_temp.snapshots('dedup') AS snapshots;
-- COPY FROM writes like INSERT
COPY dedup FROM STDIN (FORMAT csv);
9,copied,90
7,g copied,77
\.
SELECT * FROM dedup WHERE id IN (7, 9) ORDER BY id;
-- a foreign table without every field: DELETE needs the key only; UPDATE would lose the field
CREATE FOREIGN TABLE dedup_narrow (id int NOT NULL, v int) SERVER pklake
  OPTIONS (database 'p', "table" 'dedup');
SELECT pg_temp.fails('UPDATE dedup_narrow SET v = 1 WHERE id = 1');
DELETE FROM dedup_narrow WHERE id = 9;
SELECT * FROM dedup ORDER BY id;

-- ---- partitioned: rows land in their partition and bucket -------------------
INSERT INTO parted SELECT 'd' || (i % 3), i, 'v' || i FROM generate_series(1, 30) i;
UPDATE parted SET v = 'updated' WHERE id % 5 = 0;
DELETE FROM parted WHERE dt = 'd1' AND id < 10;
SELECT dt, count(*), count(*) FILTER (WHERE v = 'updated') AS updated, min(id), max(id)
FROM parted GROUP BY dt ORDER BY dt;
-- each row in the bucket the bucket function gives its key: a point query reads that bucket only
SELECT * FROM parted WHERE dt = 'd2' AND id = 29;
SELECT buckets_total, buckets_kept FROM tablescan_last_metrics();
SELECT * FROM parted WHERE dt = 'd0' AND id = 15;
SELECT buckets_total, buckets_kept FROM tablescan_last_metrics();
SELECT count(*) AS found_by_key FROM generate_series(1, 30) i
  JOIN parted p ON p.id = i AND p.dt = 'd' || (i % 3);
SELECT pg_temp.fails('UPDATE parted SET dt = ''d9'' WHERE id = 3');
\! cd /tmp/ts_write_pk_wh/p.db/parted && ls -d dt=*/bucket-* | sort

-- ---- partial-update: non-null columns merge -----------------------------------
INSERT INTO partial VALUES (1, 'a', NULL), (2, NULL, 2);
INSERT INTO partial VALUES (1, NULL, 10), (2, 'b', NULL), (3, 'c', 3);
SELECT * FROM partial ORDER BY id;
UPDATE partial SET b = 11 WHERE id = 1;
SELECT * FROM partial ORDER BY id;
-- a NULL would not overwrite: refused
SELECT pg_temp.fails('UPDATE partial SET a = NULL WHERE id = 2');
SELECT pg_temp.fails('DELETE FROM partial WHERE id = 1');

-- ---- aggregation: the declared function applies ------------------------------
INSERT INTO agg VALUES (1, 'x', 5), (2, 'y', 1);
INSERT INTO agg VALUES (1, 'z', 7), (1, NULL, 100);
SELECT * FROM agg ORDER BY id;
SELECT pg_temp.fails('UPDATE agg SET v = 0 WHERE id = 1');
SELECT pg_temp.fails('DELETE FROM agg WHERE id = 1');

-- ---- many rows: buffer flushes and rolled files, still one row per key --------
INSERT INTO small SELECT i % 700, 'n' || i, i FROM generate_series(1, 2000) i;
SELECT count(*), count(DISTINCT id), sum(v), min(name), max(name) FROM small;
SELECT sum(v) AS expected FROM (SELECT DISTINCT ON (i % 700) i AS v FROM generate_series(1, 2000) i
  ORDER BY i % 700, i DESC) x;
SELECT count(*) > 4 AS several_files, sum(row_count) >= 700 AS rows_written,
  count(*) FILTER (WHERE level <> 0) AS not_level0 FROM tablescan_files('small');
DELETE FROM small WHERE id < 100;
SELECT count(*), min(id), sum(v) FROM small;
SELECT count(*), sum(v) AS expected FROM (SELECT DISTINCT ON (i % 700) i % 700 AS id, i AS v
  FROM generate_series(1, 2000) i ORDER BY i % 700, i DESC) x WHERE id >= 100;

-- ---- a Java-written table appended to ------------------------------------------
\! cp -r "$TS_SHARED"/testdata/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor /tmp/ts_write_pk_wh/p.db/java && chmod -R a+rwX /tmp/ts_write_pk_wh/p.db/java
CREATE FOREIGN TABLE java (f0 text NOT NULL, f1 int NOT NULL, f2 int NOT NULL, f3 double precision)
  SERVER pklake OPTIONS (database 'p', "table" 'java');
-- a heap copy takes the same statements: the model the table must equal
CREATE TEMP TABLE java_model AS SELECT * FROM java;
SELECT * FROM java_model ORDER BY f1, f2, f0;
-- the existing files of bucket 1 of f1=10 end at sequence number 11
\! bash test/write-pk-meta.sh /tmp/ts_write_pk_wh/p.db/java 5
INSERT INTO java VALUES ('Alex', 10, 0, 99.5), ('Zoe', 10, 0, 1.5), ('Neo', 30, 1, 2.5);
INSERT INTO java_model VALUES ('Alex', 10, 0, 99.5), ('Zoe', 10, 0, 1.5), ('Neo', 30, 1, 2.5);
UPDATE java SET f3 = -f3 WHERE f0 = 'Bob';
UPDATE java_model SET f3 = -f3 WHERE f0 = 'Bob';
DELETE FROM java WHERE f0 = 'Paul';
DELETE FROM java_model WHERE f0 = 'Paul';
SELECT count(*) AS missing FROM (SELECT * FROM java_model EXCEPT ALL SELECT * FROM java) x;
SELECT count(*) AS extra FROM (SELECT * FROM java EXCEPT ALL SELECT * FROM java_model) x;
SELECT f0, f1, f3 FROM java WHERE f0 IN ('Alex', 'Bob', 'Zoe', 'Neo', 'Paul') ORDER BY f0;
-- our 'Alex' key is the BinaryRow Java wrote for it (snapshot 5 above); numbers continue
-- after 11 (f1=10 bucket 1) and after 1 (f1=20 bucket 0); a new partition starts at 0
\! bash test/write-pk-meta.sh /tmp/ts_write_pk_wh/p.db/java 6
\! bash test/write-pk-meta.sh /tmp/ts_write_pk_wh/p.db/java 8

-- ---- refused before any file is written ------------------------------------------
SELECT q, pg_temp.fails(q) FROM (VALUES
  ('INSERT INTO first VALUES (1, ''x'', 1)'),
  ('INSERT INTO dyn VALUES (1, ''x'', 1)'),
  ('INSERT INTO clog VALUES (1, ''x'', 1)'),
  ('INSERT INTO seqf VALUES (1, ''x'', 1)'),
  ('UPDATE app SET v = 1'),
  ('DELETE FROM app'),
  ('INSERT INTO dedup VALUES (1, ''x'', 1) ON CONFLICT DO NOTHING')
) AS t(q);
\! find /tmp/ts_write_pk_wh/p.db/first /tmp/ts_write_pk_wh/p.db/dyn /tmp/ts_write_pk_wh/p.db/clog /tmp/ts_write_pk_wh/p.db/seqf /tmp/ts_write_pk_wh/p.db/app -name '*.parquet' | wc -l
DROP SERVER pklake CASCADE;
DROP EXTENSION tablescan_fdw;
\! rm -rf /tmp/ts_write_pk_wh
