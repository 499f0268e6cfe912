-- Paimon option keys checked against the option registry (src/meta/core_options.c):
-- keys no Paimon class and not tablescan_fdw defines are refused with the closest key, values
-- of keys we act on are checked, ignored keys pass (a NOTICE when the rows could
-- differ), refused features and misplaced secrets are errors; the same rules in
-- SET tablescan.scan_options.
CREATE EXTENSION tablescan_fdw;
\set VERBOSITY default
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/nonexistent/warehouse');
-- the SQLSTATE, message, detail and hint of a statement's error
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text; msg text; det text; hint text;
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                          det = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
  RETURN st || ': ' || msg || coalesce(' | ' || nullif(det, ''), '') || coalesce(' | ' || nullif(hint, ''), '');
END $$;

-- misspellings in Paimon's namespaces: refused, with the key meant
SELECT k, try(format('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database %L, "table" %L, %I %L)',
                     'd', 't', k, '1'))
FROM (VALUES ('scan.snapshotid'), ('scan.snapshot_id'), ('scan.tag'), ('scan.timestamp-milis'),
             ('file-index.read.enable'), ('csv.field-delimter'), ('s3.endpiont'),
             ('fs.s3a.acess.key'), ('deletion-vectors.enable')) AS v(k);
-- keys Paimon defines, incl. fallback keys and patterns: accepted
SELECT k, try(format('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database %L, "table" %L, %I %L); DROP FOREIGN TABLE t',
                     'd', 't', k, v))
FROM (VALUES ('write-buffer-size', '256 mb'), ('snapshot.time-retained', '1 h'), ('log.scan', 'latest'),
             ('file-index.bloom-filter.columns', 'a'), ('file-index.bloom-filter.a.fpp', '0.01'),
             ('fields.a.aggregate-function', 'sum'), ('deduplicate.ignore-delete', 'true'),
             ('commit.callback.com.example.Cb.param', 'x'), ('json.map-null-key-literal', 'n')) AS v(k, v);
-- a key no Paimon class and not tablescan_fdw defines is refused in any
-- namespace or none, wherever it is given (a quoted typo of scan.snapshot-id
-- would otherwise read the latest snapshot)
SELECT k, try(format('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database %L, "table" %L, %I %L)',
                     'd', 't', k, '1'))
FROM (VALUES ('scan-snapshot-id'), ('hive.metastore.uris'), ('my.own-key'), ('snapshot_id'),
             ('partition-filter'), ('warehose')) AS v(k);
SELECT try('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse ''/x'', "scan-snapshot-id" ''1'')');
SELECT try('ALTER SERVER lake OPTIONS (ADD "my.own-key" ''1'')');
SELECT try('ALTER SERVER lake OPTIONS (ADD warehose ''/x'')');
SELECT try('CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS ("s3.secret-kye" ''k'')');
SELECT try('CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS ("my.own-key" ''k'')');
SELECT try('CREATE FOREIGN TABLE t (a int OPTIONS (colum_name ''b'')) SERVER lake OPTIONS (database ''d'', "table" ''t'')');
-- values of keys we act on are checked by type (SQLSTATE 22023)
SELECT k, v, try(format('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database %L, "table" %L, %I %L)',
                        'd', 't', k, v))
FROM (VALUES ('deletion-vectors.enabled', 'yes'), ('data-evolution.enabled', '1'),
             ('scan.snapshot-id', '0'), ('scan.watermark', 'soon'), ('bucket', '-3'),
             ('merge-engine', 'last-row'), ('sequence.field.sort-order', 'up'),
             ('json.map-null-key-mode', 'ignore'), ('csv.include-header', 'maybe')) AS v(k, v);
-- ... and a good value of any case is fine
SELECT try('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', "deletion-vectors.enabled" ''TRUE'', "scan.mode" ''FROM-SNAPSHOT''); DROP FOREIGN TABLE t');
-- ignoring some keys could change the rows: accepted with a NOTICE
CREATE FOREIGN TABLE t_rows (a int) SERVER lake
  OPTIONS (database 'd', "table" 't', "scan.file-creation-time-millis" '1700000000000');
ALTER FOREIGN TABLE t_rows OPTIONS (ADD "blob-as-descriptor" 'true');
DROP FOREIGN TABLE t_rows;
-- a feature we refuse stays an error
SELECT try('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', "fields.g.sequence-group" ''a,b'')');
-- secrets only in a user mapping, which takes nothing else
SELECT try('CREATE SERVER s3 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse ''/x'', "s3.secret-key" ''k'')');
SELECT try('ALTER SERVER lake OPTIONS (ADD "fs.s3a.access.key" ''k'')');
CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS ("s3.access-key" 'AK', "s3.secret-key" 'SK');
SELECT try('ALTER USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (ADD "scan.snapshot-id" ''1'')');
DROP USER MAPPING FOR CURRENT_USER SERVER lake;

-- the same rules for the session's options, when they are set
SET tablescan.scan_options = 'scan.snapshotid=3';
SET tablescan.scan_options = 'scan.tag=t1';
SET tablescan.scan_options = 'scan.snapshot-id=3,data-evolution.enabled=perhaps';
SET tablescan.scan_options = 's3.secret-key=x';
SET tablescan.scan_options = 'scan.creation-time-millis=5';
SHOW tablescan.scan_options;
SET tablescan.scan_options = 'scan.snapshot-id=3, write-buffer-size=64 mb, my.key=1';
SET tablescan.scan_options = 'scan-snapshot-id=3';
SHOW tablescan.scan_options;
SET tablescan.scan_options = 'scan.snapshot-id=3, write-buffer-size=64 mb';
SHOW tablescan.scan_options;
RESET tablescan.scan_options;

DROP FUNCTION try(text);
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
