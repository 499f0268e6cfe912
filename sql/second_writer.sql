-- Results over tables a second writer made: Java Paimon wrote
-- ../shared/testdata (data files, manifests, partition BinaryRows, the bucket
-- of every row), so a bug shared by our generator (src/tools/ts_gen: its
-- BinaryRow and bucket code) and our reader cannot cancel out here, as it
-- could in the suites over make-fixtures.sh's tables.  The expected rows are
-- the oracle's (../shared/oracle, the case named above each query).
CREATE EXTENSION tablescan_fdw;
\getenv shared TS_SHARED
\set pq :shared/testdata/parquet
\set orc :shared/testdata/orc
CREATE SERVER java_pq FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'pq');
CREATE SERVER java_orc FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'orc');

-- 1. Bucket placement.  Java put every row into the bucket its bucket key
-- hashes to; reading one bucket at a time (bucket_filter: the files the
-- manifests place in it), tablescan_bucket() -- our hash of the key's
-- BinaryRow -- must give that bucket for every row, and the buckets together
-- hold every row.
CREATE FUNCTION placement(t regclass, key text, nbuckets int)
RETURNS TABLE (bucket int, n bigint, agree boolean) LANGUAGE plpgsql AS $$
BEGIN
  FOR b IN 0 .. nbuckets - 1 LOOP
    EXECUTE format('ALTER FOREIGN TABLE %s OPTIONS (ADD bucket_filter %L)', t, b);
    bucket := b;
    EXECUTE format('SELECT count(*), bool_and(tablescan_bucket(%L, %I) = %s) FROM %s', t, key, b, t)
      INTO n, agree;
    EXECUTE format('ALTER FOREIGN TABLE %s OPTIONS (DROP bucket_filter)', t);
    RETURN NEXT;
  END LOOP;
END $$;
CREATE FOREIGN TABLE append_09 (f0 text, f1 int, f2 int, f3 float8)
  SERVER java_pq OPTIONS (database 'append_09', "table" 'append_09');
SELECT * FROM placement('append_09', 'f2', 2);
SELECT count(*) FROM append_09;
CREATE FOREIGN TABLE pk_09 (f0 text, f1 int, f2 int, f3 float8)
  SERVER java_pq OPTIONS (database 'pk_09', "table" 'pk_09');
SELECT * FROM placement('pk_09', 'f2', 2);
SELECT count(*) FROM pk_09;
CREATE FOREIGN TABLE complex_orc (f1 int, f2 int, f3 date, f4 timestamp, f5 numeric(23, 5), f6 bytea)
  SERVER java_orc OPTIONS (database 'append_complex_data', "table" 'append_complex_data');
SELECT * FROM placement('complex_orc', 'f2', 2);
SELECT count(*) FROM complex_orc;
CREATE FOREIGN TABLE nested_pq ("shopId" int, dt text, hr int, col0 int)
  SERVER java_pq OPTIONS (database 'pk_table_nested_type', "table" 'pk_table_nested_type');
SELECT * FROM placement('nested_pq', 'shopId', 2);
-- parquet__pk_table_nested_type__batch_latest: 5 rows
SELECT count(*) FROM nested_pq;

-- 2. Merge engines over Java-written records.
-- orc__pk_table_partial_update__batch_latest (its parquet twin asserted):
-- (0,1,100,t,new_apple) (1,0,2,f,NULL) (1,1,133.3,f,banana) (2,1,144.4,t,orange)
CREATE FOREIGN TABLE partial_update (k0 int, k1 int, v0 float8, v1 boolean, v2 text)
  SERVER java_pq OPTIONS (database 'pk_table_partial_update', "table" 'pk_table_partial_update');
SELECT * FROM partial_update ORDER BY k0, k1;
-- the same rows aggregated, in the scan (pushdown) and by PostgreSQL
SELECT count(*), round(sum(v0)::numeric, 6), count(v2), bool_or(v1) FROM partial_update;
SET tablescan.enable_aggregate_pushdown = off;
SELECT count(*), round(sum(v0)::numeric, 6), count(v2), bool_or(v1) FROM partial_update;
RESET tablescan.enable_aggregate_pushdown;
CREATE FOREIGN TABLE partial_update_orc (k0 int, k1 int, v0 float8, v1 boolean, v2 text)
  SERVER java_orc OPTIONS (database 'pk_table_partial_update', "table" 'pk_table_partial_update');
SELECT * FROM partial_update_orc ORDER BY k0, k1;
-- parquet__pk_table_scan_and_read_mor__aggregate_sum_snapshot3_part10_bucket1:
-- Alex 16.1, Bob 12.1, David 17.1, Emily 13.1, Tony 0 (f1 = 10, f2 = 0; Java put f2 = 0 in bucket 1)
CREATE FOREIGN TABLE mor_sum (f0 text, f1 int, f2 int, f3 float8)
  SERVER java_pq OPTIONS (database 'pk_table_scan_and_read_mor', "table" 'pk_table_scan_and_read_mor',
                          "scan.snapshot-id" '3', "merge-engine" 'aggregation',
                          "fields.f3.aggregate-function" 'sum',
                          partition_filter '[{"f1": "10"}]', bucket_filter '1');
SELECT * FROM mor_sum ORDER BY f0;
SELECT count(*), round(sum(f3)::numeric, 6) FROM mor_sum;
-- parquet__pk_table_scan_and_read_mor__partial_update_snapshot3_part10_bucket1:
-- Alex 16.1, Bob 12.1, David 17.1, Emily 13.1, Tony 14.1
CREATE FOREIGN TABLE mor_partial (f0 text, f1 int, f2 int, f3 float8)
  SERVER java_pq OPTIONS (database 'pk_table_scan_and_read_mor', "table" 'pk_table_scan_and_read_mor',
                          "scan.snapshot-id" '3', "merge-engine" 'partial-update',
                          "ignore-delete" 'true',
                          partition_filter '[{"f1": "10"}]', bucket_filter '1');
SELECT * FROM mor_partial ORDER BY f0;
SELECT count(*), round(sum(f3)::numeric, 6) FROM mor_partial;
SET client_min_messages = warning;
DROP SERVER java_pq CASCADE;
DROP SERVER java_orc CASCADE;
DROP FUNCTION placement;
DROP EXTENSION tablescan_fdw;
