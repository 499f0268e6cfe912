-- File indexes our generator writes (test/make-fixtures.sh, idx.db): 8
-- Parquet files of 100 rows, file k holding rows i = 100 k .. 100 k + 99
-- with id = i, customer_reference_code = 'customer_reference_code_' || i
-- (a bloom filter; too long for min / max stats), kind = i % 128 (bitmap),
-- level = i % 128 (BSI), grade = i % 128 (range-bitmap),
-- status_description_text = 'status_description_text_' || i (bitmap); a
-- column at position c (id 0 .. status_description_text 5) is NULL where
-- i % 7 = c.  events holds its indexes in the manifest entries (planning
-- skips files), events_sidecar in <file>.index sidecars (read before a
-- file is opened), events_bad is events_sidecar with file 0's sidecar
-- corrupted.  Each query's ids equal the generate_series expression of the
-- formulas, with file indexes on, off, and with pruning off.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set fwarehouse :fixtures/warehouse
SET regress.fixtures = :'fixtures';
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'fwarehouse');
CREATE SCHEMA ie;
IMPORT FOREIGN SCHEMA idx FROM SERVER lake INTO ie;
SELECT file_name ~ '^data-.*-[0-7]\.parquet$' AS named, row_count, file_index,
       index_file IS NOT NULL AS sidecar
  FROM tablescan_files('ie.events') ORDER BY file_name LIMIT 2;
SELECT count(*) AS files, count(index_file) AS sidecars, min(file_index) = max(file_index) AS same
  FROM tablescan_files('ie.events_sidecar');

-- the ids a query returns (ORDER BY id), with indexes on, off and pruning off
CREATE FUNCTION ids(q text) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE r int[];
BEGIN
  EXECUTE 'SELECT array_agg(id ORDER BY id) FROM (' || q || ') s' INTO r;
  RETURN r;
