-- Object store servers on a shared PostgreSQL (trust issue, items 7 and 12),
-- against the test S3 store (test/s3/start.sh, as sql/s3.sql): a warehouse
-- with trailing slashes reads as without them, and through a view the view
-- owner's user mapping is used (as postgres_fdw: the role the view's scan
-- checks access as), at planning and at execution.
CREATE EXTENSION tablescan_fdw;
\getenv s3_endpoint TS_S3_ENDPOINT
\getenv rest_uri TS_REST_URI
\getenv rest_token TS_REST_TOKEN
\set VERBOSITY terse
SELECT :'s3_endpoint' LIKE 'http://127.0.0.1:%' AS store_running;

CREATE SERVER s3_lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://lake/wh', "s3.endpoint" :'s3_endpoint', "s3.path.style.access" 'true');
CREATE SERVER s3_slash FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://lake/wh/', "s3.endpoint" :'s3_endpoint', "s3.path.style.access" 'true');
CREATE SERVER s3_slashes FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://lake/wh//', "s3.endpoint" :'s3_endpoint', "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3_lake
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3_slash
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3_slashes
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');

-- 7. the same tables and rows with and without the trailing slash (IMPORT lists them)
CREATE SCHEMA plain;
CREATE SCHEMA slash;
CREATE SCHEMA slashes;
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders, customers) FROM SERVER s3_lake INTO plain;
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders, customers) FROM SERVER s3_slash INTO slash;
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders, customers) FROM SERVER s3_slashes INTO slashes;
SELECT foreign_table_schema, foreign_table_name FROM information_schema.foreign_tables
 WHERE foreign_table_schema IN ('slash', 'slashes') ORDER BY 1, 2;
SELECT count(*) AS n, sum(hashtext(t::text)) AS h FROM plain.orders t \gset
SELECT count(*) = :n AS same_count, sum(hashtext(t::text)) = :h AS same_rows FROM slash.orders t;
SELECT count(*) = :n AS same_count, sum(hashtext(t::text)) = :h AS same_rows FROM slashes.orders t;
SELECT (SELECT count(*) FROM slash.customers) = (SELECT count(*) FROM plain.customers) AS same_customers;
-- a foreign table declared by hand on the slashed server
CREATE FOREIGN TABLE slash.orders_by_name (id int, dt text) SERVER s3_slash
  OPTIONS (database 'sales', "table" 'orders');
SELECT count(*) = :n AS same_count FROM slash.orders_by_name;

