-- Pruning by timestamp columns never drops a row PostgreSQL would return,
-- on ORC tables written by Java Paimon (../shared/testdata/orc).  Found by
-- test/conformance/prune_diff.py:
--  * TIMESTAMP(9) values are seen rounded to microseconds, so a literal
--    equal to what PostgreSQL sees (00:00:00) is not the value stored
--    (00:00:00.000000001): comparisons and IN lists prune with the
--    nanosecond bounds of what rounds to the literal, <> and NOT IN do not;
--  * the manifest's timestamp stats of ORC files come from the ORC footer
--    through the writer's zone (LTZ bounds shifted by +08:00, TIMESTAMP
--    bounds of 1899 by the zone's local mean time): not used.
-- Each count is checked with pruning on and off.
CREATE EXTENSION tablescan_fdw;
\getenv shared TS_SHARED
\set warehouse :shared/testdata/orc
CREATE SERVER shared FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
SET TIME ZONE 'UTC';
IMPORT FOREIGN SCHEMA append_with_multiple_ts_precision_and_timezone FROM SERVER shared INTO public;
IMPORT FOREIGN SCHEMA timestamp_index FROM SERVER shared INTO public;
IMPORT FOREIGN SCHEMA append_complex_data FROM SERVER shared INTO public;
CREATE FUNCTION counts(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  on_count bigint;
  off_count bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO on_count;
  SET LOCAL tablescan.enable_pruning = off;
  EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO off_count;
  RETURN format('%s rows (%s without pruning)', on_count, off_count);
END $$;
-- TIMESTAMP(9): stored 1970-01-01 00:00:00.000000001 and ...03, seen as 00:00:00
SELECT ts_nano, ts_tz_nano FROM append_with_multiple_ts_precision_and_timezone ORDER BY ts_sec;
SELECT counts($$SELECT * FROM append_with_multiple_ts_precision_and_timezone
                WHERE ts_nano = '1970-01-01 00:00:00'$$);
SELECT counts($$SELECT * FROM append_with_multiple_ts_precision_and_timezone
                WHERE ts_tz_nano <= '1970-01-01 00:00:00+00'$$);
SELECT counts($$SELECT * FROM append_with_multiple_ts_precision_and_timezone
                WHERE ts_nano IN ('1970-01-01 00:00:00', '2000-01-01')$$);
EXPLAIN (COSTS OFF) SELECT * FROM append_with_multiple_ts_precision_and_timezone
  WHERE ts_nano = '1970-01-01 00:00:00';
-- TIMESTAMP(6) stats of a Parquet file still prune
\set warehouse :shared/testdata/parquet
CREATE SERVER shared_parquet FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
CREATE SCHEMA pq;
IMPORT FOREIGN SCHEMA append_with_multiple_ts_precision_and_timezone FROM SERVER shared_parquet INTO pq;
EXPLAIN (COSTS OFF) SELECT * FROM pq.append_with_multiple_ts_precision_and_timezone
  WHERE ts_micro = '1971-01-01 00:00:00';
SELECT counts($$SELECT * FROM pq.append_with_multiple_ts_precision_and_timezone
                WHERE ts_micro = '1970-01-01 00:00:00.000001'$$);
-- TIMESTAMP(9) comparisons prune with the nanosecond bounds of what rounds
-- to the literal: nothing stored (...01, ...03 ns) rounds above 00:00:00
-- or below it (this file has no stats of these columns)
EXPLAIN (COSTS OFF) SELECT * FROM pq.append_with_multiple_ts_precision_and_timezone
  WHERE ts_nano > '1970-01-01 00:00:00';
SELECT counts($$SELECT * FROM pq.append_with_multiple_ts_precision_and_timezone
                WHERE ts_nano > '1970-01-01 00:00:00'$$);
SELECT counts($$SELECT * FROM pq.append_with_multiple_ts_precision_and_timezone
                WHERE ts_nano >= '1970-01-01 00:00:00'$$);
SELECT counts($$SELECT * FROM pq.append_with_multiple_ts_precision_and_timezone
                WHERE ts_nano < '1970-01-01 00:00:00.000001'$$);
SELECT counts($$SELECT * FROM pq.append_with_multiple_ts_precision_and_timezone
                WHERE ts_nano <= '1969-12-31 23:59:59.999999'$$);
SELECT counts($$SELECT * FROM pq.append_with_multiple_ts_precision_and_timezone
                WHERE NOT (ts_nano <> '1970-01-01 00:00:00' AND ts_tz_nano < '1970-01-01 00:00:00+00')$$);
-- a Parquet table with TIMESTAMP(9) stats: files are pruned by them
IMPORT FOREIGN SCHEMA append_complex_data FROM SERVER shared_parquet INTO pq;
SELECT f4 FROM pq.append_complex_data ORDER BY f4;
EXPLAIN (COSTS OFF) SELECT * FROM pq.append_complex_data WHERE f4 > '2000-01-01';
SELECT counts($$SELECT * FROM pq.append_complex_data WHERE f4 > '2000-01-01'$$);
SELECT counts($$SELECT * FROM pq.append_complex_data WHERE f4 = '2033-05-18 03:33:20'$$);
SELECT counts($$SELECT * FROM pq.append_complex_data WHERE f4 = '2033-05-18 03:33:20.000001'$$);
SELECT counts($$SELECT * FROM pq.append_complex_data WHERE f4 > '2033-05-18 03:33:20'$$);
SELECT counts($$SELECT * FROM pq.append_complex_data WHERE f4 >= '2033-05-18 03:33:20.000001'$$);
SELECT counts($$SELECT * FROM pq.append_complex_data WHERE f4 < '2008-12-28 00:00:00.000123'$$);
SELECT counts($$SELECT * FROM pq.append_complex_data WHERE f4 <= '1899-01-01 00:59:20.001001'$$);
SELECT counts($$SELECT * FROM pq.append_complex_data WHERE f4 < '1899-01-01 00:59:20.001001'$$);
SELECT counts($$SELECT * FROM pq.append_complex_data
                WHERE NOT (f4 < '2024-10-10 10:10:10.1001' OR f4 > '2024-10-10 10:10:10.1001')$$);
EXPLAIN (COSTS OFF) SELECT * FROM pq.append_complex_data
  WHERE f4 IN ('1899-01-01 00:59:20.001001', '1999-01-01', NULL);
SELECT counts($$SELECT * FROM pq.append_complex_data
                WHERE f4 IN ('1899-01-01 00:59:20.001001', '1999-01-01', NULL)$$);
SELECT counts($$SELECT * FROM pq.append_complex_data
                WHERE f4 IN ('2033-05-18 03:33:20', '2033-05-18 03:33:20.000001')$$);
SELECT counts($$SELECT * FROM pq.append_complex_data
                WHERE f4 NOT IN ('2033-05-18 03:33:20', '2008-12-28 00:00:00.000123')$$);
-- LTZ stats of an ORC file: the manifest says 23:30:34.999 for 15:30:34.999Z
SELECT ts_tz_milli FROM timestamp_index ORDER BY ts_tz_milli LIMIT 1;
SELECT counts($$SELECT * FROM timestamp_index WHERE ts_tz_milli = '1969-12-31 15:30:34.999+00'$$);
SELECT counts($$SELECT * FROM timestamp_index WHERE ts_tz_micro < '1969-12-31 16:00:00+00'$$);
SELECT counts($$SELECT * FROM timestamp_index
                WHERE ts_tz_micro <= '1969-12-31 15:30:35.000001+00'$$);
-- TIMESTAMP stats of an ORC file in 1899 (Asia/Shanghai local mean time)
SELECT counts($$SELECT * FROM append_complex_data WHERE f4 = '1899-01-01 00:59:20.001001'$$);
SELECT counts($$SELECT * FROM append_complex_data WHERE f4 < '1899-01-01 01:00:00'$$);
-- stats of other types still prune those files
EXPLAIN (COSTS OFF) SELECT * FROM append_complex_data WHERE f2 > 1000;
DROP FUNCTION counts(text);
DROP SCHEMA pq CASCADE;
DROP SERVER shared_parquet CASCADE;
DROP SERVER shared CASCADE;
DROP EXTENSION tablescan_fdw;