END $$;
CREATE FUNCTION check_rows(q text, want int[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE on_ int[]; off_ int[]; nopr int[];
BEGIN
  on_ := ids(q);
  PERFORM set_config('tablescan.enable_file_index', 'off', true);
  off_ := ids(q);
  PERFORM set_config('tablescan.enable_file_index', 'on', true);
  PERFORM set_config('tablescan.enable_pruning', 'off', true);
  nopr := ids(q);
  PERFORM set_config('tablescan.enable_pruning', 'on', true);
  RETURN format('rows %s, as formulas %s, index off %s, pruning off %s',
                coalesce(cardinality(on_), 0), on_ IS NOT DISTINCT FROM want,
                off_ IS NOT DISTINCT FROM want, nopr IS NOT DISTINCT FROM want);
END $$;

-- bloom filter: row 345 only (file 3); the 7 other files are ruled out
EXPLAIN (COSTS OFF) SELECT id FROM ie.events
  WHERE customer_reference_code = 'customer_reference_code_345';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM ie.events_sidecar
  WHERE customer_reference_code = 'customer_reference_code_345';
SELECT t, check_rows(format('SELECT id FROM ie.%I WHERE customer_reference_code = %L', t,
                            'customer_reference_code_345'),
                     (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i
                       WHERE 'customer_reference_code_' || i = 'customer_reference_code_345'
                         AND i % 7 <> 1))
  FROM (VALUES ('events'), ('events_sidecar')) v(t);

-- bitmap (TINYINT): kind = 110 at i = 110, 238, 494, 622, 750 (366 is NULL);
-- file 0 (0..99) is out by its stats, files 3 and 5 (max 127) by the bitmap
EXPLAIN (COSTS OFF) SELECT id FROM ie.events WHERE kind = 110;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM ie.events WHERE kind = 110;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM ie.events_sidecar WHERE kind = 110;
SELECT t, check_rows(format('SELECT id FROM ie.%I WHERE kind = 110', t),
                     (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i
                       WHERE i % 128 = 110 AND i % 7 <> 2))
  FROM (VALUES ('events'), ('events_sidecar')) v(t);
-- bitmap (STRING): IN over rows 345 (file 3) and 712 (file 7, NULL: 712 % 7 = 5)
EXPLAIN (COSTS OFF) SELECT id FROM ie.events
  WHERE status_description_text IN ('status_description_text_345', 'status_description_text_712');
SELECT t, check_rows(format('SELECT id FROM ie.%I WHERE status_description_text IN (%L, %L)', t,
                            'status_description_text_345', 'status_description_text_712'),
                     (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i
                       WHERE 'status_description_text_' || i IN
                             ('status_description_text_345', 'status_description_text_712')
                         AND i % 7 <> 5))
  FROM (VALUES ('events'), ('events_sidecar')) v(t);
-- IS NULL: a bitmap selects the NULL rows of every file
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT id FROM ie.events WHERE status_description_text IS NULL;
SELECT check_rows('SELECT id FROM ie.events WHERE status_description_text IS NULL',
                  (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i WHERE i % 7 = 5));

-- BSI: level BETWEEN 100 AND 101; file 0 (0..99) is out by its stats, file 5
-- (116..127, 0..87) by the BSI; 101 and 612 are NULL (i % 7 = 3)
EXPLAIN (COSTS OFF) SELECT id FROM ie.events WHERE level BETWEEN 100 AND 101;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT id FROM ie.events_sidecar WHERE level BETWEEN 100 AND 101;
SELECT t, check_rows(format('SELECT id FROM ie.%I WHERE level BETWEEN 100 AND 101', t),
                     (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i
                       WHERE i % 128 BETWEEN 100 AND 101 AND i % 7 <> 3))
  FROM (VALUES ('events'), ('events_sidecar')) v(t);

-- range-bitmap: grade BETWEEN 18 AND 20; file 3 (44..127, 0..15) is out by
-- the index (its stats span 0..127); 788 is NULL (i % 7 = 4)
EXPLAIN (COSTS OFF) SELECT id FROM ie.events WHERE grade BETWEEN 18 AND 20;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT id FROM ie.events WHERE grade BETWEEN 18 AND 20;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT id FROM ie.events_sidecar WHERE grade BETWEEN 18 AND 20;
SELECT t, check_rows(format('SELECT id FROM ie.%I WHERE grade BETWEEN 18 AND 20', t),
                     (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i
                       WHERE i % 128 BETWEEN 18 AND 20 AND i % 7 <> 4))
  FROM (VALUES ('events'), ('events_sidecar')) v(t);

-- AND over two kinds: kind = 110 (files 1, 2, 4, 6, 7) and grade < 5 (rows
-- i % 128 < 5): no row has both, every file is ruled out
EXPLAIN (COSTS OFF) SELECT id FROM ie.events WHERE kind = 110 AND grade < 5;
SELECT check_rows('SELECT id FROM ie.events WHERE kind = 110 AND grade < 5', NULL);

-- a corrupt sidecar (file 0's, its magic overwritten): an ERROR naming the
-- data file and the index file when a query's quals consult it; without
-- quals no index is read
SELECT count(*) FROM ie.events_bad;
CREATE FUNCTION error_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || regexp_replace(replace(SQLERRM, current_setting('regress.fixtures'),
                                                    '<fixtures>'), 'data-[0-9a-f-]+-', 'data-<uuid>-', 'g');
END $$;
SELECT error_of('SELECT id FROM ie.events_bad WHERE customer_reference_code = ''customer_reference_code_5''');
SET tablescan.enable_file_index = off;
SELECT count(*) FROM ie.events_bad WHERE customer_reference_code = 'customer_reference_code_5';
RESET tablescan.enable_file_index;

-- bitmap v2 (Java's default version, BitmapFileIndexMetaV2) written by our generator:
-- bitmap_v2 has 2 files of 400 rows i, kind = i % 128 (TINYINT; NULL where i % 7 = 1), tag =
-- 'tag_' || i (NULL where i % 7 = 2), both indexed in version 2 with index blocks of 64 bytes
-- (tag: a value per row, three to a block; kind: bitmaps of 3 or 4 rows); tag_401 is NULL
SELECT file_index, index_file IS NOT NULL AS sidecar FROM tablescan_files('ie.bitmap_v2');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM ie.bitmap_v2 WHERE tag = 'tag_777';
SELECT check_rows('SELECT id FROM ie.bitmap_v2 WHERE tag = ''tag_777''', '{777}');
SELECT check_rows('SELECT id FROM ie.bitmap_v2 WHERE tag IN (''tag_0'', ''tag_399'', ''tag_400'', ''tag_401'', ''tag_9'')',
                  '{0, 399, 400}');
SELECT check_rows('SELECT id FROM ie.bitmap_v2 WHERE kind = 5',
                  (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i
                    WHERE i % 128 = 5 AND i % 7 <> 1));
SELECT check_rows('SELECT id FROM ie.bitmap_v2 WHERE kind IN (0, 127, 64) AND id < 600',
                  (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 599) i
                    WHERE i % 128 IN (0, 127, 64) AND i % 7 <> 1));
SELECT check_rows('SELECT id FROM ie.bitmap_v2 WHERE kind IS NULL',
                  (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i WHERE i % 7 = 1));
SELECT check_rows('SELECT id FROM ie.bitmap_v2 WHERE tag IS NOT NULL AND kind <> 3',
                  (SELECT array_agg(i ORDER BY i) FROM generate_series(0, 799) i
                    WHERE i % 7 NOT IN (1, 2) AND i % 128 <> 3));
SELECT check_rows('SELECT id FROM ie.bitmap_v2 WHERE kind NOT IN (1, 2, 3) AND tag = ''tag_130''', NULL);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM ie.bitmap_v2 WHERE kind = 5;

SET client_min_messages = warning;
DROP FUNCTION ids(text), check_rows(text, int[]), error_of(text);
DROP SCHEMA ie CASCADE;
DROP EXTENSION tablescan_fdw CASCADE;
