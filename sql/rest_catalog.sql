-- A Paimon REST catalog (catalog 'rest'): tables, their locations and format-table schemas
-- from the catalog (test/rest/server.mjs, started by the test command), bearer token from
-- the user mapping, paged listings, errors naming the endpoint.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
\getenv rest_uri TS_REST_URI
\getenv rest_token TS_REST_TOKEN
\getenv token_log TS_REST_TOKEN_LOG
\getenv s3_endpoint TS_S3_ENDPOINT
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

-- a catalog format table's partitions come from the catalog (GET .../partitions, two per
-- page here): events_registered's catalog also knows partition apac, which has no files yet
IMPORT FOREIGN SCHEMA ft LIMIT TO (events_registered, events_501) FROM SERVER cat INTO via_cat;
SELECT * FROM tablescan_partitions('via_cat.events_registered');
SELECT region, count(*) FROM via_cat.events_registered GROUP BY region ORDER BY region;
-- the table's partition_filter applies to the catalog's list too
CREATE FOREIGN TABLE via_cat.registered_apac (id int, region text) SERVER cat
  OPTIONS (database 'ft', "table" 'events_registered', partition_filter '[{"region": "apac"}]');
SELECT * FROM tablescan_partitions('via_cat.registered_apac');
-- a catalog that answers 501 (not implemented): the file system's partitions
SELECT * FROM tablescan_partitions('via_cat.events_501');
-- IMPORT ... import_partitions: a leaf per partition the catalog lists (or the files show)
CREATE SCHEMA parts;
IMPORT FOREIGN SCHEMA ft LIMIT TO (events_registered, events_501) FROM SERVER cat INTO parts
  OPTIONS (import_partitions 'true');
SELECT c.relname, c.relkind, pg_get_expr(c.relpartbound, c.oid) AS bound
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'parts' ORDER BY 1;
SELECT region, count(*), sum(amount) FROM parts.events_registered GROUP BY region ORDER BY 1;
SELECT * FROM parts.events_501 ORDER BY id;
DROP SCHEMA parts CASCADE;

-- data tokens (the catalog's config says data-token.enabled): each table at s3:// is read
-- with its own token, cached in the backend and renewed when less than an hour is left
-- (Java's rule); the tokens of database "tokens" expire 1 h 6 s after they are issued.
-- The test catalog logs each token request (TS_REST_TOKEN_LOG).
CREATE SERVER cat_s3 FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri :'rest_uri', warehouse 'test', "s3.endpoint" :'s3_endpoint',
           "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER cat_s3 OPTIONS (token :'rest_token');
CREATE FUNCTION token_requests(log text, t text) RETURNS bigint LANGUAGE sql AS
$$SELECT count(*) FROM regexp_split_to_table(coalesce(pg_read_file(log, 0, 10000000, true), ''), E'\n') l
   WHERE l = 'token ' || t$$;
-- the catalog's token counts and log start over (a run before this one used them)
\set reset_tokens 'cat >/dev/null; curl -sf -o /dev/null -X POST "' :rest_uri '/__test/reset"'
COPY (SELECT 1) TO PROGRAM :'reset_tokens';
CREATE SCHEMA tok;
IMPORT FOREIGN SCHEMA tokens FROM SERVER cat_s3 INTO tok;
SELECT token_requests(:'token_log', 'tokens.fast') AS before_any_read;
SELECT (SELECT count(*) FROM tok.fast) = (SELECT count(*) FROM via_dir.orders) AS same_count;
SELECT (SELECT sum(amount) FROM tok.fast) = (SELECT sum(amount) FROM via_dir.orders) AS same_sum;
-- one token for both queries (and all their planning and scanning)
SELECT token_requests(:'token_log', 'tokens.fast') AS after_two_queries;
SELECT pg_sleep(6.5);
-- now less than an hour is left: renewed before the read
SELECT (SELECT count(*) FROM tok.fast) = (SELECT count(*) FROM via_dir.orders) AS same_count;
SELECT token_requests(:'token_log', 'tokens.fast') AS after_expiry;
-- another table of the same store gets a token of its own
SELECT (SELECT count(*) FROM tok.fast_customers) = (SELECT count(*) FROM via_dir.customers) AS same_count;
SELECT token_requests(:'token_log', 'tokens.fast_customers') AS customers_tokens;
-- a table whose own token the store refuses fails, though other tables hold good ones
SELECT count(*) FROM tok.badkey;
SELECT token_requests(:'token_log', 'tokens.badkey') AS badkey_tokens;
-- a renewal the catalog refuses is an ERROR, never a read with the old token
SELECT (SELECT count(*) FROM tok.refreshfail) = (SELECT count(*) FROM via_dir.orders) AS same_count;
SELECT pg_sleep(6.5);
\set VERBOSITY default
SELECT count(*) FROM tok.refreshfail;
\set VERBOSITY terse
SELECT token_requests(:'token_log', 'tokens.refreshfail') AS refreshfail_tokens;
-- the server's own "data-token.enabled" goes to the catalog as a client option (between its
-- defaults and overrides, as Java's): 'false' asks for no token, and the table is read with the
-- server's settings and the user mapping's keys (none here: anonymous, refused by the store)
CREATE SERVER cat_notoken FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri :'rest_uri', warehouse 'test', "s3.endpoint" :'s3_endpoint',
           "s3.path.style.access" 'true', "data-token.enabled" 'false');
CREATE USER MAPPING FOR CURRENT_USER SERVER cat_notoken OPTIONS (token :'rest_token');
CREATE FOREIGN TABLE notoken (id int) SERVER cat_notoken OPTIONS (database 'tokens', "table" 'fast');
SELECT count(*) FROM notoken;
SELECT token_requests(:'token_log', 'tokens.fast') AS fast_tokens_unchanged;
ALTER SERVER cat_notoken OPTIONS (SET "data-token.enabled" 'true');
SELECT (SELECT count(*) FROM notoken) = (SELECT count(*) FROM via_dir.orders) AS same_count_with_token;
ALTER SERVER cat_notoken OPTIONS (SET "data-token.enabled" 'yes');
DROP SERVER cat_notoken CASCADE;
DROP SCHEMA tok CASCADE;
DROP FUNCTION token_requests(text, text);
DROP SERVER cat_s3 CASCADE;

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
