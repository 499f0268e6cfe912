-- The on-disk metadata cache of object stores (issue 21, item 4):
-- manifests read once by a backend are read from the cache by the next
-- backend (fewer requests), never across credentials; a corrupt entry is
-- fetched again and the rows stay right; the cache keeps to its size.
-- tablescan_object_store_stats() counts this backend's requests and cache
-- use.  The cache directory is relative: under the throwaway cluster's
-- data directory.
CREATE EXTENSION tablescan_fdw;
\getenv s3_endpoint TS_S3_ENDPOINT
\getenv fixtures TS_FIXTURES
\set local_wh :fixtures/warehouse
\set VERBOSITY terse
-- a run before this one (same cluster) left its cache directories: start without them
COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; rm -rf regress_metadata_cache regress_open_cache';
SET max_parallel_workers_per_gather = 0;

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
CREATE SERVER s3_lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://lake/wh', "s3.endpoint" :'s3_endpoint', "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3_lake
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
CREATE SCHEMA s3;
CREATE SCHEMA loc;
IMPORT FOREIGN SCHEMA sales FROM SERVER s3_lake INTO s3;
IMPORT FOREIGN SCHEMA sales FROM SERVER local_lake INTO loc;
IMPORT FOREIGN SCHEMA pk FROM SERVER s3_lake INTO s3;
IMPORT FOREIGN SCHEMA pk FROM SERVER local_lake INTO loc;

-- off by default: nothing cached
SHOW tablescan.metadata_cache_dir;
SELECT same_rows('s3.orders', 'loc.orders') AS orders;
SELECT cache_hits, cache_stores, cache_bytes FROM tablescan_object_store_stats();

-- a directory others may enter is refused (the cache stays off, reads go on)
COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; mkdir -p -m 0755 regress_open_cache';
SET tablescan.metadata_cache_dir = 'regress_open_cache';
SELECT count(*) FROM s3.orders;
SELECT cache_stores, cache_bytes FROM tablescan_object_store_stats();
RESET tablescan.metadata_cache_dir;

-- on for every session of this database
SELECT current_database() AS db \gset
ALTER DATABASE :"db" SET tablescan.metadata_cache_dir = 'regress_metadata_cache';
-- object store metadata only here: decoded manifests (manifest_cache.sql) off
ALTER DATABASE :"db" SET tablescan.metadata_cache_manifests = off;
ALTER DATABASE :"db" SET max_parallel_workers_per_gather = 0;

-- a cold plan fills the cache...
\c
CREATE TEMP TABLE before AS SELECT * FROM tablescan_object_store_stats();
EXPLAIN (COSTS OFF) SELECT * FROM s3.orders WHERE dt = 'dt_1';
CREATE TEMP TABLE cold AS
  SELECT s.requests - b.requests AS requests, s.cache_stores - b.cache_stores AS stores,
         s.cache_hits - b.cache_hits AS hits
    FROM tablescan_object_store_stats() s, before b;
SELECT stores > 0 AS manifests_cached, hits FROM cold;
-- the directory: mode 0700, entries named by a digest (the key holds credentials)
SELECT (pg_stat_file('regress_metadata_cache')).isdir,
       count(*) FILTER (WHERE f ~ '^[0-9a-f]{64}$') = (SELECT stores FROM cold) AS one_file_an_entry,
       count(*) FILTER (WHERE f !~ '^[0-9a-f]{64}$') AS other_files
  FROM pg_ls_dir('regress_metadata_cache') f;
COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; test "$(stat -c %a regress_metadata_cache)" = 700';
SELECT stores, requests AS cold_requests FROM cold \gset

-- ...and the same cold plan in a new session reads them from it
\c
CREATE TEMP TABLE before AS SELECT * FROM tablescan_object_store_stats();
EXPLAIN (COSTS OFF) SELECT * FROM s3.orders WHERE dt = 'dt_1';
-- every entry is a hit, and each hit is a request less than the cold plan
SELECT s.cache_hits - b.cache_hits = :stores AS every_manifest_from_cache,
       s.cache_stores - b.cache_stores AS stores,
       s.requests - b.requests + :stores = :cold_requests AS one_request_less_a_hit,
       s.requests - b.requests < :cold_requests AS fewer_requests
  FROM tablescan_object_store_stats() s, before b;
