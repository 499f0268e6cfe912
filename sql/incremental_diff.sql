-- incremental-between-scan-mode 'diff' on append tables: the rows of the
-- files the end snapshot has and the start snapshot has not (Java's
-- readIncrementalDiff; rows of removed files never show).  append_09
-- (written by Java) has snapshots 1 to 4 APPEND and 5 COMPACT (which
-- rewrites files).  The models are independent of the diff code: without a
-- compaction in the range, the end snapshot's rows minus the start's (both
-- read by time travel); across the compaction, the files each snapshot
-- lists (tablescan_files of time-travel tables), by name.
CREATE EXTENSION tablescan_fdw;
\getenv shared TS_SHARED
\set shared_wh :shared/testdata/parquet
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  msg text; hint text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
  RETURN NEXT regexp_replace('ERROR:  ' || msg, '"/[^"]*"', '"<path>"', 'g');
  RETURN QUERY SELECT 'HINT:  ' || hint WHERE hint <> '';
END $$;
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'shared_wh');
CREATE FOREIGN TABLE d (f0 text, f1 int, f2 int, f3 float8) SERVER shared
  OPTIONS (database 'append_09', "table" 'append_09', "incremental-between" '1,2',
           "incremental-between-scan-mode" 'diff');
-- the table at snapshot s
CREATE FOREIGN TABLE at_s (f0 text, f1 int, f2 int, f3 float8) SERVER shared
  OPTIONS (database 'append_09', "table" 'append_09', "scan.snapshot-id" '1');
CREATE FUNCTION pg_temp.snap(s int) RETURNS SETOF at_s LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER FOREIGN TABLE at_s OPTIONS (SET "scan.snapshot-id" %L)', s);
  RETURN QUERY EXECUTE 'SELECT * FROM at_s';
END $$;
-- the diff (a, b]
CREATE FUNCTION pg_temp.diff(a int, b int) RETURNS SETOF d LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER FOREIGN TABLE d OPTIONS (SET "incremental-between" %L)', a || ',' || b);
  RETURN QUERY EXECUTE 'SELECT * FROM d';
END $$;
CREATE TEMP TABLE snaps AS SELECT s, (pg_temp.snap(s)).* FROM generate_series(1, 5) s;
SELECT s, count(*) AS rows FROM snaps GROUP BY s ORDER BY s;

-- every pair 1 <= a < b <= 4 (APPEND snapshots only): what b has and a has not
CREATE TEMP TABLE pairs AS
SELECT a, b, (SELECT count(*) FROM pg_temp.diff(a, b)) AS got,
       (SELECT count(*) FROM (
          (SELECT * FROM pg_temp.diff(a, b)
           EXCEPT ALL (SELECT f0, f1, f2, f3 FROM snaps WHERE s = b
                       EXCEPT ALL SELECT f0, f1, f2, f3 FROM snaps WHERE s = a))
          UNION ALL
          ((SELECT f0, f1, f2, f3 FROM snaps WHERE s = b
            EXCEPT ALL SELECT f0, f1, f2, f3 FROM snaps WHERE s = a)
           EXCEPT ALL SELECT * FROM pg_temp.diff(a, b))) x) AS different
  FROM generate_series(1, 4) a, generate_series(1, 4) b WHERE a < b;
SELECT count(*) AS pairs, sum(different) AS different, sum(got) AS rows,
       count(*) FILTER (WHERE got > 0) AS pairs_with_rows FROM pairs;
-- the same snapshot twice: nothing differs
SELECT count(*) AS rows FROM pg_temp.diff(3, 3);

