-- Paimon option keys checked against the option registry (src/meta/core_options.c):
-- keys no Paimon class and not tablescan_fdw defines are refused with the closest key, values
-- of keys we act on are checked, ignored keys pass (a NOTICE when the rows could
-- differ), refused features and misplaced secrets are errors; the same rules in
-- SET tablescan.scan_options.  Then the values no option may hold (credentials
-- in URLs, control characters) and the pairs a user mapping's keys come in.
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
-- so are the credential sources we do not implement (ignored, a read would use other keys)
SELECT k, try(format('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse %L, %I %L)', '/x', k, 'x'))
FROM (VALUES ('s3.assumed.role.arn'), ('s3.aws.credentials.provider'), ('fs.s3a.aws.credentials.provider')) AS v(k);
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

-- Secrets live only in USER MAPPINGs (trust issue, items 1, 4 and 8):
-- server and foreign table options, readable by every role, refuse a URL
-- with a user name or password; no value that could reach an HTTP request
-- holds a control character; a mapping's access and secret keys come in
-- pairs.  No error shows the value.
-- does an error (any of its parts) show the password?
CREATE FUNCTION leaks(q text) RETURNS boolean LANGUAGE sql AS $$ SELECT try(q) LIKE '%pw%' $$;

-- 1. URLs with credentials: every URL-valued option, on CREATE and ALTER
SELECT k, v, try(format('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (%I %L)', k, v)) AS result,
       leaks(format('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (%I %L)', k, v)) AS leaks
FROM (VALUES ('uri', 'http://user:pw@127.0.0.1:1'),
             ('uri', 'https://user@127.0.0.1:1/v1'),
             ('s3.endpoint', 'http://ak:pw@127.0.0.1:9000'),
             ('s3.endpoint', 'ak:pw@127.0.0.1:9000'),
             ('fs.s3a.endpoint', 'https://ak:pw@s3.example.com'),
             ('fs.oss.endpoint', 'http://ak:pw@oss.example.com'),
             ('warehouse', 's3://ak:pw@bucket/wh'),
             ('warehouse', 'abfs://container:pw@account.dfs.core.windows.net/wh'),
             ('partition.mark-done-action.http.url', 'http://u:pw@hook.example.com/done')) AS t(k, v);
SELECT try('ALTER SERVER lake OPTIONS (ADD "s3.endpoint" ''http://ak:pw@127.0.0.1:9000'')');
SELECT try('ALTER SERVER lake OPTIONS (SET warehouse ''s3a://ak:pw@bucket/wh'')');
-- in foreign table options, and in every URL of a list
SELECT try('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', "s3.endpoint" ''http://ak:pw@h:1'')');
SELECT try('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (path ''s3://ak:pw@bucket/t'')');
SELECT try('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', "external-path-map" ''/a=>/b;/c=>s3://ak:pw@bucket/x'')');
SELECT try('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', "data-file.external-paths" ''s3://b/x,s3://ak:pw@b/y'')');
-- and in the session's options
SET tablescan.scan_options = 'data-file.external-paths=s3://ak:pw@bucket/x';
SHOW tablescan.scan_options;
-- URLs without credentials still pass; an Azure location names its container before the '@'
SELECT try('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (catalog ''rest'', uri ''http://127.0.0.1:1/v1'', warehouse ''a@b''); DROP SERVER s');
SELECT try('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse ''s3://bucket/wh'', "s3.endpoint" ''http://127.0.0.1:9000''); DROP SERVER s');
SELECT try('CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', "partition.mark-done-action.http.url" ''http://hook.example.com/a@b''); DROP FOREIGN TABLE t');
SELECT has_url_userinfo FROM (SELECT try('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse ''abfs://container@account.dfs.core.windows.net/wh''); DROP SERVER s')
                              LIKE '%user name or password%' AS has_url_userinfo) x;

-- 4. control characters (a CR LF would add an HTTP header): refused in user
-- mappings and in any value that can reach a request, never shown
SELECT k, try(format('CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (%I %L)', k, v)) AS result,
       try(format('CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (%I %L)', k, v)) LIKE '%X-Evil%' AS leaks
FROM (VALUES ('token', E'tok\r\nX-Evil: 1'),
             ('s3.session-token', E'st\r\nX-Evil: 1'),
             ('s3.access-key', E'AK\nX-Evil'),
             ('fs.oss.accessKeySecret', E'SK\rX-Evil'),
             ('token', E'tok\tX-Evil')) AS t(k, v);
CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (token 'good');
SELECT try(E'ALTER USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (SET token ''a\r\nX-Evil: 1'')');
SELECT umoptions FROM pg_user_mappings WHERE srvname = 'lake';
DROP USER MAPPING FOR CURRENT_USER SERVER lake;
SELECT k, try(format('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (catalog %L, %I %L)', 'rest', k, v))
FROM (VALUES ('uri', E'http://127.0.0.1:1/\r\nX-Evil: 1'), ('warehouse', E'wh\r\nX-Evil: 1'),
             ('s3.region', E'us\r\nX-Evil: 1')) AS t(k, v);
SELECT try(E'CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t\nX'')');
SELECT try(E'CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', branch ''b\r\nX'')');
-- a format table's delimiters, JSON values and a column's field name may hold them
SELECT try(E'CREATE FOREIGN TABLE t (a int OPTIONS (column_name ''a\tb'')) SERVER lake OPTIONS (database ''d'', "table" ''t'', partition_filter ''[\n{"dt": "1"}\n]''); DROP FOREIGN TABLE t');
SELECT try(E'CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', "csv.field-delimiter" ''\t'', "csv.line-delimiter" ''\r\n''); DROP FOREIGN TABLE t');
SELECT try(E'CREATE FOREIGN TABLE t (a int) SERVER lake OPTIONS (database ''d'', "table" ''t'', table_schema ''{\n"fields": []\n}''); DROP FOREIGN TABLE t');

-- 8. a user mapping's access and secret keys come in pairs, in every form
SELECT k, try(format('CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (%I %L)', k, 'x')) AS result
FROM (VALUES ('s3.access-key'), ('s3.secret-key'), ('fs.s3a.access.key'), ('fs.s3a.secret.key'),
             ('fs.oss.accessKeyId'), ('fs.oss.accessKeySecret'), ('s3.session-token')) AS t(k);
CREATE USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS ("s3.access-key" 'AK', "s3.secret-key" 'SK');
SELECT try('ALTER USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (DROP "s3.secret-key")');
SELECT try('ALTER USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (DROP "s3.access-key", DROP "s3.secret-key")');
SELECT try('ALTER USER MAPPING FOR CURRENT_USER SERVER lake OPTIONS (ADD "fs.oss.accessKeyId" ''AK'', ADD "fs.oss.accessKeySecret" ''SK'')');
SELECT umoptions FROM pg_user_mappings WHERE srvname = 'lake';
DROP USER MAPPING FOR CURRENT_USER SERVER lake;

DROP FUNCTION leaks(text);
DROP FUNCTION try(text);
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
