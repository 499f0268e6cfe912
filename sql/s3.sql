-- Tables in an S3-compatible object store (issue 21): test/s3/start.sh runs
-- s3rver behind a proxy that verifies every request's SigV4 signature, with
-- copies of the fixture warehouse and of ../shared/testdata tables uploaded.
-- Every table read over s3:// gives the same rows as its local copy.
CREATE EXTENSION tablescan_fdw;
\getenv s3_endpoint TS_S3_ENDPOINT
\getenv fixtures TS_FIXTURES
\getenv shared TS_SHARED
\getenv rest_uri TS_REST_URI
\getenv rest_token TS_REST_TOKEN
\set local_wh :fixtures/warehouse
\set shared_wh :shared/testdata/parquet
\set local_csv :fixtures/formattable/events_csv
\set VERBOSITY terse
SET TIME ZONE 'UTC';
SELECT :'s3_endpoint' LIKE 'http://127.0.0.1:%' AS store_running;

-- rows as text: any column type compares
CREATE FUNCTION same_rows(a text, b text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  d bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM %s t', a) INTO n;
  EXECUTE format('SELECT count(*) FROM ((SELECT t::text FROM %s t EXCEPT ALL SELECT t::text FROM %s t)
                  UNION ALL (SELECT t::text FROM %s t EXCEPT ALL SELECT t::text FROM %s t)) d',
                 a, b, b, a) INTO d;
  RETURN format('%s rows, %s differ', n, d);
END $$;

CREATE SERVER local_lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'local_wh');
CREATE SERVER local_shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'shared_wh');
CREATE SERVER s3_lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://lake/wh', "s3.endpoint" :'s3_endpoint', "s3.region" 'us-east-1',
           "s3.path.style.access" 'true');
CREATE SERVER s3_shared FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3a://lake/shared', "fs.s3a.endpoint" :'s3_endpoint',
           "fs.s3a.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3_lake
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
CREATE USER MAPPING FOR PUBLIC SERVER s3_shared
  OPTIONS ("fs.s3a.access.key" 'S3RVER', "fs.s3a.secret.key" 'S3RVER');

-- IMPORT FOREIGN SCHEMA lists the database over ListObjectsV2 (pages of 3 here)
CREATE SCHEMA s3;
CREATE SCHEMA loc;
IMPORT FOREIGN SCHEMA sales FROM SERVER s3_lake INTO s3;
IMPORT FOREIGN SCHEMA sales FROM SERVER local_lake INTO loc;
IMPORT FOREIGN SCHEMA pk FROM SERVER s3_lake INTO s3;
IMPORT FOREIGN SCHEMA pk FROM SERVER local_lake INTO loc;
IMPORT FOREIGN SCHEMA ft FROM SERVER s3_lake INTO s3;
IMPORT FOREIGN SCHEMA ft FROM SERVER local_lake INTO loc;
SELECT foreign_table_name FROM information_schema.foreign_tables
 WHERE foreign_table_schema = 's3' ORDER BY 1;
-- the same columns as the local import
SELECT count(*) AS column_differences FROM (
  (SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
     JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = 's3'::regnamespace AND a.attnum > 0
   EXCEPT SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
     JOIN pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = 'loc'::regnamespace AND a.attnum > 0)) d;

-- append table (3 snapshots, partitions, buckets), primary-key tables
-- (merge engines, deletion vectors), a format table with a schema
SELECT same_rows('s3.orders', 'loc.orders') AS orders,
       same_rows('s3.customers', 'loc.customers') AS customers;
SELECT same_rows('s3.' || t, 'loc.' || t) AS pk_rows, t
  FROM unnest(ARRAY['pk_dedup_dv', 'pk_dedup_levels', 'pk_aggregation', 'pk_first_row',
                    'pk_partial_update', 'pk_dedup_level0']) t ORDER BY t;
SELECT same_rows('s3.events_csv', 'loc.events_csv') AS events_csv,
       same_rows('s3.events_json', 'loc.events_json') AS events_json;
