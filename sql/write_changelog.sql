-- Writes into primary-key tables with changelog-producer input (README
-- "Writing"): every INSERT / COPY / UPDATE / DELETE also writes its records
-- as changelog files (+I, -U and +U for an UPDATE, -D with the deleted row),
-- named by the snapshot's changelogManifestList, which tablescan_changes and
-- changelog-mode incremental reads return.  The model: a heap table that
-- gets the same statements in the same transactions, whose row trigger logs
-- what each statement did (the old and new rows), per snapshot.  Tables are
-- made from hand-written schema files (test/write-changelog-schema.sh).
CREATE EXTENSION tablescan_fdw;
\set wh /tmp/ts_write_cl_wh
\! rm -rf /tmp/ts_write_cl_wh && bash test/write-changelog-schema.sh /tmp/ts_write_cl_wh
SET TIME ZONE 'UTC';
CREATE SERVER cllake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
\i test/sql/fails.sql
IMPORT FOREIGN SCHEMA c FROM SERVER cllake INTO public;

-- the model: mirror gets every statement cl gets; its trigger logs the changes
CREATE TABLE mirror (dt text, id int, name text, v int, PRIMARY KEY (dt, id));
CREATE TABLE expected (n serial, snap bigint, dt text, id int, name text, v int, kind text);
CREATE FUNCTION log_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE s bigint := current_setting('cl.snapshot')::bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO expected (snap, dt, id, name, v, kind) VALUES (s, NEW.dt, NEW.id, NEW.name, NEW.v, '+I');
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO expected (snap, dt, id, name, v, kind) VALUES (s, OLD.dt, OLD.id, OLD.name, OLD.v, '-U');
    INSERT INTO expected (snap, dt, id, name, v, kind) VALUES (s, NEW.dt, NEW.id, NEW.name, NEW.v, '+U');
  ELSE
    INSERT INTO expected (snap, dt, id, name, v, kind) VALUES (s, OLD.dt, OLD.id, OLD.name, OLD.v, '-D');
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER log AFTER INSERT OR UPDATE OR DELETE ON mirror FOR EACH ROW EXECUTE FUNCTION log_change();
-- both(snapshot, statement with %I for the table): the statement on cl, then on mirror
CREATE FUNCTION both_tables(snap bigint, stmt text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('cl.snapshot', snap::text, true);
  EXECUTE format(stmt, 'cl');
  EXECUTE format(stmt, 'mirror');
END $$;
CREATE FUNCTION pg_temp.snapshots() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_ls_dir('/tmp/ts_write_cl_wh/c.db/cl/snapshot', true, false) f
  WHERE f ~ '^snapshot-[0-9]+$' $$;
-- the changelog files of the table's bucket directories, by name
CREATE FUNCTION pg_temp.changelog_files() RETURNS TABLE (dir text, name text) LANGUAGE sql AS $$
  SELECT d || '/' || b, f
    FROM pg_ls_dir('/tmp/ts_write_cl_wh/c.db/cl') d,
         LATERAL pg_ls_dir('/tmp/ts_write_cl_wh/c.db/cl/' || d, true, false) b,
         LATERAL pg_ls_dir('/tmp/ts_write_cl_wh/c.db/cl/' || d || '/' || b, true, false) f
   WHERE d LIKE 'dt=%' AND f LIKE 'changelog-%' $$;
CREATE FUNCTION pg_temp.snapshot_json(id int) RETURNS jsonb LANGUAGE sql AS $$
  SELECT pg_read_file('/tmp/ts_write_cl_wh/c.db/cl/snapshot/snapshot-' || id)::jsonb $$;

-- snapshot 1: INSERT into two partitions
SELECT both_tables(1, $q$INSERT INTO %I VALUES ('a', 1, 'one', 10), ('a', 2, 'two', 20), ('a', 3, 'three', 30),
  ('b', 1, 'uno', 11), ('b', 2, 'dos', 21), ('b', 5, 'cinco', 51)$q$);
-- snapshot 2: UPDATE and DELETE in one transaction
BEGIN;
SELECT both_tables(2, $q$UPDATE %I SET v = v + 100, name = upper(name) WHERE id IN (1, 5)$q$);
SELECT both_tables(2, $q$DELETE FROM %I WHERE dt = 'a' AND id = 3$q$);
COMMIT;
-- snapshot 3: a row inserted then updated, a row updated twice, a delete, all in one transaction
BEGIN;
SELECT both_tables(3, $q$INSERT INTO %I VALUES ('a', 7, 'seven', 70)$q$);
SELECT both_tables(3, $q$UPDATE %I SET v = 71 WHERE dt = 'a' AND id = 7$q$);
SELECT both_tables(3, $q$UPDATE %I SET v = v + 1 WHERE dt = 'b' AND id = 2$q$);
SELECT both_tables(3, $q$UPDATE %I SET name = NULL WHERE dt = 'b' AND id = 2$q$);
SELECT both_tables(3, $q$DELETE FROM %I WHERE dt = 'b' AND id = 1$q$);
COMMIT;
SELECT pg_temp.snapshots() AS snapshots, count(*) AS changelog_files FROM pg_temp.changelog_files();
-- a rolled-back transaction writes no snapshot, and its changelog files go
-- (the SELECT makes the transaction's rows files before the ROLLBACK)
SELECT count(*) AS files_before FROM pg_temp.changelog_files() \gset
BEGIN;
SELECT both_tables(4, $q$UPDATE %I SET v = 0$q$);
SELECT count(*) FROM cl WHERE v = 0;
SELECT count(*) > :files_before AS changelog_files_written FROM pg_temp.changelog_files();
ROLLBACK;
SELECT pg_temp.snapshots() AS snapshots, count(*) AS changelog_files FROM pg_temp.changelog_files();
-- snapshot 4: COPY FROM writes like INSERT
SELECT set_config('cl.snapshot', '4', false);
COPY cl FROM STDIN (FORMAT csv);
a,8,eight,80
b,9,nine,90
\.
COPY mirror FROM STDIN (FORMAT csv);
a,8,eight,80
b,9,nine,90
\.
SELECT count(*) AS kinds_per_snapshot, string_agg(DISTINCT kind, ' ' ORDER BY kind) FROM expected GROUP BY snap ORDER BY snap;

-- the table's rows are the mirror's
SELECT count(*) AS differences FROM ((SELECT dt, id, name, v FROM cl EXCEPT ALL SELECT * FROM mirror)
  UNION ALL (SELECT * FROM mirror EXCEPT ALL SELECT dt, id, name, v FROM cl)) d;

-- the changes: tablescan_changes over snapshots 1..4 return exactly the model's, per snapshot
CREATE FOREIGN TABLE cl_changes (dt text, id int, name text, v int, "_ROW_KIND" text, "_SNAPSHOT_ID" bigint)
  SERVER cllake OPTIONS (database 'c', "table" 'cl', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
CREATE TEMP TABLE got AS
  SELECT c."_SNAPSHOT_ID" AS snap, c.dt, c.id, c.name, c.v, c."_ROW_KIND" AS kind, n
    FROM tablescan_changes(NULL::cl_changes, from_snapshot => 1, to_snapshot => 4) WITH ORDINALITY
         AS c(dt, id, name, v, "_ROW_KIND", "_SNAPSHOT_ID", n);
SELECT (SELECT count(*) FROM got) AS rows, (SELECT count(*) FROM expected) AS expected,
  (SELECT count(*) FROM ((SELECT snap, dt, id, name, v, kind FROM got
                          EXCEPT ALL SELECT snap, dt, id, name, v, kind FROM expected)
    UNION ALL (SELECT snap, dt, id, name, v, kind FROM expected
               EXCEPT ALL SELECT snap, dt, id, name, v, kind FROM got)) d) AS differences;
-- a key's changes within a snapshot come in the order the statements made them
SELECT count(*) AS keys, count(*) FILTER (WHERE g.kinds <> e.kinds) AS out_of_order
  FROM (SELECT snap, dt, id, string_agg(kind || coalesce(v::text, '-'), ' ' ORDER BY n) kinds
          FROM got GROUP BY 1, 2, 3) g
  JOIN (SELECT snap, dt, id, string_agg(kind || coalesce(v::text, '-'), ' ' ORDER BY n) kinds
          FROM expected GROUP BY 1, 2, 3) e USING (snap, dt, id);
-- an example: the row updated twice in snapshot 3
SELECT kind, name, v FROM got WHERE snap = 3 AND dt = 'b' AND id = 2 ORDER BY n;

-- a consumer: two snapshots, then the rest, exactly the model's
CREATE TEMP TABLE consumed (snap bigint, dt text, id int, name text, v int, kind text);
INSERT INTO consumed SELECT "_SNAPSHOT_ID", dt, id, name, v, "_ROW_KIND"
  FROM tablescan_changes(NULL::cl_changes, consumer => 'c', max_snapshots => 2);
SELECT max(snap) AS last_read, (SELECT next_snapshot FROM tablescan_consumers WHERE consumer = 'c') AS next
  FROM consumed;
INSERT INTO consumed SELECT "_SNAPSHOT_ID", dt, id, name, v, "_ROW_KIND"
  FROM tablescan_changes(NULL::cl_changes, consumer => 'c');
SELECT count(*) AS rows, (SELECT count(*) FROM ((SELECT * FROM consumed EXCEPT ALL SELECT snap, dt, id, name, v, kind FROM expected)
    UNION ALL (SELECT snap, dt, id, name, v, kind FROM expected EXCEPT ALL SELECT * FROM consumed)) d) AS differences
  FROM consumed;

-- incremental-between (start exclusive): scan mode auto reads the changelog, as changelog does
CREATE FOREIGN TABLE cl_between (dt text, id int, name text, v int, "_ROW_KIND" text)
  SERVER cllake OPTIONS (database 'c', "table" 'cl', "incremental-between" '1,4');
CREATE FUNCTION between_differs() RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((SELECT dt, id, name, v, "_ROW_KIND" FROM cl_between
                         EXCEPT ALL SELECT dt, id, name, v, kind FROM expected WHERE snap > 1)
    UNION ALL (SELECT dt, id, name, v, kind FROM expected WHERE snap > 1
               EXCEPT ALL SELECT dt, id, name, v, "_ROW_KIND" FROM cl_between)) d $$;
SELECT count(*) AS rows, between_differs() AS differences FROM cl_between;
ALTER FOREIGN TABLE cl_between OPTIONS (ADD "incremental-between-scan-mode" 'changelog');
SELECT count(*) AS rows, between_differs() AS differences FROM cl_between;
-- delta reads the data files: no -U there (an UPDATE's data record is its +U)
ALTER FOREIGN TABLE cl_between OPTIONS (SET "incremental-between-scan-mode" 'delta');
SELECT count(*) FILTER (WHERE "_ROW_KIND" = '-U') AS before_rows, count(*) > 0 AS some_rows FROM cl_between;

-- the snapshots: each names a changelog manifest list; its record count is the model's
SELECT s AS snapshot, j->>'commitKind' AS kind, j->>'changelogManifestList' LIKE 'manifest-list-%' AS has_list,
       (j->>'changelogManifestListSize')::bigint > 0 AS sized,
       (j->>'changelogRecordCount')::bigint = (SELECT count(*) FROM expected WHERE snap = s) AS count_is_model
  FROM generate_series(1, 4) s, LATERAL pg_temp.snapshot_json(s) j ORDER BY s;
-- the files: changelog-<uuid>-<n>.parquet, in the bucket directories the data files are in
SELECT count(*) FILTER (WHERE name !~ '^changelog-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9]+\.parquet$') AS misnamed,
       count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM pg_ls_dir('/tmp/ts_write_cl_wh/c.db/cl/' || dir) d
                                           WHERE d LIKE 'data-' || substr(name, 11, 36) || '-%')) AS without_data_file
  FROM pg_temp.changelog_files();

-- an INSERT of a key that exists is an upsert: +I in the changelog (what the input said)
INSERT INTO cl VALUES ('a', 1, 'again', 1);
SELECT "_ROW_KIND", name, v FROM tablescan_changes(NULL::cl_changes, from_snapshot => 5, to_snapshot => 5);

-- Avro data files: Avro changelog files
INSERT INTO cl_avro VALUES ('x', 1, 'one', 1), ('x', 2, 'two', 2);
UPDATE cl_avro SET v = 3 WHERE id = 2;
CREATE FOREIGN TABLE cl_avro_changes (dt text, id int, name text, v int, "_ROW_KIND" text)
  SERVER cllake OPTIONS (database 'c', "table" 'cl_avro', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
SELECT * FROM tablescan_changes(NULL::cl_avro_changes, from_snapshot => 1, to_snapshot => 2);
SELECT count(*) AS avro_changelog_files
  FROM pg_ls_dir('/tmp/ts_write_cl_wh/c.db/cl_avro/bucket-0') f WHERE f ~ '^changelog-.*\.avro$';

-- refused, naming the option, before any file is written
SELECT q, pg_temp.fails(q) FROM (VALUES
  ('INSERT INTO app VALUES (''x'', 1, ''x'', 1)'),
  ('INSERT INTO look VALUES (''x'', 1, ''x'', 1)'),
  ('INSERT INTO clfmt VALUES (''x'', 1, ''x'', 1)')) t(q);
\! find /tmp/ts_write_cl_wh/c.db/app /tmp/ts_write_cl_wh/c.db/look /tmp/ts_write_cl_wh/c.db/clfmt -name '*.parquet' | wc -l
-- a DELETE through a foreign table without every field: its -D change would lose the field
CREATE FOREIGN TABLE cl_narrow (dt text, id int, v int) SERVER cllake OPTIONS (database 'c', "table" 'cl');
SELECT pg_temp.fails('DELETE FROM cl_narrow WHERE id = 2');
SELECT pg_temp.snapshots() AS snapshots;

SET client_min_messages = warning;
DROP TABLE mirror, expected;
DROP FUNCTION log_change, both_tables, between_differs;
DROP EXTENSION tablescan_fdw CASCADE;
RESET client_min_messages;
\! rm -rf /tmp/ts_write_cl_wh
