-- OVERWRITE snapshots in a stream (tablescan_changes): skipped by default,
-- as Java's follow-up scanners do; with streaming-read-append-overwrite an
-- append table's stream reads the files the overwrite added, with
-- streaming-read-overwrite a primary-key table's stream the rows the
-- overwrite removed (-D) and added (below).  The table is
-- a copy of the generated append table sales.db/orders (snapshots 1, 2, 3,
-- all APPEND) whose snapshot 3 is relabelled OVERWRITE (an overwrite that
-- removed no file); the rows expected come from batch time-travel reads.
CREATE EXTENSION tablescan_fdw;
CREATE SCHEMA cow;
SET search_path = cow, public;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  msg text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
  RETURN NEXT regexp_replace('ERROR:  ' || msg, '"/[^"]*/(regress_cow|warehouse|stream)/', '"<dir>/', 'g');
END $$;
CREATE FUNCTION pg_temp.sh(cmd text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'cat >/dev/null; ' || cmd);
END $$;
SELECT current_setting('data_directory') || '/regress_cow/orders' AS orders \gset
SELECT pg_temp.sh(format($c$
  rm -rf regress_cow && mkdir regress_cow && cp -r %1$s/sales.db/orders regress_cow/orders &&
  sed -i 's/"APPEND"/"OVERWRITE"/' regress_cow/orders/snapshot/snapshot-3$c$, :'warehouse'));
SELECT pg_read_file(:'orders' || '/snapshot/snapshot-3')::jsonb->>'commitKind' AS snapshot_3;

CREATE SERVER scratch FOREIGN DATA WRAPPER tablescan_fdw;
CREATE FOREIGN TABLE ow (id int, customer text, amount numeric) SERVER scratch
  OPTIONS (path :'orders', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
CREATE FOREIGN TABLE at2 (id int, customer text, amount numeric) SERVER scratch
  OPTIONS (path :'orders', "scan.snapshot-id" '2');
CREATE FOREIGN TABLE at3 (id int, customer text, amount numeric) SERVER scratch
  OPTIONS (path :'orders', "scan.snapshot-id" '3');
-- (snapshot 3 added rows)
SELECT (SELECT count(*) FROM at2) AS rows_at_2, (SELECT count(*) FROM at3) AS rows_at_3;
CREATE TEMP TABLE got (id int, customer text, amount numeric);
CREATE FUNCTION differs_from(snapshot int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((TABLE got EXCEPT ALL TABLE at%1$s) UNION ALL (TABLE at%1$s EXCEPT ALL TABLE got)) d', snapshot)
    INTO n;
  RETURN n;
END $$;

-- by default the overwrite is skipped: the stream holds the rows of 1 and 2
INSERT INTO got SELECT * FROM tablescan_changes(NULL::ow, consumer => 'plain');
SELECT count(*) AS rows, differs_from(2) AS different,
       (SELECT next_snapshot FROM tablescan_consumers WHERE consumer = 'plain') AS next FROM got;
TRUNCATE got;
-- with streaming-read-append-overwrite its added files are read too
ALTER FOREIGN TABLE ow OPTIONS (ADD "streaming-read-append-overwrite" 'true');
INSERT INTO got SELECT * FROM tablescan_changes(NULL::ow, consumer => 'overwrite');
SELECT count(*) AS rows, differs_from(3) AS different FROM got;
TRUNCATE got;
-- also snapshot by snapshot (the overwrite alone gives what 3 added)
SELECT count(*) AS overwrite_rows, count(*) = (SELECT count(*) FROM at3) - (SELECT count(*) FROM at2) AS as_added
  FROM tablescan_changes(NULL::ow, from_snapshot => 3);
-- a batch incremental-between read is not a stream: its delta mode skips
-- the overwrite, as Java's
CREATE FOREIGN TABLE ow_between (id int) SERVER scratch
  OPTIONS (path :'orders', "incremental-between" '2,3', "streaming-read-append-overwrite" 'true');
SELECT count(*) AS between_rows FROM ow_between;
-- not on primary-key tables (streaming-read-overwrite is theirs, below)
\set pkdir :warehouse/pk.db/pk_dedup_levels
CREATE FOREIGN TABLE pk_ow (id int) SERVER scratch
  OPTIONS (path :'pkdir', "scan.mode" 'latest',
           "streaming-read-append-overwrite" 'true');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::pk_ow, consumer => 'x')$$);

