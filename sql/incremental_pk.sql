-- Incremental reads of primary-key tables: incremental-between 'S1,S2'
-- reads the level-0 files the APPEND snapshots S1+1 .. S2 added, merged by
-- key (deduplicate: the highest sequence number wins), keeping -U / -D
-- results as rows; the system column _ROW_KIND gives each row's kind.
-- pk_dedup_levels (written by ts_gen with its write stream in
-- pk_dedup_levels.ops.jsonl) has snapshots 1 A, 2 A, 3 C, 4 A, 5 A, 6 C,
-- 7 A, 8 A, 9 C (A = APPEND, C = COMPACT); the model below is computed in
-- SQL from the write stream, independent of our reader.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
-- a statement's error as psql prints it, the fixtures directory shown as <fixtures>
SET regress.fixtures = :'fixtures';
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  fx text := current_setting('regress.fixtures');
  msg text; det text; hint text; ctx text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
                          hint = PG_EXCEPTION_HINT, ctx = PG_EXCEPTION_CONTEXT;
  RETURN NEXT replace('ERROR:  ' || msg, fx, '<fixtures>');
  RETURN QUERY SELECT replace(k || ':  ' || v, fx, '<fixtures>')
    FROM (VALUES (1, 'DETAIL', det), (2, 'HINT', hint)) AS f(o, k, v) WHERE v <> '' ORDER BY o;
  RETURN QUERY SELECT 'CONTEXT:  ' || replace(l, fx, '<fixtures>')
    FROM regexp_split_to_table(ctx, E'\n') WITH ORDINALITY AS c(l, o)
    WHERE l <> '' AND l !~ '^(PL/pgSQL function|SQL statement)' ORDER BY o;
END $$;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
-- (src: which table's write stream; pk_dedup_dv's is added further down)
CREATE TEMP TABLE ops_raw (line jsonb, src text DEFAULT 'levels');
\set ops :warehouse/pk.db/pk_dedup_levels.ops.jsonl
COPY ops_raw (line) FROM :'ops';
-- the records APPEND snapshots wrote (COMPACT snapshots copy records)
CREATE TEMP VIEW appended AS
SELECT r.src, (r.line->>'snapshot')::int AS snapshot, r.line->>'partition' AS part, r.line->'key' AS key,
       (r.line->>'seq')::bigint AS seq, r.line->>'kind' AS kind,
       (r.line->'values'->>'id')::int AS id, (r.line->'values'->>'p')::int AS p,
       r.line->'values'->>'v' AS v
  FROM ops_raw r
  JOIN ops_raw s ON s.src = r.src AND s.line->>'op' = 'snapshot' AND s.line->>'kind' = 'APPEND'
                AND s.line->>'id' = r.line->>'snapshot'
 WHERE r.line->>'op' = 'record';
-- the model of incremental-between 'a,b': per key the newest record in
-- (a, b], retracts kept
CREATE FUNCTION model(src text, a int, b int) RETURNS TABLE (id int, p int, v text, kind text)
LANGUAGE sql AS $$
  SELECT id, p, v, kind FROM (
    SELECT DISTINCT ON (part, key) * FROM appended
     WHERE appended.src = model.src AND snapshot > a AND snapshot <= b
     ORDER BY part, key, seq DESC) last
$$;