SELECT dt, count(*) FROM s3.orders WHERE dt >= 'dt_1' GROUP BY dt ORDER BY dt;
SELECT id, customer, amount, dt FROM s3.orders WHERE id = 43;
EXPLAIN (COSTS OFF) SELECT * FROM s3.orders WHERE dt = 'dt_1' AND id = 43;

-- time travel: each snapshot as its local copy
CREATE FOREIGN TABLE s3_orders_s1 (id int, dt text) SERVER s3_lake
  OPTIONS (database 'sales', "table" 'orders', "scan.snapshot-id" '1');
CREATE FOREIGN TABLE loc_orders_s1 (id int, dt text) SERVER local_lake
  OPTIONS (database 'sales', "table" 'orders', "scan.snapshot-id" '1');
SELECT same_rows('s3_orders_s1', 'loc_orders_s1') AS snapshot_1;
SET tablescan.scan_options = 'scan.snapshot-id=2';
SELECT same_rows('s3.orders', 'loc.orders') AS snapshot_2;
RESET tablescan.scan_options;

-- a btree global index over s3:// (its footer, index block and the data blocks a lookup
-- needs, by range requests): row i has id i, name 'name_' || i, v i * 1000000007
CREATE FOREIGN TABLE s3_bt (id int, name text, v bigint) SERVER s3_lake
  OPTIONS (database 'btree', "table" 'events');
CREATE FOREIGN TABLE loc_bt (id int, name text, v bigint) SERVER local_lake
  OPTIONS (database 'btree', "table" 'events');
EXPLAIN (COSTS OFF) SELECT id FROM s3_bt WHERE name = 'name_123' OR v BETWEEN 590000004130 AND 599000004193;
SELECT array_agg(id ORDER BY id) FROM s3_bt WHERE name = 'name_123' OR v BETWEEN 590000004130 AND 599000004193;
SELECT same_rows('s3_bt', 'loc_bt') AS btree_table;

-- tables written by Java Paimon (append, primary key with deletion vectors), over s3a://
CREATE SCHEMA s3j;
CREATE SCHEMA locj;
IMPORT FOREIGN SCHEMA append_09 FROM SERVER s3_shared INTO s3j;
IMPORT FOREIGN SCHEMA append_09 FROM SERVER local_shared INTO locj;
IMPORT FOREIGN SCHEMA pk_table_scan_and_read_dv FROM SERVER s3_shared INTO s3j;
IMPORT FOREIGN SCHEMA pk_table_scan_and_read_dv FROM SERVER local_shared INTO locj;
SELECT same_rows('s3j.append_09', 'locj.append_09') AS append_09,
       same_rows('s3j.pk_table_scan_and_read_dv', 'locj.pk_table_scan_and_read_dv') AS pk_dv;

-- a format table declared in SQL over a plain CSV tree
CREATE FOREIGN TABLE s3_events (id integer, name text, amount numeric(10,2), dt date, region text)
  SERVER s3_lake OPTIONS (path 's3://lake/files/events_csv', format 'csv', partition_keys 'dt,region');
CREATE FOREIGN TABLE loc_events (id integer, name text, amount numeric(10,2), dt date, region text)
  SERVER local_lake OPTIONS (path :'local_csv', format 'csv',
                             partition_keys 'dt,region');
SELECT same_rows('s3_events', 'loc_events') AS csv_tree;

-- a scan fetches the small data files of its next splits together (64
-- files / 64 MB at a time): orders' splits cost a round trip to read, not
-- one each (tablescan_object_store_stats: a request alone or a batch of
-- concurrent ones is one round trip; the reading is the difference between
-- a full scan and one pruned to nothing, both with the manifests cached)
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS splits, sum(n) AS files
  FROM (SELECT partition, bucket, count(*) AS n FROM tablescan_files('s3.orders') GROUP BY 1, 2) s;
