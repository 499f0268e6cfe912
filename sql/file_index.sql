-- Paimon's file indexes (bloom filter, bitmap v1 / v2, BSI) on tables Java
-- Paimon wrote (../shared/testdata): embedded indexes exclude files while
-- planning (EXPLAIN: Index, Data Files ... (index skipped m)), sidecar
-- .index files exclude them before they are read (EXPLAIN ANALYZE: Files
-- Skipped By Index); bitmap / BSI results select rows inside a file (row
-- groups / stripes without a selected row are not decoded, other rows
-- dropped: EXPLAIN ANALYZE Rows Skipped By Index).  Every query returns
-- the same rows with tablescan.enable_file_index off.
CREATE EXTENSION tablescan_fdw;
\getenv shared TS_SHARED
\set pq :shared/testdata/parquet
\set orc :shared/testdata/orc
\set root :shared/testdata
CREATE SERVER pq FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'pq');
CREATE SERVER orc FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'orc');
CREATE SERVER root FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'root');
CREATE SCHEMA p;
CREATE SCHEMA o;
IMPORT FOREIGN SCHEMA append_with_bloomfilter FROM SERVER pq INTO p;
IMPORT FOREIGN SCHEMA append_with_bsi FROM SERVER pq INTO p;
IMPORT FOREIGN SCHEMA append_with_bitmap_no_embedding FROM SERVER pq INTO p;
IMPORT FOREIGN SCHEMA append_with_bsi_bitmap_bloomfilter FROM SERVER pq INTO p;
IMPORT FOREIGN SCHEMA pk_with_bitmap_dv FROM SERVER pq INTO p;
IMPORT FOREIGN SCHEMA append_with_bitmap FROM SERVER orc INTO o;
IMPORT FOREIGN SCHEMA append_with_bitmap_v1 FROM SERVER orc INTO o;
IMPORT FOREIGN SCHEMA append_with_bitmap_alter_table FROM SERVER orc INTO o;
IMPORT FOREIGN SCHEMA append_with_bitmap_multi_stripes FROM SERVER root INTO o;

-- embedded bitmaps (orc/append_with_bitmap, snapshot 1): f0 = 'Lucy' and
-- f1 = 10 are each in the file, never in the same row: the file is skipped
EXPLAIN (COSTS OFF) SELECT * FROM o.append_with_bitmap WHERE f0 = 'Lucy' AND f1 = 10;
SELECT files_total, files_kept FROM tablescan_last_metrics();
EXPLAIN (COSTS OFF) SELECT * FROM o.append_with_bitmap WHERE f0 = 'Tony' AND f1 = 10;
EXPLAIN (COSTS OFF, FORMAT JSON) SELECT * FROM o.append_with_bitmap WHERE f0 = 'Lucy' AND f1 = 10;
SET tablescan.enable_file_index = off;
EXPLAIN (COSTS OFF) SELECT * FROM o.append_with_bitmap WHERE f0 = 'Lucy' AND f1 = 10;
SELECT files_total, files_kept FROM tablescan_last_metrics();
RESET tablescan.enable_file_index;
-- file-index.read.enabled = false: the indexes are not read
ALTER FOREIGN TABLE o.append_with_bitmap OPTIONS (ADD "file-index.read.enabled" 'false');
EXPLAIN (COSTS OFF) SELECT * FROM o.append_with_bitmap WHERE f0 = 'Lucy' AND f1 = 10;
ALTER FOREIGN TABLE o.append_with_bitmap OPTIONS (DROP "file-index.read.enabled");

-- schema evolution: f4 was f0 (same field id) when the older file was written
EXPLAIN (COSTS OFF) SELECT * FROM o.append_with_bitmap_alter_table WHERE f4 = 'David';
EXPLAIN (COSTS OFF) SELECT * FROM o.append_with_bitmap_alter_table WHERE f1 = 100 AND f4 = 'David';

-- sidecar indexes: consulted before the file is read
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM p.append_with_bloomfilter WHERE f0 = 'Alice2';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM p.append_with_bsi WHERE f1 = 400;
-- a primary-key table with deletion vectors: its level-5 files are read one by one
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM p.pk_with_bitmap_dv WHERE f0 = 'Lucy' AND f1 = 10;

-- row selections: one ORC file of 8 stripes of one row each, a sidecar
-- bitmap index; f0 = 'Tony' is rows 3 and 6: 6 stripes are not decoded
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM o.append_with_bitmap_multi_stripes WHERE f0 = 'Tony';
-- f1 = 10 AND f2 = 0: rows 2 and 3
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM o.append_with_bitmap_multi_stripes WHERE f1 = 10 AND f2 = 0;
-- an OR with a column without index: every row may match, no selection
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM o.append_with_bitmap_multi_stripes WHERE f0 = 'Tony' OR f3 > 18;
SET tablescan.enable_file_index = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM o.append_with_bitmap_multi_stripes WHERE f0 = 'Tony';
RESET tablescan.enable_file_index;
-- the parquet file of the same table (row groups of one row) is not in
-- the manifest; rows inside Parquet files: a bitmap in a sidecar index
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM p.append_with_bitmap_no_embedding WHERE f0 = 'Bob';
-- BSI ranges
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM p.append_with_bsi WHERE f1 > 100 AND f2 <= 0;

