-- Following changes: tablescan_changes(NULL::tab, consumer => ...) returns
-- the changes of the snapshots a consumer has not read yet and moves its
-- position (tablescan_consumers) in the same transaction.
-- The tables followed are copies of generated fixtures in the data
-- directory whose later snapshots are held back and "committed" during the
-- test (snapshot file moved back, LATEST hint rewritten), so the stream
-- sees the table grow.  pk_dedup_levels has snapshots 1 A, 2 A, 3 C, 4 A,
-- 5 A, 6 C, 7 A, 8 A, 9 C (A = APPEND, C = COMPACT, committed at
-- 1700000000000 + id * 1000 ms); the rows expected are computed in SQL from
-- its write stream (pk_dedup_levels.ops.jsonl), independent of our reader.
-- As Java's streaming splits, the files of a stream are read unmerged:
-- every record the APPEND snapshots wrote is a row, with its kind.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
SET regress.fixtures = :'fixtures';
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  fx text := current_setting('regress.fixtures');
  msg text; det text; hint text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
  RETURN NEXT regexp_replace(replace('ERROR:  ' || msg, fx, '<fixtures>'), '"/[^"]*/regress_stream/', '"<scratch>/');
  RETURN QUERY SELECT 'HINT:  ' || hint WHERE hint <> '';
END $$;
-- a shell command in the data directory (the test runs as superuser)
CREATE FUNCTION pg_temp.sh(cmd text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'cat >/dev/null; ' || cmd);
END $$;
SELECT current_setting('data_directory') || '/regress_stream' AS scratch \gset
\set levels :scratch/levels
\set orders :scratch/orders
\set input :scratch/input
\set input_agg :scratch/input_agg
SELECT pg_temp.sh(format($c$
  rm -rf regress_stream && mkdir -p regress_stream/held &&
  cp -r %1$s/pk.db/pk_dedup_levels regress_stream/levels &&
  cp -r %1$s/sales.db/orders regress_stream/orders &&
  cp -r %1$s/../stream/pk_input regress_stream/input &&
  cp -r %1$s/../stream/pk_input_agg regress_stream/input_agg &&
  for i in 5 6 7 8 9; do mv regress_stream/levels/snapshot/snapshot-$i regress_stream/held/levels-$i; done &&
  printf 4 > regress_stream/levels/snapshot/LATEST &&
  mv regress_stream/orders/snapshot/snapshot-3 regress_stream/held/orders-3 &&
  printf 2 > regress_stream/orders/snapshot/LATEST$c$, :'warehouse'));
-- commit held snapshot i of table t
CREATE FUNCTION pg_temp.commit(t text, i int) RETURNS void LANGUAGE sql AS $$
  SELECT pg_temp.sh(format('mv regress_stream/held/%1$s-%2$s regress_stream/%1$s/snapshot/snapshot-%2$s && printf %2$s > regress_stream/%1$s/snapshot/LATEST', t, i))
$$;

CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
CREATE SERVER scratch FOREIGN DATA WRAPPER tablescan_fdw;

-- the model: every record the APPEND snapshots (a, b] wrote, with its kind
CREATE TEMP TABLE ops_raw (line jsonb);
\set ops :warehouse/pk.db/pk_dedup_levels.ops.jsonl
COPY ops_raw (line) FROM :'ops';
CREATE TEMP VIEW appended AS
SELECT (r.line->>'snapshot')::int AS snapshot, r.line->>'partition' AS part, r.line->'key' AS key,
       (r.line->>'seq')::bigint AS seq, r.line->>'kind' AS kind,
       (r.line->'values'->>'id')::int AS id, (r.line->'values'->>'p')::int AS p,
       r.line->'values'->>'v' AS v
  FROM ops_raw r
  JOIN ops_raw s ON s.line->>'op' = 'snapshot' AND s.line->>'kind' = 'APPEND'
                AND s.line->>'id' = r.line->>'snapshot'
 WHERE r.line->>'op' = 'record';
CREATE FUNCTION model(a int, b int) RETURNS TABLE (id int, p int, v text, kind text)
LANGUAGE sql AS $$
  SELECT id, p, v, kind FROM appended WHERE snapshot > a AND snapshot <= b
$$;
-- the table at snapshot s: per key its newest record, unless a retract
CREATE FUNCTION table_at(s int) RETURNS TABLE (id int, p int, v text)
LANGUAGE sql AS $$
  SELECT id, p, v FROM (SELECT DISTINCT ON (part, key) * FROM appended
                         WHERE snapshot <= s ORDER BY part, key, seq DESC) last
   WHERE kind IN ('+I', '+U')
