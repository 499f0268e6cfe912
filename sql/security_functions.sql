-- The SQL functions taking a table, tried as an unprivileged role and as a
-- careless user: each takes only a foreign table of tablescan_fdw that the
-- caller may SELECT from, tablescan_create_sharded drops no table but its
-- own coordinator, and a foreign table cannot make a read-only server
-- ("updatable" 'false') writable.
CREATE EXTENSION tablescan_fdw;
\set VERBOSITY terse

\! rm -rf /tmp/ts_secfn && mkdir -p /tmp/ts_secfn/wh/db.db /tmp/ts_secfn/outside
\! cp -r "$TS_FIXTURES"/warehouse/sales.db/orders /tmp/ts_secfn/wh/db.db/orders
\! cp -r "$TS_FIXTURES"/warehouse/sales.db/orders /tmp/ts_secfn/outside/orders
CREATE SERVER wh FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/tmp/ts_secfn/wh');
CREATE FOREIGN TABLE orders (id int, dt text) SERVER wh OPTIONS (database 'db', "table" 'orders');
-- a wrapper without handler or validator: nobody checks its options
CREATE FOREIGN DATA WRAPPER regress_loose;
CREATE SERVER loose FOREIGN DATA WRAPPER regress_loose;
CREATE ROLE regress_ts_fn;
GRANT USAGE ON FOREIGN SERVER wh, loose TO regress_ts_fn;
GRANT CREATE ON SCHEMA public TO regress_ts_fn;
GRANT SELECT, INSERT, UPDATE, DELETE ON tablescan_consumers TO regress_ts_fn;

-- 1. a foreign table of another wrapper is not read as a Paimon table: its
-- "path" would name any directory without pg_read_server_files
SET ROLE regress_ts_fn;
CREATE FOREIGN TABLE sneaky (id int, dt text) SERVER loose OPTIONS (path '/tmp/ts_secfn/outside/orders');
SELECT count(*) FROM tablescan_files('sneaky');
SELECT count(*) FROM tablescan_manifests('sneaky');
SELECT count(*) FROM tablescan_manifest_entries('sneaky');
SELECT count(*) FROM tablescan_partitions('sneaky');
SELECT tablescan_bucket('sneaky', 1);
SELECT tablescan_wait_for_snapshot('sneaky', 0, '0 s');
SELECT count(*) FROM tablescan_changes(NULL::sneaky, from_snapshot => 1);
SELECT count(*) FROM tablescan_changes(NULL::sneaky, consumer => 'c', paimon_consumer => true);
SELECT tablescan_consumer_reset('sneaky', 'c', 1);
SELECT tablescan_consumer_drop('sneaky', 'c');
RESET ROLE;
SELECT count(*) AS positions FROM tablescan_consumers;
-- nothing was written beside the copy outside the warehouse
\! find /tmp/ts_secfn/outside -name 'consumer*'
-- the same table's files, read by tablescan_fdw, are there to be found
SELECT count(*) > 0 AS has_files FROM tablescan_files('orders');

-- 2. moving or dropping a consumer needs SELECT on its table, as reading it does
SELECT tablescan_consumer_reset('orders', 'owners', 2);
SET ROLE regress_ts_fn;
SELECT tablescan_consumer_reset('orders', 'owners', 1);
SELECT tablescan_consumer_drop('orders', 'owners');
RESET ROLE;
SELECT consumer, next_snapshot FROM tablescan_consumers;
SELECT tablescan_consumer_drop('pg_class', 'owners');
SELECT tablescan_consumer_drop('orders', 'owners');

-- 3. tablescan_create_sharded re-creates its coordinator table, and no other
-- table of the name it is given (a loopback postgres_fdw server is the worker)
CREATE EXTENSION dblink;
CREATE EXTENSION postgres_fdw;
DO $$ BEGIN
  EXECUTE format('CREATE SERVER worker1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host %L, port %L, dbname %L)',
                 split_part(current_setting('unix_socket_directories'), ',', 1),
                 current_setting('port'), current_database());
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER worker1;
CREATE TABLE keepme (x int);
INSERT INTO keepme VALUES (42);
SELECT tablescan_create_sharded('orders', ARRAY['worker1'], coordinator => 'keepme');
SELECT * FROM keepme;
CREATE VIEW orders_sharded AS SELECT 1 AS x;
SELECT tablescan_create_sharded('orders', ARRAY['worker1']);
SELECT * FROM orders_sharded;
DROP VIEW orders_sharded;
-- its own coordinator it re-creates (re-sharding): the rows are the table's
SET client_min_messages = warning;
SELECT tablescan_create_sharded('orders', ARRAY['worker1']);
SELECT tablescan_create_sharded('orders', ARRAY['worker1']);
RESET client_min_messages;
SELECT (SELECT count(*) FROM orders_sharded) = (SELECT count(*) FROM orders) AS same_rows;

-- 4. a server made read-only ("updatable" 'false') stays so for a role
-- that creates its own foreign table with "updatable" 'true'
\! bash test/writes-schema.sh /tmp/ts_secfn/w /tmp/ts_secfn/w_out "$TS_FIXTURES"
CREATE SERVER ro_lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/tmp/ts_secfn/w', updatable 'false');
GRANT USAGE ON FOREIGN SERVER ro_lake TO regress_ts_fn;
SET ROLE regress_ts_fn;
CREATE FOREIGN TABLE mine (id int, name text, k int) SERVER ro_lake
  OPTIONS (database 'w', "table" 'big', updatable 'true');
INSERT INTO mine VALUES (1, 'by regress_ts_fn', 1);
COPY mine FROM STDIN;
2	copied	2
\.
SELECT count(*) FROM tablescan_changes(NULL::mine, consumer => 'c', paimon_consumer => true);
RESET ROLE;
SELECT count(*) AS snapshots FROM pg_ls_dir('/tmp/ts_secfn/w/w.db/big/snapshot', true, false) f
 WHERE f ~ '^snapshot-';
SELECT count(*) AS consumer_files FROM pg_ls_dir('/tmp/ts_secfn/w/w.db/big/consumer', true, false);
-- a writable server: the same role's INSERT commits (the refusal above was the server's)
ALTER SERVER ro_lake OPTIONS (DROP updatable);
SET ROLE regress_ts_fn;
INSERT INTO mine VALUES (1, 'by regress_ts_fn', 1);
-- and a foreign table may still make itself read-only
ALTER FOREIGN TABLE mine OPTIONS (SET updatable 'false');
INSERT INTO mine VALUES (2, 'by regress_ts_fn', 2);
RESET ROLE;
SELECT id, name FROM mine ORDER BY id;

SET client_min_messages = warning;
DROP TABLE orders_sharded, keepme;
DROP FOREIGN TABLE orders_shard_1_of_1;
DROP SERVER worker1 CASCADE;
DROP EXTENSION postgres_fdw;
DROP EXTENSION dblink;
DROP FOREIGN TABLE orders;
REVOKE CREATE ON SCHEMA public FROM regress_ts_fn;
DROP OWNED BY regress_ts_fn;
DROP ROLE regress_ts_fn;
DROP SERVER ro_lake;
DROP SERVER loose;
DROP FOREIGN DATA WRAPPER regress_loose;
DROP SERVER wh;
DROP EXTENSION tablescan_fdw;
RESET client_min_messages;
\! rm -rf /tmp/ts_secfn
