-- The btree global index's null bitmap: Java's BTreeIndexWriter keeps the row ids whose key
-- is NULL in a Roaring64NavigableMap followed by its CRC32.  IS NULL reads those rows;
-- IS NOT NULL, <> and NOT IN the index's row range less them (and less the literals' rows).
-- PostgreSQL checks every row again, so the rows are those of the scan with the index off.
-- Our generator's btree.db/nulls (test/make-fixtures.sh): 3 commits x 4 Parquet files of
-- 50 rows; row i has id i and _ROW_ID i, name 'name_' || i but NULL where i % 3 = 1, v
-- i * 1000000007 but NULL where i % 3 = 2; one btree file per column and commit (200 rows).
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set fwarehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'fwarehouse');
CREATE FOREIGN TABLE bn (id int, name text, v bigint, "_ROW_ID" bigint)
  SERVER lake OPTIONS (database 'btree', "table" 'nulls');
SELECT count(*),
       count(*) FILTER (WHERE "_ROW_ID" = id
         AND name IS NOT DISTINCT FROM CASE WHEN id % 3 = 1 THEN NULL ELSE 'name_' || id END
         AND v IS NOT DISTINCT FROM CASE WHEN id % 3 = 2 THEN NULL ELSE id * 1000000007::bigint END)
       AS as_described
  FROM bn;

