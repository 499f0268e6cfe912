-- IMPORT FOREIGN SCHEMA over a generated warehouse: LIMIT TO, EXCEPT,
-- column types from the mapping, NOT NULL kept, errors.
CREATE EXTENSION tablescan_fdw;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '/tmp/tablescan_fdw_fixtures/warehouse');

CREATE SCHEMA s_all;
IMPORT FOREIGN SCHEMA sales FROM SERVER lake INTO s_all;
SELECT foreign_table_name FROM information_schema.foreign_tables
 WHERE foreign_table_schema = 's_all' ORDER BY 1;
\d s_all.orders

CREATE SCHEMA s_limit;
IMPORT FOREIGN SCHEMA sales LIMIT TO (customers, nosuch) FROM SERVER lake INTO s_limit;
SELECT foreign_table_name FROM information_schema.foreign_tables
 WHERE foreign_table_schema = 's_limit' ORDER BY 1;

CREATE SCHEMA s_except;
IMPORT FOREIGN SCHEMA sales EXCEPT (customers) FROM SERVER lake INTO s_except;
SELECT foreign_table_name FROM information_schema.foreign_tables
 WHERE foreign_table_schema = 's_except' ORDER BY 1;

-- every mapped type
CREATE SCHEMA types;
IMPORT FOREIGN SCHEMA types FROM SERVER lake INTO types;
\d types.all_types

-- the imported tables are queryable
SELECT count(*) FROM s_all.orders;
SELECT count(*) FROM s_limit.customers;

-- errors
IMPORT FOREIGN SCHEMA nosuch FROM SERVER lake INTO public;
IMPORT FOREIGN SCHEMA sales FROM SERVER lake INTO public OPTIONS (bogus 'x');
CREATE SERVER nowh FOREIGN DATA WRAPPER tablescan_fdw;
IMPORT FOREIGN SCHEMA sales FROM SERVER nowh INTO public;

DROP SERVER lake CASCADE;
DROP SERVER nowh;
DROP SCHEMA s_all, s_limit, s_except, types;
DROP EXTENSION tablescan_fdw;
