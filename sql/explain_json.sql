-- EXPLAIN in JSON: every property that TEXT prints as a whole number is a
-- JSON number (json_typeof), and equals the number TEXT prints; the
-- properties TEXT prints as one line of several numbers ("Splits: 4 (raw
-- 0, merge 4, ...)") are separate numbers whose values TEXT's line names.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
\getenv shared TS_SHARED
\set shared_wh :shared/testdata/parquet
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'shared_wh');

-- the Foreign Scan node of a query's EXPLAIN (FORMAT JSON)
CREATE FUNCTION scan_json(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  j jsonb;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO j;
  RETURN jsonb_path_query_first(j, 'strict $.**?(@."Node Type" == "Foreign Scan")')::json;
END $$;
-- the "Label: value" lines of a query's EXPLAIN in TEXT
CREATE FUNCTION scan_text(q text) RETURNS TABLE (label text, value text) LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ '^\s+[A-Z][^:]*: ' THEN
      label := substring(line FROM '^\s+([^:]+): ');
      value := substring(line FROM '^\s+[^:]+: (.*)$');
      RETURN NEXT;
    END IF;
  END LOOP;
END $$;
-- every whole number TEXT prints: is it a number in JSON, the same one?
CREATE FUNCTION numbers_checked(q text) RETURNS TABLE (label text, json_type text, same boolean)
LANGUAGE sql AS $$
  SELECT t.label, json_typeof(scan_json(q) -> t.label),
         (scan_json(q) ->> t.label)::numeric = t.value::numeric
    FROM scan_text(q) t WHERE t.value ~ '^[0-9]+$' ORDER BY t.label
$$;
-- the parts of a several-number property in JSON: label, type, value
CREATE FUNCTION parts(q text, VARIADIC labels text[]) RETURNS TABLE (label text, json_type text, value text)
LANGUAGE sql AS $$
  SELECT l, json_typeof(scan_json(q) -> l), scan_json(q) ->> l FROM unnest(labels) WITH ORDINALITY u(l, o) ORDER BY o
$$;

-- a primary-key table: Snapshot, Limit; Splits as four numbers
CREATE FOREIGN TABLE levels (id int, p int, v text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_levels');
SELECT * FROM numbers_checked('SELECT * FROM levels LIMIT 3');
SELECT value FROM scan_text('SELECT * FROM levels') WHERE label = 'Splits';
SELECT * FROM parts('SELECT * FROM levels', 'Splits', 'Splits Raw', 'Splits Merge',
                    'Splits With Deletion Vectors');
-- the text line and the parts agree
SELECT format('%s (raw %s, merge %s, with deletion vectors %s)', j ->> 'Splits', j ->> 'Splits Raw',
              j ->> 'Splits Merge', j ->> 'Splits With Deletion Vectors')
       = (SELECT value FROM scan_text('SELECT * FROM levels') WHERE label = 'Splits') AS splits_agree
  FROM scan_json('SELECT * FROM levels') j;

-- incremental-between: the snapshot range as two numbers
CREATE FOREIGN TABLE inc (id int, p int, v text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_levels', "incremental-between" '1,2');
SELECT value FROM scan_text('SELECT * FROM inc') WHERE label = 'Incremental';
SELECT * FROM parts('SELECT * FROM inc', 'Incremental After Snapshot', 'Incremental To Snapshot');

-- scan.shard: shard K of N as numbers, the rule as text
CREATE FOREIGN TABLE shard (id int, p int, v text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_dedup_levels', "scan.shard" '2/3');
SELECT * FROM parts('SELECT * FROM shard', 'Shard', 'Shard Count', 'Shard Rule', 'Shard Files Kept',
                    'Other Shards'' Files');
SELECT format('%s of %s (%s, kept %s files, other shards'' %s)', j ->> 'Shard', j ->> 'Shard Count',
              j ->> 'Shard Rule', j ->> 'Shard Files Kept', j ->> 'Other Shards'' Files')
       = (SELECT value FROM scan_text('SELECT * FROM shard') WHERE label = 'Shard') AS shard_agrees
  FROM scan_json('SELECT * FROM shard') j;

-- quals on _ROW_ID: the row ids and their ranges
CREATE FOREIGN TABLE de (f0 text, row_id bigint OPTIONS (column_name '_ROW_ID')) SERVER shared
  OPTIONS (database 'data_evolution_with_index', "table" 'data_evolution_with_index');
SELECT value FROM scan_text('SELECT f0 FROM de WHERE row_id IN (1, 3, 4)') WHERE label = 'Row IDs';
SELECT * FROM parts('SELECT f0 FROM de WHERE row_id IN (1, 3, 4)', 'Row IDs', 'Row ID Ranges');

-- scan.fallback-branch: the branch as text, the partitions read as numbers
IMPORT FOREIGN SCHEMA append_table_with_rt_branch FROM SERVER shared INTO public;
SELECT value FROM scan_text('SELECT * FROM append_table_with_rt_branch') WHERE label = 'Fallback Branch';
SELECT * FROM parts('SELECT * FROM append_table_with_rt_branch', 'Fallback Branch',
                    'Partitions From This Branch', 'Partitions From Fallback Branch');
SELECT * FROM numbers_checked('SELECT * FROM append_table_with_rt_branch');

-- a parallel scan: Parallel Tasks
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT json_typeof(scan_json('SELECT * FROM levels') -> 'Parallel Tasks') AS parallel_tasks;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- YAML prints numbers unquoted, text quoted
CREATE FUNCTION yaml_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  y text;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT YAML, COSTS OFF) ' || q INTO y;
  RETURN QUERY SELECT trim(l) FROM regexp_split_to_table(y, E'\n') l
    WHERE trim(l) ~ '^"?(Snapshot|Limit|Splits|Splits Raw|Paimon Table)"?:';
END $$;
SELECT * FROM yaml_lines('SELECT * FROM levels LIMIT 3');

DROP FUNCTION yaml_lines(text);
DROP FUNCTION parts(text, text[]);
DROP FUNCTION numbers_checked(text);
DROP FUNCTION scan_text(text);
DROP FUNCTION scan_json(text);
DROP SERVER lake CASCADE;
DROP SERVER shared CASCADE;
DROP EXTENSION tablescan_fdw;
