-- Type changes Java Paimon allows (ALTER TABLE ... MODIFY COLUMN), read as
-- Java reads them (the rules of org.apache.paimon.casting, see the matrix in
-- src/read/cast.c).  casts.db/casts (Avro), casts_parquet (Parquet) and
-- casts_orc (ORC): rows 0-99
-- are in files written before the changes and are cast, rows 100-199 in
-- files written after.  The expected values below are the generator's value formulas
-- (src/tools/ts_gen.c) with the Java rules written out in SQL; the session
-- time zone (PostgreSQL's TimeZone) is Java's TimeZone.getDefault().
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
IMPORT FOREIGN SCHEMA casts LIMIT TO (casts, casts_parquet, casts_orc, casts_bad, casts_refused)
  FROM SERVER lake INTO public;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
 WHERE attrelid = 'casts'::regclass AND attnum > 0 ORDER BY attnum;

CREATE VIEW casts_expected AS
WITH g AS (
  SELECT n, n < 100 AS old, current_setting('TimeZone') AS tz,
         timestamp '2020-01-01' + n * interval '1.001001 second' AS ts6,
         date_trunc('milliseconds', timestamp '2020-01-01' + n * interval '1.001001 second') AS ts3,
         date '2020-01-01' + n AS d,
         n * 1001 % 86400000 AS tm
    FROM generate_series(0, 199) n)
SELECT n AS id,
  -- TimestampToTimestampCastRule: the wall clock in the session zone
  CASE WHEN old THEN ts6 AT TIME ZONE tz ELSE ts6 AT TIME ZONE 'UTC' END AS c_ts_ltz,
  CASE WHEN old THEN (ts3 AT TIME ZONE 'UTC') AT TIME ZONE tz ELSE ts3 END AS c_ltz_ts,
  -- TimestampToDateCastRule (LTZ: the day in the session zone)
  CASE WHEN old THEN ((ts6 AT TIME ZONE 'UTC') AT TIME ZONE tz)::date ELSE d END AS c_ltz_date,
  -- TimestampToStringCastRule: formatTimestamp in the session zone, 6 digits
  CASE WHEN old THEN to_char((ts6 AT TIME ZONE 'UTC') AT TIME ZONE tz, 'YYYY-MM-DD HH24:MI:SS.US')
       ELSE 'c_ltz_str_' || n END AS c_ltz_str,
  -- TimestampToNumericPrimitiveCastRule: epoch seconds of the instant, in any zone
  CASE WHEN old THEN floor(extract(epoch FROM ts3 AT TIME ZONE 'UTC'))::bigint
       ELSE n * 1000000007::bigint END AS c_ltz_bigint,
  -- NumericPrimitiveToTimestamp: the session wall clock of n seconds, as UTC
  CASE WHEN old THEN (to_timestamp(n) AT TIME ZONE tz) AT TIME ZONE 'UTC'
       ELSE ts6 AT TIME ZONE 'UTC' END AS c_int_ltz,
  -- DateToTimestampCastRule: midnight in the session zone
  CASE WHEN old THEN d::timestamp AT TIME ZONE tz ELSE ts6 AT TIME ZONE 'UTC' END AS c_date_ltz,
  CASE WHEN old THEN floor(extract(epoch FROM ts6))::int ELSE n END AS c_ts_int,
  CASE WHEN old THEN timestamp '1970-01-01' + n * interval '1 second' ELSE ts3 END AS c_int_ts,
  CASE WHEN old THEN ts3::date ELSE d END AS c_ts_date,
  CASE WHEN old THEN ts3::time ELSE time '00:00' + tm * interval '1 millisecond' END AS c_ts_time,
  -- NumericToStringCastRule
  CASE WHEN old THEN n::text ELSE 'c_int_str_' || n END AS c_int_str,
  -- NumericPrimitiveCastRule: (int) 1.25 n truncates, (short) wraps
  CASE WHEN old THEN trunc(n * 1.25)::int ELSE n END AS c_dbl_int,
  CASE WHEN old THEN (CASE WHEN (n * 1000000007::bigint) & 65535 > 32767
                           THEN ((n * 1000000007::bigint) & 65535) - 65536
                           ELSE (n * 1000000007::bigint) & 65535 END)::smallint
       ELSE (n % 32768)::smallint END AS c_big_small,
  -- NumericPrimitiveToDecimalCastRule: too many digits -> NULL
  CASE WHEN old THEN (CASE WHEN n * 1000000007::bigint < 10000000000
                           THEN n * 1000000007::numeric END)
       ELSE n::numeric END AS c_big_dec,
  CASE WHEN old THEN round((n * 1.25)::numeric, 1) ELSE n / 10.0 END AS c_dbl_dec,
  -- DecimalToDecimalCastRule: HALF_UP
  CASE WHEN old THEN round(n / 100.0, 1) ELSE n / 10.0 END AS c_dec_dec,
  CASE WHEN old THEN (n % 2 = 1)::text ELSE 'c_bool_str_' || n END AS c_bool_str,
  CASE WHEN old THEN n % 2 ELSE n END AS c_bool_int,
  CASE WHEN old THEN to_char(d, 'YYYY-MM-DD') ELSE 'c_date_str_' || n END AS c_date_str,
  -- TimeToStringCastRule: formatTimestampMillis stops at trailing zeros
  CASE WHEN old THEN to_char(time '00:00' + tm * interval '1 millisecond', 'HH24:MI:SS') || '.' ||
                     coalesce(nullif(rtrim(lpad((tm % 1000)::text, 3, '0'), '0'), ''), '0')
       ELSE 'c_time_str_' || n END AS c_time_str,
  CASE WHEN old THEN to_char(ts3, 'YYYY-MM-DD HH24:MI:SS.MS') ELSE 'c_ts_str_' || n END AS c_ts_str,
  -- StringToStringCastRule: VARCHAR(20) -> VARCHAR(8) trims
  left('c_vc_len_' || n, 8) AS c_vc_len,
  -- BinaryToStringCastRule: the bytes
  'c_bin_str_' || n AS c_bin_str,
  -- StringToBooleanCastRule: 't'
  CASE WHEN old THEN true ELSE n % 2 = 1 END AS t,
  -- StringTo*CastRule (casts_parquet and casts_orc only): the column name cut is the old value
  CASE WHEN old THEN 42 ELSE n END AS "42x",
  CASE WHEN old THEN -7 ELSE n * 1000000007::bigint END AS "-7x",
  CASE WHEN old THEN 1.3 ELSE n / 10.0 END AS "1.25x",
  CASE WHEN old THEN 2500 ELSE n * 1.25::float8 END AS "2.5e3x",
  CASE WHEN old THEN date '2020-01-31' ELSE d END AS "2020-01-31x",
  CASE WHEN old THEN timestamp '2020-03-08' AT TIME ZONE tz ELSE ts6 AT TIME ZONE 'UTC' END AS "2020-03-08x",
  CASE WHEN old THEN timestamp '2020-03-09' ELSE ts3 END AS "2020-03-09x",
  convert_to('c_str_bin_' || n, 'UTF8') AS c_str_bin,
  -- CastedArray: element casts
  CASE WHEN old THEN ARRAY(SELECT k::bigint FROM generate_series(n, n + n % 4 - 1) k)
       ELSE ARRAY(SELECT k * 1000000007::bigint FROM generate_series(n, n + n % 4 - 1) k) END AS c_arr,
  -- ArrayToStringCastRule
  CASE WHEN old THEN '[' || array_to_string(ARRAY(SELECT generate_series(n, n + n % 4 - 1)), ', ') || ']'
       ELSE 'c_arr_str_' || n END AS c_arr_str,
  -- CastedRow: each field cast by its id (INT -> BIGINT, DATE -> STRING)
  CASE WHEN old THEN jsonb_build_object('x', n, 'y', 'y_' || n, 'z', to_char(d, 'YYYY-MM-DD'))
       ELSE jsonb_build_object('x', n * 1000000007::bigint, 'y', 'y_' || n, 'z', 'z_' || n) END AS c_row
FROM g;

-- the columns of a table checked, and the values that differ from the expected ones
CREATE FUNCTION casts_wrong(tab regclass) RETURNS TABLE (columns bigint, wrong_values bigint)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format(
    'SELECT count(DISTINCT a.attname), count(*) FILTER (WHERE
            (to_jsonb(c) -> a.attname::text) IS DISTINCT FROM (to_jsonb(e) -> a.attname::text))
       FROM %s c FULL JOIN casts_expected e USING (id)
      CROSS JOIN pg_attribute a
      WHERE a.attrelid = %s AND a.attnum > 0', tab, tab::oid);
END $$;

-- a zone with daylight saving time (2020-03-08 is its spring change: id 67)
SET TimeZone = 'America/New_York';
SELECT count(*) FROM casts;
SELECT * FROM casts_wrong('casts');
SELECT * FROM casts_wrong('casts_parquet');
SELECT * FROM casts_wrong('casts_orc');
SELECT id, c_ts_ltz, c_ltz_ts, c_ltz_date, c_ltz_str, c_ltz_bigint, c_int_ltz, c_date_ltz
  FROM casts WHERE id IN (0, 1, 67, 68, 99, 100) ORDER BY id;
SELECT id, c_int_str, c_dbl_int, c_big_small, c_big_dec, c_dbl_dec, c_dec_dec, c_bool_str,
       c_time_str, c_ts_str, c_vc_len, c_bin_str, t, c_arr, c_arr_str
  FROM casts WHERE id IN (0, 1, 10, 99, 100, 101) ORDER BY id;
SELECT id, c_row FROM casts WHERE id IN (0, 99, 100) ORDER BY id;
SELECT id, "42x", "-7x", "1.25x", "2.5e3x", "2020-01-31x", "2020-03-08x", "2020-03-09x", c_str_bin
  FROM casts_parquet WHERE id IN (0, 99, 100) ORDER BY id;
SELECT id, c_ts_ltz, c_ltz_date, c_int_ltz, c_dec_dec, "1.25x", "2020-03-08x", c_str_bin
  FROM casts_orc WHERE id IN (0, 67, 99, 100) ORDER BY id;
SELECT id, c_arr, c_arr_str, c_row FROM casts_orc WHERE id IN (2, 99, 101) ORDER BY id;
SELECT id, c_arr, c_arr_str, c_row FROM casts_parquet WHERE id IN (2, 99, 101) ORDER BY id;

-- a zone east of UTC (the day of a late evening UTC instant moves forward)
SET TimeZone = 'Asia/Kolkata';
SELECT * FROM casts_wrong('casts');
SELECT * FROM casts_wrong('casts_parquet');
SELECT * FROM casts_wrong('casts_orc');
SELECT id, c_ts_ltz, c_ltz_ts, c_ltz_date, c_ltz_str, c_int_ltz, c_date_ltz
  FROM casts WHERE id IN (0, 99) ORDER BY id;
-- LTZ to BIGINT: the instant's epoch seconds, not the +05:30 wall clock
-- (2020-01-01 00:00:02.002Z is 1577836802 in every zone)
SELECT id, c_ltz_bigint, c_ltz_bigint - extract(epoch FROM timestamptz '2020-01-01 00:00:00Z')::bigint AS secs
  FROM casts WHERE id IN (0, 2, 99) ORDER BY id;

-- predicates on cast columns: the same rows with pruning on and off, in
-- casts (Avro); the Parquet and ORC tables are shown only when they differ
CREATE FUNCTION casts_filtered(pred text) RETURNS TABLE (pruning text, n bigint, ids text)
LANGUAGE plpgsql AS $$
DECLARE p text; t text; n2 bigint; ids2 text;
BEGIN
  FOREACH p IN ARRAY ARRAY['on', 'off'] LOOP
    PERFORM set_config('tablescan.enable_pruning', p, true);
    pruning := p;
    EXECUTE format('SELECT count(*), string_agg(id::text, '','' ORDER BY id) FROM casts WHERE %s', pred)
      INTO n, ids;
    RETURN NEXT;
    FOREACH t IN ARRAY ARRAY['casts_parquet', 'casts_orc'] LOOP
      EXECUTE format('SELECT count(*), string_agg(id::text, '','' ORDER BY id) FROM %s WHERE %s', t, pred)
        INTO n2, ids2;
      IF n2 IS DISTINCT FROM n OR ids2 IS DISTINCT FROM ids THEN
        RETURN QUERY SELECT p || ' ' || t, n2, ids2;
      END IF;
    END LOOP;
  END LOOP;
  EXECUTE format('SELECT count(*), string_agg(id::text, '','' ORDER BY id) FROM casts_expected WHERE %s', pred)
    INTO n, ids;
  pruning := 'expected';
  RETURN NEXT;
END $$;
SELECT * FROM casts_filtered($$c_int_str = '5'$$);
SELECT * FROM casts_filtered('c_dbl_int = 6');
SELECT * FROM casts_filtered('c_big_small < -30000');
SELECT * FROM casts_filtered('c_big_dec IS NULL AND id < 15');
SELECT * FROM casts_filtered($$c_ts_ltz < '2020-01-01 05:30:03+05:30' AND id > 90$$);
SELECT * FROM casts_filtered($$c_ltz_date = '2020-01-01' AND id > 95$$);
SELECT * FROM casts_filtered('c_ts_int = 1577836810');
RESET TimeZone;

-- STRING -> INT when an old value does not parse: an error, as in Java
SELECT pg_temp.error_of('SELECT * FROM casts_bad ORDER BY id');
-- a change Java refuses: both types named exactly
SELECT pg_temp.error_of('SELECT * FROM casts_refused');

DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
