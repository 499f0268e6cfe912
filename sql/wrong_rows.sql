-- Rows and values a careless user could get wrong (issue 27): each case reads
-- what COPY (or Java Paimon, where it defines the behaviour) would, or fails
-- naming the file, directory or column; never other rows silently.
-- Fixtures are written here, under /tmp/ts_wrongrows.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
\! rm -rf /tmp/ts_wrongrows && mkdir -p /tmp/ts_wrongrows/bad /tmp/ts_wrongrows/dec /tmp/ts_wrongrows/names /tmp/ts_wrongrows/long /tmp/ts_wrongrows/json /tmp/ts_wrongrows/q /tmp/ts_wrongrows/notcsv
\! printf '1,a,1.00\n2,b,not-a-number\n3,c,3.00\n' > /tmp/ts_wrongrows/bad/part-0.csv
\! printf '1,0.123456789012345678\n2,12345678901234567890123456789.5\n3,99999.995\n4,-0.5\n' > /tmp/ts_wrongrows/dec/part-0.csv
\! printf '1,Al\n2,Bob  \n' > /tmp/ts_wrongrows/names/part-0.csv && printf '3,Alex\n' > /tmp/ts_wrongrows/long/part-0.csv
\! printf '{"id": 1, "v": 2, "d": 1.5}\n{"id": 2, "v": 3.7}\n{"id": 3, "d": 12.5}\n{"id": 4}\n' > /tmp/ts_wrongrows/json/part-0.json
\! printf 'id,name\n1,""\n2,\n3,"NULL"\n4,NULL\n5,x\n' > /tmp/ts_wrongrows/q/part-0.csv
\! cp "$(ls "$TS_FIXTURES"/warehouse/sales.db/customers/bucket-0/*.avro | head -1)" /tmp/ts_wrongrows/notcsv/data.csv
\! mkdir -p /tmp/ts_wrongrows/pdirs/dt=2024-01-01 /tmp/ts_wrongrows/pdirs/dt=bogus && echo 1 > /tmp/ts_wrongrows/pdirs/dt=2024-01-01/part-0.csv && echo 2 > /tmp/ts_wrongrows/pdirs/dt=bogus/part-0.csv
\! mkdir -p /tmp/ts_wrongrows/nest/dt=2024-01-01/region=eu && echo 1 > /tmp/ts_wrongrows/nest/dt=2024-01-01/region=eu/part-0.csv
\! chmod -R a+rX /tmp/ts_wrongrows

-- CSV DROPMALFORMED / FAILFAST judge whole records: the rows a scan returns
-- never depend on the columns it reads
CREATE FOREIGN TABLE dm (id int, name text, amount numeric(10,2)) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/bad', format 'csv', "csv.mode" 'DROPMALFORMED');
SELECT id, name FROM dm ORDER BY id;
SELECT count(amount), count(*) FROM dm;
SELECT count(*) FROM dm;
SELECT name FROM dm WHERE id > 1;
ALTER FOREIGN TABLE dm OPTIONS (SET "csv.mode" 'FAILFAST');
SELECT id, name FROM dm ORDER BY id;
SELECT count(*) FROM dm;
-- PERMISSIVE keeps every record; the malformed field reads NULL
ALTER FOREIGN TABLE dm OPTIONS (SET "csv.mode" 'PERMISSIVE');
SELECT count(*), count(amount) FROM dm;

