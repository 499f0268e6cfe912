-- Row ids inside Avro files: the positions of the wanted _ROW_IDs select whole Avro blocks;
-- a block holding none is passed over unread (not decompressed, not decoded) and counted in
-- Rows Skipped By Row ID, the other rows of a kept block are dropped after decoding.
-- PostgreSQL checks every row again, so the rows are those of the scan with pruning off.
-- Our generator's rowtrack.db/avro_blocks (test/make-fixtures.sh): 2 commits x 3 Avro files
-- (zstd) of 333 / 333 / 334 rows, blocks of 64 rows (the last one of a file 13 or 14); row
-- ids 0..1999 in write order, so _ROW_ID = id; name 'name_' || id, NULL where id % 5 = 1.
-- Blocks: file k (k = 0..5) starts at row id 333 k (file 2 and 5: 334 rows), its blocks at
-- 333 k + 0, 64, 128, 192, 256, 320.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set fwarehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'fwarehouse');
CREATE FOREIGN TABLE ab (id int, name text, "_ROW_ID" bigint)
  SERVER lake OPTIONS (database 'rowtrack', "table" 'avro_blocks');
SELECT count(*), count(*) FILTER (WHERE "_ROW_ID" = id
         AND name IS NOT DISTINCT FROM CASE WHEN id % 5 = 1 THEN NULL ELSE 'name_' || id END)
       AS as_described, min(id), max(id)
  FROM ab;
-- the rows of query q with pruning on and off, compared as sorted text
CREATE FUNCTION same_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  pruned text[];
  full_scan text[];
BEGIN
  PERFORM set_config('tablescan.enable_pruning', 'on', true);
  EXECUTE 'SELECT array_agg(r::text ORDER BY r::text) FROM (' || q || ') r' INTO pruned;
  PERFORM set_config('tablescan.enable_pruning', 'off', true);
  EXECUTE 'SELECT array_agg(r::text ORDER BY r::text) FROM (' || q || ') r' INTO full_scan;
  PERFORM set_config('tablescan.enable_pruning', 'on', true);
  IF pruned IS DISTINCT FROM full_scan THEN
    RETURN 'DIFFERENT: ' || coalesce(pruned::text, '{}') || ' vs ' || coalesce(full_scan::text, '{}');
  END IF;
  RETURN coalesce(array_length(pruned, 1), 0) || ' rows, same with pruning off';
END $$;
CREATE FUNCTION analyze_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END $$;

-- ids at block edges: 0, 63 (block 0 of file 0), 64, 127 (block 1), 332 (the last row of
-- file 0, its block 5 of 13 rows), 333, 396 (block 0 of file 1), 397 (its block 1), 1999
-- (the last row, block 5 of file 5: 14 rows).  Files 0, 1 and 5 are read (18 blocks), 6
-- of their blocks decoded (Row Groups: 6 of 18; 64 + 64 + 13 + 64 + 64 + 14 = 283 rows),
-- 1000 - 9 = 991 rows of those files skipped by row id.
SELECT id, name, "_ROW_ID" FROM ab
  WHERE "_ROW_ID" IN (0, 63, 64, 127, 332, 333, 396, 397, 1999) ORDER BY id;
SELECT l FROM analyze_lines('SELECT id FROM ab WHERE "_ROW_ID" IN (0, 63, 64, 127, 332, 333, 396, 397, 1999)') l
  WHERE l !~ 'Filter';
SELECT same_rows('SELECT * FROM ab WHERE "_ROW_ID" IN (0, 63, 64, 127, 332, 333, 396, 397, 1999)');
-- count(*) reads no column: the kept blocks' object counts only
SELECT count(*) FROM ab WHERE "_ROW_ID" IN (0, 63, 64, 127, 332, 333, 396, 397, 1999);
SELECT l FROM analyze_lines('SELECT count(*) FROM ab WHERE "_ROW_ID" IN (0, 63, 64, 127, 332, 333, 396, 397, 1999)') l
  WHERE l !~ 'Filter';
-- a range across a block edge (60..70: blocks 0 and 1 of file 0) and one across a file
-- edge (330..335: block 5 of file 0, block 0 of file 1)
SELECT array_agg(id ORDER BY id) FROM ab WHERE "_ROW_ID" BETWEEN 60 AND 70;
SELECT array_agg(id ORDER BY id) FROM ab WHERE "_ROW_ID" BETWEEN 330 AND 335;
SELECT l FROM analyze_lines('SELECT id FROM ab WHERE "_ROW_ID" BETWEEN 330 AND 335') l WHERE l !~ 'Filter';
SELECT same_rows('SELECT * FROM ab WHERE "_ROW_ID" BETWEEN 60 AND 70');
SELECT same_rows('SELECT * FROM ab WHERE "_ROW_ID" BETWEEN 330 AND 335 OR "_ROW_ID" = 1000');
SELECT same_rows('SELECT id FROM ab WHERE "_ROW_ID" % 500 = 0 AND "_ROW_ID" IN (0, 500, 1000, 1500, 1501)');
-- every row of one block only (128 .. 191)
SELECT count(*), min(id), max(id) FROM ab WHERE "_ROW_ID" >= 128 AND "_ROW_ID" < 192;
SELECT l FROM analyze_lines('SELECT id FROM ab WHERE "_ROW_ID" >= 128 AND "_ROW_ID" < 192') l WHERE l !~ 'Filter';
-- a join's parameter: each id looked up in its own scan
CREATE TEMP TABLE wanted (id bigint);
INSERT INTO wanted VALUES (63), (64), (1666), (1999);
SELECT w.id, r.id, r.name FROM wanted w
  CROSS JOIN LATERAL (SELECT * FROM ab WHERE ab."_ROW_ID" = w.id OFFSET 0) r ORDER BY w.id;
-- pruning off: every block of every file read
SET tablescan.enable_pruning = off;
SELECT l FROM analyze_lines('SELECT id FROM ab WHERE "_ROW_ID" IN (0, 63, 64, 127, 332, 333, 396, 397, 1999)') l
  WHERE l !~ 'Filter';
RESET tablescan.enable_pruning;

DROP TABLE wanted;
DROP FUNCTION analyze_lines(text);
DROP FUNCTION same_rows(text);
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
