-- IMPORT FOREIGN SCHEMA ... OPTIONS (import_partitions 'true'): each
-- partition of a format table becomes a foreign table attached to a
-- PostgreSQL partitioned table of the table's name, so PostgreSQL's own
-- partition pruning and ours agree.
CREATE EXTENSION tablescan_fdw;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '/tmp/tablescan_fdw_fixtures/warehouse');
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
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
