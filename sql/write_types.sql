-- Every type the reader maps, written by INSERT (README "Writing", "Type
-- mapping"): TIME, DECIMAL up to precision 38, TIMESTAMP / LTZ of precision
-- 7..9, ARRAY (as T[] and as jsonb when nested), MAP, MULTISET and ROW (as
-- jsonb) at depth 2 and more, with NULLs at every level, empty collections
-- and extreme values; rows read back equal to what was written (as
-- multisets, both ways); primary-key tables with nested value columns
-- (INSERT, UPDATE, DELETE); values that do not fit refused naming the column.
-- Tables are made from hand-written schema files (test/write-types-schema.sh).
CREATE EXTENSION tablescan_fdw;
\set wh /tmp/ts_write_types_wh
\! rm -rf /tmp/ts_write_types_wh && bash test/write-types-schema.sh /tmp/ts_write_types_wh
SET TIME ZONE 'UTC';
CREATE SERVER tlake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
\i test/sql/fails.sql
IMPORT FOREIGN SCHEMA t FROM SERVER tlake INTO public;
\d alltypes

-- ---- every type, with NULLs at every level -----------------------------------
CREATE TEMP TABLE src (LIKE alltypes);
INSERT INTO src
SELECT i,
       CASE WHEN i % 9 = 0 THEN NULL ELSE i % 2 = 0 END,
       CASE WHEN i % 9 = 1 THEN NULL ELSE (i % 256 - 128)::smallint END,
       CASE WHEN i % 9 = 2 THEN NULL ELSE (i * 97 % 65536 - 32768)::smallint END,
       CASE WHEN i % 9 = 3 THEN NULL ELSE i * 2147483 - 1073741824 END,
       CASE WHEN i % 9 = 4 THEN NULL ELSE i::bigint * 92233720368547 - 4611686018427387904 END,
       CASE WHEN i % 9 = 5 THEN NULL ELSE (i / 16.0)::real END,
       CASE WHEN i % 9 = 6 THEN NULL ELSE i / 7.0::double precision END,
       CASE WHEN i % 9 = 7 THEN NULL ELSE (i * 1.25 - 5000)::numeric(9, 2) END,
       CASE WHEN i % 9 = 8 THEN NULL ELSE (i * 12345.6789)::numeric(18, 4) END,
       CASE WHEN i % 8 = 0 THEN NULL
            WHEN i % 8 = 1 THEN 9999999999999999999999999999.9999999999
            WHEN i % 8 = 2 THEN -9999999999999999999999999999.9999999999
            ELSE (i * 123456789.0123456789)::numeric(38, 10) END,
       CASE WHEN i % 8 = 3 THEN NULL
            WHEN i % 8 = 4 THEN 99999999999999999999999999999999999999
            WHEN i % 8 = 5 THEN -99999999999999999999999999999999999999
            ELSE i * 1000000000000000000000 END,
       CASE WHEN i % 8 = 6 THEN NULL ELSE (i / 1000.0 - 0.5)::numeric(19, 19) END,
       CASE WHEN i % 8 = 7 THEN NULL ELSE chr(97 + i % 26) || i % 100 END,
       CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || i || 'é€' END,
       CASE WHEN i % 7 = 1 THEN NULL ELSE repeat('x', i % 30) || i END,
       CASE WHEN i % 7 = 2 THEN NULL ELSE decode(md5(i::text), 'hex') END,
       CASE WHEN i % 7 = 3 THEN NULL ELSE date '1969-12-01' + i * 7 END,
       CASE WHEN i % 7 = 4 THEN NULL ELSE time '00:00:00' + i * interval '277 s' END,
       CASE WHEN i % 7 = 5 THEN NULL ELSE time '23:59:59.999' - i * interval '277.001 s' END,
       CASE WHEN i % 7 = 6 THEN NULL ELSE timestamp '1969-12-31 23:59:59' + i * interval '1 day 1 s' END,
       CASE WHEN i % 6 = 0 THEN NULL ELSE timestamp '1900-01-01 00:00:00.000001' + i * interval '12345 days 1.000001 s' END,
       CASE WHEN i % 6 = 1 THEN NULL ELSE timestamp '1969-12-31 23:59:59.999999' + i * interval '1.000007 s' END,
       CASE WHEN i % 6 = 2 THEN NULL ELSE timestamptz '2024-06-01 00:00:00.123+00' - i * interval '1 day 0.001 s' END,
       CASE WHEN i % 6 = 3 THEN NULL ELSE timestamptz '1960-01-01 00:00:00.000001+00' + i * interval '1 day 0.000003 s' END,
       -- ARRAY<INT>: NULL, empty, NULL elements
       CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN '{}'::int[]
            ELSE ARRAY[i, NULL, -i, 2147483647] END,
       CASE WHEN i % 5 = 2 THEN NULL WHEN i % 5 = 3 THEN ARRAY[NULL]::text[]
            ELSE ARRAY['a' || i, '', 'ü'] END,
       CASE WHEN i % 4 = 0 THEN NULL ELSE ARRAY[99999999999999999999999999999999999.99, NULL, -i / 100.0]::numeric(38, 2)[] END,
       CASE WHEN i % 4 = 1 THEN NULL ELSE ARRAY[timestamp '2000-01-01 00:00:00.000001' + i * interval '1 s', NULL] END,
       -- ARRAY<ARRAY<INT>> (jsonb): NULL, [], [[]], [null, [1, null]]
       CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN '[]'::jsonb WHEN 2 THEN '[[]]'::jsonb
            ELSE jsonb_build_array(NULL, jsonb_build_array(i, NULL)) END,
       -- MAP<STRING, INT>: pairs, a NULL value, empty
       CASE i % 3 WHEN 0 THEN NULL WHEN 1 THEN '[]'::jsonb
            ELSE jsonb_build_array(jsonb_build_array('k' || i, i), jsonb_build_array('n', NULL)) END,
       -- MAP<INT NOT NULL, ROW<a STRING, b ARRAY<DECIMAL(38, 2)>>>
       CASE i % 3 WHEN 1 THEN NULL WHEN 2 THEN '[]'::jsonb
            ELSE jsonb_build_array(
                   jsonb_build_array(i, jsonb_build_object('a', 'r' || i, 'b', jsonb_build_array(1.5, NULL, -999999999999999999999999999999999999.99))),
                   jsonb_build_array(-i, NULL),
                   jsonb_build_array(0, jsonb_build_object('a', NULL, 'b', '[]'::jsonb))) END,
       -- ROW<x INT, y ROW<z STRING, w DATE>, tz TIMESTAMP(9) LTZ, tm TIME(3)>
       CASE WHEN i % 5 = 4 THEN NULL
            WHEN i % 5 = 3 THEN jsonb_build_object('x', NULL, 'y', NULL, 'tz', NULL, 'tm', NULL)
            ELSE jsonb_build_object('x', i, 'y', jsonb_build_object('z', 'z' || i, 'w', '2024-02-29'),
                                    'tz', '1999-12-31T23:59:59.999999Z', 'tm', '12:34:56.789') END,
       -- MULTISET<STRING>: each distinct element with its count, grouped as it reads back
       CASE WHEN i % 4 = 3 THEN NULL WHEN i % 4 = 2 THEN '[]'::jsonb
            ELSE jsonb_build_array('a', 'a', 'b' || i) END,
       -- ARRAY<BIGINT NOT NULL>
       CASE WHEN i % 3 = 0 THEN NULL ELSE ARRAY[i::bigint << 40, -9223372036854775808] END
FROM generate_series(1, 400) i;
INSERT INTO alltypes SELECT * FROM src;
SELECT count(*) FROM alltypes;
-- the same rows as multisets, both ways
SELECT count(*) AS missing FROM (SELECT * FROM src EXCEPT ALL SELECT * FROM alltypes) d;
SELECT count(*) AS extra FROM (SELECT * FROM alltypes EXCEPT ALL SELECT * FROM src) d;
-- column by column (a column that differs shows here)
SELECT c AS differing_column FROM unnest(ARRAY['b','ti','si','i','big','fl','db','d9','d18','d38','d38i','d19','ch','vc','s','vb','dt',
  't0','t3','ts0','ts9','ts7','ltz3','ltz9','ai','ast','ad','ats','aai','msi','mr','r','ms','an']) c
WHERE EXISTS (SELECT 1 FROM src JOIN alltypes USING (id)
              WHERE to_jsonb(src) -> c IS DISTINCT FROM to_jsonb(alltypes) -> c);
-- a few rows to look at: extremes, NULLs at every level, empties
SELECT id, d38, d38i, d19, t3, ts9, ltz9, ai, aai, msi, mr, r, ms FROM alltypes WHERE id IN (1, 2, 3, 4, 5) ORDER BY id;
SELECT count(*) FILTER (WHERE ai = '{}') AS empty_arrays, count(*) FILTER (WHERE ai IS NULL) AS null_arrays,
       count(*) FILTER (WHERE aai = '[[]]') AS empty_inner, count(*) FILTER (WHERE r ->> 'x' IS NULL AND r IS NOT NULL) AS null_fields
FROM alltypes;

-- ---- a primary-key table with nested value columns ---------------------------
INSERT INTO pknest VALUES
  (1, ARRAY['a', NULL], '[["k", 1.5], ["m", null]]', '{"n": 1, "at": "2024-01-01T00:00:00.000001", "l": [[1, 2], null, []]}'),
  (2, '{}', '[]', NULL),
  (3, NULL, NULL, '{"n": null, "at": null, "l": null}');
SELECT * FROM pknest ORDER BY id;
UPDATE pknest SET tags = array_append(tags, 'c'), info = '{"n": 2, "at": "1969-07-20T20:17:40", "l": [[3]]}' WHERE id = 1;
DELETE FROM pknest WHERE id = 2;
INSERT INTO pknest VALUES (3, ARRAY['replaced'], '[["z", -0.001]]', NULL);
SELECT * FROM pknest ORDER BY id;

-- ---- values that do not fit, keys that cannot be nested -----------------------
SELECT q, pg_temp.fails(q) FROM (VALUES
  ('INSERT INTO alltypes (id, r) VALUES (1, ''{"tm": "10:00:00.0005"}'')'),
  ('INSERT INTO alltypes (id, r) VALUES (1, ''{"x": 1, "nope": 2}'')'),
  ('INSERT INTO alltypes (id, r) VALUES (1, ''[1, 2]'')'),
  ('INSERT INTO alltypes (id, msi) VALUES (1, ''[["k"]]'')'),
  ('INSERT INTO alltypes (id, msi) VALUES (1, ''{"k": 1}'')'),
  ('INSERT INTO alltypes (id, mr) VALUES (1, ''[[null, null]]'')'),
  ('INSERT INTO alltypes (id, an) VALUES (1, ARRAY[1, NULL])'),
  ('INSERT INTO alltypes (id, ai) VALUES (1, ''{{1, 2}, {3, 4}}'')'),
  ('INSERT INTO alltypes (id, aai) VALUES (1, ''[["x"]]'')'),
  ('INSERT INTO alltypes (id, mr) VALUES (1, ''[[1, {"b": [1e36]}]]'')'),
  ('INSERT INTO nestkey VALUES (1, ARRAY[1])')
) AS t(q);
SELECT count(*) FROM alltypes;
\! rm -rf /tmp/ts_write_types_wh
-- the extension and everything made here go (the next suite creates its own)
SET client_min_messages = warning;
DROP EXTENSION tablescan_fdw CASCADE;
RESET client_min_messages;