SELECT count(*) FROM s3.orders;
CREATE TEMP TABLE rt0 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS none FROM s3.orders t WHERE dt = 'none';
CREATE TEMP TABLE rt1 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS s3_orders_md5 FROM s3.orders t \gset
CREATE TEMP TABLE rt2 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) = :'s3_orders_md5' AS same_as_local FROM loc.orders t;
SELECT (rt2.round_trips - rt1.round_trips) - (rt1.round_trips - rt0.round_trips) AS reading_round_trips,
       (rt2.requests - rt1.requests) - (rt1.requests - rt0.requests) AS reading_requests
  FROM rt0, rt1, rt2;
DROP TABLE rt0, rt1, rt2;
-- ANALYZE samples through the same window of files across splits: what it
-- costs is its plan's requests (the manifests cached by the scans above) and
-- one round trip for orders' 36 data files (12 before: one per split)
CREATE TEMP TABLE rt0 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
ANALYZE s3.orders;
CREATE TEMP TABLE rt1 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT rt1.round_trips - rt0.round_trips AS analyze_round_trips, rt1.requests - rt0.requests AS analyze_requests
  FROM rt0, rt1;
SELECT reltuples FROM pg_class WHERE oid = 's3.orders'::regclass;
DROP TABLE rt0, rt1;

