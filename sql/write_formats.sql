-- INSERT, COPY, UPDATE and DELETE into Paimon tables with "file.format" orc and
-- avro (README "Writing"): rows read back equal to what was written (NULLs,
-- decimals, timestamps, dates, strings, binaries), data files named .orc / .avro,
-- EXPLAIN naming the format, codecs a format has not refused; manifest.compression
-- deflate in every manifest's and list's header, bzip2 and manifest.format orc refused; avro.codec
-- (table or foreign table option) in the header of every data file, manifest and list written,
-- over file.compression and manifest.compression, xz and a misspelt name refused.  Tables are made
-- here from hand-written schema files (test/write-formats-schema.sh).
CREATE EXTENSION tablescan_fdw;
\set wh /tmp/ts_wformats_wh
\! rm -rf /tmp/ts_wformats_wh && bash test/write-formats-schema.sh /tmp/ts_wformats_wh
SET TIME ZONE 'UTC';
CREATE SERVER flake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'wh');
\i test/sql/fails.sql
-- data files of a table by extension, as the file system has them
CREATE FUNCTION pg_temp.files(t text, ext text) RETURNS bigint LANGUAGE sql AS $$
  WITH RECURSIVE d(p) AS (SELECT '/tmp/ts_wformats_wh/f.db/' || t
     UNION ALL SELECT d.p || '/' || f FROM d, pg_ls_dir(d.p, true, false) f
     WHERE (pg_stat_file(d.p || '/' || f, true)).isdir)
  SELECT count(*) FROM d, pg_ls_dir(d.p, true, false) f WHERE f ~ ('\.' || ext || '$') $$;
CREATE FUNCTION pg_temp.snapshots(t text) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_ls_dir('/tmp/ts_wformats_wh/f.db/' || t || '/snapshot', true, false) f
  WHERE f ~ '^snapshot-[0-9]+$' $$;
IMPORT FOREIGN SCHEMA f FROM SERVER flake INTO public;

-- ---- append tables: every type, with NULLs ---------------------------------
CREATE TEMP TABLE src AS
SELECT i AS id,
       CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
       CASE WHEN i % 7 = 3 THEN NULL ELSE i::bigint * 1000003 - 5000000000 END AS big,
       CASE WHEN i % 7 = 5 THEN NULL ELSE i / 3.0::double precision END AS d,
       CASE WHEN i % 7 = 6 THEN NULL ELSE (i * 1.25 - 50)::numeric(10, 2) END AS dec,
       CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 12345.6789 - 1e6)::numeric(18, 4) END AS dec18,
       CASE WHEN i % 5 = 1 THEN NULL ELSE repeat(chr(97 + i % 26), i % 40) || 'ü€' || i END AS s,
       CASE WHEN i % 5 = 2 THEN NULL ELSE 'v' || i END::varchar(20) AS vc,
       CASE WHEN i % 5 = 3 THEN NULL WHEN i % 11 = 0 THEN '\x'::bytea ELSE decode(md5(i::text), 'hex') END AS bin,
       CASE WHEN i % 5 = 4 THEN NULL ELSE date '1969-06-01' + i * 37 END AS dt,
       CASE WHEN i % 6 = 0 THEN NULL ELSE timestamp '1969-12-31 23:59:58' + i * interval '1.000001 s' END AS ts,
       CASE WHEN i % 6 = 1 THEN NULL ELSE timestamp '1969-12-31 23:59:00' + i * interval '0.001 s' END::timestamp(3) AS ts3,
       CASE WHEN i % 6 = 2 THEN NULL ELSE timestamptz '2024-06-01 00:00:00+00' + i * interval '1.5 min' END AS tsl
FROM generate_series(1, 2000) i;
INSERT INTO app_orc SELECT * FROM src;
INSERT INTO app_avro SELECT * FROM src;
-- equal as multisets, both ways
SELECT count(*) AS missing_orc FROM (SELECT * FROM src EXCEPT ALL SELECT * FROM app_orc) x;
SELECT count(*) AS extra_orc FROM (SELECT * FROM app_orc EXCEPT ALL SELECT * FROM src) x;
SELECT count(*) AS missing_avro FROM (SELECT * FROM src EXCEPT ALL SELECT * FROM app_avro) x;
SELECT count(*) AS extra_avro FROM (SELECT * FROM app_avro EXCEPT ALL SELECT * FROM src) x;
SELECT count(*), count(s), count(bin), sum(big), sum(dec18), min(ts), max(dt) FROM app_orc;
SELECT count(*), count(s), count(bin), sum(big), sum(dec18), min(ts), max(dt) FROM app_avro;
-- statistics are true bounds: queries the ORC stripe statistics prune still find every row
SELECT (SELECT count(*) FROM app_orc WHERE big BETWEEN -4999000000 AND -4700000000) AS orc,
       (SELECT count(*) FROM src WHERE big BETWEEN -4999000000 AND -4700000000) AS src;
