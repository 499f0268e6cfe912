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

-- comments and descriptions become COMMENT ON; a broken table is left out with a
-- WARNING naming it, the others are imported
\! rm -rf /tmp/ts_import_wh && mkdir -p /tmp/ts_import_wh/mixed.db
\! cp -r /tmp/tablescan_fdw_fixtures/warehouse/sales.db/customers /tmp/ts_import_wh/mixed.db/customers
\! cp -r /tmp/tablescan_fdw_fixtures/warehouse/sales.db/orders /tmp/ts_import_wh/mixed.db/orders
\! sed -i 's|"name":\t"city",|"name":\t"city", "description": "where the customer lives",|; s|"highestFieldId"|"comment": "customers of the shop", "highestFieldId"|' /tmp/ts_import_wh/mixed.db/customers/schema/schema-0
\! cp -r /tmp/tablescan_fdw_fixtures/warehouse/sales.db/orders /tmp/ts_import_wh/mixed.db/broken
\! printf '{"version": 3, "id": 0, "fields": [' > /tmp/ts_import_wh/mixed.db/broken/schema/schema-0
CREATE SERVER mixed FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/tmp/ts_import_wh');
CREATE SCHEMA s_mixed;
IMPORT FOREIGN SCHEMA mixed FROM SERVER mixed INTO s_mixed;
SELECT foreign_table_name FROM information_schema.foreign_tables
 WHERE foreign_table_schema = 's_mixed' ORDER BY 1;
SELECT obj_description('s_mixed.customers'::regclass, 'pg_class') AS table_comment;
SELECT attname, col_description('s_mixed.customers'::regclass, attnum) AS column_comment
  FROM pg_attribute WHERE attrelid = 's_mixed.customers'::regclass AND attnum > 0 ORDER BY attnum;
SELECT count(*) FROM s_mixed.orders;
-- importing again: a table that exists is an error, as IMPORT's own
IMPORT FOREIGN SCHEMA mixed LIMIT TO (orders) FROM SERVER mixed INTO s_mixed;
DROP SCHEMA s_mixed CASCADE;
DROP SERVER mixed;
\! rm -rf /tmp/ts_import_wh

DROP SERVER lake CASCADE;
DROP SERVER nowh;
DROP SCHEMA s_all, s_limit, s_except, types;
DROP EXTENSION tablescan_fdw;