-- streaming-read-overwrite: a stream over a primary-key table reads an
-- OVERWRITE snapshot as Java's (OverwriteFollowUpScanner, readChanges,
-- IncrementalChangelogReadProvider): per partition and bucket the files it
-- removed, merged, each key as -D, then the files it added, merged.
-- pk_overwrite (generated: snapshots 1 A, 2 A, 3 C, 4 A, 5 OVERWRITE, 6 C,
-- 7 A) overwrites the whole table at 5, every file removed, so its -D rows
-- must be the table at snapshot 4 and its other rows the table at 5, both
-- read here by time travel.
\set stream :fixtures/stream
\set pkow :stream/pk_overwrite
SELECT pg_read_file(:'pkow' || '/snapshot/snapshot-5')::jsonb->>'commitKind' AS snapshot_5;
-- NAME (streaming-read-overwrite), NAME_plain (without), NAME_<ow-1> and
-- NAME_<ow> (the tables at the snapshots before and of the overwrite, with
-- the extra options opts) over the table at path
CREATE FUNCTION pg_temp.overwrite_tables(name text, path text, ow int DEFAULT 5, opts text DEFAULT '')
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  cols text := 'id int, p int, v text, n bigint, d float8';
BEGIN
  EXECUTE format('CREATE FOREIGN TABLE %I (%s, "_ROW_KIND" text) SERVER scratch OPTIONS (path %L, "streaming-read-overwrite" ''true'')',
                 name, cols, path);
  EXECUTE format('CREATE FOREIGN TABLE %I (%s, "_ROW_KIND" text) SERVER scratch OPTIONS (path %L)',
                 name || '_plain', cols, path);
  FOR s IN ow - 1..ow LOOP
    EXECUTE format('CREATE FOREIGN TABLE %I (%s) SERVER scratch OPTIONS (path %L, "scan.snapshot-id" %L%s)',
                   name || '_' || s, cols, path, s, opts);
  END LOOP;
END $$;
SELECT pg_temp.overwrite_tables('pkow', :'pkow');
CREATE TEMP TABLE ch (id int, p int, v text, n bigint, d float8, "_ROW_KIND" text);
-- ch against the tables at snapshots "before" and "after": rows that differ
CREATE FUNCTION overwrite_check(before text, after text) RETURNS TABLE
  (removed bigint, added bigint, other_kinds bigint, removed_differ bigint, added_differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format($q$
    WITH r AS (SELECT id, p, v, n, d FROM ch WHERE "_ROW_KIND" = '-D'),
         a AS (SELECT id, p, v, n, d FROM ch WHERE "_ROW_KIND" IN ('+I', '+U'))
    SELECT (SELECT count(*) FROM r), (SELECT count(*) FROM a),
           (SELECT count(*) FROM ch WHERE "_ROW_KIND" NOT IN ('-D', '+I', '+U')),
           (SELECT count(*) FROM ((TABLE r EXCEPT ALL TABLE %1$s) UNION ALL (TABLE %1$s EXCEPT ALL TABLE r)) x),
           (SELECT count(*) FROM ((TABLE a EXCEPT ALL TABLE %2$s) UNION ALL (TABLE %2$s EXCEPT ALL TABLE a)) x)$q$,
    before, after);
END $$;
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::pkow, from_snapshot => 5, to_snapshot => 5);
SELECT (SELECT count(*) FROM pkow_4) AS rows_at_4, (SELECT count(*) FROM pkow_5) AS rows_at_5,
       (overwrite_check('pkow_4', 'pkow_5')).*;