SELECT (SELECT count(*) FROM app_orc WHERE s >= 'x' AND s < 'y') AS orc,
       (SELECT count(*) FROM src WHERE s >= 'x' AND s < 'y') AS src;
SELECT (SELECT count(*) FROM app_orc WHERE dt < '1970-01-01') AS orc,
       (SELECT count(*) FROM src WHERE dt < '1970-01-01') AS src;
SELECT count(*) FROM app_orc WHERE big > 5000000000;
-- the files: named .orc / .avro, as the manifests list them
SELECT pg_temp.files('app_orc', 'orc') AS orc_files, pg_temp.files('app_avro', 'avro') AS avro_files,
       pg_temp.files('app_orc', 'parquet') + pg_temp.files('app_avro', 'parquet') AS parquet_files;
SELECT count(*) AS files, sum(row_count) AS rows, bool_and(file_name LIKE 'data-%.orc') AS named
  FROM tablescan_files('app_orc');
SELECT count(*) AS files, sum(row_count) AS rows, bool_and(file_name LIKE 'data-%.avro') AS named
  FROM tablescan_files('app_avro');
EXPLAIN (COSTS OFF) INSERT INTO app_orc (id) VALUES (1);
EXPLAIN (COSTS OFF) INSERT INTO app_avro (id) VALUES (1);
-- COPY FROM
COPY app_orc (id, s, dec, dt, ts, bin) FROM STDIN (FORMAT csv);
100001,"copied, one",12.34,2024-02-29,2024-02-29 12:00:00.123456,\x00ff
100002,,,,,
\.
COPY app_avro (id, s, dec, dt, ts, bin) FROM STDIN (FORMAT csv);
100001,"copied, one",12.34,2024-02-29,2024-02-29 12:00:00.123456,\x00ff
100002,,,,,
\.
SELECT id, s, dec, dt, ts, bin FROM app_orc WHERE id > 100000 ORDER BY id;
SELECT id, s, dec, dt, ts, bin FROM app_avro WHERE id > 100000 ORDER BY id;
-- one snapshot per transaction, as for Parquet
BEGIN;
INSERT INTO app_orc (id, s) VALUES (200001, 'tx a');
INSERT INTO app_avro (id, s) VALUES (200001, 'tx a');
INSERT INTO app_orc (id, s) VALUES (200002, 'tx b');
COMMIT;
SELECT (SELECT count(*) FROM app_orc WHERE id > 200000) AS orc_rows,
       (SELECT count(*) FROM app_avro WHERE id > 200000) AS avro_rows,
       pg_temp.snapshots('app_orc') AS orc_snapshots, pg_temp.snapshots('app_avro') AS avro_snapshots;

-- ---- partitions, fixed buckets, other codecs --------------------------------
INSERT INTO part_orc SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'p' || (i % 3) END, 'v' || i
  FROM generate_series(1, 500) i;
INSERT INTO part_avro SELECT * FROM part_orc;
SELECT count(*), count(p), count(DISTINCT v) FROM part_avro;
SELECT count(*) AS differ FROM (
  (SELECT * FROM part_orc EXCEPT ALL SELECT * FROM part_avro)
  UNION ALL (SELECT * FROM part_avro EXCEPT ALL SELECT * FROM part_orc)) x;
SELECT partition, bucket, count(*) AS files, sum(row_count) AS rows
  FROM tablescan_files('part_orc') GROUP BY 1, 2 ORDER BY partition::text COLLATE "C", 2;
SELECT partition, bucket, count(*) AS files, sum(row_count) AS rows
  FROM tablescan_files('part_avro') GROUP BY 1, 2 ORDER BY partition::text COLLATE "C", 2;
