-- Secrets live only in USER MAPPINGs (trust issue, items 1, 4 and 8):
-- server and foreign table options, readable by every role, refuse a URL
-- with a user name or password; no value that could reach an HTTP request
-- holds a control character; a mapping's access and secret keys come in
-- pairs.  No error shows the value.
CREATE EXTENSION tablescan_fdw;
\set VERBOSITY default
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
-- does an error (any of its parts) show the password?
CREATE FUNCTION leaks(q text) RETURNS boolean LANGUAGE sql AS $$ SELECT try(q) LIKE '%pw%' $$;

CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/nonexistent/wh');

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
SELECT has_url_userinfo FROM (SELECT try('CREATE SERVER s FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse ''abfs://container@account.dfs.core.windows.net/wh'')')
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
-- a format table's delimiters and a schema JSON may hold them
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
DROP SERVER lake;
DROP EXTENSION tablescan_fdw;
