-- Decoded manifests shared by backends (issue 41, item 1): with
-- tablescan.metadata_cache_dir set, the first plan of a table in a backend
-- stores each manifest's decoded entries as a record in that directory, and
-- a new connection plans from the records instead of decoding Avro again
-- (tablescan_metadata_cache_stats() counts this backend's use; a plan with
-- no predicate reads a manifest's light record, without statistics), and
-- each snapshot's whole live set as one more record, which a new
-- connection's plan reads instead of the manifest lists and records.  The same
-- queries in new connections with the cache off, filling it, reading from
-- it and after every record was torn give the same rows and keep the same
-- partitions, buckets and files.  The directory is relative: under the
-- throwaway cluster's data directory.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\getenv s3_endpoint TS_S3_ENDPOINT
\set local_wh :fixtures/warehouse
\set VERBOSITY terse
-- a run before this one (same cluster) left its directory: start without it
COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf regress_manifest_cache';

CREATE SERVER mc_lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'local_wh');
CREATE SCHEMA mc;
IMPORT FOREIGN SCHEMA sales FROM SERVER mc_lake INTO mc;
IMPORT FOREIGN SCHEMA pk FROM SERVER mc_lake INTO mc;

-- the queries: whole tables, and predicates that prune partitions, buckets
-- and files by the manifests' statistics
CREATE TABLE mc_queries (q text PRIMARY KEY);
INSERT INTO mc_queries VALUES
  ('SELECT * FROM mc.orders'),
  ('SELECT * FROM mc.orders WHERE dt = ''dt_1'''),
  ('SELECT * FROM mc.orders WHERE id = 42'),
  ('SELECT * FROM mc.orders WHERE id BETWEEN 100 AND 120'),
  ('SELECT * FROM mc.orders WHERE id > 2990 AND dt = ''dt_2'''),
  ('SELECT * FROM mc.customers');
INSERT INTO mc_queries
  SELECT format('SELECT * FROM mc.%I', foreign_table_name)
    FROM information_schema.foreign_tables
   WHERE foreign_table_schema = 'mc' AND foreign_table_name LIKE 'pk\_%';
SELECT count(*) AS queries FROM mc_queries;

