-- IMPORT FOREIGN SCHEMA ... OPTIONS (import_partitions 'true'): each
-- partition of a format table becomes a foreign table attached to a
-- PostgreSQL partitioned table of the table's name, so PostgreSQL's own
-- partition pruning and ours agree.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
CREATE SCHEMA ft;
IMPORT FOREIGN SCHEMA ft FROM SERVER lake INTO ft OPTIONS (import_partitions 'true');
SELECT c.relname, c.relkind, pg_get_expr(c.relpartbound, c.oid) AS bound
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'ft' ORDER BY 1;
SELECT ftoptions FROM pg_foreign_table f JOIN pg_class c ON c.oid = f.ftrelid
 WHERE c.relname LIKE 'events\_csv\_2024\_01\_02\_eu\_%';
-- the same rows as the whole table read at once
CREATE FOREIGN TABLE whole (id int, name text, amount numeric(10,2), dt date, region text)
  SERVER lake OPTIONS (database 'ft', "table" 'events_csv');
SELECT count(*) AS different FROM (
  (SELECT * FROM ft.events_csv EXCEPT ALL SELECT * FROM whole)
  UNION ALL (SELECT * FROM whole EXCEPT ALL SELECT * FROM ft.events_csv)) x;
SELECT k, count(*) FROM ft.events_json GROUP BY k ORDER BY k;
-- PostgreSQL prunes partitions before we do
EXPLAIN (COSTS OFF) SELECT * FROM ft.events_csv WHERE dt = '2024-01-02' AND region = 'eu';
EXPLAIN (COSTS OFF) SELECT count(*) FROM ft.events_json WHERE k IS NULL;
-- importing again keeps what exists and adds nothing twice
IMPORT FOREIGN SCHEMA ft FROM SERVER lake INTO ft OPTIONS (import_partitions 'true');
SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'ft';
DROP SCHEMA ft CASCADE;
-- a table whose partition.default-name is Hive's (what Hive and DuckDB write):
-- the NULL partitions' leaves select that name, so both imports read every row
\! rm -rf /tmp/ts_hive_wh && mkdir -p /tmp/ts_hive_wh/h.db && cp -r "$TS_FIXTURES"/warehouse/ft.db/events_csv /tmp/ts_hive_wh/h.db/ev
\! cd /tmp/ts_hive_wh/h.db/ev && for d in dt=*/region=__DEFAULT_PARTITION__; do mv "$d" "${d%__DEFAULT_PARTITION__}__HIVE_DEFAULT_PARTITION__"; done
\! sed -i 's|"file.format": "csv"|"file.format": "csv", "partition.default-name": "__HIVE_DEFAULT_PARTITION__"|' /tmp/ts_hive_wh/h.db/ev/schema/schema-0
\! chmod -R a+rX /tmp/ts_hive_wh
CREATE SERVER hive FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/tmp/ts_hive_wh');
CREATE SCHEMA hw;
CREATE SCHEMA hp;
IMPORT FOREIGN SCHEMA h FROM SERVER hive INTO hw;
IMPORT FOREIGN SCHEMA h FROM SERVER hive INTO hp OPTIONS (import_partitions 'true');
SELECT (SELECT count(*) FROM hw.ev) AS plain, (SELECT count(*) FROM hp.ev) AS partitioned,
       (SELECT count(*) FROM hw.ev WHERE region IS NULL) AS plain_null,
       (SELECT count(*) FROM hp.ev WHERE region IS NULL) AS partitioned_null;
SELECT ftoptions FROM pg_foreign_table f JOIN pg_class c ON c.oid = f.ftrelid
 WHERE c.relname LIKE 'ev\_2024\_01\_01\_null\_%';
SET client_min_messages = warning;
DROP SCHEMA hw CASCADE;
DROP SCHEMA hp CASCADE;
DROP SERVER hive;
RESET client_min_messages;
\! rm -rf /tmp/ts_hive_wh
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