-- the file indexes of each file: embedded (index_file NULL) or in a sidecar
SELECT file_name ~ '^data-.*\.orc$' AS data_file, file_index, index_file
  FROM tablescan_files('o.append_with_bitmap') ORDER BY file_name;
SELECT file_index, index_file ~ '^data-.*\.parquet\.index$' AS sidecar
  FROM tablescan_files('p.append_with_bsi_bitmap_bloomfilter');
SELECT count(*) AS files, count(file_index) AS with_index FROM tablescan_files('p.pk_with_bitmap_dv');
-- EXPLAIN (VERBOSE) names the data files the scan kept
EXPLAIN (VERBOSE, COSTS OFF) SELECT f0 FROM o.append_with_bitmap WHERE f0 = 'Tony' AND f1 = 10;
EXPLAIN (VERBOSE, COSTS OFF) SELECT f0 FROM o.append_with_bitmap WHERE f0 = 'Lucy' AND f1 = 10;

-- the same rows with index use on and off
CREATE FUNCTION both_ways(q text) RETURNS TABLE (setting text, result text) LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  FOREACH setting IN ARRAY ARRAY['on', 'off'] LOOP
    PERFORM set_config('tablescan.enable_file_index', setting, true);
    EXECUTE format('SELECT coalesce(string_agg(x::text, '' '' ORDER BY x::text), ''(none)'') FROM (%s) x', q)
      INTO result;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT * FROM both_ways($$SELECT f0, f1, f2 FROM o.append_with_bitmap WHERE f0 = 'Lucy' AND f1 = 10$$);
SELECT * FROM both_ways($$SELECT f0, f1, f2 FROM o.append_with_bitmap WHERE f0 = 'Tony' AND f1 = 10$$);
SELECT * FROM both_ways($$SELECT f0, f1 FROM o.append_with_bitmap WHERE f0 IN ('Alice', 'Bob') OR f2 IS NULL$$);
SELECT * FROM both_ways($$SELECT f0, f1 FROM o.append_with_bitmap WHERE f0 <> 'Alice' AND f2 IS NOT NULL$$);
SELECT * FROM both_ways($$SELECT f0, f2 FROM o.append_with_bitmap_v1 WHERE f2 = 0 AND f0 NOT IN ('Tony')$$);
SELECT * FROM both_ways($$SELECT f1, f4 FROM o.append_with_bitmap_alter_table WHERE f4 = 'David' OR f1 = 100$$);
SELECT * FROM both_ways($$SELECT f0, f1 FROM p.append_with_bloomfilter WHERE f0 = 'Alice2'$$);
SELECT * FROM both_ways($$SELECT f0, f1 FROM p.append_with_bloomfilter WHERE f1 IN (200, 201) AND f3 = 12.1$$);
SELECT * FROM both_ways($$SELECT f1, f2 FROM p.append_with_bsi WHERE f1 > 100 AND f2 <= 0$$);
SELECT * FROM both_ways($$SELECT f1, f2 FROM p.append_with_bsi WHERE f2 < -3 OR f1 >= 600$$);
SELECT * FROM both_ways($$SELECT f0, f1 FROM p.append_with_bitmap_no_embedding WHERE f0 = 'Lucy' AND f1 = 10$$);
SELECT * FROM both_ways($$SELECT f0, f1, f2 FROM p.append_with_bsi_bitmap_bloomfilter WHERE f0 = 'Bob' AND f2 = 2$$);
SELECT * FROM both_ways($$SELECT key, f0 FROM p.pk_with_bitmap_dv WHERE f0 = 'Alice'$$);
SELECT * FROM both_ways($$SELECT key, f0 FROM p.pk_with_bitmap_dv WHERE f0 = 'Tony' AND f1 = 20$$);
SELECT * FROM both_ways($$SELECT f0, f3 FROM o.append_with_bitmap_multi_stripes WHERE f0 = 'Tony'$$);
SELECT * FROM both_ways($$SELECT f0, f3 FROM o.append_with_bitmap_multi_stripes WHERE f1 = 10 AND f2 = 0$$);
SELECT * FROM both_ways($$SELECT f0, f3 FROM o.append_with_bitmap_multi_stripes WHERE f0 IN ('Alice', 'Lucy') AND f2 IS NOT NULL$$);
SELECT * FROM both_ways($$SELECT f0, f3 FROM o.append_with_bitmap_multi_stripes WHERE f2 IS NULL OR f1 = 20$$);
SELECT * FROM both_ways($$SELECT f0, f3 FROM o.append_with_bitmap_multi_stripes WHERE (f0 = 'Bob' OR f0 = 'Emily') AND f3 > 12.5$$);
SELECT * FROM both_ways($$SELECT f0, f3 FROM o.append_with_bitmap_multi_stripes WHERE f0 = 'Nobody'$$);
SELECT * FROM both_ways($$SELECT f0, f1 FROM p.append_with_bitmap_no_embedding WHERE f0 = 'Bob' OR f1 = 20$$);

SET client_min_messages = warning;
DROP FUNCTION both_ways(text);
DROP SCHEMA p, o CASCADE;
DROP EXTENSION tablescan_fdw CASCADE;
