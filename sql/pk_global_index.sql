-- Paimon 2.0 primary-key global indexes (pk-btree, pk-bitmap): a deduplicate
-- table with deletion vectors whose index manifest lists one btree (bitmap)
-- payload per (bucket, level) over that level's COMPACT files, _SOURCE_META naming them (our
-- generator: pkidx.db of test/make-fixtures.sh, src/tools/ts_gen_pk_gi.h).
-- The index turns into the row positions read of each data file; files none
-- of whose rows the index allows are not read.  The rows must be those of
-- the scan with index use off (tablescan.enable_file_index) and with
-- pruning off.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set fwarehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'fwarehouse');
CREATE FUNCTION same_rows(q text, guc text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  used text[];
  unused text[];
BEGIN
  PERFORM set_config(guc, 'on', true);
  EXECUTE 'SELECT array_agg(r::text ORDER BY r::text) FROM (' || q || ') r' INTO used;
  PERFORM set_config(guc, 'off', true);
  EXECUTE 'SELECT array_agg(r::text ORDER BY r::text) FROM (' || q || ') r' INTO unused;
  PERFORM set_config(guc, 'on', true);
  IF used IS DISTINCT FROM unused THEN
    RETURN 'DIFFERENT: ' || coalesce(used::text, '{}') || ' vs ' || coalesce(unused::text, '{}');
  END IF;
  RETURN coalesce(array_length(used, 1), 0) || ' rows, same with ' || guc || ' off';
END $$;
CREATE FUNCTION plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END $$;
CREATE FOREIGN TABLE items (id int, v text, n bigint)
  SERVER lake OPTIONS (database 'pkidx', "table" 'items');
-- the model, from the generator's write stream (items.ops.jsonl) alone: a file is live
-- when its last event is an ADD, a batch read of a deletion-vector table reads the live
-- files of level > 0 without the positions of their latest deletion vector and without
-- retractions; a file first added at level > 0 was written by a compaction (COMPACT,
-- indexed), one first added at level 0 and moved up unchanged keeps its APPEND source
CREATE TEMP TABLE ops (n serial, line jsonb);
SELECT set_config('pkidx.ops', :'fwarehouse' || '/pkidx.db/items.ops.jsonl', false) IS NOT NULL AS set;
DO $$ BEGIN EXECUTE format('COPY ops (line) FROM %L', current_setting('pkidx.ops')); END $$;
CREATE TEMP VIEW live AS
SELECT f, level, compact FROM (
  SELECT DISTINCT ON (line->>'file') line->>'file' AS f, (line->>'level')::int AS level,
         line->>'action' AS action,
         (SELECT (o.line->>'level')::int > 0 FROM ops o
           WHERE o.line->>'op' = 'file' AND o.line->>'file' = x.line->>'file'
           ORDER BY o.n LIMIT 1) AS compact
    FROM ops x WHERE line->>'op' = 'file' ORDER BY line->>'file', n DESC) e
 WHERE action = 'ADD' AND level > 0;
CREATE TEMP VIEW physical AS
SELECT r.line->>'file' AS f, (r.line->>'pos')::int AS pos, r.line->>'kind' AS kind,
       (r.line->'values'->>'id')::int AS id, r.line->'values'->>'v' AS v,
       (r.line->'values'->>'n')::bigint AS n,
       coalesce((SELECT d.line->'positions' @> to_jsonb((r.line->>'pos')::int) FROM ops d
                  WHERE d.line->>'op' = 'dv' AND d.line->>'file' = r.line->>'file'
                  ORDER BY d.n DESC LIMIT 1), false) AS deleted
  FROM ops r JOIN live ON live.f = r.line->>'file' WHERE r.line->>'op' = 'record';
CREATE TEMP VIEW model AS
SELECT id, v, n FROM physical WHERE NOT deleted AND kind IN ('+I', '+U');
SELECT (SELECT count(*) FROM live) AS live_files, (SELECT count(*) FROM live WHERE compact) AS compact_files,
       (SELECT count(*) FROM physical) AS physical_rows, (SELECT count(*) FROM model) AS model_rows,
       (SELECT count(*) FROM items) AS read_rows;
SELECT count(*) AS different FROM (
  (SELECT * FROM items EXCEPT ALL SELECT * FROM model)
  UNION ALL (SELECT * FROM model EXCEPT ALL SELECT * FROM items)) x;
-- every value of n, with the index: the model's rows of that value, read from exactly the
-- files the index cannot rule out (those of APPEND source, and those of COMPACT source
-- holding the value in a row, deleted or not: the index covers every physical row)
CREATE FUNCTION files_read(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ 'Files Read:' THEN
      RETURN substring(l from 'Files Read: (\d+)')::int;
    END IF;
  END LOOP;
  RETURN 0;
END $$;
SELECT count(*) AS values_tried,
       count(*) FILTER (WHERE got IS NOT DISTINCT FROM want) AS rows_as_model,
       count(*) FILTER (WHERE read = expect_read) AS files_as_computed,
       count(*) FILTER (WHERE read < all_files) AS fewer_files
  FROM (SELECT x.n,
               (SELECT array_agg(i::text ORDER BY id) FROM items i WHERE i.n = x.n) AS got,
               (SELECT array_agg(m::text ORDER BY id) FROM model m WHERE m.n = x.n) AS want,
               files_read('SELECT * FROM items WHERE n = ' || x.n) AS read,
               (SELECT count(*) FROM live WHERE NOT compact)
                 + (SELECT count(DISTINCT p.f) FROM physical p JOIN live USING (f)
                     WHERE live.compact AND p.n = x.n) AS expect_read,
               (SELECT count(*) FROM live) AS all_files
          FROM (SELECT DISTINCT n FROM physical) x) y;
-- the same rows with index use off and with pruning off
SELECT same_rows('SELECT * FROM items WHERE n = ' || n, 'tablescan.enable_file_index')
FROM (SELECT n FROM items ORDER BY id LIMIT 3) x;
SELECT same_rows('SELECT * FROM items WHERE n = ' || n, 'tablescan.enable_pruning')
FROM (SELECT n FROM items ORDER BY id LIMIT 3) x;
-- ranges, IN, AND / OR with an unindexed column, a value no row has
SELECT same_rows('SELECT * FROM items WHERE n < ' || (SELECT percentile_disc(0.3) WITHIN GROUP (ORDER BY n) FROM items), 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM items WHERE n BETWEEN ' || min(n) || ' AND ' || max(n), 'tablescan.enable_file_index') FROM items;
SELECT same_rows('SELECT * FROM items WHERE n IN (' || string_agg(n::text, ',') || ')', 'tablescan.enable_file_index')
FROM (SELECT n FROM items ORDER BY id LIMIT 4) x;
SELECT same_rows('SELECT * FROM items WHERE n = ' || min(n) || ' OR id < 5', 'tablescan.enable_file_index') FROM items;
SELECT same_rows('SELECT * FROM items WHERE n = ' || min(n) || ' AND v IS NOT NULL', 'tablescan.enable_file_index') FROM items;
SELECT same_rows('SELECT * FROM items WHERE n = -1', 'tablescan.enable_file_index');
SELECT same_rows('SELECT * FROM items WHERE NOT (n = ' || min(n) || ')', 'tablescan.enable_file_index') FROM items;
-- EXPLAIN: the index used, data files left out, rows not decoded; n1: the smallest value of
-- a live row whose file has other live rows (those are not decoded), and what the model
-- says: the files of COMPACT source holding n1 of the live files, the other live rows there
SELECT min(n) AS n1 FROM physical p
 WHERE NOT deleted AND (SELECT count(*) FROM physical q WHERE q.f = p.f AND NOT q.deleted) > 1 \gset
SELECT (SELECT count(DISTINCT f) FROM physical WHERE n = :n1) AS files_with_n1,
       (SELECT count(*) FROM live) AS live_files,
       (SELECT count(*) FROM physical q WHERE NOT deleted AND n <> :n1
           AND f IN (SELECT f FROM physical WHERE n = :n1)) AS other_live_rows_there;
SELECT l FROM plan_lines('SELECT * FROM items WHERE n = ' || :n1) l
  WHERE l ~ 'Global Index|Data Files|Files Read|Rows Read|Rows Skipped By Index';
-- the data files kept with the index are fewer than without it
CREATE FUNCTION kept(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ 'Data Files:' THEN
      RETURN substring(l from 'Data Files: (\d+)')::int;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;
SELECT kept('SELECT * FROM items WHERE n = ' || :n1) < kept('SELECT * FROM items') AS fewer_files;
SET tablescan.enable_file_index = off;
SELECT l FROM plan_lines('SELECT * FROM items WHERE n = ' || :n1) l WHERE l ~ 'Global Index';
RESET tablescan.enable_file_index;
-- a payload that does not decode: an error naming it (never rows without it)
CREATE FOREIGN TABLE items_bad (id int, v text, n bigint)
  SERVER lake OPTIONS (database 'pkidx', "table" 'items_bad');
CREATE FUNCTION error_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, '"[^"]*btree-global-index-[0-9a-f-]+\.index"', '"<index file>"');
END $$;
SELECT error_of('SELECT * FROM items_bad WHERE n = ' || :n1);
-- without an indexed leaf, and with index use off, the table reads as the good one
SELECT (SELECT array_agg(i::text ORDER BY id) FROM items_bad i WHERE id < 10)
     = (SELECT array_agg(i::text ORDER BY id) FROM items i WHERE id < 10) AS same_without_index_leaf;
SET tablescan.enable_file_index = off;
SELECT error_of('SELECT * FROM items_bad WHERE n = ' || :n1);
RESET tablescan.enable_file_index;

-- NULL keys (items_nulls: as items with n NULL in every third row): a payload's null bitmap
-- holds the ordinals of the rows whose n is NULL; the model now reads its write stream
CREATE FOREIGN TABLE items_nulls (id int, v text, n bigint)
  SERVER lake OPTIONS (database 'pkidx', "table" 'items_nulls');
\set tbl items_nulls
TRUNCATE ops;
SELECT set_config('pkidx.ops', :'fwarehouse' || '/pkidx.db/' || :'tbl' || '.ops.jsonl', false) IS NOT NULL AS set;
DO $$ BEGIN EXECUTE format('COPY ops (line) FROM %L', current_setting('pkidx.ops')); END $$;
SELECT (SELECT count(*) FROM live) AS live_files, (SELECT count(*) FROM live WHERE compact) AS compact_files,
       (SELECT count(*) FROM physical) AS physical_rows,
       (SELECT count(*) FROM physical WHERE n IS NULL) AS physical_null_rows,
       (SELECT count(*) FROM model) AS model_rows, (SELECT count(*) FROM model WHERE n IS NULL) AS model_null_rows,
       (SELECT count(*) FROM :tbl) AS read_rows;
SELECT count(*) AS different FROM (
  (SELECT * FROM :tbl EXCEPT ALL SELECT * FROM model)
  UNION ALL (SELECT * FROM model EXCEPT ALL SELECT * FROM :tbl)) x;
-- per condition: the model's rows, read from the files the index cannot rule out (APPEND
-- source, and COMPACT source with a physical row, deleted or not, that the condition holds
-- for), the same rows with index use off and with pruning off
CREATE TEMP VIEW conds (c, idx) AS
SELECT 'n IS NULL', 'n IS NULL' UNION ALL SELECT 'n IS NOT NULL', 'n IS NOT NULL'
UNION ALL (SELECT 'n = ' || n || ' OR n IS NULL', 'n = ' || n || ' OR n IS NULL'
             FROM model WHERE n IS NOT NULL ORDER BY n LIMIT 3)
UNION ALL (SELECT 'n IS NULL OR n = ' || n, 'n IS NULL OR n = ' || n
             FROM model WHERE n IS NOT NULL ORDER BY n DESC LIMIT 1)
UNION ALL SELECT 'n = -1 OR n IS NULL', 'n = -1 OR n IS NULL'
UNION ALL SELECT 'n IS NULL AND v IS NOT NULL', 'n IS NULL'
UNION ALL SELECT 'n IS NULL OR id < 5', NULL;
CREATE FUNCTION model_rows(c text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  r text[];
BEGIN
  EXECUTE 'SELECT array_agg(m::text ORDER BY id) FROM model m WHERE ' || c INTO r;
  RETURN r;
END $$;
CREATE FUNCTION read_rows(tbl text, c text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  r text[];
BEGIN
  EXECUTE 'SELECT array_agg(i::text ORDER BY id) FROM ' || tbl || ' i WHERE ' || c INTO r;
  RETURN r;
END $$;
-- the live files of COMPACT source with a physical row (deleted or not) idx holds for (NULL:
-- idx has a leaf on an unindexed column, which allows every file the pruning keeps)
CREATE FUNCTION compact_files_with(idx text) RETURNS bigint LANGUAGE plpgsql STRICT AS $$
DECLARE
  k bigint;
BEGIN
  EXECUTE 'SELECT count(DISTINCT p.f) FROM physical p JOIN live USING (f) WHERE live.compact AND ('
          || idx || ')' INTO k;
  RETURN k;
END $$;
SELECT c, coalesce(array_length(model_rows(c), 1), 0) AS model_rows,
       read_rows(:'tbl', c) IS NOT DISTINCT FROM model_rows(c) AS rows_as_model,
       files_read('SELECT * FROM ' || :'tbl' || ' WHERE ' || c) AS files_read,
       (SELECT count(*) FROM live WHERE NOT compact) + compact_files_with(idx) AS expect_read,
       (SELECT count(*) FROM live) AS all_files,
       same_rows('SELECT * FROM ' || :'tbl' || ' WHERE ' || c, 'tablescan.enable_file_index') AS index_off,
       same_rows('SELECT * FROM ' || :'tbl' || ' WHERE ' || c, 'tablescan.enable_pruning') AS pruning_off
  FROM conds ORDER BY c;
-- every non-NULL value of n: the model's rows, from the files computed
SELECT count(*) AS values_tried,
       count(*) FILTER (WHERE read_rows(:'tbl', 'n = ' || n) IS NOT DISTINCT FROM model_rows('n = ' || n)) AS rows_as_model,
       count(*) FILTER (WHERE files_read('SELECT * FROM ' || :'tbl' || ' WHERE n = ' || n)
                              = (SELECT count(*) FROM live WHERE NOT compact) + compact_files_with('n = ' || n))
         AS files_as_computed,
       count(*) FILTER (WHERE files_read('SELECT * FROM ' || :'tbl' || ' WHERE n = ' || n)
                              < (SELECT count(*) FROM live)) AS fewer_files
  FROM (SELECT DISTINCT n FROM physical WHERE n IS NOT NULL) x;
SELECT l FROM plan_lines('SELECT * FROM items_nulls WHERE n IS NULL') l WHERE l ~ 'Global Index';
-- pk-bitmap (items_bitmap: the same table with a pk-bitmap index on n, one bitmap payload per
-- group over its ordinals): the same checks against its own write stream
CREATE FOREIGN TABLE items_bitmap (id int, v text, n bigint)
  SERVER lake OPTIONS (database 'pkidx', "table" 'items_bitmap');
\set tbl items_bitmap
TRUNCATE ops;
SELECT set_config('pkidx.ops', :'fwarehouse' || '/pkidx.db/' || :'tbl' || '.ops.jsonl', false) IS NOT NULL AS set;
DO $$ BEGIN EXECUTE format('COPY ops (line) FROM %L', current_setting('pkidx.ops')); END $$;
SELECT (SELECT count(*) FROM live) AS live_files, (SELECT count(*) FROM live WHERE compact) AS compact_files,
       (SELECT count(*) FROM physical) AS physical_rows,
       (SELECT count(*) FROM physical WHERE n IS NULL) AS physical_null_rows,
       (SELECT count(*) FROM model) AS model_rows, (SELECT count(*) FROM model WHERE n IS NULL) AS model_null_rows,
       (SELECT count(*) FROM :tbl) AS read_rows;
SELECT count(*) AS different FROM (
  (SELECT * FROM :tbl EXCEPT ALL SELECT * FROM model)
  UNION ALL (SELECT * FROM model EXCEPT ALL SELECT * FROM :tbl)) x;
SELECT c, coalesce(array_length(model_rows(c), 1), 0) AS model_rows,
       read_rows(:'tbl', c) IS NOT DISTINCT FROM model_rows(c) AS rows_as_model,
       files_read('SELECT * FROM ' || :'tbl' || ' WHERE ' || c) AS files_read,
       (SELECT count(*) FROM live WHERE NOT compact) + compact_files_with(idx) AS expect_read,
       (SELECT count(*) FROM live) AS all_files,
       same_rows('SELECT * FROM ' || :'tbl' || ' WHERE ' || c, 'tablescan.enable_file_index') AS index_off,
       same_rows('SELECT * FROM ' || :'tbl' || ' WHERE ' || c, 'tablescan.enable_pruning') AS pruning_off
  FROM conds ORDER BY c;
-- every non-NULL value of n: the model's rows, from the files computed
SELECT count(*) AS values_tried,
       count(*) FILTER (WHERE read_rows(:'tbl', 'n = ' || n) IS NOT DISTINCT FROM model_rows('n = ' || n)) AS rows_as_model,
       count(*) FILTER (WHERE files_read('SELECT * FROM ' || :'tbl' || ' WHERE n = ' || n)
                              = (SELECT count(*) FROM live WHERE NOT compact) + compact_files_with('n = ' || n))
         AS files_as_computed,
       count(*) FILTER (WHERE files_read('SELECT * FROM ' || :'tbl' || ' WHERE n = ' || n)
                              < (SELECT count(*) FROM live)) AS fewer_files
  FROM (SELECT DISTINCT n FROM physical WHERE n IS NOT NULL) x;
-- EXPLAIN: the bitmap index used; n1 and what the model says, as for items
SELECT min(n) AS n1 FROM physical p
 WHERE NOT deleted AND (SELECT count(*) FROM physical q WHERE q.f = p.f AND NOT q.deleted) > 1 \gset
SELECT (SELECT count(DISTINCT f) FROM physical WHERE n = :n1) AS files_with_n1,
       (SELECT count(*) FROM live) AS live_files,
       (SELECT count(*) FROM physical q WHERE NOT deleted AND n IS DISTINCT FROM :n1
           AND f IN (SELECT f FROM physical WHERE n = :n1)) AS other_live_rows_there;
SELECT l FROM plan_lines('SELECT * FROM items_bitmap WHERE n = ' || :n1) l
  WHERE l ~ 'Global Index|Data Files|Files Read|Rows Read|Rows Skipped By Index';
SET tablescan.enable_file_index = off;
SELECT l FROM plan_lines('SELECT * FROM items_bitmap WHERE n = ' || :n1) l WHERE l ~ 'Global Index';
RESET tablescan.enable_file_index;
-- a payload in Java's BitmapGlobalIndexFormat (items_bgix: "BGIX" footer): not decoded, never
-- read as a BitmapFileIndex body; the index narrows nothing (every file read), the rows are the
-- model's, as with index use off
CREATE FOREIGN TABLE items_bgix (id int, v text, n bigint)
  SERVER lake OPTIONS (database 'pkidx', "table" 'items_bgix');
SELECT (SELECT array_agg(i::text ORDER BY id) FROM items_bgix i WHERE n = :n1)
     = (SELECT array_agg(m::text ORDER BY id) FROM model m WHERE n = :n1) AS bgix_leaf_as_model,
       (SELECT array_agg(i::text ORDER BY id) FROM items_bgix i WHERE n = :n1 OR n IS NULL)
     = (SELECT array_agg(m::text ORDER BY id) FROM model m WHERE n = :n1 OR n IS NULL) AS bgix_or_null_as_model;
SELECT l FROM plan_lines('SELECT * FROM items_bgix WHERE n = ' || :n1) l
  WHERE l ~ 'Global Index|Data Files';
SELECT (SELECT array_agg(i::text ORDER BY id) FROM items_bgix i WHERE id < 10)
     = (SELECT array_agg(i::text ORDER BY id) FROM items_bitmap i WHERE id < 10) AS same_without_index_leaf;
SET tablescan.enable_file_index = off;
SELECT (SELECT array_agg(i::text ORDER BY id) FROM items_bgix i WHERE n = :n1 OR n IS NULL)
     = (SELECT array_agg(m::text ORDER BY id) FROM model m WHERE n = :n1 OR n IS NULL) AS index_off_as_model;
RESET tablescan.enable_file_index;

SET client_min_messages = warning;
DROP VIEW conds, model, physical, live;
DROP FUNCTION model_rows(text), read_rows(text, text), compact_files_with(text);
DROP TABLE ops;
DROP FUNCTION same_rows(text, text), plan_lines(text), files_read(text), kept(text), error_of(text);
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