$$;
CREATE FOREIGN TABLE lv (id int, p int, v text, "_ROW_KIND" text) SERVER scratch
  OPTIONS (path :'levels', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
-- what a batch of consumer c returned, against the model of (a, b]
CREATE TEMP TABLE got (id int, p int, v text, kind text);
CREATE FUNCTION differs(a int, b int) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((SELECT * FROM got EXCEPT ALL SELECT * FROM model(a, b))
    UNION ALL (SELECT * FROM model(a, b) EXCEPT ALL SELECT * FROM got)) d
$$;
CREATE FUNCTION position_of(c text) RETURNS bigint LANGUAGE sql AS $$
  SELECT next_snapshot FROM tablescan_consumers WHERE consumer = c
$$;

-- from-snapshot 1, at most 2 snapshots a call: (0, 2], then (2, 4]
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a', max_snapshots => 2);
SELECT count(*) AS rows, differs(0, 2) AS different, position_of('a') AS next FROM got;
-- (unmerged: some key changed twice in these snapshots comes twice)
SELECT count(*) > 0 AS keys_repeated FROM (SELECT id, p FROM got GROUP BY 1, 2 HAVING count(*) > 1) k;
TRUNCATE got;
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a', max_snapshots => 2);
SELECT count(*) AS rows, differs(2, 4) AS different, position_of('a') AS next FROM got;
TRUNCATE got;
-- nothing new: no rows, same position
SELECT count(*) AS rows FROM tablescan_changes(NULL::lv, consumer => 'a');
SELECT position_of('a') AS next;
-- a rollback leaves the position where it was; consumer b is independent
BEGIN;
SELECT count(*) > 0 AS read_something FROM tablescan_changes(NULL::lv, consumer => 'b');
SELECT position_of('b') AS next_inside;
ROLLBACK;
SELECT position_of('b') AS next_after_rollback;
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'b');
SELECT count(*) AS rows, differs(0, 4) AS different, position_of('b') AS next FROM got;
TRUNCATE got;
-- two snapshots committed (5 A, 6 C): a reads (4, 6], once
SELECT pg_temp.commit('levels', 5), pg_temp.commit('levels', 6);
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a');
SELECT count(*) AS rows, differs(4, 6) AS different, position_of('a') AS next FROM got;
TRUNCATE got;
SELECT count(*) AS rows_again FROM tablescan_changes(NULL::lv, consumer => 'a');
-- an explicit range: snapshots 2 to 5, both included; no consumer moves
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, from_snapshot => 2, to_snapshot => 5);
SELECT count(*) AS rows, differs(1, 5) AS different FROM got;
TRUNCATE got;
SELECT pg_temp.error_of('SELECT * FROM tablescan_changes(NULL::lv, from_snapshot => 2, to_snapshot => 7)');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a', from_snapshot => 2)$$);
SELECT pg_temp.error_of('SELECT * FROM tablescan_changes(NULL::lv)');
-- the table option consumer-id (Paimon's) names the consumer when none is given
CREATE FOREIGN TABLE lv_c (id int, p int, v text, "_ROW_KIND" text) SERVER scratch
  OPTIONS (path :'levels', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1', "consumer-id" 'by_option');
SELECT count(*) AS rows, (SELECT count(*) FROM model(0, 6)) AS model_rows FROM tablescan_changes(NULL::lv_c);
SELECT position_of('by_option') AS next;
SELECT count(*) AS rows_again FROM tablescan_changes(NULL::lv_c);
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a', max_snapshots => 0)$$);
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::ops_raw, consumer => 'a')$$);

-- waiting: a snapshot after 5 exists; none after 6 within 0.2 s; one
-- committed 0.3 s into the wait ends it
SELECT tablescan_wait_for_snapshot('lv', 5, '0 s') AS latest;
SELECT tablescan_wait_for_snapshot('lv', 6, '0.2 s') IS NULL AS timed_out;
SELECT pg_temp.sh('(sleep 0.3; mv regress_stream/held/levels-7 regress_stream/levels/snapshot/snapshot-7 && printf 7 > regress_stream/levels/snapshot/LATEST) >/dev/null 2>&1 &');
SELECT clock_timestamp() AS t0 \gset
SELECT tablescan_wait_for_snapshot('lv', 6, '30 s') AS latest;
SELECT clock_timestamp() - :'t0' < interval '20 s' AS woke_early;
SELECT pg_temp.error_of($$SELECT tablescan_wait_for_snapshot('lv', 6, '-1 s')$$);

