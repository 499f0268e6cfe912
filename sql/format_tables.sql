-- Format tables (issue 7): plain CSV / JSON trees under Hive-style partition
-- directories, no snapshots.  Fixtures (test/make-fixtures.sh): events_csv has
-- 120 rows, row i in dt = 2024-01-01 + i%3, region = eu|us|NULL|'x/y' by i%4,
-- name 'n<i>' (NULL when i%10 = 0), amount i * 1.25; events_json has 30 rows,
-- k = i%3 with k = 0 written as the default partition (-> NULL).
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
-- the directories of the format tables below
\set bad_csv :fixtures/formattable/bad_csv
\set bad_text :fixtures/formattable/bad_text
\set events_csv :fixtures/formattable/events_csv
\set logs_text :fixtures/formattable/logs_text
\set nowhere :fixtures/formattable/nowhere
\set nul_text :fixtures/formattable/nul_text
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
-- an EXPLAIN's lines, the fixtures directory shown as <fixtures>
CREATE FUNCTION pg_temp.plan_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE q LOOP
    RETURN NEXT replace(line, current_setting('regress.fixtures'), '<fixtures>');
  END LOOP;
END $$;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
SET TIME ZONE 'UTC';

-- (b) a plain directory: columns, partition keys and format in table_schema
CREATE FOREIGN TABLE events (id integer, name text, amount numeric(10,2), dt date, region text)
  SERVER lake OPTIONS (path :'events_csv',
    table_schema '{"version": 3, "id": 0, "fields": [
      {"id": 0, "name": "id", "type": "INT"}, {"id": 1, "name": "name", "type": "STRING"},
      {"id": 2, "name": "amount", "type": "DECIMAL(10, 2)"}, {"id": 3, "name": "dt", "type": "DATE"},
      {"id": 4, "name": "region", "type": "STRING"}],
      "partitionKeys": ["dt", "region"], "primaryKeys": [],
      "options": {"type": "format-table", "file.format": "csv"}}');

SELECT count(*), count(DISTINCT id), min(id), max(id), sum(amount), count(name) FROM events;
-- every value is what the generator wrote (partition values from the path)
SELECT count(*) AS wrong FROM events
 WHERE dt <> date '2024-01-01' + (id % 3)
    OR region IS DISTINCT FROM (ARRAY['eu', 'us', NULL, 'x/y'])[1 + id % 4]
    OR amount <> id * 1.25
    OR name IS DISTINCT FROM CASE WHEN id % 10 = 0 THEN NULL ELSE 'n' || id END;
SELECT dt, region, count(*) FROM events GROUP BY 1, 2 ORDER BY 1, 2;
SELECT name, amount, dt, region FROM events WHERE id = 7;

-- the same directory declared with options format and partition_keys: the
-- schema comes from the column definitions
CREATE FOREIGN TABLE events2 (id integer, name text, amount numeric(10,2), dt date, region text)
  SERVER lake OPTIONS (path :'events_csv',
    format 'csv', partition_keys 'dt,region');
SELECT count(*) AS different FROM (
  (SELECT * FROM events EXCEPT ALL SELECT * FROM events2)
  UNION ALL (SELECT * FROM events2 EXCEPT ALL SELECT * FROM events)) x;
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT id FROM events2 WHERE dt = '2024-01-02' AND region = 'eu'$$) AS "QUERY PLAN";
CREATE FOREIGN TABLE events_bad (id integer, tags int[]) SERVER lake
  OPTIONS (path :'events_csv', format 'csv');
SELECT * FROM events_bad;
CREATE FOREIGN TABLE events_bad2 (id integer) SERVER lake
  OPTIONS (path :'events_csv', format 'xml');
CREATE FOREIGN TABLE events_bad3 (id integer) SERVER lake
  OPTIONS (path :'events_csv', partition_keys 'dt');

-- partition pruning by directory: leading equalities start the listing deeper
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT * FROM events$$) AS "QUERY PLAN";
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT * FROM events WHERE dt = '2024-01-02'$$) AS "QUERY PLAN";
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT * FROM events WHERE region IS NULL$$) AS "QUERY PLAN";
SELECT id, dt, region FROM events WHERE region IS NULL AND dt = '2024-01-02' ORDER BY id;
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT * FROM events WHERE dt = '2024-01-03' AND region = 'x/y'$$) AS "QUERY PLAN";
SELECT count(*) FROM events WHERE dt = '2024-01-03' AND region = 'x/y';
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT * FROM events
  WHERE dt IN ('2024-01-01', '2024-01-03') AND region <> 'eu'$$) AS "QUERY PLAN";
