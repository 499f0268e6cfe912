-- The options of Azure Blob Storage (src/meta/core_options.c, checked by
-- src/fdw/storage_options.c): the account key and SAS token only in a USER
-- MAPPING and never empty, Hadoop's per-account key and ABFS's fixed SAS
-- token as their aliases, the endpoint of an emulator a SERVER or FOREIGN
-- TABLE option that must be http(s):// and no misspelling accepted; Azure
-- locations accepted (an invalid one refused naming what is wrong), and
-- nothing shows a key.  Reads are tested against azurite by
-- test/azure/store.sh and the conformance-azure part.
CREATE EXTENSION tablescan_fdw;
\set VERBOSITY default
CREATE SERVER az FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/nonexistent/warehouse');
-- the SQLSTATE, message and hint of a statement's error
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  st text; msg text; hint text;
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
  RETURN st || ': ' || msg || coalesce(' | ' || nullif(hint, ''), '');
END $$;

-- secrets: accepted in a USER MAPPING (each form), refused anywhere else, never empty
SELECT k, try(format('CREATE USER MAPPING FOR CURRENT_USER SERVER az OPTIONS (%I %L); DROP USER MAPPING FOR CURRENT_USER SERVER az', k, v))
FROM (VALUES ('azure.account-key', 'a2V5LW9mLXRoZS10ZXN0'),
             ('fs.azure.account.key.acct.dfs.core.windows.net', 'a2V5LW9mLXRoZS10ZXN0'),
             ('azure.sas-token', 'sv=2019-12-12&sig=c2lnbmF0dXJl'),
             ('fs.azure.sas.fixed.token', 'sv=2019-12-12&sig=c2lnbmF0dXJl'),
             ('azure.account-key', '')) AS v(k, v);
SELECT k, try(format('ALTER SERVER az OPTIONS (ADD %I %L)', k, 'a2V5LW9mLXRoZS10ZXN0')) AS server,
       try(format('CREATE FOREIGN TABLE t (a int) SERVER az OPTIONS (database %L, "table" %L, %I %L)',
                  'd', 't', k, 'a2V5LW9mLXRoZS10ZXN0')) AS foreign_table
FROM (VALUES ('azure.account-key'), ('fs.azure.account.key.acct.blob.core.windows.net'),
             ('azure.sas-token')) AS v(k);
-- the endpoint: a SERVER or FOREIGN TABLE option, http(s):// only, not in a user mapping
SELECT v, try(format('ALTER SERVER az OPTIONS (ADD "azure.endpoint" %L); ALTER SERVER az OPTIONS (DROP "azure.endpoint")', v))
FROM (VALUES ('http://127.0.0.1:10000/acct'), ('https://acct.blob.core.windows.net'),
             ('ftp://127.0.0.1/acct'), ('http://user:pw@127.0.0.1/acct')) AS v(v);
SELECT try('CREATE USER MAPPING FOR CURRENT_USER SERVER az OPTIONS ("azure.endpoint" ''http://127.0.0.1:10000/acct'')');
-- misspellings are refused with the key meant
SELECT k, try(format('CREATE USER MAPPING FOR CURRENT_USER SERVER az OPTIONS (%I %L)', k, 'x'))
FROM (VALUES ('azure.account_key'), ('azure.sas-tokn')) AS v(k);
-- a mapping's key is not shown by a failed statement either
CREATE USER MAPPING FOR CURRENT_USER SERVER az OPTIONS ("azure.account-key" 'c2VjcmV0LWtleS12YWx1ZQ==');
SELECT try('ALTER USER MAPPING FOR CURRENT_USER SERVER az OPTIONS (ADD "azure.account-key" ''c2VjcmV0LWtleS12YWx1ZQ=='')') LIKE '%c2VjcmV0%' AS shows_key;
-- Azure locations: each scheme accepted, an invalid one refused naming what is wrong
SELECT v, try(format('CREATE SERVER az2 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse %L, "azure.endpoint" ''http://127.0.0.1:10000/acct''); DROP SERVER az2', v))
FROM (VALUES ('abfs://lake@acct.dfs.core.windows.net/wh'), ('abfss://lake@acct.dfs.core.windows.net/wh'),
             ('wasb://lake@acct.blob.core.windows.net/wh'), ('wasbs://lake@acct.blob.core.windows.net'),
             ('abfs://lake@acct.example.com/wh'), ('abfs://Lake@acct.dfs.core.windows.net/wh'),
             ('abfs://acct.dfs.core.windows.net/wh'), ('adl://acct.azuredatalakestore.net/wh')) AS v(v);
SELECT try('CREATE FOREIGN TABLE t (a int) SERVER az OPTIONS (path ''abfs://lake@acct.dfs.core.windows.net/wh/../t'')');

DROP USER MAPPING FOR CURRENT_USER SERVER az;
DROP FUNCTION try(text);
DROP SERVER az CASCADE;
DROP EXTENSION tablescan_fdw;