TRUNCATE ch;
-- without the option the overwrite is skipped
SELECT count(*) AS skipped FROM tablescan_changes(NULL::pkow_plain, from_snapshot => 5, to_snapshot => 5);
-- rows of ch that differ from the changes of NAME_plain from snapshot 1 and
-- those of NAME's overwrite snapshot ow alone
CREATE FUNCTION stream_differs(name text, ow int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format($q$
    WITH e AS (SELECT * FROM tablescan_changes(NULL::%1$I, from_snapshot => 1)
               UNION ALL SELECT * FROM tablescan_changes(NULL::%2$I, from_snapshot => %3$s, to_snapshot => %3$s))
    SELECT count(*) FROM ((TABLE ch EXCEPT ALL TABLE e) UNION ALL (TABLE e EXCEPT ALL TABLE ch)) x$q$,
    name || '_plain', name, ow) INTO n;
  RETURN n;
END $$;
-- a consumer over all snapshots: the other snapshots' changes as without the
-- option, and the overwrite's
ALTER FOREIGN TABLE pkow OPTIONS (ADD "scan.mode" 'from-snapshot', ADD "scan.snapshot-id" '1');
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::pkow, consumer => 'all');
SELECT count(*) AS rows,
       (SELECT next_snapshot FROM tablescan_consumers WHERE consumer = 'all') AS next,
       stream_differs('pkow', 5) AS different
  FROM ch;
TRUNCATE ch;
-- with a _SNAPSHOT_ID column the overwrite's rows are those of snapshot 5
CREATE FOREIGN TABLE pkow_s (id int, p int, v text, n bigint, d float8, "_ROW_KIND" text, "_SNAPSHOT_ID" bigint)
  SERVER scratch OPTIONS (path :'pkow', "streaming-read-overwrite" 'true');
CREATE TEMP TABLE chs AS SELECT * FROM tablescan_changes(NULL::pkow_s, from_snapshot => 4);
INSERT INTO ch SELECT id, p, v, n, d, "_ROW_KIND" FROM chs WHERE "_SNAPSHOT_ID" = 5;
SELECT (SELECT array_agg(DISTINCT "_SNAPSHOT_ID" ORDER BY "_SNAPSHOT_ID") FROM chs) AS snapshots,
       (overwrite_check('pkow_4', 'pkow_5')).*;
TRUNCATE ch;

-- a bucket the overwrite only added files to is read unmerged, as a
-- stream's delta (Java's MergeFileSplitReadProvider): a copy of pk_overwrite
-- whose snapshot 1 is relabelled OVERWRITE (removing nothing) gives
-- snapshot 1's changes as the original's plain stream does, every record,
-- more rows than the merged table at 1
SELECT pg_temp.sh(format('cp -r %s regress_cow/pkow1 && sed -i ''s/"APPEND"/"OVERWRITE"/'' regress_cow/pkow1/snapshot/snapshot-1',
                         :'pkow'));
SELECT current_setting('data_directory') || '/regress_cow/pkow1' AS pkow1 \gset
CREATE FOREIGN TABLE pkow1 (id int, p int, v text, n bigint, d float8, "_ROW_KIND" text) SERVER scratch
  OPTIONS (path :'pkow1', "streaming-read-overwrite" 'true');
CREATE FOREIGN TABLE pkow_1 (id int) SERVER scratch OPTIONS (path :'pkow', "scan.snapshot-id" '1');
CREATE TEMP TABLE plain1 AS SELECT * FROM tablescan_changes(NULL::pkow_plain, from_snapshot => 1, to_snapshot => 1);
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::pkow1, from_snapshot => 1, to_snapshot => 1);
SELECT pg_read_file(:'pkow1' || '/snapshot/snapshot-1')::jsonb->>'commitKind' AS snapshot_1,
       count(*) AS rows, (SELECT count(*) FROM pkow_1) AS merged_rows,
       (SELECT count(*) FROM ((TABLE ch EXCEPT ALL TABLE plain1) UNION ALL (TABLE plain1 EXCEPT ALL TABLE ch)) x) AS different
  FROM ch;
TRUNCATE ch;

-- an aggregation table: each side is the aggregate of its files
\set pkagg :stream/pk_overwrite_agg
SELECT pg_temp.overwrite_tables('agg', :'pkagg');
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::agg, from_snapshot => 5, to_snapshot => 5);
SELECT (overwrite_check('agg_4', 'agg_5')).*;
TRUNCATE ch;