SELECT count(*) FROM events WHERE dt IN ('2024-01-01', '2024-01-03') AND region <> 'eu';
SELECT count(*) FROM events WHERE dt > '2024-01-01';
SELECT * FROM pg_temp.plan_of($$EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM events WHERE dt = '2024-01-01' AND region IN ('eu', 'us')$$) AS "QUERY PLAN";
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT * FROM events WHERE dt = '2024-02-01'$$) AS "QUERY PLAN";
SELECT count(*) FROM events WHERE dt = '2024-02-01';

-- the files a scan reads, and ListPartitions (NULL = default partition)
SELECT partition, file_name, bucket FROM tablescan_files('events') ORDER BY file_name LIMIT 4;
SELECT count(*) FROM tablescan_files('events');
SELECT * FROM tablescan_partitions('events');

-- partition_filter: OR of ANDs, a JSON null selects the default partition
ALTER FOREIGN TABLE events
  OPTIONS (ADD partition_filter '[{"dt": "2024-01-01", "region": "us"}, {"region": null}]');
SELECT * FROM tablescan_partitions('events');
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT * FROM events$$) AS "QUERY PLAN";
SELECT dt, region, count(*) FROM events GROUP BY 1, 2 ORDER BY 1, 2;
ALTER FOREIGN TABLE events OPTIONS (DROP partition_filter);

-- (a) a table directory whose schema file says type=format-table (JSON lines)
CREATE FOREIGN TABLE events_json (k integer, v text, n bigint)
  SERVER lake OPTIONS (database 'ft', table 'events_json');
SELECT k, count(*), sum(n), min(v), max(v) FROM events_json GROUP BY k ORDER BY k;
SELECT count(*) AS wrong FROM events_json
 WHERE k IS DISTINCT FROM nullif(substr(v, 2)::int % 3, 0) OR n <> substr(v, 2)::bigint * 1000000007;
SELECT * FROM tablescan_partitions('events_json');
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT * FROM events_json WHERE k = 2$$) AS "QUERY PLAN";
SELECT count(*) FROM events_json WHERE k IS NULL;
-- IMPORT FOREIGN SCHEMA creates it from its schema file like any table
CREATE SCHEMA imported;
IMPORT FOREIGN SCHEMA ft FROM SERVER lake INTO imported;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'imported.events_json'::regclass AND attnum > 0 ORDER BY attnum;
SELECT count(*), count(k), sum(n) FROM imported.events_json;

-- CSV options pass through by their Paimon keys; malformed rows per csv.mode
CREATE FOREIGN TABLE bad_csv (a integer, b text, c numeric(10,2))
  SERVER lake OPTIONS (path :'bad_csv',
    table_schema '{"version": 3, "id": 0, "fields": [{"id": 0, "name": "a", "type": "INT"},
      {"id": 1, "name": "b", "type": "STRING"}, {"id": 2, "name": "c", "type": "DECIMAL(10, 2)"}],
      "partitionKeys": [], "primaryKeys": [],
      "options": {"type": "format-table", "file.format": "csv"}}',
    "csv.mode" 'FAILFAST');
SELECT pg_temp.error_of('SELECT * FROM bad_csv');
ALTER FOREIGN TABLE bad_csv OPTIONS (SET "csv.mode" 'DROPMALFORMED');
SELECT * FROM bad_csv ORDER BY a;
ALTER FOREIGN TABLE bad_csv OPTIONS (SET "csv.mode" 'PERMISSIVE');
SELECT * FROM bad_csv ORDER BY a;
SELECT * FROM tablescan_partitions('bad_csv');

-- TEXT files: one line, one row (logs_text: dt = 2024-01-0<d>, lines "d<d>-<j>",
-- j = 1..20, line 10 empty; plain, gzip with \r\n, two bzip2 streams)
CREATE FOREIGN TABLE logs (line text, dt date) SERVER lake
  OPTIONS (path :'logs_text',
    format 'text', partition_keys 'dt');
