-- Paimon's consumer files: tablescan_changes(..., paimon_consumer => true)
-- also writes consumer/consumer-<id> ({"nextSnapshot" : N}, Java's format)
-- once the reading transaction commits, so that Java's snapshot expiration
-- keeps what the consumer still needs; a consumer that has not started
-- starts from its file (Java's starting scanner).  The table is a copy of
-- the generated pk_dedup_levels (snapshots 1 A, 2 A, 3 C, 4 A, 5 A, 6 C,
-- 7 A, 8 A, 9 C) whose snapshots after 4 are held back and committed during
-- the test; the rows expected are computed from its write stream.
CREATE EXTENSION tablescan_fdw;
-- the helpers live in a schema of their own (other suites have their own model functions)
CREATE SCHEMA cfile;
SET search_path = cfile, public;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
SET regress.fixtures = :'fixtures';
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  msg text; det text; hint text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
  RETURN NEXT regexp_replace('ERROR:  ' || msg, '"/[^"]*/regress_cfile/', '"<scratch>/', 'g');
  RETURN QUERY SELECT 'HINT:  ' || hint WHERE hint <> '';
END $$;
CREATE FUNCTION pg_temp.sh(cmd text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'cat >/dev/null; ' || cmd);
END $$;
SELECT current_setting('data_directory') || '/regress_cfile' AS scratch \gset
\set levels :scratch/levels
SELECT pg_temp.sh(format($c$
  rm -rf regress_cfile && mkdir -p regress_cfile/held &&
  cp -r %1$s/pk.db/pk_dedup_levels regress_cfile/levels &&
  for i in 5 6 7 8 9; do mv regress_cfile/levels/snapshot/snapshot-$i regress_cfile/held/levels-$i; done &&
  printf 4 > regress_cfile/levels/snapshot/LATEST$c$, :'warehouse'));
CREATE FUNCTION pg_temp.commit(i int) RETURNS void LANGUAGE sql AS $$
  SELECT pg_temp.sh(format('mv regress_cfile/held/levels-%1$s regress_cfile/levels/snapshot/snapshot-%1$s && printf %1$s > regress_cfile/levels/snapshot/LATEST', i))
$$;
-- the consumer file of c as written (NULL: none), and by hand
SET regress.levels = :'levels';
CREATE FUNCTION file_of(c text) RETURNS text LANGUAGE sql AS $$
  SELECT pg_read_file(current_setting('regress.levels') || '/consumer/consumer-' || c, 0, 1000, true)
$$;
CREATE FUNCTION pg_temp.put_file(c text, body text) RETURNS void LANGUAGE sql AS $$
  SELECT pg_temp.sh(format('mkdir -p regress_cfile/levels/consumer && printf %%s %s > regress_cfile/levels/consumer/consumer-%s',
                           quote_literal(body), c))
$$;

CREATE SERVER scratch FOREIGN DATA WRAPPER tablescan_fdw;
-- the model: every record the APPEND snapshots (a, b] wrote, with its kind
CREATE TEMP TABLE ops_raw (line jsonb);
\set ops :warehouse/pk.db/pk_dedup_levels.ops.jsonl
COPY ops_raw (line) FROM :'ops';
CREATE FUNCTION model(a int, b int) RETURNS TABLE (id int, p int, v text, kind text)
LANGUAGE sql AS $$
  SELECT (r.line->'values'->>'id')::int, (r.line->'values'->>'p')::int,
         r.line->'values'->>'v', r.line->>'kind'
    FROM ops_raw r
    JOIN ops_raw s ON s.line->>'op' = 'snapshot' AND s.line->>'kind' = 'APPEND'
                  AND s.line->>'id' = r.line->>'snapshot'
   WHERE r.line->>'op' = 'record'
     AND (r.line->>'snapshot')::int > a AND (r.line->>'snapshot')::int <= b
$$;
CREATE TEMP TABLE got (id int, p int, v text, kind text);
CREATE FUNCTION differs(a int, b int) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM ((SELECT * FROM got EXCEPT ALL SELECT * FROM model(a, b))
    UNION ALL (SELECT * FROM model(a, b) EXCEPT ALL SELECT * FROM got)) d
$$;
CREATE FUNCTION position_of(c text) RETURNS bigint LANGUAGE sql AS $$
  SELECT next_snapshot FROM tablescan_consumers WHERE consumer = c
$$;
CREATE FOREIGN TABLE lv (id int, p int, v text, "_ROW_KIND" text) SERVER scratch
  OPTIONS (path :'levels', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');

-- the file is written when the transaction commits, not before
BEGIN;
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a', max_snapshots => 2, paimon_consumer => true);
SELECT count(*) AS rows, differs(0, 2) AS different, position_of('a') AS next,
       file_of('a') IS NULL AS no_file_yet FROM got;
COMMIT;
TRUNCATE got;
-- Java's pretty JSON, holding the committed position
SELECT file_of('a') AS file, (file_of('a')::jsonb->>'nextSnapshot')::bigint = position_of('a') AS as_committed;
-- a rollback leaves the file (and the position) where it was
BEGIN;
SELECT count(*) > 0 AS read_something FROM tablescan_changes(NULL::lv, consumer => 'a', paimon_consumer => true);
ROLLBACK;
SELECT file_of('a')::jsonb->>'nextSnapshot' AS file_next, position_of('a') AS next;
-- so does a subtransaction rolled back; one released is written at COMMIT
BEGIN;
SAVEPOINT s;
SELECT count(*) > 0 AS read_something FROM tablescan_changes(NULL::lv, consumer => 'a', paimon_consumer => true);
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT file_of('a')::jsonb->>'nextSnapshot' AS file_next, position_of('a') AS next;
BEGIN;
SAVEPOINT s;
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a', paimon_consumer => true);
RELEASE SAVEPOINT s;
COMMIT;
SELECT count(*) AS rows, differs(2, 4) AS different, position_of('a') AS next,
       file_of('a')::jsonb->>'nextSnapshot' AS file_next FROM got;
TRUNCATE got;
-- two consumers, each its own file; a consumer without paimon_consumer has none
SELECT count(*) AS rows FROM tablescan_changes(NULL::lv, consumer => 'b', max_snapshots => 1, paimon_consumer => true);
SELECT count(*) AS rows FROM tablescan_changes(NULL::lv, consumer => 'c', max_snapshots => 1);
SELECT file_of('a')::jsonb->>'nextSnapshot' AS a_file, file_of('b')::jsonb->>'nextSnapshot' AS b_file,
       position_of('b') AS b_next, file_of('c') IS NULL AS c_has_none;
-- every read writes the file, also one with nothing new (which keeps it
-- fresh for Java's consumer.expiration-time): removed, it comes back
SELECT pg_temp.sh('rm regress_cfile/levels/consumer/consumer-a');
SELECT count(*) AS rows FROM tablescan_changes(NULL::lv, consumer => 'a', paimon_consumer => true);
SELECT file_of('a')::jsonb->>'nextSnapshot' AS file_next;
-- snapshots 5 (APPEND) and 6 (COMPACT) committed: a reads (4, 6]
SELECT pg_temp.commit(5), pg_temp.commit(6);
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a', paimon_consumer => true);
SELECT count(*) AS rows, differs(4, 6) AS different, file_of('a')::jsonb->>'nextSnapshot' AS file_next FROM got;
TRUNCATE got;

-- a consumer file written by Java (unknown keys ignored): a consumer that
-- has not started starts from its nextSnapshot, not from scan.mode
SELECT pg_temp.put_file('java', E'{\n  "nextSnapshot" : 4,\n  "futureField" : "x"\n}');
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'java', paimon_consumer => true);
SELECT count(*) AS rows, differs(3, 6) AS different, position_of('java') AS next,
       file_of('java')::jsonb->>'nextSnapshot' AS file_next FROM got;
TRUNCATE got;
-- without paimon_consumer the file is not looked at (scan.mode: snapshot 1 on)
SELECT pg_temp.put_file('java2', '{"nextSnapshot": 4}');
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv, consumer => 'java2');
SELECT count(*) AS rows, differs(0, 6) AS different FROM got;
TRUNCATE got;
-- nor with Paimon's consumer.ignore-progress (the file is still written)
CREATE FOREIGN TABLE lv_ign (id int, p int, v text, "_ROW_KIND" text) SERVER scratch
  OPTIONS (path :'levels', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1',
           "consumer.ignore-progress" 'true');
SELECT pg_temp.put_file('java3', '{"nextSnapshot": 4}');
INSERT INTO got SELECT * FROM tablescan_changes(NULL::lv_ign, consumer => 'java3', paimon_consumer => true);
SELECT count(*) AS rows, differs(0, 6) AS different, file_of('java3')::jsonb->>'nextSnapshot' AS file_next FROM got;
TRUNCATE got;
-- a damaged file is an ERROR naming it
SELECT pg_temp.put_file('broken', '{"nextSnapshot": 0}');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'broken', paimon_consumer => true)$$);
-- a file whose next snapshot has expired (snapshots 1 and 2 expire,
-- EARLIEST 3): an ERROR saying so, nothing read, nothing moved
SELECT pg_temp.sh('rm regress_cfile/levels/snapshot/snapshot-[12] && printf 3 > regress_cfile/levels/snapshot/EARLIEST');
SELECT pg_temp.put_file('old', '{"nextSnapshot": 2}');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'old', paimon_consumer => true)$$);
SELECT position_of('old') IS NULL AS not_started, file_of('old')::jsonb->>'nextSnapshot' AS file_next;