-- every row lies in the bucket the reader computes for its key
DO $$
DECLARE b int; t text; bad bigint; n bigint;
BEGIN
  FOREACH t IN ARRAY ARRAY['part_orc', 'part_avro'] LOOP
    FOR b IN 0..1 LOOP
      EXECUTE format('CREATE FOREIGN TABLE %s_b%s (id int, p text, v text) SERVER flake
                      OPTIONS (database ''f'', table %L, bucket_filter %L)', t, b, t, b);
      EXECUTE format('SELECT count(*), count(*) FILTER (WHERE tablescan_bucket(%L, id) <> %s) FROM %s_b%s',
                     t, b, t, b) INTO n, bad;
      RAISE NOTICE '% bucket %: % rows, % elsewhere', t, b, n, bad;
    END LOOP;
  END LOOP;
END $$;
SELECT count(*) FROM part_orc WHERE p = 'p1';

-- ---- primary-key tables: INSERT, UPDATE, DELETE -----------------------------
CREATE TEMP TABLE kv_src AS
SELECT i AS id, CASE WHEN i % 9 = 0 THEN NULL ELSE 'name ' || i END AS name,
       CASE WHEN i % 8 = 0 THEN NULL ELSE (i * 10.01 - 500)::numeric(12, 2) END AS amount,
       CASE WHEN i % 7 = 0 THEN NULL ELSE timestamp '2024-01-01' + i * interval '1.000001 s' END AS at,
       CASE WHEN i % 6 = 0 THEN NULL ELSE date '2024-01-01' - i END AS day,
       CASE WHEN i % 5 = 0 THEN NULL ELSE decode(md5(i::text), 'hex') END AS raw
FROM generate_series(1, 400) i;
INSERT INTO pk_orc SELECT * FROM kv_src;
INSERT INTO pk_avro SELECT * FROM kv_src;
UPDATE pk_orc SET amount = amount + 1, name = upper(name) WHERE id % 10 = 1;
UPDATE pk_avro SET amount = amount + 1, name = upper(name) WHERE id % 10 = 1;
DELETE FROM pk_orc WHERE id % 10 = 2;
DELETE FROM pk_avro WHERE id % 10 = 2;
UPDATE kv_src SET amount = amount + 1, name = upper(name) WHERE id % 10 = 1;
DELETE FROM kv_src WHERE id % 10 = 2;
-- a key written twice in one transaction: the last write wins
BEGIN;
INSERT INTO pk_orc VALUES (1000, 'first', 1, NULL, NULL, NULL);
INSERT INTO pk_orc VALUES (1000, 'second', 1, NULL, NULL, NULL);
INSERT INTO pk_avro VALUES (1000, 'first', 1, NULL, NULL, NULL);
INSERT INTO pk_avro VALUES (1000, 'second', 1, NULL, NULL, NULL);
COMMIT;
INSERT INTO kv_src VALUES (1000, 'second', 1, NULL, NULL, NULL);
SELECT count(*) AS differ_orc FROM (
  (SELECT * FROM kv_src EXCEPT ALL SELECT * FROM pk_orc)
  UNION ALL (SELECT * FROM pk_orc EXCEPT ALL SELECT * FROM kv_src)) x;
SELECT count(*) AS differ_avro FROM (
  (SELECT * FROM kv_src EXCEPT ALL SELECT * FROM pk_avro)
  UNION ALL (SELECT * FROM pk_avro EXCEPT ALL SELECT * FROM kv_src)) x;
SELECT count(*), count(name), sum(amount) FROM pk_orc;
SELECT * FROM pk_avro WHERE id IN (1, 2, 11, 1000) ORDER BY id;
SELECT pg_temp.files('pk_orc', 'orc') > 0 AS orc_files, pg_temp.files('pk_avro', 'avro') > 0 AS avro_files,
       pg_temp.files('pk_orc', 'parquet') + pg_temp.files('pk_avro', 'parquet') AS parquet_files;
EXPLAIN (COSTS OFF) INSERT INTO pk_avro (id) VALUES (1);

-- ---- manifest.compression: the Avro codec of manifests and manifest lists ----
INSERT INTO man_deflate SELECT i, 'p' || i % 2, 'v' || i FROM generate_series(1, 10) i;
INSERT INTO man_deflate VALUES (11, 'p1', 'v11');
SELECT count(*), sum(id), count(DISTINCT p) FROM man_deflate;
-- each file's header (bytes, not our reader): "avro.codec", the length 7 (zigzag 0x0e), "deflate"
SELECT count(*) AS manifest_files,
       count(*) FILTER (WHERE position(convert_to('avro.codec', 'UTF8') || '\x0e'::bytea ||
                                       convert_to('deflate', 'UTF8')
                                       IN pg_read_binary_file('/tmp/ts_wformats_wh/f.db/man_deflate/manifest/' || f)) > 0)
         AS deflate_files
  FROM pg_ls_dir('/tmp/ts_wformats_wh/f.db/man_deflate/manifest') f;
-- a codec Java's Avro has but this writer not, and a manifest.format other than avro: nothing written
SELECT pg_temp.fails('INSERT INTO man_bz VALUES (1, ''x'', ''y'')');
SELECT count(*) AS man_bz_entries FROM pg_ls_dir('/tmp/ts_wformats_wh/f.db/man_bz') f WHERE f <> 'schema';
ALTER FOREIGN TABLE man_deflate OPTIONS (ADD "manifest.format" 'orc');
SELECT pg_temp.fails('INSERT INTO man_deflate VALUES (12, ''p0'', ''x'')');
SELECT pg_temp.snapshots('man_deflate') AS man_deflate_snapshots,
       (SELECT count(*) FROM pg_ls_dir('/tmp/ts_wformats_wh/f.db/man_deflate/manifest') f) AS manifest_files;

-- ---- avro.codec: Java's AvroFileFormat takes it first, for data files and manifests ----
-- the codec an Avro file's header names (bytes, not our reader): the value after "avro.codec"
CREATE FUNCTION pg_temp.codec(path text) RETURNS text LANGUAGE sql AS $$
  SELECT convert_from(substring(b FROM p + 11 FOR get_byte(b, p + 9) / 2), 'UTF8')
  FROM (SELECT b, position(convert_to('avro.codec', 'UTF8') IN b) AS p
        FROM pg_read_binary_file(path) b) x $$;
-- the codecs of a table's Avro data files, manifests and manifest lists
CREATE FUNCTION pg_temp.codecs(t text) RETURNS TABLE (kind text, codec text, files bigint)
LANGUAGE sql AS $$
  WITH RECURSIVE d(p) AS (SELECT '/tmp/ts_wformats_wh/f.db/' || t
     UNION ALL SELECT d.p || '/' || f FROM d, pg_ls_dir(d.p, true, false) f
     WHERE (pg_stat_file(d.p || '/' || f, true)).isdir),
  a AS (SELECT CASE WHEN d.p ~ '/manifest$' THEN substring(f FROM '^(manifest-list|manifest)')
                    ELSE 'data' END AS kind, pg_temp.codec(d.p || '/' || f) AS codec
        FROM d, pg_ls_dir(d.p, true, false) f
        WHERE f ~ '\.avro$' OR (d.p ~ '/manifest$' AND f ~ '^manifest'))
  SELECT kind, codec, count(*) FROM a GROUP BY 1, 2 ORDER BY 1, 2 $$;
INSERT INTO avro_codec SELECT i, 'p' || i % 2, 'v' || i FROM generate_series(1, 20) i;
INSERT INTO avro_codec VALUES (21, NULL, 'v21');
SELECT count(*), sum(id), count(p), count(DISTINCT p), min(v), max(v) FROM avro_codec;
SELECT * FROM pg_temp.codecs('avro_codec');
-- as a foreign table option, on a table with the default codecs: the next files only
SELECT * FROM pg_temp.codecs('app_avro');
ALTER FOREIGN TABLE app_avro OPTIONS (ADD "avro.codec" 'null');
INSERT INTO app_avro (id, s) VALUES (300001, 'uncompressed');
SELECT * FROM pg_temp.codecs('app_avro');
SELECT id, s FROM app_avro WHERE id > 300000;
-- xz Avro has but this writer not, a name Avro has not (fromString is exact): nothing written
SELECT pg_temp.fails('INSERT INTO codec_xz VALUES (1, ''x'', ''y'')');
SELECT count(*) AS codec_xz_entries FROM pg_ls_dir('/tmp/ts_wformats_wh/f.db/codec_xz') f WHERE f <> 'schema';
ALTER FOREIGN TABLE app_avro OPTIONS (SET "avro.codec" 'Snappy');
SELECT pg_temp.fails('INSERT INTO app_avro (id) VALUES (300002)');
ALTER FOREIGN TABLE app_avro OPTIONS (SET "avro.codec" 'zstd');
SELECT pg_temp.fails('INSERT INTO app_avro (id) VALUES (300002)');
ALTER FOREIGN TABLE app_avro OPTIONS (DROP "avro.codec");
SELECT count(*) FROM app_avro WHERE id > 300000;

-- ---- refused: a codec the format has not ----------------------------------
SELECT pg_temp.fails('INSERT INTO avro_bz VALUES (1, ''x'', ''y'')');
ALTER FOREIGN TABLE app_orc OPTIONS (ADD "file.compression" 'lzo');
SELECT pg_temp.fails('INSERT INTO app_orc (id) VALUES (1)');
SELECT pg_temp.files('avro_bz', 'avro') AS avro_bz_files;
DROP SERVER flake CASCADE;
DROP EXTENSION tablescan_fdw;
\! rm -rf /tmp/ts_wformats_wh
