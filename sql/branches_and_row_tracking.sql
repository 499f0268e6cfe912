-- Data evolution (with BLOB files), row tracking (_ROW_ID / _SEQUENCE_NUMBER) and
-- scan.fallback-branch, on tables written by Java Paimon (../shared/testdata).
CREATE EXTENSION tablescan_fdw;
\getenv shared TS_SHARED
\set warehouse :shared/testdata/parquet
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
-- errors name files under the test data: shown relative to it
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, '/[^" ]*/testdata/', '<testdata>/', 'g');
END $$;

-- data evolution: rows 0..3 have (f0, f1, f2) in one file and (f2, f3) in a
-- newer one; rows 4..5 only (f2, f3): f0 and f1 are NULL there
CREATE FOREIGN TABLE de (f0 text, f1 int, f2 int, f3 float8,
                         row_id bigint OPTIONS (column_name '_ROW_ID'),
                         "_SEQUENCE_NUMBER" bigint)
  SERVER shared OPTIONS (database 'data_evolution_with_index', "table" 'data_evolution_with_index');
SELECT * FROM de ORDER BY row_id;
-- f2 = 12 was overwritten by 102: no row, though the old file's stats match
SELECT * FROM de WHERE f2 = 12;
SELECT f0, f2 FROM de WHERE row_id BETWEEN 2 AND 4 ORDER BY row_id;
SELECT count(*), count(f0), sum(f2) FROM de;
EXPLAIN (COSTS OFF) SELECT f0 FROM de WHERE f2 = 102;

-- row tracking without data evolution, after compaction: ids and sequence
-- numbers are stored in the compacted file
CREATE FOREIGN TABLE rt (f0 text, "_ROW_ID" bigint, "_SEQUENCE_NUMBER" bigint)
  SERVER shared OPTIONS (database 'append_table_row_tracking_with_compact',
                         "table" 'append_table_row_tracking_with_compact');
SELECT * FROM rt ORDER BY "_ROW_ID";

-- system columns need a row-tracking append table
CREATE FOREIGN TABLE plain (f0 text, "_ROW_ID" bigint)
  SERVER shared OPTIONS (database 'append_09', "table" 'append_09');
SELECT try('SELECT * FROM plain');
SELECT f0 FROM plain ORDER BY f0 LIMIT 1;
-- BLOB columns (bytea) come from .blob files beside the data files of
-- their row-id range; predicates on them are evaluated by PostgreSQL
IMPORT FOREIGN SCHEMA blob_data_evolution_with_dense_stats FROM SERVER shared INTO public;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
  WHERE attrelid = 'blob_data_evolution_with_dense_stats'::regclass AND attnum > 0 ORDER BY attnum;
SELECT f0, convert_from(f0, 'UTF8') AS name, f1, f2, f3 FROM blob_data_evolution_with_dense_stats ORDER BY f1;
SELECT f0 FROM blob_data_evolution_with_dense_stats ORDER BY f0;
SELECT f1 FROM blob_data_evolution_with_dense_stats WHERE f0 = 'Alice'::bytea;
SELECT count(*), sum(length(f0)) FROM blob_data_evolution_with_dense_stats WHERE f2 > 102;

-- scan.fallback-branch=rt (a schema option): dt=20240725 from the table,
-- dt=20240726 only in branch rt (a primary-key table there)
IMPORT FOREIGN SCHEMA append_table_with_rt_branch FROM SERVER shared INTO public;
SELECT * FROM append_table_with_rt_branch ORDER BY dt, name;
EXPLAIN (COSTS OFF) SELECT * FROM append_table_with_rt_branch;
EXPLAIN (COSTS OFF) SELECT * FROM append_table_with_rt_branch WHERE dt = '20240726';
-- peach is in rt's dt=20240725, a partition the table has: never read
SELECT * FROM append_table_with_rt_branch WHERE name = 'peach';
SELECT * FROM append_table_with_rt_branch WHERE name IN ('apple', 'pear') ORDER BY name;
-- the same rows with pruning off
SET tablescan.enable_pruning = off;
SELECT * FROM append_table_with_rt_branch WHERE name = 'peach';
SELECT * FROM append_table_with_rt_branch WHERE name IN ('apple', 'pear') ORDER BY name;
RESET tablescan.enable_pruning;
-- count(*) is not taken from metadata (the fallback branch is a primary-key
-- table): it is counted while scanning
EXPLAIN (COSTS OFF) SELECT count(*) FROM append_table_with_rt_branch;
SELECT count(*) FROM append_table_with_rt_branch;
-- reading the branch itself
CREATE FOREIGN TABLE rt_branch (dt text, name text, amount int) SERVER shared
  OPTIONS (database 'append_table_with_rt_branch', "table" 'append_table_with_rt_branch', branch 'rt');
SELECT * FROM rt_branch ORDER BY dt, name;
-- the fallback branch itself cannot be the branch read
CREATE FOREIGN TABLE self_fallback (dt text) SERVER shared
  OPTIONS (database 'append_table_with_rt_branch', "table" 'append_table_with_rt_branch',
           branch 'rt', "scan.fallback-branch" 'rt');
SELECT try('SELECT * FROM self_fallback');
-- scan.primary-branch stays refused
CREATE FOREIGN TABLE primary_branch (dt text) SERVER shared
  OPTIONS (database 'append_table_with_rt_branch', "table" 'append_table_with_rt_branch',
           "scan.primary-branch" 'rt');
SELECT try('SELECT * FROM primary_branch');
-- a fallback branch that does not exist
CREATE FOREIGN TABLE no_branch (pt int, value int, value2 int) SERVER shared
  OPTIONS (database 'append_table_with_append_pt_branch', "table" 'append_table_with_append_pt_branch',
           "scan.fallback-branch" 'nope');
SELECT try('SELECT * FROM no_branch');

DROP FUNCTION try(text);
DROP SERVER shared CASCADE;
DROP EXTENSION tablescan_fdw;
