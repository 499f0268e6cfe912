-- Metadata views: tablescan_manifests() (Paimon's t$manifests) and
-- tablescan_manifest_entries() over generated tables, checked against what
-- the scan itself plans (tablescan_files) and against each other.
-- sales.orders: partitioned by dt (3 values), 4 buckets, 3 append snapshots;
-- sales.customers: unpartitioned; pk.pk_dedup_levels: primary keys,
-- partitioned by p, 2 buckets, compactions (DELETE entries, levels > 0).
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
-- a statement's error as psql prints it, the fixtures directory shown as <fixtures>
SET regress.fixtures = :'fixtures';
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  fx text := current_setting('regress.fixtures');
  msg text; det text; hint text; ctx text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
                          hint = PG_EXCEPTION_HINT, ctx = PG_EXCEPTION_CONTEXT;
  RETURN NEXT replace('ERROR:  ' || msg, fx, '<fixtures>');
  RETURN QUERY SELECT replace(k || ':  ' || v, fx, '<fixtures>')
    FROM (VALUES (1, 'DETAIL', det), (2, 'HINT', hint)) AS f(o, k, v) WHERE v <> '' ORDER BY o;
  RETURN QUERY SELECT 'CONTEXT:  ' || replace(l, fx, '<fixtures>')
    FROM regexp_split_to_table(ctx, E'\n') WITH ORDINALITY AS c(l, o)
    WHERE l <> '' AND l !~ '^(PL/pgSQL function|SQL statement)' ORDER BY o;
END $$;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders, customers) FROM SERVER lake INTO public;
CREATE SCHEMA pk;
IMPORT FOREIGN SCHEMA pk LIMIT TO (pk_dedup_levels) FROM SERVER lake INTO pk;
CREATE FOREIGN TABLE orders_s1 (id int, dt text) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.snapshot-id" '1');

-- the lists of the latest snapshot, base before delta, and what they count
SELECT list_kind, num_added_files, num_deleted_files, partition_min, partition_max,
       partition_null_counts, schema_id, min_bucket, max_bucket, min_level, max_level,
       min_row_id, max_row_id, snapshot_id
  FROM tablescan_manifests('orders');
SELECT count(DISTINCT manifest_list) AS lists,
       count(*) FILTER (WHERE file_name LIKE 'manifest-%') AS named,
       bool_and(file_size > 0) AS sized
  FROM tablescan_manifests('orders');
-- the snapshot the options select: snapshot 1 has one delta manifest only
SELECT list_kind, num_added_files, num_deleted_files, snapshot_id
  FROM tablescan_manifests('orders_s1');
-- unpartitioned: empty partition statistics
SELECT list_kind, num_added_files, partition_min, partition_max, partition_null_counts
  FROM tablescan_manifests('customers');

-- added minus deleted over the lists = the live files the scan reads
CREATE FUNCTION live_balance(t regclass) RETURNS TABLE (from_lists bigint, live bigint)
LANGUAGE sql AS $$
  SELECT (SELECT sum(num_added_files - num_deleted_files) FROM tablescan_manifests(t))::bigint,
         (SELECT count(*) FROM tablescan_files(t))
$$;
SELECT * FROM live_balance('orders');
SELECT * FROM live_balance('orders_s1');
SELECT * FROM live_balance('pk.pk_dedup_levels');

-- each manifest holds as many entries as the list says, of the right kinds
CREATE FUNCTION entries_match_lists(t regclass) RETURNS TABLE (manifests bigint, matching bigint)
LANGUAGE sql AS $$
  WITH e AS (SELECT manifest, count(*) FILTER (WHERE kind = 'ADD') AS added,
                    count(*) FILTER (WHERE kind = 'DELETE') AS deleted
               FROM tablescan_manifest_entries(t) GROUP BY manifest)
  SELECT count(*), count(*) FILTER (WHERE e.added = m.num_added_files
                                      AND e.deleted = m.num_deleted_files)
    FROM tablescan_manifests(t) m LEFT JOIN e ON e.manifest = m.file_name
$$;
SELECT * FROM entries_match_lists('orders');
SELECT * FROM entries_match_lists('pk.pk_dedup_levels');

-- ADD minus DELETE over the entries, in order, is exactly the planned file set
CREATE FUNCTION live_set_diff(t regclass) RETURNS TABLE (only_entries bigint, only_scan bigint)
LANGUAGE sql AS $$
  WITH n AS (SELECT partition, bucket, file_name,
                    sum(CASE kind WHEN 'ADD' THEN 1 ELSE -1 END) AS net
               FROM tablescan_manifest_entries(t) GROUP BY 1, 2, 3),
       live AS (SELECT partition, bucket, file_name FROM n WHERE net > 0),
       scan AS (SELECT partition, bucket, file_name FROM tablescan_files(t))
  SELECT (SELECT count(*) FROM (SELECT * FROM live EXCEPT SELECT * FROM scan) a),
         (SELECT count(*) FROM (SELECT * FROM scan EXCEPT SELECT * FROM live) b)
$$;
SELECT * FROM live_set_diff('orders');
SELECT * FROM live_set_diff('orders_s1');
SELECT * FROM live_set_diff('pk.pk_dedup_levels');
-- compactions delete level-0 files and add higher levels; the entries of
-- live files carry what tablescan_files reports for them
SELECT count(*) FILTER (WHERE kind = 'DELETE') AS deletes,
       count(DISTINCT level) AS levels,
       array_agg(DISTINCT file_source ORDER BY file_source) AS sources
  FROM tablescan_manifest_entries('pk.pk_dedup_levels');
