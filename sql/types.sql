-- Every mapped type, checked against the generator's documented value
-- formulas (src/tools/ts_gen.c, VALUES) computed here independently.
CREATE EXTENSION tablescan_fdw;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '/tmp/tablescan_fdw_fixtures/warehouse');
IMPORT FOREIGN SCHEMA types LIMIT TO (all_types) FROM SERVER lake INTO public;
SET TIME ZONE 'UTC';

SELECT count(*) FROM all_types;
SELECT i, b, ti, si, bi, f, d, dec_s, dec_l, c, vc, s, bin, vb, "by", dt, tm, ts, ts3, ltz, p
  FROM all_types WHERE bi IS NOT NULL AND i IN (1, 2, 6) ORDER BY i;
SELECT i, arr, ms, m, mi, r FROM all_types WHERE i IN (1, 2, 3, 6, 7) ORDER BY i;

-- row g of 40 (20 rows x 2 snapshots); column number c is NULL when g % 5 = c % 5
CREATE VIEW expected AS
SELECT CASE WHEN g % 5 = 0 THEN NULL ELSE g % 2 = 1 END AS b,
       CASE WHEN g % 5 = 1 THEN NULL ELSE (g % 128)::smallint END AS ti,
       CASE WHEN g % 5 = 2 THEN NULL ELSE (g % 32768)::smallint END AS si,
       CASE WHEN g % 5 = 3 THEN NULL ELSE g END AS i,
       CASE WHEN g % 5 = 4 THEN NULL ELSE g * 1000000007::bigint END AS bi,
       CASE WHEN g % 5 = 0 THEN NULL ELSE (g * 0.5)::real END AS f,
       CASE WHEN g % 5 = 1 THEN NULL ELSE g * 1.25::float8 END AS d,
       CASE WHEN g % 5 = 2 THEN NULL
            ELSE ((g::numeric * (10::numeric ^ 18 + 1)) % (10::numeric ^ 10)) / 100 END::numeric(10,2) AS dec_s,
       CASE WHEN g % 5 = 3 THEN NULL
            ELSE ((g::numeric * (10::numeric ^ 18 + 1)) % (10::numeric ^ 38)) / 1000000 END::numeric(38,6) AS dec_l,
       CASE WHEN g % 5 = 0 THEN NULL ELSE left('vc_' || g, 20) END AS vc,
       CASE WHEN g % 5 = 1 THEN NULL ELSE 's_' || g END AS s,
       CASE WHEN g % 5 = 3 THEN NULL ELSE convert_to('vb_' || g, 'UTF8') END AS vb,
       CASE WHEN g % 5 = 0 THEN NULL ELSE date '2020-01-01' + g END AS dt,
       CASE WHEN g % 5 = 2 THEN NULL
            ELSE date_trunc('microseconds', timestamp '2020-01-01' + g * interval '1.001001 second') END AS ts,
       CASE WHEN g % 5 = 0 THEN NULL
            ELSE ARRAY(SELECT g + k FROM generate_series(0, g % 4 - 1) k) END AS arr,
       g % 2 AS p
  FROM generate_series(0, 39) g;

SELECT count(*) AS missing FROM (
  SELECT * FROM expected
  EXCEPT ALL
  SELECT b, ti, si, i, bi, f, d, dec_s, dec_l, vc, s, vb, dt, ts, arr, p FROM all_types) x;
SELECT count(*) AS unexpected FROM (
  SELECT b, ti, si, i, bi, f, d, dec_s, dec_l, vc, s, vb, dt, ts, arr, p FROM all_types
  EXCEPT ALL
  SELECT * FROM expected) x;

-- a column may be declared text for any type; a wrong type is refused
CREATE FOREIGN TABLE as_text (i text, d text, dt text, r text) SERVER lake
  OPTIONS (database 'types', "table" 'all_types');
SELECT * FROM as_text WHERE i IN ('1', '2') ORDER BY i;
CREATE FOREIGN TABLE wrong_type (dt integer) SERVER lake
  OPTIONS (database 'types', "table" 'all_types');
SELECT * FROM wrong_type;
CREATE FOREIGN TABLE wrong_name (nosuch integer) SERVER lake
  OPTIONS (database 'types', "table" 'all_types');
SELECT * FROM wrong_name;
CREATE FOREIGN TABLE renamed (the_int integer OPTIONS (column_name 'i')) SERVER lake
  OPTIONS (database 'types', "table" 'all_types');
SELECT sum(the_int) FROM renamed;

DROP VIEW expected;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
