-- IMPORT FOREIGN SCHEMA over a generated warehouse: LIMIT TO, EXCEPT,
-- column types from the mapping, NOT NULL kept, errors.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
-- a statement's error as psql prints it, the fixtures directory shown as <fixtures>
SET regress.fixtures = :'fixtures';
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  fx text := current_setting('regress.fixtures');
  msg text; det text; hint text; ctx text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
                          hint = PG_EXCEPTION_HINT, ctx = PG_EXCEPTION_CONTEXT;
  RETURN NEXT replace('ERROR:  ' || msg, fx, '<fixtures>');
  RETURN QUERY SELECT replace(k || ':  ' || v, fx, '<fixtures>')
    FROM (VALUES (1, 'DETAIL', det), (2, 'HINT', hint)) AS f(o, k, v) WHERE v <> '' ORDER BY o;
  RETURN QUERY SELECT 'CONTEXT:  ' || replace(l, fx, '<fixtures>')
    FROM regexp_split_to_table(ctx, E'\n') WITH ORDINALITY AS c(l, o)
    WHERE l <> '' AND l !~ '^(PL/pgSQL function|SQL statement)' ORDER BY o;
END $$;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');

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
SELECT pg_temp.error_of('IMPORT FOREIGN SCHEMA nosuch FROM SERVER lake INTO public');
IMPORT FOREIGN SCHEMA sales FROM SERVER lake INTO public OPTIONS (bogus 'x');
CREATE SERVER nowh FOREIGN DATA WRAPPER tablescan_fdw;
IMPORT FOREIGN SCHEMA sales FROM SERVER nowh INTO public;

-- comments and descriptions become COMMENT ON; a broken table is left out with a
-- WARNING naming it, the others are imported
\! rm -rf /tmp/ts_import_wh && mkdir -p /tmp/ts_import_wh/mixed.db
\! cp -r "$TS_FIXTURES"/warehouse/sales.db/customers /tmp/ts_import_wh/mixed.db/customers
\! cp -r "$TS_FIXTURES"/warehouse/sales.db/orders /tmp/ts_import_wh/mixed.db/orders
\! sed -i 's|"name":\t"city",|"name":\t"city", "description": "where the customer lives",|; s|"highestFieldId"|"comment": "customers of the shop", "highestFieldId"|' /tmp/ts_import_wh/mixed.db/customers/schema/schema-0
\! cp -r "$TS_FIXTURES"/warehouse/sales.db/orders /tmp/ts_import_wh/mixed.db/broken
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
