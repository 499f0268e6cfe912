-- Bad input ends in an ERROR that names the file and what was wrong, and
-- the session goes on (each statement below runs in the same backend).
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
\set nowhere :fixtures/nowhere
CREATE SERVER broken FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'nowhere');
\set VERBOSITY default
CREATE FUNCTION try(name text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE FOREIGN TABLE %I (id int, name text) SERVER broken OPTIONS (path %L)',
                 'b_' || name, current_setting('regress.fixtures') || '/broken/' || name);
  BEGIN
    EXECUTE format('SELECT count(id) FROM %I', 'b_' || name);
  EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || replace(SQLERRM, current_setting('regress.fixtures'), '<fixtures>');
  END;
  RETURN 'no error';
END $$;
SELECT name, try(name) FROM (VALUES ('no_schema'), ('bad_schema'), ('truncated_schema'),
  ('bad_latest'), ('missing_list'), ('truncated_manifest'), ('corrupt_manifest'),
  ('missing_data'), ('truncated_data'), ('empty_data'), ('bad_zstd'),
  ('unreadable_data')) v(name);
-- a missing table and a missing warehouse
CREATE FOREIGN TABLE nosuch (id int) SERVER broken OPTIONS (database 'd', "table" 'nosuch');
SELECT pg_temp.error_of('SELECT * FROM nosuch');
-- a file where a directory is expected
\set path :warehouse/sales.db/orders/schema/schema-0
CREATE FOREIGN TABLE notdir (id int) SERVER broken
  OPTIONS (path :'path');
SELECT pg_temp.error_of('SELECT * FROM notdir');
-- a database/table name that resolves outside the warehouse (a symbolic link)
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
CREATE FOREIGN TABLE escape (id int) SERVER lake OPTIONS (database 'links', "table" 'escape');
SELECT pg_temp.error_of('SELECT count(*) FROM escape');
-- the backend survived all of it
SELECT 1 AS alive;
DROP FUNCTION try(text);
DROP SERVER broken CASCADE;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
