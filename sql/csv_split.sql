-- CSV / JSON / TEXT files of format tables read in parts by a parallel scan
-- (issue 41): an uncompressed file larger than tablescan.parallel_task_size
-- is cut into byte ranges, each part reading the lines that start in it
-- (a CSV file's parts start at records: a quoted field may hold line breaks).
-- Every query runs in parallel and again serially and both must return the
-- rows of a model computed here from the generator's formulas
-- (test/make-fixtures.sh, split_*): nothing lost, nothing read twice.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
\set split_csv :fixtures/formattable/split_csv
\set split_json :fixtures/formattable/split_json
\set split_text :fixtures/formattable/split_text
\set split_multiline :fixtures/formattable/split_multiline
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
CREATE FOREIGN TABLE split_csv (id integer, name text, amount numeric(10,2), day date)
  SERVER lake OPTIONS (path :'split_csv', format 'csv', "csv.include-header" 'true');
CREATE FOREIGN TABLE split_json (id integer, s text)
  SERVER lake OPTIONS (path :'split_json', format 'json');
CREATE FOREIGN TABLE split_text (line text)
  SERVER lake OPTIONS (path :'split_text', format 'text');
CREATE FOREIGN TABLE split_multiline (id integer, name text, amount numeric(10,2), day date)
  SERVER lake OPTIONS (path :'split_multiline', format 'csv', "csv.include-header" 'true');
CREATE VIEW model_csv AS
  SELECT i AS id, CASE WHEN i % 5 = 0 THEN 'n,"' || i || '"' ELSE 'n_' || i END AS name,
         CASE WHEN i % 11 = 0 THEN NULL ELSE i * 0.25 END::numeric(10,2) AS amount,
         date '2024-01-01' + i % 365 AS day
  FROM generate_series(0, 20099) i;
CREATE VIEW model_json AS SELECT i AS id, 'j_' || i AS s FROM generate_series(0, 19999) i;
CREATE VIEW model_text AS SELECT 't_' || i AS line FROM generate_series(0, 19999) i;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET tablescan.enable_aggregate_pushdown = off;
-- parts of 64 kB: the 600 kB CSV file is ten tasks, its gzip file one
SET tablescan.parallel_task_size = '64kB';

-- the plan: a Parallel Foreign Scan of many tasks
CREATE FUNCTION parallel_tasks(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  line text;
  parallel boolean := false;
  tasks text := 'none';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%Parallel Foreign Scan%' THEN parallel := true; END IF;
    IF line LIKE '%Parallel Tasks:%' THEN tasks := substring(line FROM 'Parallel Tasks: (\d+)'); END IF;
  END LOOP;
  RETURN CASE WHEN parallel THEN 'parallel, tasks ' || tasks ELSE 'serial' END;
END $$;
SELECT parallel_tasks('SELECT * FROM split_csv') AS csv,
       parallel_tasks('SELECT * FROM split_json') AS json,
       parallel_tasks('SELECT * FROM split_text') AS text;

-- rows of table t not in model m and of m not in t (multisets), read in
-- parallel and serially
CREATE FUNCTION diff(t text, m text, OUT how text, OUT rows bigint, OUT missing bigint, OUT extra bigint)
RETURNS SETOF record LANGUAGE plpgsql AS $$
BEGIN
  FOR how IN SELECT unnest(ARRAY['parallel', 'serial']) LOOP
    PERFORM set_config('max_parallel_workers_per_gather', CASE how WHEN 'parallel' THEN '2' ELSE '0' END, true);
    EXECUTE format('SELECT count(*) FROM %I', t) INTO rows;
    EXECUTE format('SELECT count(*) FROM (SELECT * FROM %I EXCEPT ALL SELECT * FROM %I) d', m, t) INTO missing;
    EXECUTE format('SELECT count(*) FROM (SELECT * FROM %I EXCEPT ALL SELECT * FROM %I) d', t, m) INTO extra;
    RETURN NEXT;
  END LOOP;
  PERFORM set_config('max_parallel_workers_per_gather', '2', true);
END $$;
SELECT 'csv' AS t, * FROM diff('split_csv', 'model_csv');
SELECT 'json' AS t, * FROM diff('split_json', 'model_json');
SELECT 'text' AS t, * FROM diff('split_text', 'model_text');

-- parts of other sizes, down to 1 kB (a part may hold no line start at all)
CREATE FUNCTION diff_at(part text, OUT tasks text, OUT missing bigint, OUT extra bigint) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('tablescan.parallel_task_size', part, true);
  tasks := parallel_tasks('SELECT * FROM split_csv');
  SELECT count(*) INTO missing FROM (SELECT * FROM model_csv EXCEPT ALL SELECT * FROM split_csv) d;
  SELECT count(*) INTO extra FROM (SELECT * FROM split_csv EXCEPT ALL SELECT * FROM model_csv) d;
END $$;
SELECT part, (diff_at(part)).* FROM (VALUES ('1kB'), ('7kB'), ('200kB')) v(part);
SET tablescan.parallel_task_size = '64kB';

-- records spanning lines in every seventh row (quoted line breaks, \n and
-- \r\n, with doubled quotes or an escaped quote), and quotes inside
-- unquoted fields: a CSV part starts only where a record starts, the first
-- after each nominal cut (found by a pass over the file, following the
-- reader's rules), so a parallel read returns exactly the rows of the
-- serial read and of the model, in as many parts as planned
CREATE VIEW model_multiline AS
  SELECT i AS id, CASE WHEN i % 7 = 3 THEN 'l"' || i || E'"\nbreak'
                       WHEN i % 7 = 5 THEN 'e"' || i || E'\nz'
                       WHEN i % 7 = 6 THEN 'q"' || i
                       WHEN i % 5 = 0 THEN 'n,"' || i || '"' ELSE 'n_' || i END AS name,
         CASE WHEN i % 11 = 0 THEN NULL ELSE i * 0.25 END::numeric(10,2) AS amount,
         date '2024-01-01' + i % 365 AS day
  FROM generate_series(0, 19999) i;
SELECT 'multiline' AS t, * FROM diff('split_multiline', 'model_multiline');
-- at parts of several sizes: the planned tasks, the parts read (EXPLAIN
-- ANALYZE's Files Read, summed over the processes), and the count and md5
-- of the ordered rows read in parallel against those read serially
CREATE FUNCTION read_in_parts(part text, OUT tasks text, OUT parts_read int, OUT rows bigint,
                              OUT same_as_serial boolean) LANGUAGE plpgsql AS $$
DECLARE
  plan jsonb;
  serial text;
  parallel text;
  q text := 'SELECT count(*) || '' '' || md5(string_agg(t::text, ''|'' ORDER BY id)) FROM split_multiline t';
BEGIN
  PERFORM set_config('tablescan.parallel_task_size', part, true);
  tasks := parallel_tasks('SELECT * FROM split_multiline');
  EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) SELECT * FROM split_multiline'
    INTO plan;
  parts_read := jsonb_path_query_first(plan, 'strict $.**."Files Read"')::int;
  EXECUTE q INTO parallel;
  PERFORM set_config('max_parallel_workers_per_gather', '0', true);
  EXECUTE q INTO serial;
  PERFORM set_config('max_parallel_workers_per_gather', '2', true);
  rows := split_part(parallel, ' ', 1)::bigint;
  same_as_serial := parallel = serial;
END $$;
SELECT part, (read_in_parts(part)).* FROM (VALUES ('1kB'), ('3kB'), ('64kB'), ('16MB')) v(part);
SET tablescan.parallel_task_size = '64kB';
RESET max_parallel_workers_per_gather;
DROP VIEW model_csv, model_json, model_text, model_multiline;
DROP FUNCTION read_in_parts(text), diff_at(text), diff(text, text), parallel_tasks(text);
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
