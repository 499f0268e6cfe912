-- Bad input ends in an ERROR that names the file and what was wrong, and
-- the session goes on (each statement below runs in the same backend).
CREATE EXTENSION tablescan_fdw;
CREATE SERVER broken FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '/tmp/tablescan_fdw_fixtures/nowhere');
\set VERBOSITY default
CREATE FUNCTION try(name text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE FOREIGN TABLE %I (id int, name text) SERVER broken OPTIONS (path %L)',
                 'b_' || name, '/tmp/tablescan_fdw_fixtures/broken/' || name);
  BEGIN
    EXECUTE format('SELECT count(id) FROM %I', 'b_' || name);
  EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
  END;
  RETURN 'no error';
END $$;
SELECT name, try(name) FROM (VALUES ('no_schema'), ('bad_schema'), ('truncated_schema'),
  ('bad_latest'), ('missing_list'), ('truncated_manifest'), ('corrupt_manifest'),
  ('missing_data'), ('truncated_data'), ('empty_data'), ('bad_zstd'),
  ('unreadable_data')) v(name);
-- a missing table and a missing warehouse
CREATE FOREIGN TABLE nosuch (id int) SERVER broken OPTIONS (database 'd', "table" 'nosuch');
SELECT * FROM nosuch;
-- a file where a directory is expected
CREATE FOREIGN TABLE notdir (id int) SERVER broken
  OPTIONS (path '/tmp/tablescan_fdw_fixtures/warehouse/sales.db/orders/schema/schema-0');
SELECT * FROM notdir;
-- a database/table name that resolves outside the warehouse (a symbolic link)
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '/tmp/tablescan_fdw_fixtures/warehouse');
CREATE FOREIGN TABLE escape (id int) SERVER lake OPTIONS (database 'links', "table" 'escape');
SELECT count(*) FROM escape;
-- the backend survived all of it
SELECT 1 AS alive;
DROP FUNCTION try(text);
DROP SERVER broken CASCADE;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
