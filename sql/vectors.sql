-- Every Paimon type has a PostgreSQL mapping or a clear refusal.
-- VECTOR<E, n> (Paimon 1.3) maps to a one-dimensional array of E: real[]
-- for FLOAT, double precision[] for DOUBLE, integer[] for INT ...; files
-- store it as an array of E.  casts.db/vectors: element k of row n is
-- f(E, n + k) of the generator (FLOAT 0.5 x, DOUBLE 1.25 x, INT x), NULL
-- when n % 4 = column position % 4.
CREATE EXTENSION tablescan_fdw;
-- the fixtures of test/make-fixtures.sh, wherever the test command wrote them
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA casts LIMIT TO (vectors) FROM SERVER lake INTO public;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'vectors'::regclass AND attnum > 0 ORDER BY attnum;
SELECT * FROM vectors ORDER BY id;
SELECT count(*) AS wrong FROM vectors v,
  LATERAL (SELECT ARRAY(SELECT (k * 0.5)::real FROM generate_series(id, id + 2) k) AS ev,
                  ARRAY(SELECT k * 1.25::float8 FROM generate_series(id, id + 1) k) AS evd,
                  ARRAY(SELECT k FROM generate_series(id, id + 3) k) AS evi) e
 WHERE v.v IS DISTINCT FROM (CASE WHEN id % 4 = 1 THEN NULL ELSE e.ev END)
    OR v.vd IS DISTINCT FROM (CASE WHEN id % 4 = 2 THEN NULL ELSE e.evd END)
    OR v.vi IS DISTINCT FROM (CASE WHEN id % 4 = 3 THEN NULL ELSE e.evi END);
SELECT v[2] AS second, array_length(vd, 1) AS dims FROM vectors WHERE id = 4;
-- the same columns in Parquet data files (casts.db/vectors_parquet): Paimon's
-- Parquet writer stores a VECTOR as a LIST group (list / element), read as
-- the ARRAY it is
IMPORT FOREIGN SCHEMA casts LIMIT TO (vectors_parquet) FROM SERVER lake INTO public;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'vectors_parquet'::regclass AND attnum > 0 ORDER BY attnum;
SELECT * FROM vectors_parquet ORDER BY id;
SELECT count(*) AS wrong FROM vectors_parquet v,
  LATERAL (SELECT ARRAY(SELECT (k * 0.5)::real FROM generate_series(id, id + 2) k) AS ev,
                  ARRAY(SELECT k * 1.25::float8 FROM generate_series(id, id + 1) k) AS evd,
                  ARRAY(SELECT k FROM generate_series(id, id + 3) k) AS evi) e
 WHERE v.v IS DISTINCT FROM (CASE WHEN id % 4 = 1 THEN NULL ELSE e.ev END)
    OR v.vd IS DISTINCT FROM (CASE WHEN id % 4 = 2 THEN NULL ELSE e.evd END)
    OR v.vi IS DISTINCT FROM (CASE WHEN id % 4 = 3 THEN NULL ELSE e.evi END);

-- VECTOR inside ARRAY / ROW / MAP: jsonb like any nested value, the vector
-- a JSON array (casts.db/vectors_nested: av ARRAY<VECTOR<FLOAT, 2>>,
-- rv ROW<a INT, v VECTOR<DOUBLE, 2>>, mv MAP<INT, VECTOR<SMALLINT, 2>>; an
-- ARRAY has n % 4 elements, a MAP n % 3 entries, element k from n + k)
IMPORT FOREIGN SCHEMA casts LIMIT TO (vectors_nested) FROM SERVER lake INTO public;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'vectors_nested'::regclass AND attnum > 0 ORDER BY attnum;
SELECT * FROM vectors_nested ORDER BY id;
SELECT count(*) AS wrong FROM vectors_nested v,
  LATERAL (SELECT
    (SELECT coalesce(jsonb_agg(jsonb_build_array((m * 0.5)::real, ((m + 1) * 0.5)::real) ORDER BY m), '[]')
       FROM generate_series(id, id + id % 4 - 1) m) AS eav,
    jsonb_build_object('a', id, 'v', jsonb_build_array(id * 1.25::float8, (id + 1) * 1.25::float8)) AS erv,
    (SELECT coalesce(jsonb_agg(jsonb_build_array(m, jsonb_build_array(m, m + 1)) ORDER BY m), '[]')
       FROM generate_series(id, id + id % 3 - 1) m) AS emv) e
 WHERE v.av IS DISTINCT FROM (CASE WHEN id % 4 = 1 THEN NULL ELSE e.eav END)
    OR v.rv IS DISTINCT FROM (CASE WHEN id % 4 = 2 THEN NULL ELSE e.erv END)
    OR v.mv IS DISTINCT FROM (CASE WHEN id % 4 = 3 THEN NULL ELSE e.emv END);