-- starting modes (first call of a consumer), latest snapshot now 7
-- latest: nothing read, next = 8
ALTER FOREIGN TABLE lv OPTIONS (SET "scan.mode" 'latest', DROP "scan.snapshot-id");
SELECT count(*) AS rows FROM tablescan_changes(NULL::lv, consumer => 'm_latest2');
SELECT position_of('m_latest2') AS next;
-- from-timestamp: the first snapshot committed at or after it comes first
ALTER FOREIGN TABLE lv OPTIONS (SET "scan.mode" 'from-timestamp', ADD "scan.timestamp-millis" '1700000004000');
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'm_ts', max_snapshots => 1);
SELECT count(*) AS rows, differs(3, 4) AS different, position_of('m_ts') AS next FROM got;
TRUNCATE got;
ALTER FOREIGN TABLE lv OPTIONS (SET "scan.timestamp-millis" '1700000004001');
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'm_ts2', max_snapshots => 1);
SELECT count(*) AS rows, differs(4, 5) AS different, position_of('m_ts2') AS next FROM got;
TRUNCATE got;
-- (the two first batches differ)
SELECT count(*) > 0 AS batches_differ FROM (SELECT * FROM model(3, 4) EXCEPT SELECT * FROM model(4, 5)) d;
ALTER FOREIGN TABLE lv OPTIONS (DROP "scan.timestamp-millis");
-- the full modes read a whole snapshot first (no row kinds: refused with
-- _ROW_KIND, read through a table without it)
ALTER FOREIGN TABLE lv OPTIONS (SET "scan.mode" 'latest-full');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'm_full')$$);
SELECT position_of('m_full') IS NULL AS not_started;
CREATE FOREIGN TABLE lvf (id int, p int, v text) SERVER scratch
  OPTIONS (path :'levels', "scan.mode" 'latest-full');
CREATE FOREIGN TABLE lv_at (id int, p int, v text) SERVER scratch
  OPTIONS (path :'levels', "scan.snapshot-id" '7');
SELECT count(*) AS rows,
       (SELECT count(*) FROM ((TABLE lv_at EXCEPT ALL SELECT * FROM tablescan_changes(NULL::lvf, consumer => 'f'))
         UNION ALL (SELECT * FROM tablescan_changes(NULL::lvf, consumer => 'g') EXCEPT ALL TABLE lv_at)) d) AS different
  FROM lv_at;
SELECT consumer, next_snapshot FROM tablescan_consumers WHERE consumer IN ('f', 'g') ORDER BY 1;
-- then the deltas: 8 is committed, consumer f reads its changes
SELECT pg_temp.commit('levels', 8);
SELECT count(*) AS rows FROM tablescan_changes(NULL::lvf, consumer => 'f');
SELECT (SELECT count(*) FROM model(7, 8)) AS model_rows, position_of('f') AS next;
-- from-snapshot-full 2: all of snapshot 2, then from 3 on (a call bounded to
-- one snapshot reads only the full one)
ALTER FOREIGN TABLE lvf OPTIONS (SET "scan.mode" 'from-snapshot-full', ADD "scan.snapshot-id" '2');
ALTER FOREIGN TABLE lv_at OPTIONS (SET "scan.snapshot-id" '2');
SELECT count(*) AS rows FROM tablescan_changes(NULL::lvf, consumer => 'sf', max_snapshots => 1);
SELECT (SELECT count(*) FROM lv_at) AS snapshot_2_rows, position_of('sf') AS next;
-- compacted-full: the newest COMPACT snapshot (6), then from 7 on
ALTER FOREIGN TABLE lvf OPTIONS (SET "scan.mode" 'compacted-full', DROP "scan.snapshot-id");
ALTER FOREIGN TABLE lv_at OPTIONS (SET "scan.snapshot-id" '6');
SELECT count(*) AS rows FROM tablescan_changes(NULL::lvf, consumer => 'cf', max_snapshots => 1);
SELECT (SELECT count(*) FROM lv_at) AS snapshot_6_rows, position_of('cf') AS next;
-- modes a stream cannot start with
ALTER FOREIGN TABLE lvf OPTIONS (SET "scan.mode" 'from-file-creation-time');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lvf, consumer => 'x')$$);
ALTER FOREIGN TABLE lvf OPTIONS (SET "scan.mode" 'latest', ADD "scan.tag-name" 't1');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lvf, consumer => 'x')$$);
ALTER FOREIGN TABLE lvf OPTIONS (DROP "scan.tag-name");
-- what a stream cannot follow yet is refused, naming it
ALTER FOREIGN TABLE lvf OPTIONS (ADD "streaming.read.snapshot.delay" '1 s');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lvf, consumer => 'x')$$);
ALTER FOREIGN TABLE lvf OPTIONS (DROP "streaming.read.snapshot.delay");
-- the table's own scans are untouched by the stream's options
SELECT count(*) AS different FROM ((TABLE lvf EXCEPT ALL SELECT * FROM table_at(8))
  UNION ALL (SELECT * FROM table_at(8) EXCEPT ALL TABLE lvf)) d;

