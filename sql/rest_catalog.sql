-- A Paimon REST catalog (catalog 'rest'): tables, their locations and format-table schemas
-- from the catalog (test/rest/server.mjs, started by the test command), bearer token from
-- the user mapping, paged listings, errors naming the endpoint.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
\getenv rest_uri TS_REST_URI
\getenv rest_token TS_REST_TOKEN
\set VERBOSITY terse
SELECT :'rest_uri' LIKE 'http://127.0.0.1:%' AS catalog_running;

CREATE SERVER cat FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri :'rest_uri', warehouse 'test');
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
-- no token: the catalog refuses, and the error names the endpoint
CREATE FOREIGN TABLE nouser (id int) SERVER cat OPTIONS (database 'sales', "table" 'orders');
SELECT count(*) FROM nouser;
DROP FOREIGN TABLE nouser;
CREATE USER MAPPING FOR CURRENT_USER SERVER cat OPTIONS (token 'wrong');
IMPORT FOREIGN SCHEMA sales FROM SERVER cat INTO public;
ALTER USER MAPPING FOR CURRENT_USER SERVER cat OPTIONS (SET token :'rest_token');

-- IMPORT lists the catalog's tables (two per page here) and takes each schema from it
CREATE SCHEMA via_cat;
CREATE SCHEMA via_dir;
IMPORT FOREIGN SCHEMA sales FROM SERVER cat INTO via_cat;
IMPORT FOREIGN SCHEMA sales FROM SERVER lake INTO via_dir;
SELECT foreign_table_name FROM information_schema.foreign_tables
 WHERE foreign_table_schema = 'via_cat' ORDER BY 1;
SELECT (SELECT array_agg(attname || ' ' || format_type(atttypid, atttypmod) ORDER BY attnum)
          FROM pg_attribute WHERE attrelid = 'via_cat.orders'::regclass AND attnum > 0) =
       (SELECT array_agg(attname || ' ' || format_type(atttypid, atttypmod) ORDER BY attnum)
          FROM pg_attribute WHERE attrelid = 'via_dir.orders'::regclass AND attnum > 0) AS same_columns;

-- the same rows as the table read from its directory, and the same pruning
SELECT (SELECT count(*) FROM via_cat.orders) = (SELECT count(*) FROM via_dir.orders) AS same_count,
       (SELECT sum(amount) FROM via_cat.orders WHERE dt = 'dt_1') =
       (SELECT sum(amount) FROM via_dir.orders WHERE dt = 'dt_1') AS same_sum;
-- EXPLAIN names the catalog (its uri, here with a port that varies: replaced) and the table
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS
$$BEGIN RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || q; END$$;
SELECT replace(l, :'rest_uri', '<uri>') AS plan
  FROM explain_lines($$SELECT * FROM via_cat.orders WHERE dt = 'dt_1'$$) l;
SELECT count(*) FROM via_cat.customers;

-- a format table whose schema lives only in the catalog
IMPORT FOREIGN SCHEMA ft LIMIT TO (events_rest) FROM SERVER cat INTO via_cat;
\d via_cat.events_rest
SELECT obj_description('via_cat.events_rest'::regclass, 'pg_class') AS comment;
SELECT * FROM via_cat.events_rest ORDER BY id;
SELECT region, sum(amount) FROM via_cat.events_rest WHERE region = 'eu' GROUP BY region;
SELECT * FROM tablescan_partitions('via_cat.events_rest');
SELECT replace(l, :'rest_uri', '<uri>') AS plan
  FROM explain_lines('SELECT * FROM via_cat.events_rest') l;

-- errors: a table or database the catalog does not have
CREATE FOREIGN TABLE missing (id int) SERVER cat OPTIONS (database 'sales', "table" 'nosuch');
SELECT * FROM missing;
IMPORT FOREIGN SCHEMA nosuch FROM SERVER cat INTO via_cat;
-- 429 (Retry-After: 1) and 503 (Retry-After: 0) are retried: the rows arrive
CREATE FOREIGN TABLE flaky (id int) SERVER cat OPTIONS (database 'trouble', "table" 'flaky');
SELECT (SELECT count(*) FROM flaky) = (SELECT count(*) FROM via_cat.customers) AS same_count;
-- a catalog that stays unavailable: an error once the retries are spent
CREATE FOREIGN TABLE down (id int) SERVER cat OPTIONS (database 'trouble', "table" 'down');
SELECT count(*) FROM down;
-- the catalog names a schema id the table's location does not have
CREATE FOREIGN TABLE badschema (id int) SERVER cat OPTIONS (database 'trouble', "table" 'badschema');
SELECT count(*) FROM badschema;
-- refused credentials: said in words, the token never shown
ALTER USER MAPPING FOR CURRENT_USER SERVER cat OPTIONS (SET token 'not-the-token');
\set VERBOSITY default
SELECT count(*) FROM flaky;
\set VERBOSITY terse
ALTER USER MAPPING FOR CURRENT_USER SERVER cat OPTIONS (SET token :'rest_token');
-- DLF request signing is refused by name
CREATE SERVER dlf FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri :'rest_uri', "token.provider" 'dlf');
CREATE FOREIGN TABLE dlf_t (id int) SERVER dlf OPTIONS (database 'sales', "table" 'orders');
SELECT count(*) FROM dlf_t;
DROP SERVER dlf CASCADE;
-- options are checked when set
CREATE SERVER bad FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (catalog 'hive');
CREATE SERVER bad FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (catalog 'rest', uri 'ftp://x');
CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (nosuch 'x');
-- a role without pg_read_server_files cannot point a server at a catalog
CREATE ROLE regress_ts_rest;
GRANT USAGE ON FOREIGN DATA WRAPPER tablescan_fdw TO regress_ts_rest;
SET ROLE regress_ts_rest;
CREATE SERVER mine FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (catalog 'rest', uri 'http://127.0.0.1:1');
RESET ROLE;
REVOKE USAGE ON FOREIGN DATA WRAPPER tablescan_fdw FROM regress_ts_rest;
DROP ROLE regress_ts_rest;

DROP FUNCTION explain_lines(text);
DROP SCHEMA via_cat, via_dir CASCADE;
DROP SERVER cat CASCADE;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
