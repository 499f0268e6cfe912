-- Schema evolution by field id: files written under schema 0 read through
-- schema 1 (name renamed to full_name, old_col dropped, extra added,
-- amount widened INT -> BIGINT).  Rows 0-9 are in schema-0 files, 10-19 in
-- schema-1 files.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA types LIMIT TO (evolve) FROM SERVER lake INTO public;
\d evolve
SELECT * FROM evolve ORDER BY id;
SELECT schema_id, count(*), sum(row_count) FROM tablescan_files('evolve') GROUP BY 1 ORDER BY 1;

-- independent check: values follow the generator's formulas
SELECT count(*) AS wrong FROM evolve
 WHERE full_name IS DISTINCT FROM 'name_' || id
    OR amount IS DISTINCT FROM id::bigint
    OR extra IS DISTINCT FROM (CASE WHEN id < 10 THEN NULL ELSE id * 1.25 END);

-- time travel to snapshot 1 reads with that snapshot's schema (schema 0)
CREATE FOREIGN TABLE evolve_s1 (id int, name text, amount int, old_col text) SERVER lake
  OPTIONS (database 'types', "table" 'evolve', "scan.snapshot-id" '1');
SELECT count(*), min(id), max(id), count(name), count(old_col) FROM evolve_s1;
-- a column of the old schema that the latest one dropped is unknown there
CREATE FOREIGN TABLE evolve_old (old_col text) SERVER lake
  OPTIONS (database 'types', "table" 'evolve');
SELECT * FROM evolve_old;

DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