-- decimals: an unconstrained numeric reads the exact value; more digits than
-- numeric(p,s) holds is malformed (the mode's rule), never a silent NULL
CREATE FOREIGN TABLE dec_exact (id int, v numeric) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/dec', format 'csv');
SELECT id, v FROM dec_exact ORDER BY id;
SELECT id FROM dec_exact WHERE v > 1 ORDER BY id;
CREATE FOREIGN TABLE dec_narrow (id int, v numeric(7,2)) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/dec', format 'csv', "csv.mode" 'FAILFAST');
DO $$
BEGIN
  PERFORM * FROM dec_narrow;
EXCEPTION WHEN numeric_value_out_of_range THEN
  RAISE NOTICE 'SQLSTATE %: %', SQLSTATE, SQLERRM;
END $$;
SELECT id FROM dec_narrow WHERE id = 1;
ALTER FOREIGN TABLE dec_narrow OPTIONS (SET "csv.mode" 'DROPMALFORMED');
SELECT id, v FROM dec_narrow ORDER BY id;
ALTER FOREIGN TABLE dec_narrow OPTIONS (SET "csv.mode" 'PERMISSIVE');
SELECT id, v FROM dec_narrow ORDER BY id;
-- (an unconstrained numeric is read as text by numeric's input function: a
-- value that is not a number is an error in every mode)
CREATE FOREIGN TABLE dec_text (id int, name text, v numeric) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/bad', format 'csv', "csv.mode" 'DROPMALFORMED');
SELECT id, v FROM dec_text ORDER BY id;

-- varchar(n) / char(n): a longer value is an error (22001) as in COPY; only
-- trailing blanks are cut; char(n) pads
CREATE FOREIGN TABLE names_v (id int, name varchar(3)) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/names', format 'csv');
SELECT id, name, octet_length(name) FROM names_v ORDER BY id;
CREATE FOREIGN TABLE names_c (id int, name char(4)) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/names', format 'csv');
SELECT id, name, octet_length(name) FROM names_c ORDER BY id;
ALTER FOREIGN TABLE names_v OPTIONS (SET path '/tmp/ts_wrongrows/long');
SELECT id, name FROM names_v;
ALTER FOREIGN TABLE names_c OPTIONS (SET path '/tmp/ts_wrongrows/long');
ALTER FOREIGN TABLE names_c ALTER COLUMN name TYPE char(3);
SELECT id, name FROM names_c;
-- the same for a Paimon table (customers: name 'name_<id>', city VARCHAR(20) 'city_<id>')
CREATE FOREIGN TABLE cust_short (id int, name varchar(5)) SERVER lake
  OPTIONS (database 'sales', "table" 'customers');
SELECT name FROM cust_short WHERE id = 1;
CREATE FOREIGN TABLE cust_char (id int, city char(8)) SERVER lake
  OPTIONS (database 'sales', "table" 'customers');
SELECT city, octet_length(city) FROM cust_char WHERE id = 3;

-- JSON: a fraction is no integer; a decimal too wide is out of range; a key
-- absent from an object reads NULL
CREATE FOREIGN TABLE js (id int, v int) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/json', format 'json');
SELECT id, v FROM js ORDER BY id;
ALTER FOREIGN TABLE js OPTIONS (ADD "json.ignore-parse-errors" 'true');
SELECT id, v FROM js ORDER BY id;
CREATE FOREIGN TABLE js_dec (id int, d numeric(2,1)) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/json', format 'json');
DO $$
BEGIN
  PERFORM * FROM js_dec;
EXCEPTION WHEN numeric_value_out_of_range THEN
  RAISE NOTICE 'SQLSTATE %: %', SQLSTATE, SQLERRM;
END $$;

-- partition directories: a value that is not of the key's type, or keys in
-- another order than the nesting, are errors naming the directory
CREATE FOREIGN TABLE pd (id int, dt date) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/pdirs', format 'csv', partition_keys 'dt');
SELECT * FROM pd;
SELECT * FROM pd WHERE dt = '2024-01-01';
CREATE FOREIGN TABLE pd_int (id int, dt int) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/pdirs', format 'csv', partition_keys 'dt');
SELECT * FROM pd_int;
CREATE FOREIGN TABLE nest_wrong (id int, region text, dt date) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/nest', format 'csv', partition_keys 'region,dt');
SELECT * FROM nest_wrong;
CREATE FOREIGN TABLE nest_right (id int, region text, dt date) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/nest', format 'csv', partition_keys 'dt,region');
SELECT * FROM nest_right;
-- a binary file (here an Avro data file) read with format 'csv' is an error
-- naming it, in every mode, not rows of garbage
CREATE FOREIGN TABLE notcsv (a text, b text) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/notcsv', format 'csv');
DO $$
BEGIN
  PERFORM count(*) FROM notcsv;
  RAISE NOTICE 'no error';
EXCEPTION WHEN data_corrupted THEN
  RAISE NOTICE '%', regexp_replace(SQLERRM, 'line [0-9]+', 'line N');
END $$;

-- CSV vs COPY: Java Paimon compares the null literal (default '') after
-- unquoting, so "" and an empty field are both NULL and "NULL" matches the
-- literal NULL; a header line is a record unless csv.include-header
CREATE FOREIGN TABLE q (id int, name text) SERVER lake
  OPTIONS (path '/tmp/ts_wrongrows/q', format 'csv');
SELECT id, name, name IS NULL AS is_null FROM q ORDER BY id NULLS FIRST;
ALTER FOREIGN TABLE q OPTIONS (ADD "csv.null-literal" 'NULL', ADD "csv.include-header" 'true');
SELECT id, name, name IS NULL AS is_null FROM q ORDER BY id;

-- a column type that cannot hold the Paimon type: the hint names one type
CREATE FOREIGN TABLE hint_text (name integer) SERVER lake
  OPTIONS (database 'sales', "table" 'customers');
SELECT name FROM hint_text;

SET client_min_messages = warning;
DROP SERVER lake CASCADE;
RESET client_min_messages;
DROP EXTENSION tablescan_fdw;
\! rm -rf /tmp/ts_wrongrows