CREATE FUNCTION plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || q;
END $$;
-- rows read and skipped (EXPLAIN ANALYZE without timings)
CREATE FUNCTION analyze_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END $$;
-- the ids of query q against the ids computed in SQL from the formula (want)
CREATE FUNCTION bt_ids(q text, want int[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  got int[];
BEGIN
  EXECUTE 'SELECT array_agg(id ORDER BY id) FROM (' || q || ') r' INTO got;
  IF got IS DISTINCT FROM want THEN
    RETURN 'DIFFERENT: ' || coalesce(got::text, '{}') || ' vs ' || coalesce(want::text, '{}');
  END IF;
  RETURN coalesce(array_length(got, 1), 0) || ' rows as computed';
END $$;
-- the ids 0..599 satisfying cond (a condition on g)
CREATE FUNCTION ids_where(cond text) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
  r int[];
BEGIN
  EXECUTE 'SELECT array_agg(g ORDER BY g) FROM generate_series(0, 599) g WHERE ' || cond INTO r;
  RETURN r;
END $$;
-- the rows of query q with the index on and off, compared as sorted text
CREATE FUNCTION same_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  indexed text[];
  full_scan text[];
BEGIN
  PERFORM set_config('tablescan.enable_file_index', 'on', true);
  EXECUTE 'SELECT array_agg(r::text ORDER BY r::text) FROM (' || q || ') r' INTO indexed;
  PERFORM set_config('tablescan.enable_file_index', 'off', true);
  EXECUTE 'SELECT array_agg(r::text ORDER BY r::text) FROM (' || q || ') r' INTO full_scan;
  PERFORM set_config('tablescan.enable_file_index', 'on', true);
  IF indexed IS DISTINCT FROM full_scan THEN
    RETURN 'DIFFERENT: ' || coalesce(indexed::text, '{}') || ' vs ' || coalesce(full_scan::text, '{}');
  END IF;
  RETURN coalesce(array_length(indexed, 1), 0) || ' rows, same with the index off';
END $$;
CREATE FUNCTION error_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || replace(SQLERRM, current_setting('regress.fixtures'), '<fixtures>');
END $$;
SET regress.fixtures = :'fixtures';

-- IS NULL: the null bitmaps' rows
SELECT l FROM plan_lines('SELECT * FROM bn WHERE name IS NULL') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bn WHERE name IS NULL', ids_where('g % 3 = 1'));
SELECT bt_ids('SELECT id FROM bn WHERE v IS NULL', ids_where('g % 3 = 2'));
SELECT bt_ids('SELECT id FROM bn WHERE name IS NULL AND "_ROW_ID" BETWEEN 190 AND 215',
              ids_where('g % 3 = 1 AND g BETWEEN 190 AND 215'));
-- 400 of 600 rows skipped inside the files (every file holds NULL rows)
SELECT l FROM analyze_lines('SELECT id FROM bn WHERE name IS NULL') l WHERE l !~ 'Filter';
-- IS NOT NULL: the row ranges less the NULL rows
SELECT l FROM plan_lines('SELECT * FROM bn WHERE v IS NOT NULL') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bn WHERE v IS NOT NULL', ids_where('g % 3 <> 2'));
SELECT bt_ids('SELECT id FROM bn WHERE NOT (name IS NULL)', ids_where('g % 3 <> 1'));
SELECT l FROM analyze_lines('SELECT id FROM bn WHERE v IS NOT NULL AND name IS NOT NULL') l
  WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bn WHERE v IS NOT NULL AND name IS NOT NULL', ids_where('g % 3 = 0'));
-- OR with IS NULL: the union; AND of the two null bitmaps: no row
SELECT l FROM plan_lines('SELECT * FROM bn WHERE name = ''name_6'' OR name IS NULL') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bn WHERE name = ''name_6'' OR name IS NULL', ids_where('g % 3 = 1 OR g = 6'));
SELECT bt_ids('SELECT id FROM bn WHERE v = 7000000049 OR v IS NULL OR v > 597000004179',
              ids_where('g % 3 = 2 OR g IN (7, 598)'));
SELECT bt_ids('SELECT id FROM bn WHERE name IS NULL OR v IS NULL', ids_where('g % 3 IN (1, 2)'));
SELECT l FROM plan_lines('SELECT * FROM bn WHERE name IS NULL AND v IS NULL') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bn WHERE name IS NULL AND v IS NULL', NULL);
-- <> and NOT IN: neither the NULL rows nor the literals' rows
SELECT bt_ids('SELECT id FROM bn WHERE name <> ''name_3''', ids_where('g % 3 <> 1 AND g <> 3'));
SELECT l FROM analyze_lines('SELECT id FROM bn WHERE v NOT IN (0, 3000000021, 9000000063, 4)') l
  WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bn WHERE v NOT IN (0, 3000000021, 9000000063, 4)',
              ids_where('g % 3 <> 2 AND g NOT IN (0, 3, 9)'));
SELECT bt_ids('SELECT id FROM bn WHERE name NOT IN (''name_0'', ''name_599'') AND "_ROW_ID" > 590',
              ids_where('g % 3 <> 1 AND g > 590 AND g <> 599'));
-- NOT IN with a NULL element is never true: no row, and the index is not asked
SELECT l FROM plan_lines('SELECT * FROM bn WHERE v NOT IN (0, NULL)') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bn WHERE v NOT IN (0, NULL)', NULL);
-- an index without a null bitmap (btree.db/events has no NULL): IS NULL reads no file
CREATE FOREIGN TABLE bt (id int, name text, v bigint, "_ROW_ID" bigint)
  SERVER lake OPTIONS (database 'btree', "table" 'events');
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name IS NULL') l WHERE l !~ 'Filter';
SELECT count(*) FROM bt WHERE name IS NULL;
SELECT bt_ids('SELECT id FROM bt WHERE v IS NOT NULL AND "_ROW_ID" < 3', '{0, 1, 2}');
SELECT bt_ids('SELECT id FROM bt WHERE name = ''name_5'' OR name IS NULL', '{5}');

-- the same rows with the index off
SELECT same_rows('SELECT * FROM bn WHERE name IS NULL');
SELECT same_rows('SELECT * FROM bn WHERE v IS NOT NULL');
SELECT same_rows('SELECT * FROM bn WHERE name = ''name_6'' OR name IS NULL');
SELECT same_rows('SELECT * FROM bn WHERE v = 7000000049 OR v IS NULL OR v > 597000004179');
SELECT same_rows('SELECT * FROM bn WHERE name IS NULL OR v IS NULL');
SELECT same_rows('SELECT * FROM bn WHERE name IS NULL AND v IS NULL');
SELECT same_rows('SELECT * FROM bn WHERE name IS NOT NULL AND v IS NOT NULL');
SELECT same_rows('SELECT * FROM bn WHERE name <> ''name_3''');
SELECT same_rows('SELECT * FROM bn WHERE v NOT IN (0, 3000000021, 9000000063, 4)');
SELECT same_rows('SELECT * FROM bn WHERE v NOT IN (0, NULL)');
SELECT same_rows('SELECT * FROM bn WHERE name IS NULL AND v > 300000002100');
SELECT same_rows('SELECT * FROM bn WHERE (name IS NULL OR name < ''name_2'') AND v IS NOT NULL');
SELECT same_rows('SELECT * FROM bt WHERE name IS NULL');
SET tablescan.enable_file_index = off;
SELECT l FROM plan_lines('SELECT * FROM bn WHERE name IS NULL') l WHERE l !~ 'Filter';
RESET tablescan.enable_file_index;

-- null bitmaps whose CRC does not match: an error naming the index file, for the leaves
-- that read them; = reads no null bitmap
CREATE FOREIGN TABLE bn_bad (id int, name text, v bigint)
  SERVER lake OPTIONS (database 'btree', "table" 'nulls_bad');
SELECT regexp_replace(error_of('SELECT count(*) FROM bn_bad WHERE name IS NULL'),
                      'btree-global-index-[0-9a-f-]+', 'btree-global-index-UUID');
SELECT regexp_replace(error_of('SELECT count(*) FROM bn_bad WHERE v IS NOT NULL'),
                      'btree-global-index-[0-9a-f-]+', 'btree-global-index-UUID');
SELECT regexp_replace(error_of('SELECT count(*) FROM bn_bad WHERE v <> 0'),
                      'btree-global-index-[0-9a-f-]+', 'btree-global-index-UUID');
SELECT id, name, v FROM bn_bad WHERE name = 'name_3';
SET tablescan.enable_file_index = off;
SELECT count(*) FROM bn_bad WHERE name IS NULL;
RESET tablescan.enable_file_index;

DROP FUNCTION error_of(text);
DROP FUNCTION same_rows(text);
DROP FUNCTION ids_where(text);
DROP FUNCTION bt_ids(text, int[]);
DROP FUNCTION analyze_lines(text);
DROP FUNCTION plan_lines(text);
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
