-- Quals on _ROW_ID (=, IN, = ANY($1), ranges, a nested loop's parameter)
-- select the data files of row-tracking tables by their row-id ranges
-- (_FIRST_ROW_ID + row count); PostgreSQL still checks every row, so the
-- rows are those of the scan with pruning off.  Tables written by Java
-- Paimon (../shared/testdata).
CREATE EXTENSION tablescan_fdw;
\getenv shared TS_SHARED
\set warehouse :shared/testdata/parquet
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
-- the rows of query q with pruning on and off, compared as sorted text
CREATE FUNCTION same_rows(q text, guc text DEFAULT 'tablescan.enable_pruning') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  pruned text[];
  full_scan text[];
BEGIN
  PERFORM set_config(guc, 'on', true);
  EXECUTE 'SELECT array_agg(r::text ORDER BY r::text) FROM (' || q || ') r' INTO pruned;
  PERFORM set_config(guc, 'off', true);
  EXECUTE 'SELECT array_agg(r::text ORDER BY r::text) FROM (' || q || ') r' INTO full_scan;
  PERFORM set_config(guc, 'on', true);
  IF pruned IS DISTINCT FROM full_scan THEN
    RETURN 'DIFFERENT: ' || coalesce(pruned::text, '{}') || ' vs ' || coalesce(full_scan::text, '{}');
  END IF;
  RETURN coalesce(array_length(pruned, 1), 0) || ' rows, same with ' || guc || ' off';
END $$;

-- data evolution: rows 0..3 in two files (one group), rows 4..5 in a third
CREATE FOREIGN TABLE de (f0 text, f1 int, f2 int, f3 float8,
                         row_id bigint OPTIONS (column_name '_ROW_ID'))
  SERVER shared OPTIONS (database 'data_evolution_with_index', "table" 'data_evolution_with_index');
SELECT row_id, f0, f2 FROM de WHERE row_id = 5;
SELECT row_id, f0, f2 FROM de WHERE row_id IN (1, 3) ORDER BY row_id;
SELECT row_id, f0, f2 FROM de WHERE row_id >= 4 ORDER BY row_id;
SELECT row_id FROM de WHERE row_id < 0 OR row_id > 100;
EXPLAIN (COSTS OFF) SELECT f0 FROM de WHERE row_id = 5;
EXPLAIN (COSTS OFF) SELECT f0 FROM de WHERE row_id IN (1, 3, 4);
EXPLAIN (COSTS OFF) SELECT f0 FROM de WHERE row_id BETWEEN 2 AND 3;
EXPLAIN (COSTS OFF) SELECT f0 FROM de WHERE row_id > 5;
-- OR of ranges; a conjunct on another column leaves the row ids alone
EXPLAIN (COSTS OFF) SELECT f0 FROM de WHERE (row_id < 1 OR row_id = 3) AND f2 > 0;
-- <> and OR with another column constrain nothing
EXPLAIN (COSTS OFF) SELECT f0 FROM de WHERE row_id <> 5;
EXPLAIN (COSTS OFF) SELECT f0 FROM de WHERE row_id = 5 OR f2 = 102;
SELECT same_rows('SELECT * FROM de WHERE row_id = 5');
SELECT same_rows('SELECT * FROM de WHERE row_id IN (0, 2, 5, 9)');
SELECT same_rows('SELECT * FROM de WHERE row_id BETWEEN 3 AND 4');
SELECT same_rows('SELECT * FROM de WHERE row_id > 3 AND row_id < 5');
SELECT same_rows('SELECT * FROM de WHERE row_id < 1 OR row_id = 3');
SELECT same_rows('SELECT * FROM de WHERE row_id = ANY(ARRAY[1, NULL, 4]::bigint[])');
SELECT same_rows('SELECT * FROM de WHERE row_id = -1');
SELECT same_rows('SELECT * FROM de WHERE row_id = 2 AND f2 = 106');

-- = ANY($1) of a prepared statement, planned generically: the files are
-- chosen when the scan starts, from the parameter's value
PREPARE by_ids(bigint[]) AS SELECT row_id, f0, f2 FROM de WHERE row_id = ANY($1) ORDER BY row_id;
SET plan_cache_mode = force_generic_plan;
EXECUTE by_ids('{4,5}');
EXECUTE by_ids('{0,5,1000}');
EXECUTE by_ids('{}');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE by_ids('{5}');
RESET plan_cache_mode;
-- a thousand ids, two of them in the table
SELECT row_id, f0 FROM de WHERE row_id = ANY(ARRAY(SELECT g * 1000 + 5 FROM generate_series(0, 999) g)
                                           || ARRAY[3]::bigint[]) ORDER BY row_id;
EXPLAIN (COSTS OFF) SELECT row_id FROM de WHERE row_id IN (5, 1005, 2005, 3005, 4005, 5005);

-- a nested loop's parameter: each outer row reads only its file
CREATE TEMP TABLE wanted (id bigint);
INSERT INTO wanted VALUES (1), (5), (42);
SELECT w.id, d.f0, d.f2
  FROM wanted w CROSS JOIN LATERAL (SELECT * FROM de WHERE de.row_id = w.id OFFSET 0) d ORDER BY w.id;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT w.id, d.f0 FROM wanted w CROSS JOIN LATERAL (SELECT * FROM de WHERE de.row_id = w.id OFFSET 0) d
  WHERE w.id = 5;

-- partitions: one file per partition, row ids 0..4 (f1=10) and 5..7 (f1=20)
CREATE FOREIGN TABLE gp (f0 text, f1 int, f2 int, f3 float8, "_ROW_ID" bigint)
  SERVER shared OPTIONS (database 'append_with_global_index_with_partition',
                         "table" 'append_with_global_index_with_partition');
SELECT "_ROW_ID", f0, f1 FROM gp ORDER BY "_ROW_ID";
EXPLAIN (COSTS OFF) SELECT f0 FROM gp WHERE "_ROW_ID" = 6;
SELECT same_rows('SELECT * FROM gp WHERE "_ROW_ID" IN (4, 5)');
SELECT same_rows('SELECT * FROM gp WHERE "_ROW_ID" >= 5 AND f1 = 10');

-- BLOB files stay with the data file of their row-id range
IMPORT FOREIGN SCHEMA blob_data_evolution_with_dense_stats FROM SERVER shared INTO public;
ALTER FOREIGN TABLE blob_data_evolution_with_dense_stats ADD COLUMN rid bigint OPTIONS (column_name '_ROW_ID');
SELECT rid, convert_from(f0, 'UTF8') AS name, f1 FROM blob_data_evolution_with_dense_stats ORDER BY rid;
EXPLAIN (COSTS OFF) SELECT f1 FROM blob_data_evolution_with_dense_stats WHERE rid = 3;
SELECT same_rows('SELECT rid, f0, f1 FROM blob_data_evolution_with_dense_stats WHERE rid = 3');
SELECT same_rows('SELECT rid, f0, f1 FROM blob_data_evolution_with_dense_stats WHERE rid IN (0, 1)');

-- partitioned data-evolution table with schema evolution (casts)
IMPORT FOREIGN SCHEMA append_table_alter_table_with_cast_with_data_evolution FROM SERVER shared INTO public;
ALTER FOREIGN TABLE append_table_alter_table_with_cast_with_data_evolution
  ADD COLUMN rid bigint OPTIONS (column_name '_ROW_ID');
SELECT min(rid), max(rid), count(*) FROM append_table_alter_table_with_cast_with_data_evolution;
EXPLAIN (COSTS OFF) SELECT rid FROM append_table_alter_table_with_cast_with_data_evolution WHERE rid IN (0, 7);
EXPLAIN (COSTS OFF) SELECT rid FROM append_table_alter_table_with_cast_with_data_evolution WHERE rid IN (1, 2);
SELECT same_rows('SELECT * FROM append_table_alter_table_with_cast_with_data_evolution WHERE rid IN (0, 7)');
SELECT same_rows('SELECT * FROM append_table_alter_table_with_cast_with_data_evolution WHERE rid IN (1, 2)');
SELECT same_rows('SELECT * FROM append_table_alter_table_with_cast_with_data_evolution WHERE rid >= 12');

-- row tracking after compaction: the ids are stored in the compacted file
CREATE FOREIGN TABLE rt (f0 text, "_ROW_ID" bigint)
  SERVER shared OPTIONS (database 'append_table_row_tracking_with_compact',
                         "table" 'append_table_row_tracking_with_compact');
SELECT * FROM rt WHERE "_ROW_ID" = 2;
SELECT same_rows('SELECT * FROM rt WHERE "_ROW_ID" BETWEEN 1 AND 2');
EXPLAIN (COSTS OFF) SELECT * FROM rt WHERE "_ROW_ID" > 100;

-- inside files: both files of the group 0..3 read only the position of
-- row id 2 (3 rows skipped in each), the file of 4..5 is not read
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT row_id, f0, f2 FROM de WHERE row_id = 2;
SELECT row_id, f0, f1, f2, f3 FROM de WHERE row_id IN (0, 2, 3, 5) ORDER BY row_id;
SELECT same_rows('SELECT * FROM de WHERE row_id IN (0, 2, 3, 5)');
SELECT same_rows('SELECT * FROM de WHERE row_id = ANY(''{}''::bigint[])');
SELECT same_rows('SELECT f0 FROM de WHERE row_id > 2');
SELECT same_rows('SELECT f0, row_id FROM de WHERE row_id < 2');
-- a group with a BLOB column read is read whole; without it, by positions
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT f1 FROM blob_data_evolution_with_dense_stats WHERE rid = 1;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT rid, f0 FROM blob_data_evolution_with_dense_stats WHERE rid = 1;
SELECT same_rows('SELECT rid, f1 FROM blob_data_evolution_with_dense_stats WHERE rid IN (1, 2)');

-- a table without row tracking: _ROW_ID quals prune nothing (reading it is an error)
CREATE FOREIGN TABLE plain (f0 text, "_ROW_ID" bigint)
  SERVER shared OPTIONS (database 'append_09', "table" 'append_09');
SELECT count(*) FROM plain WHERE "_ROW_ID" = 1;

-- the global index (bitmap kind; snapshot 4 indexes f0, f1, f2): one data
-- file, row ids 0..7 = Alice 10 1, Bob 10 1, Emily 10 0, Tony 10 0,
-- Lucy 20 1, Bob 10 1, Tony 20 0, Alice 20 NULL
CREATE FOREIGN TABLE gi (f0 text, f1 int, f2 int, f3 float8, "_ROW_ID" bigint)
  SERVER shared OPTIONS (database 'append_with_global_index', "table" 'append_with_global_index');
SELECT * FROM gi ORDER BY "_ROW_ID";
-- Bob (1, 5) and f1 = 20 (4, 6, 7) both occur, never in one row: the file is not read
EXPLAIN (COSTS OFF) SELECT * FROM gi WHERE f0 = 'Bob' AND f1 = 20;
SELECT * FROM gi WHERE f0 = 'Bob' AND f1 = 20;
EXPLAIN (COSTS OFF) SELECT * FROM gi WHERE f0 = 'Zed';
EXPLAIN (COSTS OFF) SELECT * FROM gi WHERE f0 IN ('Bob', 'Lucy') AND f2 IS NULL;
EXPLAIN (COSTS OFF) SELECT * FROM gi WHERE f0 = 'Alice' AND f2 IS NULL;
SELECT * FROM gi WHERE f0 = 'Alice' AND f2 IS NULL;
-- the index's row ids choose the rows inside the file too: Bob is at 1 and 5
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT f0, f1 FROM gi WHERE f0 = 'Bob';
SELECT f0, f1, "_ROW_ID" FROM gi WHERE f0 = 'Bob' ORDER BY "_ROW_ID";
-- with _ROW_ID quals: Tony is at 3 and 6
EXPLAIN (COSTS OFF) SELECT * FROM gi WHERE f0 = 'Tony' AND "_ROW_ID" IN (0, 1, 2);
SELECT * FROM gi WHERE f0 = 'Tony' AND "_ROW_ID" IN (2, 3);
-- ranges and OR with an unindexed column: the bitmap cannot tell
EXPLAIN (COSTS OFF) SELECT * FROM gi WHERE f1 > 100;
EXPLAIN (COSTS OFF) SELECT * FROM gi WHERE f0 = 'Zed' OR f3 > 1;
-- tablescan.enable_file_index = off: no global index either
SET tablescan.enable_file_index = off;
EXPLAIN (COSTS OFF) SELECT * FROM gi WHERE f0 = 'Zed';
RESET tablescan.enable_file_index;
-- snapshot 1 has no index
CREATE FOREIGN TABLE gi1 (f0 text, f1 int) SERVER shared
  OPTIONS (database 'append_with_global_index', "table" 'append_with_global_index', "scan.snapshot-id" '1');
EXPLAIN (COSTS OFF) SELECT * FROM gi1 WHERE f0 = 'Zed';
SELECT same_rows('SELECT * FROM gi WHERE f0 = ''Bob'' AND f1 = 20', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM gi WHERE f0 = ''Tony'' AND f2 = 0', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM gi WHERE f0 IN (''Alice'', ''Emily'') OR f1 = 20', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM gi WHERE f2 IS NULL AND f1 = 10', 'tablescan.enable_file_index');
-- partitions f1=10 (Alice Bob Emily Tony Bob, f0 indexed) and f1=20 (Lucy
-- Tony Alice, no index), both from row id 0: an index serves its own partition
CREATE FOREIGN TABLE gip (f0 text, f1 int, f2 int, f3 float8)
  SERVER shared OPTIONS (database 'append_with_global_index_with_partition',
                         "table" 'append_with_global_index_with_partition');
EXPLAIN (COSTS OFF) SELECT * FROM gip WHERE f0 = 'Lucy';
SELECT * FROM gip WHERE f0 = 'Lucy';
SELECT same_rows('SELECT * FROM gip WHERE f0 = ''Alice''', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM gip WHERE f0 = ''Lucy''', 'tablescan.enable_file_index');

-- our generator's row-tracking table: 2 partitions x 10 files x 2 commits,
-- 40 files of 200 rows, row ids 0..7999 (file k holds 200k .. 200k + 199;
-- the files alternate between the partitions: even k in dt_0, odd k in dt_1)
\getenv fixtures TS_FIXTURES
\set fwarehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'fwarehouse');
CREATE FOREIGN TABLE ev (id int, name text, dt text, "_ROW_ID" bigint)
  SERVER lake OPTIONS (database 'rowtrack', "table" 'events');
SELECT count(*), count(DISTINCT "_ROW_ID"), min("_ROW_ID"), max("_ROW_ID") FROM ev;
-- a thousand ids, in the files that start at 0, 1600, 3200, 4800 and 6400 (all dt_0)
SELECT array_agg((g % 5) * 1600 + g / 5)::text AS ids FROM generate_series(0, 999) g \gset
CREATE FUNCTION plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || q;
END $$;
SELECT l FROM plan_lines('SELECT id FROM ev WHERE "_ROW_ID" = ANY(''' || :'ids' || '''::bigint[])') l
  WHERE l !~ 'Filter';
-- 5 x (0 + ... + 199) + 200 x (0 + 1600 + 3200 + 4800 + 6400) = 3299500
SELECT count(*), sum("_ROW_ID") FROM ev WHERE "_ROW_ID" = ANY(:'ids'::bigint[]);
SELECT same_rows('SELECT * FROM ev WHERE "_ROW_ID" = ANY(''' || :'ids' || '''::bigint[])');
-- a range across two files
EXPLAIN (COSTS OFF) SELECT id FROM ev WHERE "_ROW_ID" BETWEEN 390 AND 410;
SELECT count(*), min("_ROW_ID"), max("_ROW_ID") FROM ev WHERE "_ROW_ID" BETWEEN 390 AND 410;
SELECT same_rows('SELECT * FROM ev WHERE "_ROW_ID" BETWEEN 390 AND 410 OR "_ROW_ID" > 7990');
-- with a partition qual
SELECT same_rows('SELECT * FROM ev WHERE "_ROW_ID" < 1000 AND dt = ''dt_1''');
-- a generic plan: the files are chosen from $1 when the scan starts
PREPARE ev_ids(bigint[]) AS SELECT count(*) FROM ev WHERE "_ROW_ID" = ANY($1);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE ev_ids(:'ids');
EXECUTE ev_ids(:'ids');
-- counted while scanning: only the rows of the ids, not the files' other rows
EXECUTE ev_ids('{1, 2, 401, 9000}');
RESET plan_cache_mode;
SELECT count(*) FROM ev WHERE "_ROW_ID" IN (1, 2, 401, 9000);
-- row ids inside files: 6 Parquet files of 333, 333, 334, 333, 333, 334 rows
-- (row ids 0..1999 in that order, _ROW_ID = id; name NULL where id % 5 = 1,
-- else 'name_' || id), each in row groups of 64 rows (the last the rest):
-- only the row groups holding wanted ids are decoded, only those rows built
CREATE FOREIGN TABLE rg (id int, name text, "_ROW_ID" bigint)
  SERVER lake OPTIONS (database 'rowtrack', "table" 'groups');
SELECT count(*), count(*) FILTER (WHERE id = "_ROW_ID") AS id_is_row_id,
       count(*) FILTER (WHERE name IS NOT DISTINCT FROM
                        CASE WHEN id % 5 = 1 THEN NULL ELSE 'name_' || id END) AS names_right,
       min("_ROW_ID"), max("_ROW_ID") FROM rg;
-- the rows of "_ROW_ID" = ANY(ids) against the ids computed here, then
-- against the same query with pruning off (no row-id selection at all)
CREATE FUNCTION rg_check(ids bigint[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  got bigint[];
  want bigint[];
  bad bigint;
  res text;
BEGIN
  SELECT array_agg("_ROW_ID" ORDER BY "_ROW_ID"),
         count(*) FILTER (WHERE id <> "_ROW_ID" OR name IS DISTINCT FROM
                          CASE WHEN id % 5 = 1 THEN NULL ELSE 'name_' || id END)
    INTO got, bad FROM rg WHERE "_ROW_ID" = ANY(ids);
  SELECT array_agg(DISTINCT x ORDER BY x) INTO want FROM unnest(ids) x WHERE x BETWEEN 0 AND 1999;
  IF got IS DISTINCT FROM want OR bad <> 0 THEN
    RETURN 'WRONG: ' || coalesce(got::text, '{}') || ' vs ' || coalesce(want::text, '{}');
  END IF;
  res := same_rows(format('SELECT * FROM rg WHERE "_ROW_ID" = ANY(%L::bigint[])', ids));
  RETURN coalesce(array_length(got, 1), 0) || ' ids right; ' || res;
END $$;
-- first / last row of each file, the rows around row-group boundaries
SELECT rg_check('{0, 332, 333, 665, 666, 999, 1000, 1332, 1333, 1665, 1666, 1999}');
SELECT rg_check('{63, 64, 127, 128, 319, 320, 396, 397, 730}');
-- ids beyond any file, negative ids, duplicates, NULLs, empty and NULL arrays
SELECT rg_check('{-1, 2000, 5000, 9223372036854775807, -9223372036854775808}');
SELECT rg_check('{5, 5, NULL, 1500, NULL}');
SELECT rg_check('{}');
SELECT rg_check(NULL);
SELECT rg_check('{NULL}');
-- a thousand ids, some past the end
SELECT rg_check(ARRAY(SELECT (g * 7919) % 2600 FROM generate_series(0, 999) g));
-- every id
SELECT rg_check(ARRAY(SELECT generate_series(-3, 2003)::bigint));
-- ranges open at either end, between, OR of ranges: count and sum against generate_series
SELECT (SELECT count(*) || ' ' || sum("_ROW_ID") FROM rg WHERE "_ROW_ID" < 70)
     = (SELECT count(*) || ' ' || sum(g) FROM generate_series(0, 69) g) AS below_70;
SELECT (SELECT count(*) || ' ' || sum("_ROW_ID") FROM rg WHERE "_ROW_ID" >= 1990)
     = (SELECT count(*) || ' ' || sum(g) FROM generate_series(1990, 1999) g) AS from_1990;
SELECT (SELECT count(*) || ' ' || sum("_ROW_ID") FROM rg WHERE "_ROW_ID" BETWEEN 300 AND 700 OR "_ROW_ID" <= 1)
     = (SELECT count(*) || ' ' || sum(g) FROM generate_series(0, 1999) g
        WHERE g BETWEEN 300 AND 700 OR g <= 1) AS between_or;
SELECT same_rows('SELECT * FROM rg WHERE "_ROW_ID" < 70');
SELECT same_rows('SELECT * FROM rg WHERE "_ROW_ID" > 1998 OR "_ROW_ID" < 1');
SELECT same_rows('SELECT * FROM rg WHERE "_ROW_ID" BETWEEN 60 AND 1400 AND id % 64 = 0');
SELECT same_rows('SELECT id, name FROM rg WHERE "_ROW_ID" IN (64, 700) AND name IS NOT NULL');
-- what was read (files and row groups counted from 1): ids 0, 63, 64 (file 1:
-- row groups 1, 2), 700 (file 3: row group 1, position 34), 1999 (file 6: row
-- group 6, position 333): 4 row groups of the 18 of 3 files;
-- the files' other 333 + 334 + 334 - 5 rows skipped by row id
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT id FROM rg WHERE "_ROW_ID" IN (0, 63, 64, 700, 1999);
-- an aggregate computed while scanning sees only those rows
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM rg WHERE "_ROW_ID" IN (0, 63, 64, 700, 1999);
-- a generic plan's = ANY($1): rows 100..109 and 1900..1909 (row group 2 of
-- file 1, row group 4 of file 6: positions 234..243)
PREPARE rg_ids(bigint[]) AS SELECT count(*), sum(id) FROM rg WHERE "_ROW_ID" = ANY($1);
SET plan_cache_mode = force_generic_plan;
SELECT array_agg(g)::text AS rg_ids FROM (SELECT generate_series(100, 109) g UNION ALL
                                          SELECT generate_series(1900, 1909)) s \gset
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE rg_ids(:'rg_ids');
EXECUTE rg_ids(:'rg_ids');
EXECUTE rg_ids('{}');
RESET plan_cache_mode;
-- a nested loop's parameter: each outer row reads one row group
CREATE TEMP TABLE rg_wanted (id bigint);
INSERT INTO rg_wanted VALUES (0), (64), (333), (1999), (2500);
SELECT w.id, r.id, r.name
  FROM rg_wanted w CROSS JOIN LATERAL (SELECT * FROM rg WHERE rg."_ROW_ID" = w.id OFFSET 0) r
  ORDER BY w.id;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT r.id FROM rg_wanted w CROSS JOIN LATERAL (SELECT * FROM rg WHERE rg."_ROW_ID" = w.id OFFSET 0) r;
-- pruning off: no row-id selection, every row group read
SET tablescan.enable_pruning = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT id FROM rg WHERE "_ROW_ID" IN (0, 63, 64, 700, 1999);
RESET tablescan.enable_pruning;
DROP FUNCTION rg_check(bigint[]);

-- the btree global index (our generator: btree.db of test/make-fixtures.sh): 3 commits x 4
-- files of 50 rows (12 files); row i has id i, name 'name_' || i, v i * 1000000007 and
-- _ROW_ID i; each commit has one btree file per column over its 200 rows (several blocks)
CREATE FOREIGN TABLE bt (id int, name text, v bigint, "_ROW_ID" bigint)
  SERVER lake OPTIONS (database 'btree', "table" 'events');
SELECT count(*), count(*) FILTER (WHERE "_ROW_ID" = id AND name = 'name_' || id
                                  AND v = id * 1000000007::bigint) AS as_described FROM bt;
-- the ids of query q against the ids computed from the formula (want)
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
CREATE FUNCTION error_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || replace(SQLERRM, current_setting('regress.fixtures'), '<fixtures>');
END $$;
SET regress.fixtures = :'fixtures';
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name = ''name_123''') l WHERE l !~ 'Filter';
SELECT * FROM bt WHERE name = 'name_123';
SELECT l FROM plan_lines('SELECT * FROM bt WHERE v IN (5000000035, 450000003150)') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bt WHERE v IN (5000000035, 450000003150)', '{5, 450}');
-- a range inside file 0 (ids 10..20), one at the end (ids 591..599), others across files
SELECT l FROM plan_lines('SELECT * FROM bt WHERE v BETWEEN 10000000070 AND 20000000140') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bt WHERE v BETWEEN 10000000070 AND 20000000140',
              (SELECT array_agg(g) FROM generate_series(10, 20) g));
SELECT l FROM plan_lines('SELECT * FROM bt WHERE v > 590000004130') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bt WHERE v > 590000004130', (SELECT array_agg(g) FROM generate_series(591, 599) g));
SELECT bt_ids('SELECT id FROM bt WHERE v >= 45000000315 AND v < 160000001120',
              (SELECT array_agg(g) FROM generate_series(45, 159) g));
SELECT bt_ids('SELECT id FROM bt WHERE v <= 3000000021', '{0, 1, 2, 3}');
-- strings in byte order: only 'name_99' is above 'name_98' (ids stop at 599); a text
-- range is handed to the scan only under the C collation (Paimon orders bytes)
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name > ''name_98''') l WHERE l !~ 'Filter';
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name > ''name_98'' COLLATE "C"') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bt WHERE name > ''name_98'' COLLATE "C"', '{99}');
SELECT bt_ids('SELECT id FROM bt WHERE name COLLATE "C" BETWEEN ''name_58'' AND ''name_6''', '{6, 58, 59, 580, 581, 582, 583, 584, 585, 586, 587, 588, 589, 590, 591, 592, 593, 594, 595, 596, 597, 598, 599}');
SELECT bt_ids('SELECT id FROM bt WHERE name > ''name_98''', '{99}');
SELECT bt_ids('SELECT id FROM bt WHERE name < ''name_1''', '{0}');
SELECT bt_ids('SELECT id FROM bt WHERE name IN (''name_7'', ''name_77'', ''name_577'', ''nobody'')', '{7, 77, 577}');
-- LIKE 'prefix%' (a prefix of the keys): name_12, name_120 .. name_129
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name LIKE ''name\_12%''') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bt WHERE name LIKE ''name\_12%''', '{12, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129}');
-- OR of two indexed columns, AND with no common row, AND with _ROW_ID
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name = ''name_5'' OR v = 7000000049') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bt WHERE name = ''name_5'' OR v = 7000000049', '{5, 7}');
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name = ''name_5'' AND v = 7000000049') l WHERE l !~ 'Filter';
SELECT bt_ids('SELECT id FROM bt WHERE name = ''name_5'' AND v = 7000000049', NULL);
SELECT bt_ids('SELECT id FROM bt WHERE name IN (''name_5'', ''name_300'') AND "_ROW_ID" > 100', '{300}');
-- an unindexed column in an OR: every row may match
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name = ''name_5'' OR id = 9') l WHERE l !~ 'Filter';
-- the same rows with the index off
SELECT same_rows('SELECT * FROM bt WHERE name = ''name_123''', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM bt WHERE v IN (5000000035, 450000003150)', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM bt WHERE v BETWEEN 10000000070 AND 20000000140', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM bt WHERE name > ''name_4'' AND v < 300000002100', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM bt WHERE name = ''name_5'' OR v >= 599000004193', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM bt WHERE name COLLATE "C" BETWEEN ''name_58'' AND ''name_6''', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM bt WHERE name LIKE ''name\_12%'' OR v < 2000000014', 'tablescan.enable_file_index');
SET tablescan.enable_file_index = off;
SELECT l FROM plan_lines('SELECT * FROM bt WHERE name = ''name_123''') l WHERE l !~ 'Filter';
RESET tablescan.enable_file_index;
-- rows read: one file's 50 instead of 600
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM bt WHERE name = 'name_123';
-- index files that do not decode: an error naming the file
CREATE FOREIGN TABLE bt_bad (id int, name text, v bigint)
  SERVER lake OPTIONS (database 'btree', "table" 'events_bad');
SELECT regexp_replace(error_of('SELECT count(*) FROM bt_bad WHERE name = ''name_1'''),
                      'btree-global-index-[0-9a-f-]+', 'btree-global-index-UUID');
SELECT count(*) FROM bt_bad WHERE id = 1;
DROP FUNCTION error_of(text);
DROP FUNCTION bt_ids(text, int[]);
DROP FUNCTION plan_lines(text);
DROP SERVER lake CASCADE;

DROP FUNCTION same_rows(text, text);
DROP SERVER shared CASCADE;
DROP EXTENSION tablescan_fdw;