-- sidecar file indexes (<data file>.index, read before each file is opened) come in the
-- same batch as their data files: idx.db/events_sidecar is one split of 8 small Parquet
-- files of 100 rows, each with a sidecar.  kind = 5 (kind = i % 128, NULL where i % 7 = 2):
-- statistics rule out file 4 (kind 16..115), file 2's bitmap rules it out (its only
-- i % 128 = 5, 261, has a NULL kind).  Reading beyond the query pruned to nothing: the
-- split's window, the 7 data files kept and their 7 sidecars, in 1 round trip of 13
-- requests (8 round trips before: the window, then each sidecar alone before its file;
-- 14 requests before the batch took the sidecar read last from memory, fs_object.c's memo)
CREATE FOREIGN TABLE s3_idx (id int, kind smallint) SERVER s3_lake
  OPTIONS (database 'idx', "table" 'events_sidecar');
CREATE FOREIGN TABLE loc_idx (id int, kind smallint) SERVER local_lake
  OPTIONS (database 'idx', "table" 'events_sidecar');
SELECT count(*) AS files, count(index_file) AS sidecars FROM tablescan_files('s3_idx');
SELECT count(*) FROM s3_idx WHERE kind = 5;
CREATE TEMP TABLE rt0 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT count(*) AS none FROM s3_idx WHERE id < 0 AND kind = 5;
CREATE TEMP TABLE rt1 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT array_agg(id ORDER BY id) AS s3_ids FROM s3_idx WHERE kind = 5 \gset
CREATE TEMP TABLE rt2 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT :'s3_ids' AS ids, :'s3_ids' = (SELECT array_agg(id ORDER BY id) FROM loc_idx WHERE kind = 5)::text AS same_as_local;
SELECT (rt2.round_trips - rt1.round_trips) - (rt1.round_trips - rt0.round_trips) AS reading_round_trips,
       (rt2.requests - rt1.requests) - (rt1.requests - rt0.requests) AS reading_requests
  FROM rt0, rt1, rt2;
DROP TABLE rt0, rt1, rt2;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM s3_idx WHERE kind = 5;
-- a cold plan of orders (cache 'false': no live manifest entries kept):
-- one listing of schema/, GET schema-0, GET snapshot/LATEST (3), HEAD
-- snapshot-4 (none after it: the hint holds, as in Java), GET snapshot-3
-- directly (no HEAD first), its two manifest lists together, their 3
-- manifests (2 in the base list, 1 in the delta) together: 10 requests in
-- 7 round trips (13 in 10 before: schema/ listed twice, a listing of
-- snapshot/ and a HEAD of snapshot-3).  A batch counts one round trip even
-- when it goes with another request: LATEST is started with the listing of
-- schema/, schema-0 and snapshot-3 with the HEAD of snapshot-4, so that the
-- plan waits for 4 round trips one after another (test/s3/latency.sh counts
-- those)
CREATE FOREIGN TABLE s3.cold_orders (id int, customer text, amount numeric, dt text) SERVER s3_lake
  OPTIONS (database 'sales', "table" 'orders', cache 'false');
CREATE FUNCTION plan_cost(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r0 record; r1 record; x text;
BEGIN
  SELECT round_trips, requests INTO r0 FROM tablescan_object_store_stats();
  EXECUTE 'EXPLAIN (COSTS OFF) ' || q INTO x;
  SELECT round_trips, requests INTO r1 FROM tablescan_object_store_stats();
  RETURN format('%s requests in %s round trips', r1.requests - r0.requests,
                r1.round_trips - r0.round_trips);
END $$;
SELECT plan_cost('SELECT * FROM s3.cold_orders') AS cold_plan,
       plan_cost('SELECT * FROM s3.cold_orders') AS cold_plan_again;
-- what reading a query costs beyond the same query pruned to nothing (both
-- planned with the manifests cached): round trips (a request alone or a
-- batch of concurrent ones is one) and requests
CREATE FUNCTION reading_cost(q_full text, q_none text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r0 bigint; r1 bigint; r2 bigint; x text;
BEGIN
  EXECUTE q_full INTO x;
  SELECT round_trips INTO r0 FROM tablescan_object_store_stats();
  EXECUTE q_none INTO x;
  SELECT round_trips INTO r1 FROM tablescan_object_store_stats();
  EXECUTE q_full INTO x;
  SELECT round_trips INTO r2 FROM tablescan_object_store_stats();
  RETURN format('%s round trips', (r2 - r1) - (r1 - r0));
END $$;
-- count and a hash of every row as text: the same rows, cheaply
CREATE FUNCTION rows_hash(t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  EXECUTE format('SELECT count(*) || '' rows, '' || sum(hashtext(t::text)) FROM %s t', t) INTO r;
  RETURN r;
END $$;

-- files larger than a scan fetches whole (8 MiB) are read by ranges:
-- big.db/orc_big is one ORC file of 8 stripes (10.8 MB), big.db/pq_rg the
-- same rows in one Parquet file of 8 row groups, big.db/avro_big
-- one Avro file of ~170 blocks (10.7 MB), written by ts_gen (test/s3/start.sh)
\getenv big_wh TS_S3_BIG
CREATE SERVER local_big FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'big_wh');
CREATE SCHEMA s3b;
CREATE SCHEMA locb;
IMPORT FOREIGN SCHEMA big FROM SERVER s3_lake INTO s3b;
IMPORT FOREIGN SCHEMA big FROM SERVER local_big INTO locb;
SELECT rows_hash('s3b.orc_big') = rows_hash('locb.orc_big') AS orc_same,
       rows_hash('s3b.avro_big') = rows_hash('locb.avro_big') AS avro_same, rows_hash('locb.orc_big') AS orc;
SELECT (SELECT sum(hashtext(s)) FROM s3b.orc_big) = (SELECT sum(hashtext(s)) FROM locb.orc_big) AS orc_column_same,
       (SELECT sum(id::bigint) FILTER (WHERE d IS NULL) FROM s3b.avro_big) =
       (SELECT sum(id::bigint) FILTER (WHERE d IS NULL) FROM locb.avro_big) AS avro_columns_same;
-- ORC: no HEAD (the file's size is its manifest entry's); every column
-- read (and no filter): the whole file (at most 32 MiB) comes with its
-- tail, one round trip.  One column: the tail (postscript, footer,
-- metadata) in one batch with the file's first 1 MiB, the footers of the
-- 8 stripes in one batch, then a batch per stripe (its streams) but the
-- first, whose column s lies in that first 1 MiB: 2 + 7; the stripes'
-- batches are all started together (they fit in the 32 MiB requested
-- ahead), so the reader waits for them once (counted here per batch;
-- test/s3/latency.sh counts the round trips waited one after another)
SELECT reading_cost('SELECT sum(hashtext(t::text)) FROM s3b.orc_big t',
                    'SELECT sum(hashtext(t::text)) FROM s3b.orc_big t WHERE id < 0') AS orc_all_columns,
       reading_cost('SELECT sum(hashtext(s)) FROM s3b.orc_big',
                    'SELECT sum(hashtext(s)) FROM s3b.orc_big WHERE id < 0') AS orc_one_column;
-- Parquet (big.db/pq_rg: the same rows in 8 row groups of ~1.7 MB): the
-- row groups' chunks are requested together (they fit in the 32 MiB
-- requested ahead) and each waited for when the reader gets to it, the
-- rows those of the local copy; every column read: the whole file comes
-- with its footer, one round trip; one column: one round trip for the
-- file's first 1 MiB (the magic and the first row group's chunk of s) and
-- its last 64 KB, which hold the footer's length and the footer (no HEAD:
-- the size is the manifest entry's), then a batch (one coalesced GET) per
-- later row group: 1 + 7, counted per batch, though they are waited for
-- at once (the pruned query opens no file)
SELECT rows_hash('s3b.pq_rg') = rows_hash('locb.pq_rg') AS parquet_same,
       (SELECT sum(hashtext(s)) FROM s3b.pq_rg) = (SELECT sum(hashtext(s)) FROM locb.pq_rg) AS parquet_column_same,
       rows_hash('locb.pq_rg') = rows_hash('locb.orc_big') AS parquet_rows_are_orc_rows;
SELECT reading_cost('SELECT sum(hashtext(t::text)) FROM s3b.pq_rg t',
                    'SELECT sum(hashtext(t::text)) FROM s3b.pq_rg t WHERE id < 0') AS parquet_all_columns,
       reading_cost('SELECT sum(hashtext(s)) FROM s3b.pq_rg',
                    'SELECT sum(hashtext(s)) FROM s3b.pq_rg WHERE id < 0') AS parquet_one_column;
-- every column but under a filter the row groups' statistics are asked
-- about (which could leave row groups out): not read whole, the first
-- 1 MiB with the tail, then a batch per row group (the first one's chunks
-- are not all in that 1 MiB): 1 + 8
SELECT reading_cost('SELECT sum(hashtext(t::text)) FROM s3b.pq_rg t WHERE id >= 0',
                    'SELECT sum(hashtext(t::text)) FROM s3b.pq_rg t WHERE id < 0') AS parquet_filtered,
       (SELECT sum(hashtext(t::text)) FROM s3b.pq_rg t WHERE id >= 0) =
       (SELECT sum(hashtext(t::text)) FROM locb.pq_rg t WHERE id >= 0) AS parquet_filtered_same;
-- a LIMIT stops in the first row group: those started ahead are canceled
SELECT count(*) FROM (SELECT * FROM s3b.pq_rg LIMIT 5000) s;
-- Avro: every column read and nothing to leave out: the whole file (at
-- most 32 MiB) fetched with the window of splits, one round trip (no HEAD;
-- was the header with the first 8 MiB, then the rest)
SELECT reading_cost('SELECT sum(hashtext(t::text)) FROM s3b.avro_big t',
                    'SELECT sum(hashtext(t::text)) FROM s3b.avro_big t WHERE id < 0') AS avro;
-- deletion vectors: the two index files come with the data files of the
-- splits, in the same batch (one round trip for the lot)
SELECT count(*) AS files, count(DISTINCT deletion_file) AS dv_index_files
  FROM tablescan_files('s3j.pk_table_scan_and_read_dv');
SELECT reading_cost('SELECT sum(hashtext(t::text)) FROM s3j.pk_table_scan_and_read_dv t',
                    'SELECT sum(hashtext(t::text)) FROM s3j.pk_table_scan_and_read_dv t WHERE f1 = -12345') AS dv_table;
DROP SCHEMA s3b, locb CASCADE;
DROP SERVER local_big;
DROP FUNCTION reading_cost(text, text), rows_hash(text);
-- a LIMIT: the window stops at the files that hold its rows
SELECT count(*) FROM (SELECT * FROM s3.orders LIMIT 7) s;
RESET max_parallel_workers_per_gather;

-- a parallel scan: each process claims its tasks (here orders' 36 files)
-- in small groups and fetches a group's files in one batch, the next
-- group's while it reads the one before: with 2 workers the rows are the
-- local copy's; the leader alone (no worker can start) takes groups of
-- 6, 5, 4, 3, 3, 2, 2 and then 1 (at most 1/6 of the tasks left, 3
-- processes planned): 18 round trips for 36 requests, not one per task
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM s3.orders t;
SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) = :'s3_orders_md5' AS parallel_same_as_local
  FROM s3.orders t;
SET max_parallel_workers = 0;
CREATE TEMP TABLE rt0 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) AS none FROM s3.orders t WHERE dt = 'none';
CREATE TEMP TABLE rt1 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) = :'s3_orders_md5' AS leader_alone_same
  FROM s3.orders t;