-- 13. one file system per scan (issue 37): two servers with their own user
-- mappings read in one query, each with its own keys.  A server whose keys the
-- store refuses fails the query whichever side of the join it is on (its scan
-- never borrows the other server's keys), and the servers with good keys read
-- on afterwards.
CREATE SERVER s3_wrong_key FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse 's3://lake/wh', "s3.endpoint" :'s3_endpoint', "s3.path.style.access" 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER s3_wrong_key
  OPTIONS ("s3.access-key" 'AKIDWRONGKEY', "s3.secret-key" 'wrong-secret-9f3a');
CREATE SCHEMA wrong;
CREATE FOREIGN TABLE wrong.orders (id int, dt text) SERVER s3_wrong_key
  OPTIONS (database 'sales', "table" 'orders');
SELECT count(*) = :n AS both_servers_read
  FROM plain.orders p JOIN slash.orders_by_name s USING (id);
SELECT count(*) FROM plain.orders p JOIN wrong.orders w USING (id);
SELECT count(*) FROM wrong.orders w JOIN slash.orders_by_name s USING (id);
SELECT count(*) = :n AS good_keys_still_read
  FROM slash.orders_by_name s JOIN plain.orders p USING (id);
DROP SCHEMA wrong CASCADE;
DROP SERVER s3_wrong_key CASCADE;

-- 12. views: the owner's user mapping, whoever queries
CREATE ROLE regress_ts_owner;
CREATE ROLE regress_ts_caller;
GRANT USAGE ON FOREIGN SERVER s3_lake TO regress_ts_owner, regress_ts_caller;
GRANT USAGE, CREATE ON SCHEMA plain TO regress_ts_owner, regress_ts_caller;
GRANT SELECT ON plain.orders TO regress_ts_owner, regress_ts_caller;
-- the owner has a mapping; the caller none (and there is none FOR PUBLIC)
CREATE USER MAPPING FOR regress_ts_owner SERVER s3_lake
  OPTIONS ("s3.access-key" 'S3RVER', "s3.secret-key" 'S3RVER');
SET ROLE regress_ts_owner;
CREATE VIEW plain.v_owner AS SELECT * FROM plain.orders;
GRANT SELECT ON plain.v_owner TO regress_ts_caller;
RESET ROLE;
SET ROLE regress_ts_caller;
-- rows through the view (a scan, and count(*) from metadata)
SELECT count(*) = :n AS same_count, sum(hashtext(t::text)) = :h AS same_rows FROM plain.v_owner t;
SELECT count(*) = :n AS same_count FROM plain.v_owner;
SELECT count(*) = :n AS same_count FROM plain.v_owner WHERE dt >= 'dt_0';
-- but not the table itself
SELECT count(*) FROM plain.orders;
-- a view of the caller's: the caller's (missing) mapping, whoever queries
CREATE VIEW plain.v_caller AS SELECT * FROM plain.orders;
GRANT SELECT ON plain.v_caller TO regress_ts_owner;
RESET ROLE;
SET ROLE regress_ts_owner;
SELECT count(*) FROM plain.v_caller;
SELECT sum(hashtext(t::text)) = :h AS same_rows FROM plain.v_caller t;
SELECT count(*) = :n AS same_count FROM plain.orders;
RESET ROLE;
-- executed again from the same plan: the owner's mapping each time
SET ROLE regress_ts_caller;
PREPARE through_view AS SELECT count(*) = :n FROM plain.v_owner;
EXECUTE through_view;
EXECUTE through_view;
DEALLOCATE through_view;
RESET ROLE;

-- the same for a REST catalog's token: the owner's, through the owner's view
CREATE SERVER cat FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri :'rest_uri', warehouse 'test');
CREATE USER MAPPING FOR CURRENT_USER SERVER cat OPTIONS (token :'rest_token');
CREATE USER MAPPING FOR regress_ts_owner SERVER cat OPTIONS (token :'rest_token');
CREATE SCHEMA via_cat;
IMPORT FOREIGN SCHEMA sales LIMIT TO (orders) FROM SERVER cat INTO via_cat;
GRANT USAGE ON FOREIGN SERVER cat TO regress_ts_owner, regress_ts_caller;
GRANT USAGE ON SCHEMA via_cat TO regress_ts_owner, regress_ts_caller;
GRANT SELECT ON via_cat.orders TO regress_ts_owner, regress_ts_caller;
SELECT count(*) AS cat_n FROM via_cat.orders \gset
-- the catalog's table is on the server's file system: read for roles that may read server
-- files, and through a view that is checked for the owner (as its token), not the caller
GRANT pg_read_server_files TO regress_ts_owner;
SET ROLE regress_ts_owner;
CREATE VIEW plain.v_cat AS SELECT * FROM via_cat.orders;
GRANT SELECT ON plain.v_cat TO regress_ts_caller;
RESET ROLE;
SET ROLE regress_ts_caller;
SELECT count(*) = :cat_n AS same_count FROM plain.v_cat;
-- without a token of its own, the catalog refuses the caller
SELECT count(*) FROM via_cat.orders;
RESET ROLE;

DROP SCHEMA via_cat CASCADE;
DROP SERVER cat CASCADE;
DROP SCHEMA plain, slash, slashes CASCADE;
DROP SERVER s3_lake, s3_slash, s3_slashes CASCADE;
DROP OWNED BY regress_ts_owner, regress_ts_caller;
DROP ROLE regress_ts_owner, regress_ts_caller;
DROP EXTENSION tablescan_fdw;
