-- OVERWRITE snapshots in a stream (tablescan_changes): skipped by default,
-- as Java's follow-up scanners do; with streaming-read-append-overwrite an
-- append table's stream reads the files the overwrite added.  The table is
-- a copy of the generated append table sales.db/orders (snapshots 1, 2, 3,
-- all APPEND) whose snapshot 3 is relabelled OVERWRITE (an overwrite that
-- removed no file); the rows expected come from batch time-travel reads.
CREATE EXTENSION tablescan_fdw;
CREATE SCHEMA cow;
SET search_path = cow, public;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE FUNCTION pg_temp.error_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  msg text;
BEGIN
  EXECUTE q;
  RETURN NEXT 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
  RETURN NEXT regexp_replace('ERROR:  ' || msg, '"/[^"]*/(regress_cow|warehouse)/', '"<dir>/', 'g');
END $$;
CREATE FUNCTION pg_temp.sh(cmd text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', 'cat >/dev/null; ' || cmd);
END $$;
SELECT current_setting('data_directory') || '/regress_cow/orders' AS orders \gset
SELECT pg_temp.sh(format($c$
  rm -rf regress_cow && mkdir regress_cow && cp -r %1$s/sales.db/orders regress_cow/orders &&
  sed -i 's/"APPEND"/"OVERWRITE"/' regress_cow/orders/snapshot/snapshot-3$c$, :'warehouse'));
SELECT pg_read_file(:'orders' || '/snapshot/snapshot-3')::jsonb->>'commitKind' AS snapshot_3;

CREATE SERVER scratch FOREIGN DATA WRAPPER tablescan_fdw;
CREATE FOREIGN TABLE ow (id int, customer text, amount numeric) SERVER scratch
  OPTIONS (path :'orders', "scan.mode" 'from-snapshot', "scan.snapshot-id" '1');
CREATE FOREIGN TABLE at2 (id int, customer text, amount numeric) SERVER scratch
  OPTIONS (path :'orders', "scan.snapshot-id" '2');
CREATE FOREIGN TABLE at3 (id int, customer text, amount numeric) SERVER scratch
  OPTIONS (path :'orders', "scan.snapshot-id" '3');
-- (snapshot 3 added rows)
SELECT (SELECT count(*) FROM at2) AS rows_at_2, (SELECT count(*) FROM at3) AS rows_at_3;
CREATE TEMP TABLE got (id int, customer text, amount numeric);
CREATE FUNCTION differs_from(snapshot int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  EXECUTE format('SELECT count(*) FROM ((TABLE got EXCEPT ALL TABLE at%1$s) UNION ALL (TABLE at%1$s EXCEPT ALL TABLE got)) d', snapshot)
    INTO n;
  RETURN n;
END $$;

-- by default the overwrite is skipped: the stream holds the rows of 1 and 2
INSERT INTO got SELECT * FROM tablescan_changes(NULL::ow, consumer => 'plain');
SELECT count(*) AS rows, differs_from(2) AS different,
       (SELECT next_snapshot FROM tablescan_consumers WHERE consumer = 'plain') AS next FROM got;
TRUNCATE got;
-- with streaming-read-append-overwrite its added files are read too
ALTER FOREIGN TABLE ow OPTIONS (ADD "streaming-read-append-overwrite" 'true');
INSERT INTO got SELECT * FROM tablescan_changes(NULL::ow, consumer => 'overwrite');
SELECT count(*) AS rows, differs_from(3) AS different FROM got;
TRUNCATE got;
-- also snapshot by snapshot (the overwrite alone gives what 3 added)
SELECT count(*) AS overwrite_rows, count(*) = (SELECT count(*) FROM at3) - (SELECT count(*) FROM at2) AS as_added
  FROM tablescan_changes(NULL::ow, from_snapshot => 3);
-- a batch incremental-between read is not a stream: its delta mode skips
-- the overwrite, as Java's
CREATE FOREIGN TABLE ow_between (id int) SERVER scratch
  OPTIONS (path :'orders', "incremental-between" '2,3', "streaming-read-append-overwrite" 'true');
SELECT count(*) AS between_rows FROM ow_between;
-- not on primary-key tables (streaming-read-overwrite, their option, stays refused)
\set pkdir :warehouse/pk.db/pk_dedup_levels
CREATE FOREIGN TABLE pk_ow (id int) SERVER scratch
  OPTIONS (path :'pkdir', "scan.mode" 'latest',
           "streaming-read-append-overwrite" 'true');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::pk_ow, consumer => 'x')$$);
ALTER FOREIGN TABLE pk_ow OPTIONS (DROP "streaming-read-append-overwrite", ADD "streaming-read-overwrite" 'true');
SELECT pg_temp.error_of($$SELECT * FROM tablescan_changes(NULL::pk_ow, consumer => 'x')$$);

SELECT pg_temp.sh('rm -rf regress_cow');
DROP SCHEMA cow CASCADE;
DROP SERVER scratch CASCADE;
DROP EXTENSION tablescan_fdw;
RESET search_path;