-- snapshots expiring under a consumer: b is at 5; snapshots 1 to 5 expire
-- (files gone, EARLIEST 6): b's next read is an ERROR that says so, and its
-- position stays; a (at 7) reads on
SELECT pg_temp.sh('rm regress_stream/levels/snapshot/snapshot-[1-5] && printf 6 > regress_stream/levels/snapshot/EARLIEST');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'b')$$);
SELECT position_of('b') AS next;
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a');
SELECT count(*) AS rows, differs(6, 8) AS different, position_of('a') AS next FROM got;
TRUNCATE got;
-- management: reset moves a consumer (NULL: start again), drop removes it
SELECT tablescan_consumer_reset('lv', 'b', 8);
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'b');
SELECT count(*) AS rows, differs(7, 8) AS different, position_of('b') AS next FROM got;
TRUNCATE got;
SELECT tablescan_consumer_reset('lv', 'b');
SELECT position_of('b') IS NULL AS restarts;
SELECT tablescan_consumer_drop('lv', 'b') AS dropped, tablescan_consumer_drop('lv', 'b') AS again;
SELECT pg_temp.error_of($$SELECT tablescan_consumer_reset('lv', 'b', 0)$$);
SELECT pg_temp.error_of($$SELECT tablescan_consumer_reset('lv', NULL, 3)$$);
SELECT table_oid, consumer, next_snapshot FROM tablescan_consumers ORDER BY consumer;
-- a dropped foreign table's positions go with it (a table that gets its OID
-- later must not start from a stale position), also when the owner dropping
-- it has no rights on tablescan_consumers, and when a schema drop cascades
CREATE ROLE regress_changes_owner;
CREATE SCHEMA gone;
CREATE FOREIGN TABLE gone.a (id int, p int, v text) SERVER scratch OPTIONS (path :'levels', "scan.mode" 'latest');
CREATE FOREIGN TABLE gone.b (id int, p int, v text) SERVER scratch OPTIONS (path :'levels', "scan.mode" 'latest');
SELECT count(*) FROM tablescan_changes(NULL::gone.a, consumer => 'x');
SELECT count(*) FROM tablescan_changes(NULL::gone.b, consumer => 'y');
SELECT consumer FROM tablescan_consumers WHERE consumer IN ('x', 'y') ORDER BY 1;
ALTER FOREIGN TABLE gone.a OWNER TO regress_changes_owner;
GRANT USAGE ON SCHEMA gone TO regress_changes_owner;
SET ROLE regress_changes_owner;
SELECT has_table_privilege('tablescan_consumers', 'DELETE') AS may_delete;
DROP FOREIGN TABLE gone.a;
RESET ROLE;
SELECT consumer FROM tablescan_consumers WHERE consumer IN ('x', 'y') ORDER BY 1;
DROP SCHEMA gone CASCADE;
SELECT count(*) AS left_behind FROM tablescan_consumers WHERE consumer IN ('x', 'y');
DROP ROLE regress_changes_owner;

-- changelog-producer input (generated as Java's writer does: every APPEND
-- commit also writes its records as changelog files, in the snapshot's
-- changelog manifest list): a stream reads the changelog files unmerged,
-- every record a row with its kind, for any merge engine.  The model: the
-- records the APPEND snapshots of the range wrote to data files, from the
-- write stream.
CREATE TEMP TABLE cl_ops (line jsonb, src text);
\set ops :fixtures/stream/pk_input.ops.jsonl
COPY cl_ops (line) FROM :'ops';
UPDATE cl_ops SET src = 'dedup';
\set ops :fixtures/stream/pk_input_agg.ops.jsonl
COPY cl_ops (line) FROM :'ops';
UPDATE cl_ops SET src = 'agg' WHERE src IS NULL;
CREATE FUNCTION cl_model(s text, a int, b int) RETURNS TABLE (id int, p int, v text, n bigint, kind text)
LANGUAGE sql AS $$
  SELECT (r.line->'values'->>'id')::int, (r.line->'values'->>'p')::int, r.line->'values'->>'v',
         (r.line->'values'->>'n')::bigint, r.line->>'kind'
    FROM cl_ops r
    JOIN cl_ops sn ON sn.src = r.src AND sn.line->>'op' = 'snapshot' AND sn.line->>'kind' = 'APPEND'
                  AND sn.line->>'id' = r.line->>'snapshot'
   WHERE r.src = s AND r.line->>'op' = 'record' AND r.line->>'file' LIKE 'data-%'
     AND (r.line->>'snapshot')::int > a AND (r.line->>'snapshot')::int <= b