-- strict 'false' maps a VECTOR to its array too; read as text it is its text form
CREATE FOREIGN TABLE vectors_text (id int, v text) SERVER lake
  OPTIONS (database 'casts', "table" 'vectors');
SELECT * FROM vectors_text ORDER BY id;

-- VARIANT and GEOMETRY values cannot be read: a strict IMPORT refuses the
-- table, strict 'false' leaves those columns out (and keeps VECTOR)
CREATE SCHEMA un;
IMPORT FOREIGN SCHEMA casts LIMIT TO (unreadable) FROM SERVER lake INTO un;
IMPORT FOREIGN SCHEMA casts LIMIT TO (unreadable) FROM SERVER lake INTO un
  OPTIONS (strict 'false');
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'un.unreadable'::regclass AND attnum > 0 ORDER BY attnum;
-- a type name this reader does not know (BLOB_REF of Paimon 1.5): as an
-- unmappable column, a strict IMPORT ends with an ERROR naming the table,
-- the column and the type as the schema writes it (never the schema file's
-- path: the warehouse is the server's business); strict 'false' leaves the
-- table out with a WARNING.  A copy, with a nested unknown type added.
\! rm -rf /tmp/ts_vectors_wh && mkdir -p /tmp/ts_vectors_wh/casts.db
\! cp -r "$TS_FIXTURES"/warehouse/casts.db/unknown_type /tmp/ts_vectors_wh/casts.db/
\! cp -r "$TS_FIXTURES"/warehouse/casts.db/unknown_type /tmp/ts_vectors_wh/casts.db/nested_unknown
\! sed -i 's/"type": "BLOB_REF"/"type": {"type": "ARRAY", "element": "MAP<INT, BLOB_REF>"}/' /tmp/ts_vectors_wh/casts.db/nested_unknown/schema/schema-0
CREATE SERVER fixed FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/tmp/ts_vectors_wh');
IMPORT FOREIGN SCHEMA casts LIMIT TO (unknown_type) FROM SERVER fixed INTO un;
IMPORT FOREIGN SCHEMA casts LIMIT TO (nested_unknown) FROM SERVER fixed INTO un;
IMPORT FOREIGN SCHEMA casts LIMIT TO (unknown_type, nested_unknown) FROM SERVER fixed INTO un
  OPTIONS (strict 'false');
SELECT count(*) FROM pg_class WHERE relname IN ('unknown_type', 'nested_unknown');
-- the same for a role without pg_read_server_files: no path in what it sees
CREATE ROLE regress_ts_vectors;
GRANT USAGE ON FOREIGN SERVER fixed TO regress_ts_vectors;
GRANT CREATE ON SCHEMA un TO regress_ts_vectors;
SET ROLE regress_ts_vectors;
IMPORT FOREIGN SCHEMA casts LIMIT TO (nested_unknown) FROM SERVER fixed INTO un;
RESET ROLE;
DROP OWNED BY regress_ts_vectors;
DROP ROLE regress_ts_vectors;
DROP SERVER fixed;
\! rm -rf /tmp/ts_vectors_wh

DROP SCHEMA un CASCADE;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