-- changelog-producer input: the other snapshots' changelog files, and the
-- overwrite's changes read from its data files as above
\set pkin :stream/pk_overwrite_input
SELECT pg_temp.overwrite_tables('inp', :'pkin');
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::inp, from_snapshot => 5, to_snapshot => 5);
SELECT (overwrite_check('inp_4', 'inp_5')).*;
SELECT (SELECT count(*) FROM tablescan_changes(NULL::inp, from_snapshot => 1)) AS rows,
       (SELECT count(*) FROM tablescan_changes(NULL::inp_plain, from_snapshot => 1)) +
       (SELECT count(*) FROM ch) AS changelog_and_overwrite;
TRUNCATE ch;

-- tables with deletion vectors, as Java's readChanges plans them: the
-- removed files read with the deletion vectors of the snapshot before the
-- overwrite (its index manifest), the added ones with the overwrite's.
-- pk_overwrite_dv (generated) overwrites the whole table at snapshot 8,
-- whose snapshot 7 has deletion vectors and a level-0 file; the tables at 7
-- and 8 are read with deletion-vectors.merge-on-read, level 0 merged in as
-- the overwrite's removed side merges it.
\set pkdv :stream/pk_overwrite_dv
SELECT pg_read_file(:'pkdv' || '/snapshot/snapshot-8')::jsonb->>'commitKind' AS snapshot_8;
SELECT pg_temp.overwrite_tables('dvw', :'pkdv', 8, ', "deletion-vectors.merge-on-read" ''true''');
SELECT count(*) FILTER (WHERE deletion_file IS NOT NULL) AS files_with_vectors_at_7,
       count(*) FILTER (WHERE level = 0) AS level0_files_at_7
  FROM tablescan_files('dvw_7');
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::dvw, from_snapshot => 8, to_snapshot => 8);
SELECT (SELECT count(*) FROM dvw_7) AS rows_at_7, (SELECT count(*) FROM dvw_8) AS rows_at_8,
       (overwrite_check('dvw_7', 'dvw_8')).*;
TRUNCATE ch;
-- a consumer over all its snapshots: the others as without the option, and
-- the overwrite's
ALTER FOREIGN TABLE dvw OPTIONS (ADD "scan.mode" 'from-snapshot', ADD "scan.snapshot-id" '1');
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::dvw, consumer => 'dv');
SELECT count(*) AS rows, stream_differs('dvw', 8) AS different FROM ch;
TRUNCATE ch;
-- an aggregation table: a row its deletion vector deletes would be summed
-- twice
\set pkdvagg :stream/pk_overwrite_dv_agg
SELECT pg_temp.overwrite_tables('dva', :'pkdvagg', 8, ', "deletion-vectors.merge-on-read" ''true''');
SELECT count(*) FILTER (WHERE deletion_file IS NOT NULL) AS files_with_vectors_at_7
  FROM tablescan_files('dva_7');
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::dva, from_snapshot => 8, to_snapshot => 8);
SELECT (overwrite_check('dva_7', 'dva_8')).*;
TRUNCATE ch;

-- a partial overwrite: pk_overwrite_dv_part overwrites partition p = 1
-- alone at snapshot 8, so the rows removed and added are those of p = 1 at
-- 7 and 8, and the buckets of partition 0 (unchanged) give no row
\set pkpart :stream/pk_overwrite_dv_part
SELECT pg_temp.overwrite_tables('dvp', :'pkpart', 8, ', "deletion-vectors.merge-on-read" ''true''');
CREATE TEMP VIEW dvp_7_1 AS SELECT * FROM dvp_7 WHERE p = 1;
CREATE TEMP VIEW dvp_8_1 AS SELECT * FROM dvp_8 WHERE p = 1;
INSERT INTO ch SELECT * FROM tablescan_changes(NULL::dvp, from_snapshot => 8, to_snapshot => 8);
SELECT (SELECT count(*) FROM dvp_7 WHERE p = 0) AS rows_p0_at_7,
       (SELECT count(*) FROM ((SELECT * FROM dvp_7 WHERE p = 0 EXCEPT ALL SELECT * FROM dvp_8 WHERE p = 0)
                              UNION ALL (SELECT * FROM dvp_8 WHERE p = 0 EXCEPT ALL SELECT * FROM dvp_7 WHERE p = 0)) x) AS p0_changed,
       (SELECT count(*) FROM ch WHERE p <> 1) AS rows_not_p1,
       (overwrite_check('dvp_7_1', 'dvp_8_1')).*;