-- refused, naming what: a range, ids that are no file name, a table not
-- updatable, PREPARE TRANSACTION
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, from_snapshot => 3, paimon_consumer => true)$$);
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'x/y', paimon_consumer => true)$$);
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => '..', paimon_consumer => true)$$);
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => E'x\ty', paimon_consumer => true)$$);
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => '', paimon_consumer => true)$$);
SELECT count(*) AS other_consumers FROM tablescan_consumers WHERE consumer IN ('x/y', '..', E'x\ty', '');
ALTER FOREIGN TABLE lv OPTIONS (ADD updatable 'false');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'a', paimon_consumer => true)$$);
ALTER FOREIGN TABLE lv OPTIONS (DROP updatable);
BEGIN;
SELECT count(*) AS rows FROM tablescan_changes(NULL::lv, consumer => 'a', paimon_consumer => true);
PREPARE TRANSACTION 'cfile';
SELECT file_of('a')::jsonb->>'nextSnapshot' AS file_next, position_of('a') AS next;

-- a role needs INSERT on the foreign table to write the file (a write into
-- the lake); with it, its file is written inside the table's directory
CREATE ROLE cfile_reader;
GRANT USAGE ON SCHEMA cfile TO cfile_reader;
GRANT SELECT ON lv TO cfile_reader;
GRANT SELECT, INSERT, UPDATE ON tablescan_consumers TO cfile_reader;
SET ROLE cfile_reader;
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::lv, consumer => 'r', paimon_consumer => true)$$);
SELECT count(*) AS rows FROM tablescan_changes(NULL::lv, consumer => 'r', max_snapshots => 1);
RESET ROLE;
GRANT INSERT ON lv TO cfile_reader;
SET ROLE cfile_reader;
SELECT count(*) AS rows FROM tablescan_changes(NULL::lv, consumer => 'r', max_snapshots => 1, paimon_consumer => true);
RESET ROLE;
SELECT position_of('r') AS next, file_of('r')::jsonb->>'nextSnapshot' AS file_next;

SELECT pg_temp.sh('rm -rf regress_cfile');
DROP SERVER scratch CASCADE;
DROP EXTENSION tablescan_fdw;
DROP SCHEMA cfile CASCADE;
DROP ROLE cfile_reader;
RESET search_path;