CREATE FOREIGN TABLE inc (id int, p int, v text, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_levels', "incremental-between" '1,2');
-- one APPEND snapshot: its rows with their kinds (+I, +U, -U, -D)
SELECT id, p, v, "_ROW_KIND" FROM inc ORDER BY p, id;
SELECT count(*) AS different FROM (
  (SELECT * FROM inc EXCEPT ALL SELECT * FROM model('levels', 1, 2))
  UNION ALL (SELECT * FROM model('levels', 1, 2) EXCEPT ALL SELECT * FROM inc)) d;

-- every range (a, b], 0 <= a <= b <= 9, of foreign table tab equals the
-- model of write stream src
CREATE FUNCTION check_ranges(tab text, src text)
  RETURNS TABLE (range text, got bigint, model bigint, different bigint)
LANGUAGE plpgsql AS $$
DECLARE
  a int; b int;
BEGIN
  FOR a IN 0..9 LOOP
    FOR b IN a..9 LOOP
      EXECUTE format('ALTER FOREIGN TABLE %I OPTIONS (SET "incremental-between" %L)', tab, a || ',' || b);
      range := a || ',' || b;
      EXECUTE format('SELECT count(*) FROM %I', tab) INTO got;
      SELECT count(*) INTO model FROM model(src, a, b);
      EXECUTE format('SELECT count(*) FROM ((SELECT * FROM %1$I EXCEPT ALL SELECT * FROM model(%2$L, %3$s, %4$s))
        UNION ALL (SELECT * FROM model(%2$L, %3$s, %4$s) EXCEPT ALL SELECT * FROM %1$I)) d', tab, src, a, b)
        INTO different;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END $$;
SELECT count(*) AS ranges, sum(different) AS different, sum(got) AS rows
  FROM check_ranges('inc', 'levels');
-- the compaction snapshots add nothing: (2, 3], (5, 6], (8, 9] are empty,
-- (1, 3] is (1, 2]
SELECT range, got FROM check_ranges('inc', 'levels') WHERE range IN ('2,3', '5,6', '8,9', '1,2', '1,3');

-- a range over several snapshots merges them by key: kinds of (0, 9]
ALTER FOREIGN TABLE inc OPTIONS (SET "incremental-between" '0,9');
SELECT "_ROW_KIND", count(*) FROM inc GROUP BY 1 ORDER BY 1;
-- keys inserted and deleted inside (0, 9] come back once, as -D
SELECT count(*) > 0 AS some_inserted_then_deleted FROM inc i
 WHERE "_ROW_KIND" = '-D'
   AND EXISTS (SELECT 1 FROM appended m WHERE m.src = 'levels' AND m.id = i.id AND m.p = i.p AND m.kind = '+I');
SELECT count(*) AS keys_twice FROM (SELECT p, id FROM inc GROUP BY 1, 2 HAVING count(*) > 1) k;
-- the snapshot range in EXPLAIN
EXPLAIN (COSTS OFF) SELECT * FROM inc;
-- the empty range before every snapshot, and (8, 9] = the COMPACT snapshot 9
ALTER FOREIGN TABLE inc OPTIONS (SET "incremental-between" '0,0');
SELECT count(*) FROM inc;
ALTER FOREIGN TABLE inc OPTIONS (SET "incremental-between" '8,9');
SELECT count(*) FROM inc;

-- _ROW_KIND is refused where it means nothing: a batch read of the table
-- (retracts are dropped there) and an append table; without it the batch
-- read works
CREATE FOREIGN TABLE batch (id int, p int, v text, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_levels');
SELECT "_ROW_KIND" FROM batch LIMIT 1;
SELECT count(*) > 0 AS batch_rows FROM (SELECT id, p, v FROM batch) b;
CREATE FOREIGN TABLE app (id int, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'sales', "table" 'customers', "incremental-between" '0,1');
SELECT "_ROW_KIND" FROM app LIMIT 1;

-- deletion vectors: pk_dedup_dv (same shape and snapshot kinds as
-- pk_dedup_levels; its COMPACT snapshots 6 and 9 write deletion vectors).
-- Java's batch scan hides level-0 files there unless
-- deletion-vectors.merge-on-read is true, for incremental-between too (its
-- level filter applies to the delta manifests), so without it only files
-- of higher levels that APPEND snapshots added are read (the generator's
-- add none: every range is empty, as the write stream says); with it the
-- range's level-0 files (no deletion vectors apply to them), which is also
-- what a stream reads per snapshot.
ALTER TABLE ops_raw ALTER src SET DEFAULT 'dv';
\set ops :warehouse/pk.db/pk_dedup_dv.ops.jsonl
COPY ops_raw (line) FROM :'ops';
SELECT string_agg(line->>'id' || ' ' || (line->>'kind'), ', ' ORDER BY (line->>'id')::int)
       AS snapshots FROM ops_raw WHERE src = 'dv' AND line->>'op' = 'snapshot';
SELECT count(DISTINCT line->>'snapshot') AS snapshots_with_dvs FROM ops_raw
 WHERE src = 'dv' AND line->>'op' = 'dv';
-- snapshot model of s: per key the newest record so far, unless a retract
CREATE FUNCTION dv_snapshot_model(s int) RETURNS TABLE (id int, p int, v text)
LANGUAGE sql AS $$
  SELECT id, p, v FROM model('dv', 0, s) WHERE kind IN ('+I', '+U')
$$;
-- rows of every range (a, b], 0 <= a <= b <= 9, of foreign table tab
CREATE FUNCTION range_rows(tab text) RETURNS TABLE (ranges bigint, rows bigint)
LANGUAGE plpgsql AS $$
DECLARE
  a int; b int; n bigint;
BEGIN
  ranges := 0; rows := 0;
  FOR a IN 0..9 LOOP
    FOR b IN a..9 LOOP
      EXECUTE format('ALTER FOREIGN TABLE %I OPTIONS (SET "incremental-between" %L)', tab, a || ',' || b);
      EXECUTE format('SELECT count(*) FROM %I', tab) INTO n;
      ranges := ranges + 1; rows := rows + n;
    END LOOP;
  END LOOP;
  RETURN NEXT;
END $$;
-- records APPEND snapshots wrote to files above level 0, per write stream
CREATE FUNCTION append_records_above_level_0(s text) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ops_raw r
    JOIN ops_raw sn ON sn.src = r.src AND sn.line->>'op' = 'snapshot' AND sn.line->>'kind' = 'APPEND'
                   AND sn.line->>'id' = r.line->>'snapshot'
   WHERE r.src = s AND r.line->>'op' = 'record' AND (r.line->>'level')::int > 0
$$;
CREATE FOREIGN TABLE dv (id int) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "incremental-between" '1,2');
SELECT r.*, append_records_above_level_0('dv') AS model FROM range_rows('dv') r;
ALTER FOREIGN TABLE dv OPTIONS (ADD "deletion-vectors.merge-on-read" 'false');
SELECT count(*) AS rows FROM dv;
CREATE FOREIGN TABLE dv_inc (id int, p int, v text, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "incremental-between" '1,2',
           "deletion-vectors.merge-on-read" 'true');
SELECT "_ROW_KIND", count(*) FROM dv_inc GROUP BY 1 ORDER BY 1;
-- every range equals its model
SELECT count(*) AS ranges, sum(different) AS different, sum(got) AS rows,
       count(*) FILTER (WHERE got > 0) AS ranges_with_rows
  FROM check_ranges('dv_inc', 'dv');
SELECT range, got FROM check_ranges('dv_inc', 'dv') WHERE range IN ('5,6', '4,5', '4,6', '0,9');
-- a stream's full startup at snapshot s = a batch read of s with
-- merge-on-read: level 0 merged with the deletion vectors of the levels
-- above; without the option the level-0 files are hidden
CREATE FOREIGN TABLE dv_snap (id int, p int, v text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "scan.snapshot-id" '1',
           "deletion-vectors.merge-on-read" 'true');
CREATE FUNCTION dv_check_snapshots() RETURNS TABLE (snapshot int, got bigint, hidden bigint, different bigint)
LANGUAGE plpgsql AS $$
DECLARE
  s int;
BEGIN
  FOR s IN 1..9 LOOP
    snapshot := s;
    EXECUTE format('ALTER FOREIGN TABLE dv_snap OPTIONS (SET "scan.snapshot-id" %L, SET "deletion-vectors.merge-on-read" %L)',
                   s, 'false');
    SELECT count(*) INTO hidden FROM dv_snap;
    EXECUTE format('ALTER FOREIGN TABLE dv_snap OPTIONS (SET "deletion-vectors.merge-on-read" %L)', 'true');
    SELECT count(*) INTO got FROM dv_snap;
    SELECT count(*) INTO different FROM (
      (SELECT * FROM dv_snap EXCEPT ALL SELECT * FROM dv_snapshot_model(s))
      UNION ALL (SELECT * FROM dv_snapshot_model(s) EXCEPT ALL SELECT * FROM dv_snap)) d;
    RETURN NEXT;
  END LOOP;
END $$;
SELECT * FROM dv_check_snapshots();

-- first-row tables: Java's batch scan hides their level-0 files whatever
-- the options (merge-on-read is about deletion vectors only), so again only
-- higher-level files of APPEND snapshots are read: none here, every range
-- empty (a stream reads their changes: tablescan_changes).  Partial-update
-- and aggregation tables: sql/incremental_engines.sql.
ALTER TABLE ops_raw ALTER src SET DEFAULT 'first';
\set ops :warehouse/pk.db/pk_first_row.ops.jsonl
COPY ops_raw (line) FROM :'ops';
SELECT count(*) > 0 AS first_row_appends FROM appended WHERE src = 'first';
CREATE FOREIGN TABLE fr (id int) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_first_row', "incremental-between" '1,2');
SELECT r.*, append_records_above_level_0('first') AS model FROM range_rows('fr') r;
ALTER FOREIGN TABLE fr OPTIONS (ADD "deletion-vectors.merge-on-read" 'true');
SELECT count(*) AS rows FROM fr;
DROP FUNCTION range_rows(text);
DROP FUNCTION append_records_above_level_0(text);
DROP FUNCTION dv_check_snapshots();
DROP FUNCTION dv_snapshot_model(int);
DROP FUNCTION check_ranges(text, text);
DROP FUNCTION model(text, int, int);
DROP VIEW appended;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