-- what a plan keeps (EXPLAIN's partition / bucket / file counts) and a digest of the rows
CREATE FUNCTION mc_plan_facts(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  facts text := '';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ '(Partitions|Buckets|Data Files|Splits):' THEN
      facts := facts || btrim(line) || '; ';
    END IF;
  END LOOP;
  RETURN facts;
END $$;
CREATE FUNCTION mc_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  EXECUTE format('SELECT count(*) || '' rows, '' || md5(coalesce(string_agg(t::text, E''\n'' ORDER BY t::text), '''')) FROM (%s) t', q)
    INTO r;
  RETURN r;
END $$;
CREATE TABLE mc_results (pass text, q text, facts text, rows text);
CREATE PROCEDURE mc_record(pass text) LANGUAGE sql AS $$
  INSERT INTO mc_results SELECT pass, q, mc_plan_facts(q), mc_rows(q) FROM mc_queries;
$$;
-- results of a pass that differ from the pass with the cache off
CREATE FUNCTION mc_differ(p text) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM mc_queries
   WHERE (SELECT (facts, rows) FROM mc_results WHERE pass = p AND q = mc_queries.q)
         IS DISTINCT FROM
         (SELECT (facts, rows) FROM mc_results WHERE pass = 'off' AND q = mc_queries.q);
$$;

-- off by default: nothing stored, nothing read
SHOW tablescan.metadata_cache_dir;
\c
CALL mc_record('off');
SELECT * FROM tablescan_metadata_cache_stats();
SELECT count(*) FILTER (WHERE facts LIKE '%Data Files:%') = count(*) AS every_plan_listed,
       count(*) FILTER (WHERE rows NOT LIKE '0 rows%') = count(*) AS every_query_has_rows
  FROM mc_results WHERE pass = 'off';

-- on for every session of this database
SELECT current_database() AS db \gset
ALTER DATABASE :"db" SET tablescan.metadata_cache_dir = 'regress_manifest_cache';
ALTER DATABASE :"db" SET max_parallel_workers_per_gather = 0;

-- a new connection decodes the manifests and stores a record of each...
\c
CALL mc_record('fill');
SELECT manifests_decoded > 0 AS decoded,
       records_stored = manifests_decoded AS one_record_a_manifest, records_rejected,
       manifests_from_light_records, live_sets_from_records, live_sets_stored > 0 AS live_sets_stored
  FROM tablescan_metadata_cache_stats();
SELECT records_stored AS stored, live_sets_stored AS live_stored
  FROM tablescan_metadata_cache_stats() \gset
-- the directory: mode 0700, one "<digest>.tsm" file a record, two records a
-- manifest (a full one and a light one without statistics, which plans with
-- no predicate read), and the live sets (each of the kind its first plan
-- read: light for a plan without a predicate, else full)
CREATE VIEW mc_files AS
  SELECT f, substr(pg_read_binary_file('regress_manifest_cache/' || f, 0, 8), 1, 8) AS magic
    FROM pg_ls_dir('regress_manifest_cache') f;
SELECT count(*) FILTER (WHERE f ~ '^[0-9a-f]{64}\.tsm$') = 2 * :stored + :live_stored AS every_file_a_record,
       count(*) FILTER (WHERE magic IN ('TSMANENT', 'TSMANLIT')) = 2 * :stored AS two_files_a_manifest,
       count(*) FILTER (WHERE magic IN ('TSLIVSET', 'TSLIVLIT')) = :live_stored AS a_file_a_live_set,
       count(*) FILTER (WHERE f !~ '^[0-9a-f]{64}\.tsm$') AS other_files
  FROM mc_files;
COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; test "$(stat -c %a regress_manifest_cache)" = 700';

-- ...and the next new connection plans from the live sets' records (a plan
-- inferring a bucket from the manifests' records): none decoded.  A plan
-- with a predicate whose table's live set was stored light (by a plan
-- without one) reads the manifests' full records and stores the full kind
\c
CALL mc_record('hit');
SELECT manifests_decoded, records_stored, records_rejected,
       live_sets_from_records > 0 AS live_sets_read, live_sets_stored
  FROM tablescan_metadata_cache_stats();
SELECT mc_differ('fill') AS fill_differs, mc_differ('hit') AS hit_differs;

-- the live sets' records removed (by their magic): the next new connection
-- plans from the manifests' records, and writes the live sets again
DO $$
DECLARE f text;
BEGIN
  FOR f IN SELECT mc_files.f FROM mc_files WHERE magic IN ('TSLIVSET', 'TSLIVLIT') LOOP
    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L',
                   'cat >/dev/null; rm ' || current_setting('data_directory') || '/regress_manifest_cache/' || f);
  END LOOP;
END $$;
SELECT count(*) AS live_set_files FROM mc_files WHERE magic IN ('TSLIVSET', 'TSLIVLIT');
\c
CALL mc_record('records');
SELECT manifests_from_cache >= :stored AS every_manifest_from_cache, manifests_decoded,
       records_stored, records_rejected, live_sets_from_records,
       live_sets_stored > 0 AS live_sets_rewritten
  FROM tablescan_metadata_cache_stats();
-- the queries without a predicate took light records, the others full ones
SELECT manifests_from_light_records > 0 AS light_records_read,
       manifests_from_light_records < manifests_from_cache AS full_records_read
  FROM tablescan_metadata_cache_stats();
SELECT mc_differ('records') AS records_differs;

-- every record torn (two bytes left): each is rejected, removed and
-- rebuilt from its manifest; the answers stay the same.  A plan that may
-- take a light record tries it, then the full one: one or two rejected a
-- manifest, and as many a live set (of either kind)
DO $$
DECLARE f text;
BEGIN
  FOR f IN SELECT * FROM pg_ls_dir('regress_manifest_cache') LOOP
    EXECUTE format('COPY (SELECT 1) TO %L',
                   current_setting('data_directory') || '/regress_manifest_cache/' || f);
  END LOOP;
END $$;
\c
CALL mc_record('torn');
SELECT records_rejected >= :stored AS every_record_rejected,
       records_stored = :stored AS every_record_rebuilt, live_sets_from_records,
       live_sets_stored = :live_stored AS live_sets_rebuilt
  FROM tablescan_metadata_cache_stats();
SELECT mc_differ('torn') AS torn_differs;
\c
CALL mc_record('rebuilt');
SELECT manifests_decoded, records_rejected, live_sets_from_records > 0 AS live_sets_read
  FROM tablescan_metadata_cache_stats();
SELECT mc_differ('rebuilt') AS rebuilt_differs;
-- tablescan.metadata_cache_manifests off: the directory keeps object store
-- metadata only, manifests are decoded (and not stored); superuser only
\c
SET tablescan.metadata_cache_manifests = off;
SELECT count(*) > 0 AS rows FROM mc.orders;
SELECT manifests_from_cache, manifests_decoded, records_stored, live_sets_from_records,
       live_sets_stored
  FROM tablescan_metadata_cache_stats();
CREATE ROLE regress_mc_user;
SET ROLE regress_mc_user;
SET tablescan.metadata_cache_manifests = on;
RESET ROLE;
DROP ROLE regress_mc_user;

-- an object store: a record is found only with the credentials that read
-- the manifest, and a manifest decoded already is not fetched again
CREATE SERVER mc_s3 FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://lake/wh', "s3.endpoint" :'s3_endpoint', "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER mc_s3
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
CREATE SCHEMA mc_s3;
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders) FROM SERVER mc_s3 INTO mc_s3;
\c
SELECT mc_rows('SELECT * FROM mc_s3.orders') = mc_rows('SELECT * FROM mc.orders') AS same_rows_as_local;
SELECT manifests_decoded > 0 AS decoded, records_stored = manifests_decoded AS stored
  FROM tablescan_metadata_cache_stats();
SELECT requests AS cold_requests FROM tablescan_object_store_stats() \gset
\c
SELECT mc_rows('SELECT * FROM mc_s3.orders') = mc_rows('SELECT * FROM mc.orders') AS same_rows_as_local;
SELECT manifests_from_cache + live_sets_from_records > 0 AS from_cache, manifests_decoded,
       live_sets_from_records
  FROM tablescan_metadata_cache_stats();
SELECT requests < :cold_requests AS fewer_requests FROM tablescan_object_store_stats();
-- other credentials (the same keys with a session token) do not find them
ALTER USER MAPPING FOR CURRENT_USER SERVER mc_s3 OPTIONS (ADD "s3.session-token" 'test-session-token');
\c
SELECT count(*) > 0 AS rows FROM mc_s3.orders;
SELECT manifests_from_cache, live_sets_from_records, manifests_decoded > 0 AS decoded
  FROM tablescan_metadata_cache_stats();

-- live sets in shared memory need tablescan_fdw in shared_preload_libraries
-- (test/conformance/shmcache.sh runs such a cluster): without it there is no
-- region, nothing is found there, and its size is fixed at server start
SELECT live_sets_found, live_sets_published, sets IS NULL AS no_region, bytes_size
  FROM tablescan_shared_cache_stats();
SHOW tablescan.shared_cache_size;
SET tablescan.shared_cache_size = '1MB';

ALTER DATABASE :"db" RESET tablescan.metadata_cache_dir;
ALTER DATABASE :"db" RESET max_parallel_workers_per_gather;
\c
COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf regress_manifest_cache';
DROP SCHEMA mc, mc_s3 CASCADE;
DROP SERVER mc_lake, mc_s3 CASCADE;
DROP VIEW mc_files;
DROP TABLE mc_queries, mc_results;
DROP PROCEDURE mc_record(text);
DROP FUNCTION mc_plan_facts(text), mc_rows(text), mc_differ(text);
DROP EXTENSION tablescan_fdw;