CREATE TEMP TABLE rt2 AS SELECT round_trips, requests FROM tablescan_object_store_stats();
SELECT (rt2.round_trips - rt1.round_trips) - (rt1.round_trips - rt0.round_trips) AS reading_round_trips,
       (rt2.requests - rt1.requests) - (rt1.requests - rt0.requests) AS reading_requests
  FROM rt0, rt1, rt2;
DROP TABLE rt0, rt1, rt2;
RESET max_parallel_workers;
-- a Gather rescanned by a nested loop (its outer side, a temporary table,
-- cannot be read by workers): the tasks are handed out again each time,
-- every row read once per outer row, as the local copy's
CREATE TEMP TABLE xs (x int);
INSERT INTO xs VALUES (0), (1), (2);
ANALYZE xs;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT xs.x, count(*) FROM xs JOIN s3.orders o ON o.id % 3 = xs.x GROUP BY xs.x;
SELECT xs.x,
       count(*) = (SELECT count(*) FROM loc.orders l WHERE l.id % 3 = xs.x) AS same_count,
       sum(hashtext(o::text)::numeric) =
         (SELECT sum(hashtext(l::text)::numeric) FROM loc.orders l WHERE l.id % 3 = xs.x) AS same_rows
  FROM xs JOIN s3.orders o ON o.id % 3 = xs.x GROUP BY xs.x ORDER BY xs.x;