$$;
CREATE TEMP TABLE cl_got (id int, p int, v text, n bigint, kind text);
CREATE FUNCTION cl_differs(s text, a int, b int) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((SELECT * FROM cl_got EXCEPT ALL SELECT * FROM cl_model(s, a, b))
    UNION ALL (SELECT * FROM cl_model(s, a, b) EXCEPT ALL SELECT * FROM cl_got)) d
$$;
CREATE FOREIGN TABLE cl (id int, p int, v text, n bigint, "_ROW_KIND" text) SERVER scratch
  OPTIONS (path :'input', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
CREATE FOREIGN TABLE cl_agg (id int, p int, v text, n bigint, "_ROW_KIND" text) SERVER scratch
  OPTIONS (path :'input_agg', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
-- snapshots 1 to 3 (3 is a COMPACT one, without changelog), then the rest
INSERT INTO cl_got SELECT * FROM tablescan_changes(NULL::cl, consumer => 'c', max_snapshots => 3);
SELECT count(*) AS rows, cl_differs('dedup', 0, 3) AS different, position_of('c') AS next FROM cl_got;
-- (unmerged: some key comes more than once)
SELECT count(*) > 0 AS keys_repeated FROM (SELECT id, p FROM cl_got GROUP BY 1, 2 HAVING count(*) > 1) k;
TRUNCATE cl_got;
INSERT INTO cl_got SELECT * FROM tablescan_changes(NULL::cl, consumer => 'c');
SELECT count(*) AS rows, cl_differs('dedup', 3, 9) AS different, position_of('c') AS next FROM cl_got;
TRUNCATE cl_got;
-- the aggregation engine streams its changelog the same way
INSERT INTO cl_got SELECT * FROM tablescan_changes(NULL::cl_agg, consumer => 'c');
SELECT count(*) AS rows, cl_differs('agg', 0, 9) AS different FROM cl_got;
TRUNCATE cl_got;
-- incremental-between reads the changelog too (scan mode auto = changelog
-- with a producer, or changelog), and the merged data files with delta
CREATE FOREIGN TABLE cl_between (id int, p int, v text, n bigint, "_ROW_KIND" text) SERVER scratch
  OPTIONS (path :'input', "incremental-between" '1,5');
INSERT INTO cl_got SELECT * FROM cl_between;
SELECT count(*) AS rows, cl_differs('dedup', 1, 5) AS different FROM cl_got;
TRUNCATE cl_got;
ALTER FOREIGN TABLE cl_between OPTIONS (ADD "incremental-between-scan-mode" 'changelog');
INSERT INTO cl_got SELECT * FROM cl_between;
SELECT count(*) AS rows, cl_differs('dedup', 1, 5) AS different FROM cl_got;
TRUNCATE cl_got;
ALTER FOREIGN TABLE cl_between OPTIONS (SET "incremental-between-scan-mode" 'delta');
SELECT count(*) AS delta_rows, count(DISTINCT (id, p)) AS keys FROM cl_between;
-- a full start of a lookup / full-compaction table reads only some levels,
-- as Java's stream does (the other files' rows come later as changelog):
-- levels above 0 with lookup, the top level (num-levels - 1; num-levels
-- defaults to num-sorted-run.compaction-trigger + 1 = 6) with
-- full-compaction.  The model: the records of the data files live at the
-- snapshot in those levels (the write stream's file and record entries),
-- merged per key (deduplicate: the newest record unless a retract;
-- first-row: the oldest record that is no retract)
CREATE FUNCTION level_model(s text, at int, lmin int, lmax int, first_row bool DEFAULT false)
RETURNS TABLE (id int, p int, v text) LANGUAGE sql AS $$
  WITH files AS (
    SELECT DISTINCT ON (f.line->>'file') f.line->>'file' AS file, f.line->>'action' AS action,
           (f.line->>'level')::int AS level
      FROM cl_ops f
     WHERE f.src = s AND f.line->>'op' = 'file' AND f.line->>'file' LIKE 'data-%'
       AND (f.line->>'snapshot')::int <= at
     ORDER BY f.line->>'file', (f.line->>'snapshot')::int DESC, f.line->>'action' = 'ADD' DESC),
  recs AS (
    SELECT DISTINCT r.line FROM cl_ops r JOIN files ON files.file = r.line->>'file'
     WHERE r.src = s AND r.line->>'op' = 'record' AND files.action = 'ADD'
       AND files.level BETWEEN lmin AND lmax
       AND (NOT first_row OR r.line->>'kind' IN ('+I', '+U')))
  SELECT (line->'values'->>'id')::int, (line->'values'->>'p')::int, line->'values'->>'v'
    FROM (SELECT DISTINCT ON (line->>'partition', line->'key') line FROM recs
           ORDER BY line->>'partition', line->'key',
                    CASE WHEN first_row THEN 1 ELSE -1 END * (line->>'seq')::bigint) k
   WHERE line->>'kind' IN ('+I', '+U')
$$;
CREATE TEMP TABLE lvl_got (id int, p int, v text);
-- rows of lvl_got not in the model and the other way round
CREATE FUNCTION level_differs(s text, at int, lmin int, lmax int, first_row bool DEFAULT false)
RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((SELECT * FROM lvl_got EXCEPT ALL SELECT * FROM level_model(s, at, lmin, lmax, first_row))
    UNION ALL (SELECT * FROM level_model(s, at, lmin, lmax, first_row) EXCEPT ALL SELECT * FROM lvl_got)) d
$$;
-- snapshot 8 has level-0 files (of APPEND snapshots 7 and 8) and files of
-- levels 5 and 4 (compactions at 3 and 6)
SELECT string_agg(DISTINCT level::text, ', ') AS live_levels_at_8 FROM (
  SELECT DISTINCT ON (line->>'file') line->>'action' AS action, line->>'level' AS level FROM cl_ops
   WHERE src = 'dedup' AND line->>'op' = 'file' AND (line->>'snapshot')::int <= 8
   ORDER BY line->>'file', (line->>'snapshot')::int DESC, line->>'action' = 'ADD' DESC) f
 WHERE action = 'ADD';
CREATE FOREIGN TABLE cl_full (id int, p int, v text) SERVER scratch
  OPTIONS (path :'input', "changelog-producer" 'lookup', "scan.mode" 'from-snapshot-full',
           "scan.snapshot-id" '8');
INSERT INTO lvl_got SELECT * FROM tablescan_changes(NULL::cl_full, consumer => 'l', max_snapshots => 1);
SELECT count(*) AS rows, level_differs('dedup', 8, 1, 5) AS different,
       level_differs('dedup', 8, 0, 5) > 0 AS level_0_left_out, position_of('l') AS next FROM lvl_got;
TRUNCATE lvl_got;
ALTER FOREIGN TABLE cl_full OPTIONS (SET "changelog-producer" 'full-compaction');
INSERT INTO lvl_got SELECT * FROM tablescan_changes(NULL::cl_full, consumer => 'fc', max_snapshots => 1);
SELECT count(*) AS rows, level_differs('dedup', 8, 5, 5) AS different,
       level_differs('dedup', 8, 1, 5) > 0 AS level_4_left_out FROM lvl_got;
TRUNCATE lvl_got;
-- num-levels 5: the top level is 4
ALTER FOREIGN TABLE cl_full OPTIONS (ADD "num-levels" '5');
INSERT INTO lvl_got SELECT * FROM tablescan_changes(NULL::cl_full, consumer => 'fc4', max_snapshots => 1);
SELECT count(*) AS rows, level_differs('dedup', 8, 4, 4) AS different FROM lvl_got;
TRUNCATE lvl_got;
-- the other starts read the changelog
ALTER FOREIGN TABLE cl OPTIONS (ADD "changelog-producer" 'lookup', SET "scan.mode" 'from-snapshot');
INSERT INTO cl_got SELECT * FROM tablescan_changes(NULL::cl, consumer => 'l');
SELECT count(*) AS rows, cl_differs('dedup', 0, 9) AS different FROM cl_got;
TRUNCATE cl_got;

-- the snapshot of each change: a bigint column _SNAPSHOT_ID (not a Paimon
-- field: only tablescan_changes fills it, reading snapshot by snapshot)
CREATE FOREIGN TABLE cls (id int, p int, v text, n bigint, "_ROW_KIND" text, "_SNAPSHOT_ID" bigint)
  SERVER scratch OPTIONS (path :'input');
CREATE FUNCTION cl_model_at(s text) RETURNS TABLE (id int, p int, v text, n bigint, kind text, snapshot bigint)
LANGUAGE sql AS $$
  SELECT m.*, g FROM generate_series(1, 9) g, cl_model(s, g - 1, g) m
$$;
CREATE TEMP TABLE cls_got AS SELECT * FROM tablescan_changes(NULL::cls, from_snapshot => 1, to_snapshot => 9);
SELECT count(*) AS rows, count(DISTINCT "_SNAPSHOT_ID") AS snapshots,
       (SELECT count(*) FROM ((TABLE cls_got EXCEPT ALL SELECT * FROM cl_model_at('dedup'))
         UNION ALL (SELECT * FROM cl_model_at('dedup') EXCEPT ALL TABLE cls_got)) d) AS different
  FROM cls_got;
-- a full start's rows carry the snapshot read
CREATE FOREIGN TABLE clf (id int, "_SNAPSHOT_ID" bigint) SERVER scratch
  OPTIONS (path :'input', "scan.mode" 'latest-full');
CREATE FOREIGN TABLE cl_latest (id int) SERVER scratch OPTIONS (path :'input');
SELECT count(*) = (SELECT count(*) FROM cl_latest) AS all_rows, min("_SNAPSHOT_ID"), max("_SNAPSHOT_ID")
  FROM tablescan_changes(NULL::clf, consumer => 'c');
-- elsewhere it is no column of the table; of another type an ERROR
SELECT pg_temp.error_of('SELECT * FROM clf');
ALTER FOREIGN TABLE clf ALTER "_SNAPSHOT_ID" TYPE int;
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::clf, consumer => 'd')$$);

