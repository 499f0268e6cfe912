-- Index manifests are metadata an attacker who can write files in the
-- warehouse controls: the btree global-index files and deletion-vector files
-- they name must stay inside the table (or under an external root a
-- privileged role declared) for a role without pg_read_server_files.  Each
-- hostile copy (test/security_index_fixtures.sh: ../ and absolute names, a
-- symbolic link in index/, external paths outside the table, with and
-- without ..) is an ERROR before anything outside is read; the file they
-- point at is not an index, so a read of it would fail to decode instead.
CREATE EXTENSION tablescan_fdw;
\set VERBOSITY terse
\! bash test/security_index_fixtures.sh /tmp/ts_security_index

CREATE SERVER wh FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/tmp/ts_security_index/wh');
CREATE ROLE regress_ts_index_reader;
GRANT USAGE ON FOREIGN SERVER wh TO regress_ts_index_reader;
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['bt', 'bt_dotdot', 'bt_abs', 'bt_link', 'bt_ext', 'bt_ext_dotdot'] LOOP
    EXECUTE format('CREATE FOREIGN TABLE %I (id int, name text, v bigint) SERVER wh OPTIONS (database %L, "table" %L)',
                   t, 'db', t);
  END LOOP;
  FOREACH t IN ARRAY ARRAY['dv', 'dv_dotdot', 'dv_abs', 'dv_link'] LOOP
    EXECUTE format('CREATE FOREIGN TABLE %I (id int, p int, v text) SERVER wh OPTIONS (database %L, "table" %L, "scan.snapshot-id" %L)',
                   t, 'db', t, '8');
  END LOOP;
END $$;
\getenv fixtures TS_FIXTURES
\set fixture_wh :fixtures/warehouse
CREATE SERVER fixture FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'fixture_wh');
CREATE FOREIGN TABLE dv_orig (id int, p int, v text) SERVER fixture
  OPTIONS (database 'pk', "table" 'pk_dedup_dv', "scan.snapshot-id" '8');
GRANT SELECT ON dv_orig TO regress_ts_index_reader;
GRANT USAGE ON FOREIGN SERVER fixture TO regress_ts_index_reader;
GRANT SELECT ON bt, bt_dotdot, bt_abs, bt_link, bt_ext, bt_ext_dotdot, dv, dv_dotdot, dv_abs, dv_link
  TO regress_ts_index_reader;
-- the error of a query, the directory of the copies shown as <dir>
CREATE FUNCTION error_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || regexp_replace(replace(SQLERRM, '/tmp/ts_security_index', '<dir>'),
                                            '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', 'UUID', 'g');
END $$;
GRANT EXECUTE ON FUNCTION error_of(text) TO regress_ts_index_reader;

SET ROLE regress_ts_index_reader;
-- the untouched copies read as usual: the btree index finds row 123 (id i
-- has name 'name_' || i and v i * 1000000007), and snapshot 8 with its
-- deletion vectors gives the rows the fixture itself gives
SELECT id, name, v FROM bt WHERE name = 'name_123';
SELECT count(*) > 0 AS rows, count(*) = (SELECT count(*) FROM dv_orig) AND sum(id) = (SELECT sum(id) FROM dv_orig)
       AS same_as_fixture FROM dv;
-- btree global-index files named outside the table
SELECT error_of('SELECT id FROM bt_dotdot WHERE name = ''name_123''') AS dotdot;
SELECT error_of('SELECT id FROM bt_abs WHERE name = ''name_123''') AS absolute;
SELECT error_of('SELECT id FROM bt_link WHERE name = ''name_123''') AS symlink;
SELECT error_of('SELECT id FROM bt_ext WHERE name = ''name_123''') AS external;
SELECT error_of('SELECT id FROM bt_ext_dotdot WHERE name = ''name_123''') AS external_dotdot;
-- with the index off, nothing reads it: the rows
SET tablescan.enable_file_index = off;
SELECT id FROM bt_link WHERE name = 'name_123';
SELECT id FROM bt_ext WHERE name = 'name_123';
RESET tablescan.enable_file_index;
-- deletion-vector files named outside the table
SELECT error_of('SELECT sum(id) FROM dv_dotdot') AS dv_dotdot;
SELECT error_of('SELECT sum(id) FROM dv_abs') AS dv_absolute;
SELECT error_of('SELECT sum(id) FROM dv_link') AS dv_symlink;
RESET ROLE;

-- a superuser reads the same files (its scope is the server's): the outside
-- file is then read, and is no index
SELECT error_of('SELECT id FROM bt_ext WHERE name = ''name_123''') AS external_superuser;

DROP FUNCTION error_of(text);
DROP SERVER wh CASCADE;
DROP SERVER fixture CASCADE;
DROP ROLE regress_ts_index_reader;
\! rm -rf /tmp/ts_security_index
DROP EXTENSION tablescan_fdw;