SELECT count(*) AS differing
  FROM tablescan_manifest_entries('orders') e
  JOIN tablescan_files('orders') f USING (file_name)
 WHERE (e.partition, e.bucket, e.total_buckets, e.level, e.row_count, e.file_size, e.schema_id)
       IS DISTINCT FROM (f.partition, f.bucket, f.total_buckets, f.level, f.row_count,
                         f.file_size, f.schema_id);

-- the partition and bucket / level ranges of each manifest cover its entries
CREATE FUNCTION ranges_match(t regclass, key text) RETURNS TABLE (manifests bigint, matching bigint)
LANGUAGE sql AS $$
  WITH e AS (SELECT manifest, min(partition ->> key) AS pmin, max(partition ->> key) AS pmax,
                    min(bucket) AS bmin, max(bucket) AS bmax,
                    min(level) AS lmin, max(level) AS lmax
               FROM tablescan_manifest_entries(t) GROUP BY manifest)
  SELECT count(*), count(*) FILTER (WHERE m.partition_min ->> key = e.pmin
                                      AND m.partition_max ->> key = e.pmax
                                      AND (m.partition_null_counts ->> key)::int = 0
                                      AND (m.min_bucket, m.max_bucket) = (e.bmin, e.bmax)
                                      AND (m.min_level, m.max_level) = (e.lmin, e.lmax))
    FROM tablescan_manifests(t) m JOIN e ON e.manifest = m.file_name
$$;
SELECT * FROM ranges_match('orders', 'dt');
SELECT * FROM ranges_match('pk.pk_dedup_levels', 'p');
-- the partitions of the entries are the partitions the scan reads
SELECT (SELECT array_agg(DISTINCT partition ->> 'dt' ORDER BY partition ->> 'dt')
          FROM tablescan_manifest_entries('orders')) AS entry_partitions,
       (SELECT array_agg(DISTINCT partition ->> 'dt' ORDER BY partition ->> 'dt')
          FROM tablescan_files('orders')) AS scan_partitions;

-- a table without snapshot has no manifests
IMPORT FOREIGN SCHEMA types LIMIT TO (empty) FROM SERVER lake INTO public;
SELECT count(*) FROM tablescan_manifests('empty');
SELECT count(*) FROM tablescan_manifest_entries('empty');

-- errors
CREATE TABLE plain (a int);
SELECT * FROM tablescan_manifests('plain');
SELECT * FROM tablescan_manifest_entries('plain');
CREATE FOREIGN TABLE events (a text) SERVER lake
  OPTIONS (database 'ft', "table" 'events_csv');
SELECT * FROM tablescan_manifests('events');
CREATE FOREIGN TABLE orders_s9 (id int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders', "scan.snapshot-id" '9');
SELECT pg_temp.error_of('SELECT * FROM tablescan_manifests(''orders_s9'')');
-- broken metadata files: the error names the file
\set VERBOSITY default
\set missing_list :fixtures/broken/missing_list
\set corrupt_manifest :fixtures/broken/corrupt_manifest
\set truncated_manifest :fixtures/broken/truncated_manifest
CREATE FOREIGN TABLE b_list (id int) SERVER lake
  OPTIONS (path :'missing_list');
SELECT pg_temp.error_of('SELECT * FROM tablescan_manifests(''b_list'')');
CREATE FOREIGN TABLE b_manifest (id int) SERVER lake
  OPTIONS (path :'corrupt_manifest');
SELECT count(*) FROM tablescan_manifests('b_manifest');
SELECT pg_temp.error_of('SELECT * FROM tablescan_manifest_entries(''b_manifest'')');
CREATE FOREIGN TABLE b_trunc (id int) SERVER lake
  OPTIONS (path :'truncated_manifest');
SELECT pg_temp.error_of('SELECT * FROM tablescan_manifest_entries(''b_trunc'')');
-- the backend survived all of it
SELECT 1 AS alive;
-- the metadata functions show what a SELECT would read: they need SELECT on the table
\set VERBOSITY terse
CREATE ROLE regress_ts_meta;
SET ROLE regress_ts_meta;
SELECT count(*) FROM tablescan_files('orders');
SELECT count(*) FROM tablescan_manifests('orders');
SELECT count(*) FROM tablescan_manifest_entries('orders');
SELECT tablescan_bucket('orders', 1);
RESET ROLE;
GRANT SELECT ON orders TO regress_ts_meta;
SET ROLE regress_ts_meta;
SELECT count(*) > 0 AS files FROM tablescan_files('orders');
SELECT count(*) > 0 AS manifests FROM tablescan_manifests('orders');
SELECT count(*) > 0 AS entries FROM tablescan_manifest_entries('orders');
SELECT tablescan_bucket('orders', 1) >= 0 AS bucket;
RESET ROLE;
SELECT count(*) FROM tablescan_files(0::regclass);
REVOKE SELECT ON orders FROM regress_ts_meta;
DROP ROLE regress_ts_meta;
\set VERBOSITY default
DROP FUNCTION live_balance(regclass), entries_match_lists(regclass), live_set_diff(regclass),
  ranges_match(regclass, text);
DROP TABLE plain;
DROP SERVER lake CASCADE;
DROP SCHEMA pk;
DROP EXTENSION tablescan_fdw;
