-- Row groups / stripes skipped by their statistics, on a table written by
-- Java Paimon (../shared/testdata: an ORC file with one row per stripe).
CREATE EXTENSION tablescan_fdw;
\getenv shared TS_SHARED
\set warehouse :shared/testdata
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA append_with_bitmap_multi_stripes FROM SERVER shared INTO public;
-- its bitmap index would select the rows first (file_index.sql tests that)
SET tablescan.enable_file_index = off;
SELECT * FROM append_with_bitmap_multi_stripes ORDER BY f3;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM append_with_bitmap_multi_stripes WHERE f1 = 10;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT * FROM append_with_bitmap_multi_stripes WHERE f2 IS NULL OR f1 > 15;
-- the same rows with pruning off
SELECT f0, f3 FROM append_with_bitmap_multi_stripes WHERE f1 = 10 AND f2 = 0 ORDER BY f3;
SET tablescan.enable_pruning = off;
SELECT f0, f3 FROM append_with_bitmap_multi_stripes WHERE f1 = 10 AND f2 = 0 ORDER BY f3;
RESET tablescan.enable_pruning;
-- an error while reading names the stripe (0-based) it happened in: the
-- file's stripes hold f3 = 11.1, 12.1 ... 18.1 in that order (one row
-- each); of those with f1 = 20 (stripes 4, 6, 7: Lucy, Tony, Alice) the
-- first whose name does not fit varchar(4) is Alice's, stripe 7
ALTER FOREIGN TABLE append_with_bitmap_multi_stripes ALTER COLUMN f0 TYPE varchar(4);
SELECT f0 FROM append_with_bitmap_multi_stripes WHERE f1 = 20;
-- all stripes read: the first one's Alice
SELECT f0 FROM append_with_bitmap_multi_stripes;
DROP SERVER shared CASCADE;
DROP EXTENSION tablescan_fdw;
