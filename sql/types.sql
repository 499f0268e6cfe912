-- Every mapped type, checked against the generator's documented value
-- formulas (src/tools/ts_gen.c, VALUES) computed here independently.
CREATE EXTENSION tablescan_fdw;
\set wide_name `printf 'x%.0s' $(seq 2000)`
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
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

-- the same values through other declared types: numeric typmods that keep,
-- widen, round or overflow the decimal's scale, timestamp precisions,
-- varchar/char lengths, integer widths
CREATE FOREIGN TABLE typmods (
    i integer, bi_int integer OPTIONS (column_name 'bi'), bi bigint,
    dec_s_any numeric OPTIONS (column_name 'dec_s'),
    dec_s_wide numeric(20,2) OPTIONS (column_name 'dec_s'),
    dec_s_exact numeric(10,2) OPTIONS (column_name 'dec_s'),
    dec_s_round numeric(12,1) OPTIONS (column_name 'dec_s'),
    dec_s_more numeric(14,4) OPTIONS (column_name 'dec_s'),
    dec_l_any numeric OPTIONS (column_name 'dec_l'),
    dec_l numeric(38,6),
    ts_any timestamp OPTIONS (column_name 'ts'),
    ts_0 timestamp(0) OPTIONS (column_name 'ts'),
    ts_ltz3 timestamptz(3) OPTIONS (column_name 'ltz'),
    s_vc4 varchar(4) OPTIONS (column_name 's'),
    s_c6 char(6) OPTIONS (column_name 's'),
    s_vc varchar OPTIONS (column_name 's'))
  SERVER lake OPTIONS (database 'types', "table" 'all_types');
SELECT i, dec_s_any, scale(dec_s_any), dec_s_wide, dec_s_exact, dec_s_round, dec_s_more,
       dec_l_any, scale(dec_l_any), dec_l
  FROM typmods WHERE i BETWEEN 1 AND 12 ORDER BY i;
SELECT i, ts_any, ts_0, ts_ltz3, s_vc4, s_c6 || '|' AS s_c6, s_vc
  FROM typmods WHERE i BETWEEN 1 AND 6 ORDER BY i;
-- numeric(10,2) text equals the imported column's, value by value
SELECT count(*) FILTER (WHERE dec_s_any::text = dec_s_exact::text) AS same_text,
       count(*) FILTER (WHERE dec_s_more::text = dec_s_exact::text || '00') AS padded,
       count(dec_s_any) AS n
  FROM typmods;
-- too narrow: a decimal that needs more digits, a bigint beyond integer
CREATE FOREIGN TABLE narrow_dec (i integer, dec_l numeric(18,6)) SERVER lake
  OPTIONS (database 'types', "table" 'all_types');
SELECT dec_l FROM narrow_dec WHERE i = 1;
SELECT max(bi_int) FROM typmods;
DROP FOREIGN TABLE typmods, narrow_dec;

-- batches become Datums a window of rows at a time (a window holds at most
-- 1 MB of strings): rows of ~2 KB strings, every value checked against the
-- generator's formula (w = name || '_' || i, n = i, big = i * 1000000007;
-- column c is NULL when i % 5 = c)
CREATE FOREIGN TABLE wide (id integer, w text, n integer, big bigint, big_int integer)
  SERVER lake OPTIONS (database 'bulk', "table" 'wide');
ALTER FOREIGN TABLE wide ALTER COLUMN w OPTIONS (column_name :'wide_name'),
  ALTER COLUMN big_int OPTIONS (column_name 'big');
SELECT count(*) AS rows,
       count(*) FILTER (WHERE w IS NOT DISTINCT FROM
                               CASE WHEN id % 5 = 1 THEN NULL ELSE :'wide_name' || '_' || id END
                          AND n IS NOT DISTINCT FROM CASE WHEN id % 5 = 2 THEN NULL ELSE id END
                          AND big IS NOT DISTINCT FROM
                               CASE WHEN id % 5 = 3 THEN NULL ELSE id * 1000000007::bigint END) AS as_written,
       count(DISTINCT id) AS ids, min(id), max(id)
  FROM (SELECT id, w, n, big FROM wide) s;
-- the same rows in other shapes: only the strings; a self-join on them
-- (each string is unique: one match per non-NULL string, 3000 - 600)
SELECT sum(length(w)) = sum(length(:'wide_name' || '_' || id)) FILTER (WHERE id % 5 <> 1) AS lengths
  FROM (SELECT id, w FROM wide) s;
SELECT count(*) FROM wide a JOIN wide b ON a.w = b.w;
-- a value out of range is an error at its row, not before: rows 0..3 fit
-- an integer (row 3 is NULL), row 4 does not
SELECT id, big_int FROM wide LIMIT 4;
SELECT id, big_int FROM wide LIMIT 5;
DROP FOREIGN TABLE wide;

-- decimals of every scale (0 to 18 digits after the point), converted a
-- window at a time: the same value, text, binary form and hash as the
-- generator's formula computed here (unscaled (i * (10^18 + 1)) mod 10^p)
CREATE FOREIGN TABLE decimals (id int, d0 numeric, d1 numeric, d2 numeric, d3 numeric,
    d4 numeric, d5 numeric, d9 numeric, d18 numeric, e2 numeric, e5 numeric)
  SERVER lake OPTIONS (database 'bulk', "table" 'decimals');
WITH e AS (
  SELECT v, CASE WHEN id % 13 = c % 13 THEN NULL
                 ELSE round(((id::numeric * (10::numeric ^ 18 + 1)) % (10::numeric ^ p))
                            / (10::numeric ^ s), s) END AS want
  FROM (SELECT id, d0, d1, d2, d3, d4, d5, d9, d18, e2, e5 FROM decimals) t,
       LATERAL (VALUES (1, 0, 18, d0), (2, 1, 18, d1), (3, 2, 18, d2), (4, 3, 18, d3),
                       (5, 4, 18, d4), (6, 5, 18, d5), (7, 9, 18, d9), (8, 18, 18, d18),
                       (9, 2, 10, e2), (10, 5, 5, e5)) x(c, s, p, v))
SELECT count(*) AS values,
       count(*) FILTER (WHERE v IS NOT DISTINCT FROM want) AS equal,
       count(*) FILTER (WHERE v::text IS NOT DISTINCT FROM want::text) AS same_text,
       count(*) FILTER (WHERE numeric_send(v) IS NOT DISTINCT FROM numeric_send(want)) AS same_binary,
       count(*) FILTER (WHERE hash_numeric(v) IS NOT DISTINCT FROM hash_numeric(want)) AS same_hash,
       count(*) FILTER (WHERE v IS NULL) AS nulls
  FROM e;
-- and as keys: a hash join and a hash aggregate find every value
SET enable_mergejoin = off; SET enable_nestloop = off; SET enable_sort = off;
SELECT count(*) AS joined FROM (SELECT id, d4 FROM decimals) a
  JOIN (SELECT id, round(((id::numeric * (10::numeric ^ 18 + 1)) % (10::numeric ^ 18)) / 10000, 4) AS w
          FROM generate_series(0, 2999) id) b ON a.d4 = b.w;
SELECT count(*) AS groups FROM (SELECT d2 FROM decimals GROUP BY d2) g;
RESET enable_mergejoin; RESET enable_nestloop; RESET enable_sort;
DROP FOREIGN TABLE decimals;

DROP VIEW expected;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