DROP TABLE xs;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- errors: a missing object names it; wrong keys fail at once, naming the
-- status and S3 error code, never the secret
CREATE FOREIGN TABLE s3_missing (id int) SERVER s3_lake OPTIONS (database 'sales', "table" 'nothing');
SELECT count(*) FROM s3_missing;
CREATE FOREIGN TABLE s3_broken (id int) SERVER s3_lake OPTIONS (database 'broken', "table" 'customers');
SELECT count(*) > 0 AS files_planned FROM tablescan_files('s3_broken');
SELECT max(id::text) FROM s3_broken;
ALTER USER MAPPING FOR CURRENT_USER SERVER s3_lake OPTIONS (SET "s3.secret-key" 'not-the-secret');
SELECT count(*) FROM s3.orders;
ALTER USER MAPPING FOR CURRENT_USER SERVER s3_lake OPTIONS (SET "s3.access-key" 'NOBODY');
SELECT count(*) FROM s3.orders;
ALTER USER MAPPING FOR CURRENT_USER SERVER s3_lake
  OPTIONS (SET "s3.access-key" 'S3RVER', SET "s3.secret-key" 'S3RVER', ADD "s3.session-token" 'wrong-token');
SELECT count(*) FROM s3.orders;
ALTER USER MAPPING FOR CURRENT_USER SERVER s3_lake OPTIONS (SET "s3.session-token" 'test-session-token');
SELECT count(*) FROM s3.orders;