TRUNCATE ch;

-- streaming-read-append-overwrite: a file the overwrite both removes and
-- adds is not read (Java's readChanges drops it from both sides, its
-- "deduplicate"); append_readd's OVERWRITE snapshot 3 removes and re-adds
-- snapshot 1's files besides adding its own, so the stream's rows of 3 are
-- those of its own files: what the table has at 3 and had not at 2 (a
-- batch scan drops the re-added files too, as Java's: their DELETE entry
-- cancels both ADD entries)
\set readd :stream/append_readd
CREATE FOREIGN TABLE rd (id int, customer text, amount numeric, dt text) SERVER scratch
  OPTIONS (path :'readd', "streaming-read-append-overwrite" 'true');
CREATE FOREIGN TABLE rd_2 (id int, customer text, amount numeric, dt text) SERVER scratch
  OPTIONS (path :'readd', "scan.snapshot-id" '2');
CREATE FOREIGN TABLE rd_3 (id int, customer text, amount numeric, dt text) SERVER scratch
  OPTIONS (path :'readd', "scan.snapshot-id" '3');
CREATE TEMP TABLE rdg AS SELECT * FROM tablescan_changes(NULL::rd, from_snapshot => 3, to_snapshot => 3);
SELECT pg_read_file(:'readd' || '/snapshot/snapshot-3')::jsonb->>'commitKind' AS snapshot_3,
       (SELECT count(*) FROM rd_2) AS rows_at_2, (SELECT count(*) FROM rd_3) AS rows_at_3,
       count(*) AS rows,
       (SELECT count(*) FROM ((TABLE rdg EXCEPT ALL (TABLE rd_3 EXCEPT ALL TABLE rd_2))
                              UNION ALL ((TABLE rd_3 EXCEPT ALL TABLE rd_2) EXCEPT ALL TABLE rdg)) x) AS different
  FROM rdg;
-- a consumer from snapshot 1: 1 and 2 as appended, 3 as above
ALTER FOREIGN TABLE rd OPTIONS (ADD "scan.mode" 'from-snapshot', ADD "scan.snapshot-id" '1');
CREATE TEMP TABLE rdc AS SELECT * FROM tablescan_changes(NULL::rd, consumer => 'rd');
SELECT count(*) AS rows,
       (SELECT count(*) FROM ((TABLE rdc EXCEPT ALL (TABLE rd_2 UNION ALL TABLE rdg))
                              UNION ALL ((TABLE rd_2 UNION ALL TABLE rdg) EXCEPT ALL TABLE rdc)) x) AS different
  FROM rdc;
-- with deletion vectors the added files are read with the overwrite's
-- (this table has none)
ALTER FOREIGN TABLE rd OPTIONS (ADD "deletion-vectors.enabled" 'true');
SELECT count(*) AS rows FROM tablescan_changes(NULL::rd, from_snapshot => 3, to_snapshot => 3);

-- refused as Java refuses them: append tables, changelog-producer lookup /
-- full-compaction
ALTER FOREIGN TABLE ow OPTIONS (DROP "streaming-read-append-overwrite", ADD "streaming-read-overwrite" 'true');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::ow, consumer => 'x')$$);
ALTER FOREIGN TABLE pkow_plain OPTIONS (ADD "streaming-read-overwrite" 'true', ADD "changelog-producer" 'lookup');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::pkow_plain, from_snapshot => 5)$$);

SELECT pg_temp.sh('rm -rf regress_cow');
DROP SCHEMA cow CASCADE;
DROP SERVER scratch CASCADE;
DROP EXTENSION tablescan_fdw;
RESET search_path;
