-- Primary-key tables (ts_gen writes them with their write streams in
-- <table>.ops.jsonl): merge-on-read checked against a model computed here
-- in SQL from the write stream, independent of our reader.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
SELECT set_config('tablescan_test.warehouse', :'warehouse', false) IS NOT NULL AS set;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
CREATE SCHEMA pk;
IMPORT FOREIGN SCHEMA pk FROM SERVER lake INTO pk;
SELECT foreign_table_name FROM information_schema.foreign_tables
 WHERE foreign_table_schema = 'pk' ORDER BY 1;

-- deduplicate: per key, the record with the highest sequence number wins;
-- -U / -D remove the key.  Level-0 files are read (no deletion vectors).
CREATE TEMP TABLE ops (t text, line jsonb);
CREATE FUNCTION load_ops(t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS ops_raw (line jsonb);
  TRUNCATE ops_raw;
  EXECUTE format('COPY ops_raw FROM %L',
                 current_setting('tablescan_test.warehouse') || '/pk.db/' || t || '.ops.jsonl');
  INSERT INTO ops SELECT t, line FROM ops_raw;
END $$;
SELECT load_ops('pk_dedup_level0'), load_ops('pk_dedup_levels');
CREATE VIEW dedup_model AS
SELECT t, (line->'values'->>'id')::int AS id, (line->'values'->>'p')::int AS p,
       line->'values'->>'v' AS v, (line->'values'->>'n')::bigint AS n,
       (line->'values'->>'d')::float8 AS d
  FROM (SELECT DISTINCT ON (t, line->>'partition', line->'key') t, line
          FROM ops
         WHERE line->>'op' = 'record' AND jsonb_typeof(line->'write') = 'number'
         ORDER BY t, line->>'partition', line->'key', (line->>'seq')::bigint DESC) last
 WHERE line->>'kind' IN ('+I', '+U');

SELECT 'pk_dedup_level0' AS t, count(*) FROM pk.pk_dedup_level0
UNION ALL SELECT 'model', count(*) FROM dedup_model WHERE t = 'pk_dedup_level0';
SELECT count(*) AS different FROM (
  (SELECT id, p, v, n, d FROM pk.pk_dedup_level0
   EXCEPT ALL SELECT id, p, v, n, d FROM dedup_model WHERE t = 'pk_dedup_level0')
  UNION ALL
  (SELECT id, p, v, n, d FROM dedup_model WHERE t = 'pk_dedup_level0'
   EXCEPT ALL SELECT id, p, v, n, d FROM pk.pk_dedup_level0)) x;
SELECT count(*) AS different FROM (
  (SELECT id, p, v, n, d FROM pk.pk_dedup_levels
   EXCEPT ALL SELECT id, p, v, n, d FROM dedup_model WHERE t = 'pk_dedup_levels')
  UNION ALL
  (SELECT id, p, v, n, d FROM dedup_model WHERE t = 'pk_dedup_levels'
   EXCEPT ALL SELECT id, p, v, n, d FROM pk.pk_dedup_levels)) x;
-- every key once
SELECT count(*) = count(DISTINCT (id, p)) AS unique_keys FROM pk.pk_dedup_levels;

-- how each table is read
EXPLAIN (COSTS OFF) SELECT * FROM pk.pk_dedup_level0;
EXPLAIN (COSTS OFF) SELECT * FROM pk.pk_dedup_levels;
EXPLAIN (COSTS OFF) SELECT * FROM pk.pk_dedup_dv;
EXPLAIN (COSTS OFF) SELECT * FROM pk.pk_first_row;
-- tablescan_files() names the deletion vector of each file (index file,
-- byte range, deleted rows): at snapshot 8 the level-5 files have one each,
-- and the rows a scan returns are the files' rows minus the deleted ones
CREATE FOREIGN TABLE pk_dv_s8 (id int, p int) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "scan.snapshot-id" '8');
SELECT level, count(*) AS files, count(deletion_file) AS with_dv,
       bool_and(deletion_file LIKE '%/pk_dedup_dv/index/index-%') AS in_index_dir,
       bool_and(deletion_offset >= 0 AND deletion_length > 0) AS dv_range,
       sum(row_count) AS file_rows, sum(deletion_cardinality) AS deleted
  FROM tablescan_files('pk_dv_s8') GROUP BY level ORDER BY level;
SELECT (SELECT sum(row_count) - coalesce(sum(deletion_cardinality), 0)
          FROM tablescan_files('pk_dv_s8')) = count(*) AS rows_add_up
  FROM pk_dv_s8;
SELECT count(*) AS files, count(deletion_file) AS with_dv FROM tablescan_files('pk.pk_dedup_dv');
-- a key predicate prunes by bucket; a value predicate never drops a merged file
EXPLAIN (COSTS OFF) SELECT * FROM pk.pk_dedup_levels WHERE id = 3 AND p = 1;
SELECT count(*) FROM pk.pk_dedup_levels WHERE v IS NOT NULL;
SET tablescan.enable_pruning = off;
SELECT count(*) FROM pk.pk_dedup_levels WHERE v IS NOT NULL;
RESET tablescan.enable_pruning;
SELECT count(*) > 0 AS has_rows FROM pk.pk_partial_update;
SELECT count(*) > 0 AS has_rows FROM pk.pk_aggregation;

-- an engine we do not implement fails closed
CREATE FOREIGN TABLE pk_unknown (id int, p int) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_levels', "merge-engine" 'nosuch');
SELECT * FROM pk_unknown;

DROP VIEW dedup_model;
DROP FUNCTION load_ops(text);
DROP SCHEMA pk CASCADE;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