-- secrets only in a user mapping; other schemes refused by name
CREATE SERVER bad1 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 's3://lake/wh', "s3.secret-key" 'x');
CREATE FOREIGN TABLE bad2 (id int) SERVER s3_lake OPTIONS (path 's3://lake/wh/sales.db/orders', "fs.s3a.access.key" 'x');
SET tablescan.scan_options = 's3.secret-key=x';
SELECT count(*) FROM s3.orders;
RESET tablescan.scan_options;
CREATE SERVER bad3 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 'hdfs://nn:8020/wh');
CREATE SERVER bad4 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 'gs://bucket/wh');
CREATE SERVER bad5 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 'adl://a.azuredatalakestore.net/wh');
CREATE SERVER bad6 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 's3://lake/wh/../x');
CREATE SERVER bad7 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 's3://lake/wh', "s3.endpoint" 'ftp://x');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3_shared OPTIONS ("s3.endpoint" 'http://x');
-- the secret appears in no catalog but pg_user_mapping, nor in EXPLAIN
SELECT count(*) AS servers_with_secret FROM pg_foreign_server WHERE array_to_string(srvoptions, ',') LIKE '%S3RVER%';
SELECT count(*) AS tables_with_secret FROM pg_foreign_table WHERE array_to_string(ftoptions, ',') LIKE '%S3RVER%';
CREATE FUNCTION explain_text(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text; out text := '';
BEGIN
  FOR r IN EXECUTE 'EXPLAIN (VERBOSE, ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    out := out || r || E'\n';
  END LOOP;
  RETURN out;
END $$;
SELECT explain_text('SELECT * FROM s3.orders WHERE id = 43') LIKE '%S3RVER%' AS explain_shows_secret,
       explain_text('SELECT * FROM s3.orders WHERE id = 43') LIKE '%test-session-token%' AS explain_shows_token;

-- anonymous reads: a public bucket through a PUBLIC mapping without keys
CREATE SERVER s3_open FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://open/wh', "s3.endpoint" :'s3_endpoint', "s3.path.style.access" 'true');
CREATE USER MAPPING FOR PUBLIC SERVER s3_open;
CREATE FOREIGN TABLE open_orders (id int, dt text) SERVER s3_open OPTIONS (database 'sales', "table" 'orders');
SELECT same_rows('open_orders', 'loc_orders_s1') <> '' AS read_anonymously, count(*) FROM open_orders;
-- the private bucket refuses anonymous reads
CREATE FOREIGN TABLE anon_private (id int) SERVER s3_open OPTIONS (path 's3://lake/wh/sales.db/orders');
SELECT count(*) FROM anon_private;

-- an unprivileged role: only through a user mapping, confined to its table
CREATE ROLE regress_s3_reader;
GRANT USAGE, CREATE ON SCHEMA s3 TO regress_s3_reader;
GRANT SELECT ON s3.orders TO regress_s3_reader;
GRANT USAGE ON FOREIGN SERVER s3_lake TO regress_s3_reader;
SET ROLE regress_s3_reader;
SELECT count(*) FROM s3.orders;
-- it names no other location, endpoint or CA file
CREATE FOREIGN TABLE s3.elsewhere (id int) SERVER s3_lake
  OPTIONS (path 's3://lake/shared/append_09.db/append_09');
CREATE FOREIGN TABLE s3.redirected (id int) SERVER s3_lake
  OPTIONS (database 'sales', "table" 'orders', "s3.endpoint" 'http://169.254.169.254');
CREATE FOREIGN TABLE s3.own_ca (id int) SERVER s3_lake
  OPTIONS (database 'sales', "table" 'orders', ca_file '/etc/passwd');
RESET ROLE;
CREATE USER MAPPING FOR regress_s3_reader SERVER s3_lake
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
SET ROLE regress_s3_reader;
SELECT count(*) FROM s3.orders;
RESET ROLE;

-- a REST catalog's table in the object store: the catalog gives its
-- s3:// location, the table's data token its keys (fs.s3a.* forms)
CREATE SERVER cat_s3 FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri :'rest_uri', warehouse 'test', "s3.endpoint" :'s3_endpoint',
           "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER cat_s3 OPTIONS (token :'rest_token');
CREATE SCHEMA via_cat;
IMPORT FOREIGN SCHEMA s3db FROM SERVER cat_s3 INTO via_cat;
SELECT same_rows('via_cat.orders', 'loc.orders') AS rest_orders;
DROP SCHEMA via_cat CASCADE;
DROP SERVER cat_s3 CASCADE;

-- the store's fault counts start over (a run before this one saw the first attempts)
\set reset_faults 'cat >/dev/null; curl -sf -o /dev/null "' :s3_endpoint '/__chaos?reset=1"'
COPY (SELECT 1) TO PROGRAM :'reset_faults';
-- faults: every first attempt fails (503, 500, 429, a truncated body, a reset
-- connection); the retries give the same rows, never wrong or missing ones
CREATE SERVER s3_flaky FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://flaky/wh', "s3.endpoint" :'s3_endpoint', "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3_flaky
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
CREATE FOREIGN TABLE flaky_orders (id int, customer text, amount numeric, dt text) SERVER s3_flaky
  OPTIONS (database 'sales', "table" 'orders', cache 'false');
CREATE FOREIGN TABLE loc_orders (id int, customer text, amount numeric, dt text) SERVER local_lake
  OPTIONS (database 'sales', "table" 'orders');
-- without retries the first fault is a clear ERROR naming the request (the
-- LATEST hint fetched ahead fails first, unreported: the plan reads it
-- again; the proxy answers listings itself, so the schema listing's turn,
-- a cut body, does not hit it; the snapshot listing's, a 503, does)
SET tablescan.s3_max_attempts = 1;
SELECT max(id::text) FROM flaky_orders WHERE dt = 'dt_2';
RESET tablescan.s3_max_attempts;
\set VERBOSITY default
SET max_parallel_workers_per_gather = 0;
SELECT same_rows('(SELECT * FROM flaky_orders WHERE dt = ''dt_2'')',
                 '(SELECT * FROM loc_orders WHERE dt = ''dt_2'')') AS through_faults;
RESET max_parallel_workers_per_gather;
SELECT same_rows('(SELECT * FROM flaky_orders WHERE dt = ''dt_1'')',
                 '(SELECT * FROM loc_orders WHERE dt = ''dt_1'')') AS through_faults_parallel;
\set VERBOSITY terse
-- a store that never answers: statement_timeout cancels the transfer
CREATE FOREIGN TABLE stalled (id int) SERVER s3_flaky OPTIONS (path 's3://stall/wh/sales.db/orders');
SET statement_timeout = '300ms';
SELECT count(*) FROM stalled;
RESET statement_timeout;
SELECT count(*) FROM loc_orders;
DROP SERVER s3_flaky CASCADE;

-- libcurl is loaded by a backend's first remote request, not with the
-- extension (src/base/curl_dl.c): a new connection's local scan leaves it
-- unmapped, its first S3 scan maps it
\c
SELECT count(*) FROM loc_orders;
SELECT pg_read_file('/proc/self/maps') ~ 'libcurl' AS libcurl_mapped;
SELECT count(*) FROM s3.orders;
SELECT pg_read_file('/proc/self/maps') ~ 'libcurl' AS libcurl_mapped;

DROP SCHEMA s3, loc, s3j, locj CASCADE;
DROP SERVER s3_lake, s3_shared, s3_open, local_lake, local_shared CASCADE;
DROP ROLE regress_s3_reader;
DROP FUNCTION same_rows(text, text), explain_text(text);
DROP EXTENSION tablescan_fdw;