-- no changelog producer, other engines and deletion vectors: a stream
-- reads the level-0 files of each APPEND snapshot unmerged and without
-- deletion vectors, as Java's does (first-row, aggregation, a DV table)
\set ops :warehouse/pk.db/pk_first_row.ops.jsonl
COPY cl_ops (line) FROM :'ops';
UPDATE cl_ops SET src = 'first' WHERE src IS NULL;
\set ops :warehouse/pk.db/pk_aggregation.ops.jsonl
COPY cl_ops (line) FROM :'ops';
UPDATE cl_ops SET src = 'aggregation' WHERE src IS NULL;
\set ops :warehouse/pk.db/pk_dedup_dv.ops.jsonl
COPY cl_ops (line) FROM :'ops';
UPDATE cl_ops SET src = 'dv' WHERE src IS NULL;
CREATE FOREIGN TABLE s_first (id int, p int, v text, n bigint, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_first_row', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
CREATE FOREIGN TABLE s_agg (id int, p int, v text, n bigint, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_aggregation', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
CREATE FOREIGN TABLE s_dv (id int, p int, v text, n bigint, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
INSERT INTO cl_got SELECT * FROM tablescan_changes(NULL::s_first, consumer => 'c');
SELECT count(*) AS rows, cl_differs('first', 0, 99) AS different FROM cl_got;
TRUNCATE cl_got;
INSERT INTO cl_got SELECT * FROM tablescan_changes(NULL::s_agg, consumer => 'c');
SELECT count(*) AS rows, cl_differs('aggregation', 0, 99) AS different FROM cl_got;
TRUNCATE cl_got;
INSERT INTO cl_got SELECT * FROM tablescan_changes(NULL::s_dv, consumer => 'c', max_snapshots => 4);
SELECT count(*) AS rows, cl_differs('dv', 0, 4) AS different FROM cl_got;
TRUNCATE cl_got;
INSERT INTO cl_got SELECT * FROM tablescan_changes(NULL::s_dv, consumer => 'c');
SELECT count(*) AS rows, cl_differs('dv', 4, 99) AS different FROM cl_got;
TRUNCATE cl_got;
-- full starts: a first-row table's merges its level-0 files too, which
-- batch reads hide (Java's stream scan has no level filter there): at
-- snapshot 8 (level-0 files of 7 and 8 live) the oldest record of each key
-- over all levels; a DV table's reads level 0 too, as a batch read with
-- deletion-vectors.merge-on-read does
CREATE FOREIGN TABLE f_first (id int, p int, v text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_first_row', "scan.mode" 'from-snapshot-full', "scan.snapshot-id" '8');
CREATE FOREIGN TABLE first_at_8 (id int, p int, v text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_first_row', "scan.snapshot-id" '8');
INSERT INTO lvl_got SELECT * FROM tablescan_changes(NULL::f_first, consumer => 'c', max_snapshots => 1);
SELECT count(*) AS rows, level_differs('first', 8, 0, 5, true) AS different,
       count(*) - (SELECT count(*) FROM first_at_8) AS rows_only_in_level_0 FROM lvl_got;
TRUNCATE lvl_got;
-- at snapshot 2 (before the first compaction) every file is of level 0:
-- the batch read shows nothing, the full start every key
ALTER FOREIGN TABLE f_first OPTIONS (SET "scan.snapshot-id" '2');
ALTER FOREIGN TABLE first_at_8 OPTIONS (SET "scan.snapshot-id" '2');
INSERT INTO lvl_got SELECT * FROM tablescan_changes(NULL::f_first, consumer => 'c2', max_snapshots => 1);
SELECT count(*) AS rows, level_differs('first', 2, 0, 5, true) AS different,
       (SELECT count(*) FROM first_at_8) AS batch_rows FROM lvl_got;
TRUNCATE lvl_got;
CREATE FOREIGN TABLE f_dv (id int, p int, v text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "scan.mode" 'latest-full');
CREATE FOREIGN TABLE dv_mor (id int, p int, v text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "deletion-vectors.merge-on-read" 'true');
CREATE TEMP TABLE f_got AS SELECT * FROM tablescan_changes(NULL::f_dv, consumer => 'c');
SELECT count(*) AS rows, (SELECT count(*) FROM ((TABLE f_got EXCEPT ALL TABLE dv_mor)
  UNION ALL (TABLE dv_mor EXCEPT ALL TABLE f_got)) d) AS different FROM f_got;

-- an append table: every row appended once, in batches
CREATE FOREIGN TABLE ord (id int) SERVER scratch
  OPTIONS (path :'orders', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
CREATE FOREIGN TABLE ord_all (id int) SERVER lake
  OPTIONS (database 'sales', "table" 'orders');
CREATE TEMP TABLE ord_got (id int);
INSERT INTO ord_got SELECT * FROM tablescan_changes(NULL::ord, consumer => 'o');
SELECT count(*) AS rows, position_of('o') AS next FROM ord_got;
SELECT pg_temp.commit('orders', 3);
INSERT INTO ord_got SELECT * FROM tablescan_changes(NULL::ord, consumer => 'o');
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids, position_of('o') AS next FROM ord_got;
SELECT count(*) AS different FROM ((TABLE ord_got EXCEPT ALL TABLE ord_all)
  UNION ALL (TABLE ord_all EXCEPT ALL TABLE ord_got)) d;

-- schema changes between snapshots: append_table_with_alter_table (written
-- by Java; its snapshot 2 follows renames, drops and adds of columns): the
-- stream reads snapshot 1's file through the latest schema, as a batch read
-- of the latest snapshot does; each snapshot's rows are its delta records
\getenv shared TS_SHARED
\set shared_wh :shared/testdata/parquet
\set alt_dir :shared_wh/append_table_with_alter_table.db/append_table_with_alter_table
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'shared_wh');
CREATE SCHEMA sh;
IMPORT FOREIGN SCHEMA append_table_with_alter_table FROM SERVER shared INTO sh;
CREATE TEMP TABLE alt_got AS
  SELECT * FROM tablescan_changes(NULL::sh.append_table_with_alter_table, from_snapshot => 1);
SELECT count(*) AS rows, (SELECT count(*) FROM ((TABLE alt_got EXCEPT ALL TABLE sh.append_table_with_alter_table)
  UNION ALL (TABLE sh.append_table_with_alter_table EXCEPT ALL TABLE alt_got)) d) AS different FROM alt_got;
CREATE FOREIGN TABLE alt_s (key0 int, "_SNAPSHOT_ID" bigint) SERVER shared
  OPTIONS (database 'append_table_with_alter_table', "table" 'append_table_with_alter_table');
SELECT "_SNAPSHOT_ID", count(*) AS rows,
       count(*) = (pg_read_file(:'alt_dir' || '/snapshot/snapshot-' || "_SNAPSHOT_ID")::jsonb->>'deltaRecordCount')::bigint
         AS as_committed
  FROM tablescan_changes(NULL::alt_s, from_snapshot => 1) GROUP BY 1 ORDER BY 1;
DROP SCHEMA sh CASCADE;
DROP SERVER shared CASCADE;

SELECT pg_temp.sh('rm -rf regress_stream');
DROP SERVER scratch CASCADE;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