SELECT same_rows('s3.orders', 'loc.orders') AS orders_warm;

-- other credentials do not find those entries (keys hold the credentials):
-- the same keys with a session token read and cache their own
ALTER USER MAPPING FOR CURRENT_USER SERVER s3_lake OPTIONS (ADD "s3.session-token" 'test-session-token');
\c
EXPLAIN (COSTS OFF) SELECT * FROM s3.orders WHERE dt = 'dt_1';
SELECT cache_hits, cache_stores = :stores AS cached_again FROM tablescan_object_store_stats();
ALTER USER MAPPING FOR CURRENT_USER SERVER s3_lake OPTIONS (DROP "s3.session-token");
-- and wrong credentials are refused by the store, not served by the cache
ALTER USER MAPPING FOR CURRENT_USER SERVER s3_lake OPTIONS (SET "s3.secret-key" 'not-the-secret');
\c
SELECT count(*) FROM s3.orders;
SELECT cache_hits FROM tablescan_object_store_stats();
ALTER USER MAPPING FOR CURRENT_USER SERVER s3_lake OPTIONS (SET "s3.secret-key" 'S3RVER');

-- corrupt every entry (each truncated to two bytes): each is found bad,
-- removed, fetched again; the rows stay right
DO $$
DECLARE f text;
BEGIN
  FOR f IN SELECT * FROM pg_ls_dir('regress_metadata_cache') LOOP
    EXECUTE format('COPY (SELECT 1) TO %L',
                   current_setting('data_directory') || '/regress_metadata_cache/' || f);
  END LOOP;
END $$;
\c
SELECT same_rows('s3.orders', 'loc.orders') AS orders_after_corruption;
SELECT cache_corrupt > 0 AS corrupt_found, cache_corrupt = cache_stores AS each_refetched, cache_hits
  FROM tablescan_object_store_stats();
\c
SELECT same_rows('s3.orders', 'loc.orders') AS orders_from_repaired_cache;
SELECT cache_hits > 0 AS hits, cache_corrupt, cache_stores FROM tablescan_object_store_stats();

-- a small limit: least recently used entries go, the directory stays under it
\c
SET tablescan.metadata_cache_size = '16kB';
SELECT same_rows('s3.' || t, 'loc.' || t) AS pk_rows, t
  FROM unnest(ARRAY['pk_dedup_dv', 'pk_dedup_levels', 'pk_aggregation', 'pk_first_row',
                    'pk_partial_update', 'pk_dedup_level0']) t ORDER BY t;
SELECT cache_bytes <= 16384 AS within_limit, cache_evicted > 0 AS evicted, cache_stores > 0 AS stored
  FROM tablescan_object_store_stats();
SELECT same_rows('s3.orders', 'loc.orders') AS orders_small_cache;
SELECT cache_bytes <= 16384 AS within_limit FROM tablescan_object_store_stats();
-- an unprivileged role may not move or resize the cache
CREATE ROLE regress_cache_user;
SET ROLE regress_cache_user;
SET tablescan.metadata_cache_dir = '/tmp';
SET tablescan.metadata_cache_size = '1GB';
RESET ROLE;
DROP ROLE regress_cache_user;

ALTER DATABASE :"db" RESET tablescan.metadata_cache_dir;
ALTER DATABASE :"db" RESET tablescan.metadata_cache_manifests;
ALTER DATABASE :"db" RESET max_parallel_workers_per_gather;
\c
DROP SCHEMA s3, loc CASCADE;
DROP SERVER s3_lake, local_lake CASCADE;
DROP FUNCTION same_rows(text, text);
DROP EXTENSION tablescan_fdw;