SELECT dt, count(*), count(*) FILTER (WHERE line = '') AS empty FROM logs GROUP BY dt ORDER BY dt;
SELECT count(*) AS wrong FROM logs
 WHERE line <> '' AND line NOT IN (SELECT 'd' || extract(day FROM dt) || '-' || j
                                     FROM generate_series(1, 20) j WHERE j <> 10);
SELECT count(DISTINCT line) FROM logs;
SELECT count(*) FROM logs;
SELECT * FROM pg_temp.plan_of($$EXPLAIN (COSTS OFF) SELECT line FROM logs WHERE dt = '2024-01-03'$$) AS "QUERY PLAN";
SELECT line FROM logs WHERE dt = '2024-01-03' AND line LIKE '%-2_' ORDER BY line;
-- strings must be UTF-8 text: an ERROR at the first row that is not
CREATE FOREIGN TABLE bad_text (line text) SERVER lake
  OPTIONS (path :'bad_text', format 'text');
SELECT count(*) FROM bad_text;
SELECT line FROM bad_text LIMIT 2;
SELECT pg_temp.error_of('SELECT line FROM bad_text');
SELECT pg_temp.error_of('SELECT line FROM bad_text WHERE line LIKE ''nul%''');
CREATE FOREIGN TABLE nul_text (line text) SERVER lake
  OPTIONS (path :'nul_text', format 'text');
SELECT pg_temp.error_of('SELECT line FROM nul_text');
-- max / min computed while scanning by the strings' bytes (scan_vector.c)
-- check each string as its conversion does: the same errors, pushed or not
SELECT pg_temp.error_of('SELECT max(line) FROM bad_text');
SELECT pg_temp.error_of('SELECT count(*), min(line) FROM nul_text');
SET tablescan.enable_aggregate_pushdown = off;
SELECT pg_temp.error_of('SELECT max(line) FROM bad_text');
RESET tablescan.enable_aggregate_pushdown;
-- the same lines as bytes (a STRING read into a bytea column)
CREATE FOREIGN TABLE bad_text_bytes (line bytea) SERVER lake
  OPTIONS (path :'bad_text',
    table_schema '{"version": 3, "id": 0, "fields": [{"id": 0, "name": "line", "type": "STRING"}],
      "partitionKeys": [], "primaryKeys": [], "options": {"type": "format-table", "file.format": "text"}}');
SELECT line FROM bad_text_bytes;
ALTER FOREIGN TABLE bad_text_bytes OPTIONS (SET path :'nul_text');
SELECT line FROM bad_text_bytes;
CREATE FOREIGN TABLE logs_bad (line text, n integer, dt date) SERVER lake
  OPTIONS (path :'logs_text',
    format 'text', partition_keys 'dt');
SELECT pg_temp.error_of('SELECT count(*) FROM logs_bad');

-- errors
CREATE FOREIGN TABLE customers (id integer) SERVER lake
  OPTIONS (database 'sales', table 'customers');
SELECT * FROM tablescan_partitions('customers');
ALTER FOREIGN TABLE events OPTIONS (ADD "scan.snapshot-id" '1');
SELECT pg_temp.error_of('SELECT count(*) FROM events');
ALTER FOREIGN TABLE events OPTIONS (DROP "scan.snapshot-id");
ALTER FOREIGN TABLE events OPTIONS (ADD bucket_filter '0');
SELECT pg_temp.error_of('SELECT count(*) FROM events');
ALTER FOREIGN TABLE events OPTIONS (DROP bucket_filter);
ALTER FOREIGN TABLE events OPTIONS (ADD partition_filter '[{"name": "n1"}]');
SELECT pg_temp.error_of('SELECT count(*) FROM events');
ALTER FOREIGN TABLE events OPTIONS (DROP partition_filter);
CREATE FOREIGN TABLE nowhere (a integer) SERVER lake
  OPTIONS (path :'nowhere',
    table_schema '{"version": 3, "id": 0, "fields": [{"id": 0, "name": "a", "type": "INT"}],
      "partitionKeys": [], "primaryKeys": [], "options": {"type": "format-table", "file.format": "csv"}}');
SELECT pg_temp.error_of('SELECT * FROM nowhere');
SELECT count(*) FROM events;

SET client_min_messages = warning;
DROP SERVER lake CASCADE;
RESET client_min_messages;
DROP SCHEMA imported;
DROP EXTENSION tablescan_fdw;