-- across the COMPACT snapshot 5: its rewritten files are new, so their rows
-- come back (as Java's diff gives them), the files they replaced do not
-- count; the model: the files snapshot 5 lists and snapshot a does not
CREATE FOREIGN TABLE files_at (f0 text) SERVER shared
  OPTIONS (database 'append_09', "table" 'append_09', "scan.snapshot-id" '1');
CREATE FUNCTION pg_temp.files(s int) RETURNS TABLE (file_name text, row_count bigint)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER FOREIGN TABLE files_at OPTIONS (SET "scan.snapshot-id" %L)', s);
  RETURN QUERY EXECUTE 'SELECT f.file_name, f.row_count FROM tablescan_files(''files_at'') f';
END $$;
CREATE TEMP TABLE files AS SELECT s, (pg_temp.files(s)).* FROM generate_series(1, 5) s;
SELECT a, (SELECT count(*) FROM pg_temp.diff(a, 5)) AS got,
       (SELECT sum(row_count) FROM files f5 WHERE s = 5
          AND file_name NOT IN (SELECT file_name FROM files fa WHERE fa.s = a)) AS model,
       (SELECT count(*) FROM (SELECT * FROM pg_temp.diff(a, 5)
          EXCEPT ALL SELECT f0, f1, f2, f3 FROM snaps WHERE s = 5) x) AS not_in_snapshot_5
  FROM generate_series(1, 4) a ORDER BY a;

-- timestamps: the newest snapshot committed at or before each (snapshot 2
-- at 1755758263453, 4 at 1755758264494)
ALTER FOREIGN TABLE d OPTIONS (DROP "incremental-between",
  ADD "incremental-between-timestamp" '1755758263453,1755758264500');
SELECT count(*) AS different FROM (
  (TABLE d EXCEPT ALL (SELECT f0, f1, f2, f3 FROM snaps WHERE s = 4
                       EXCEPT ALL SELECT f0, f1, f2, f3 FROM snaps WHERE s = 2))
  UNION ALL ((SELECT f0, f1, f2, f3 FROM snaps WHERE s = 4
              EXCEPT ALL SELECT f0, f1, f2, f3 FROM snaps WHERE s = 2) EXCEPT ALL TABLE d)) x;
ALTER FOREIGN TABLE d OPTIONS (DROP "incremental-between-timestamp", ADD "incremental-between" '1,2');

-- refused: an end before the start, a start snapshot that does not exist
SELECT pg_temp.error_of('SELECT count(*) FROM pg_temp.diff(3, 2)');
SELECT pg_temp.error_of('SELECT count(*) FROM pg_temp.diff(0, 2)');
SELECT pg_temp.error_of('SELECT count(*) FROM pg_temp.diff(2, 6)');


-- primary-key tables (generated): each side merges only the files the
-- other snapshot does not list (Java's IncrementalDiffSplitRead; the
-- batch level filter applies, so first-row tables skip level 0), and per
-- key: only after, or both with after the later (sequence number) and
-- another value (all columns, read or not) -> the after row; only before
-- -> the before row as -D (the read keeps deletes, like every incremental
-- read; "_ROW_KIND" says which).  Not a comparison of the two full states:
-- a key deleted by a file added after a shared one has no before-side
-- row, and gives none.  The model: the same rule over the write stream
-- (pk_*.ops.jsonl: every file ADD / DELETE with its level, every record).
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE TEMP TABLE ops (line jsonb, src text);
\set ops :warehouse/pk.db/pk_dedup_levels.ops.jsonl
COPY ops (line) FROM :'ops';
UPDATE ops SET src = 'pk_dedup_levels';
\set ops :warehouse/pk.db/pk_first_row.ops.jsonl
COPY ops (line) FROM :'ops';
UPDATE ops SET src = 'pk_first_row' WHERE src IS NULL;
-- the data files of table t live at snapshot s, with their levels
CREATE FUNCTION pg_temp.live(t text, s int) RETURNS TABLE (file text, level int) LANGUAGE sql AS $$
  SELECT file, level FROM (
    SELECT DISTINCT ON (line->>'file') line->>'file' AS file, line->>'action' AS action,
           (line->>'level')::int AS level
      FROM ops WHERE src = t AND line->>'op' = 'file' AND (line->>'snapshot')::int <= s
     ORDER BY line->>'file', (line->>'snapshot')::int DESC, line->>'action' = 'ADD' DESC) f
   WHERE action = 'ADD'
$$;
-- one side: the records of the files live at x and not at y (same name
-- and level), merged per key: deduplicate the newest record, first-row
-- (levels above 0, retracts ignored) the oldest; retract results no row
CREATE FUNCTION pg_temp.side(t text, x int, y int)
  RETURNS TABLE (part text, key jsonb, seq bigint, kind text, id int, p int, v text, n bigint, d float8)
LANGUAGE sql AS $$
  WITH f AS (SELECT * FROM pg_temp.live(t, x) EXCEPT SELECT * FROM pg_temp.live(t, y)),
  recs AS (
    SELECT r.line FROM ops r JOIN f ON f.file = r.line->>'file'
     WHERE r.src = t AND r.line->>'op' = 'record'
       AND (t <> 'pk_first_row' OR (f.level > 0 AND r.line->>'kind' IN ('+I', '+U')))),
  merged AS (
    SELECT DISTINCT ON (line->>'partition', line->'key') line FROM recs
     ORDER BY line->>'partition', line->'key',
              CASE WHEN t = 'pk_first_row' THEN 1 ELSE -1 END * (line->>'seq')::bigint)
  SELECT line->>'partition', line->'key', (line->>'seq')::bigint, line->>'kind',
         (line->'values'->>'id')::int, (line->'values'->>'p')::int, line->'values'->>'v',
         (line->'values'->>'n')::bigint, (line->'values'->>'d')::float8
    FROM merged WHERE line->>'kind' IN ('+I', '+U')
$$;
CREATE FUNCTION pg_temp.diff_model(t text, a int, b int)
  RETURNS TABLE (id int, p int, v text, n bigint, d float8, kind text)
LANGUAGE sql AS $$
  SELECT CASE WHEN af.key IS NULL THEN bf.id ELSE af.id END,
         CASE WHEN af.key IS NULL THEN bf.p ELSE af.p END,
         CASE WHEN af.key IS NULL THEN bf.v ELSE af.v END,
         CASE WHEN af.key IS NULL THEN bf.n ELSE af.n END,
         CASE WHEN af.key IS NULL THEN bf.d ELSE af.d END,
         CASE WHEN af.key IS NULL THEN '-D' ELSE af.kind END
    FROM pg_temp.side(t, a, b) bf FULL JOIN pg_temp.side(t, b, a) af
      ON af.part = bf.part AND af.key = bf.key
   WHERE bf.key IS NULL OR af.key IS NULL
      OR (af.seq >= bf.seq AND (af.id, af.p, af.v, af.n, af.d) IS DISTINCT FROM (bf.id, bf.p, bf.v, bf.n, bf.d))
$$;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
CREATE FOREIGN TABLE pk_diff (id int, p int, v text, n bigint, d float8, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_levels', "incremental-between" '1,2',
           "incremental-between-scan-mode" 'diff');
CREATE TEMP TABLE pk_got (id int, p int, v text, n bigint, d float8, kind text);
-- every pair 1 <= a < b <= 9 of table t: rows, -D rows, differences from the model
CREATE FUNCTION pg_temp.pk_pairs(t text) RETURNS TABLE (pairs bigint, rows bigint, deletes bigint, different bigint)
LANGUAGE plpgsql AS $$
DECLARE
  a int; b int; x bigint;
BEGIN
  EXECUTE format('ALTER FOREIGN TABLE pk_diff OPTIONS (SET "table" %L)', t);
  pairs := 0; rows := 0; deletes := 0; different := 0;
  FOR a IN 1..9 LOOP
    FOR b IN a + 1..9 LOOP
      TRUNCATE pk_got;
      EXECUTE format('ALTER FOREIGN TABLE pk_diff OPTIONS (SET "incremental-between" %L)', a || ',' || b);
      EXECUTE 'INSERT INTO pk_got SELECT * FROM pk_diff';
      SELECT count(*) INTO x FROM (
        (TABLE pk_got EXCEPT ALL SELECT * FROM pg_temp.diff_model(t, a, b))
        UNION ALL (SELECT * FROM pg_temp.diff_model(t, a, b) EXCEPT ALL TABLE pk_got)) m;
      pairs := pairs + 1;
      rows := rows + (SELECT count(*) FROM pk_got);
      deletes := deletes + (SELECT count(*) FROM pk_got WHERE kind = '-D');
      different := different + x;
    END LOOP;
  END LOOP;
  RETURN NEXT;
END $$;
SELECT 'pk_dedup_levels' AS t, * FROM pg_temp.pk_pairs('pk_dedup_levels')
UNION ALL SELECT 'pk_first_row', * FROM pg_temp.pk_pairs('pk_first_row');
-- the kinds of one pair
ALTER FOREIGN TABLE pk_diff OPTIONS (SET "table" 'pk_dedup_levels', SET "incremental-between" '2,8');
SELECT "_ROW_KIND", count(*) FROM pk_diff GROUP BY 1 ORDER BY 1;
-- a value that differs only in a column the query does not read still
-- counts (Java compares whole values): count(*) reads no column
SELECT (SELECT count(*) FROM pk_diff) = (SELECT count(*) FROM (SELECT * FROM pk_diff) x) AS same_rows;
-- (partial-update and aggregation tables: every pair of every generated
-- table of test/unit/test_pk_model.c against the same rule written out in C)
-- refused: deletion vectors (each side would need its own snapshot's vectors)
CREATE FOREIGN TABLE pk_dv (id int) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "incremental-between" '1,2',
           "incremental-between-scan-mode" 'diff');
SELECT pg_temp.error_of('SELECT count(*) FROM pk_dv');
DROP SERVER lake CASCADE;
DROP SERVER shared CASCADE;
DROP EXTENSION tablescan_fdw;
