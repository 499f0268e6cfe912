-- Options and the validator: what is accepted where, and what is refused.
CREATE EXTENSION tablescan_fdw;
\set VERBOSITY default

-- server options
CREATE SERVER bad_srv FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (nosuch 'x');
CREATE SERVER bad_srv FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse 'relative/dir');
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (warehouse '/nonexistent/warehouse', "scan.snapshot-id" '1');
ALTER SERVER lake OPTIONS (SET "scan.snapshot-id" 'abc');
ALTER SERVER lake OPTIONS (DROP "scan.snapshot-id");

-- foreign table options
CREATE FOREIGN TABLE t_none (a int) SERVER lake;
CREATE FOREIGN TABLE t_both (a int) SERVER lake OPTIONS (path '/x', database 'd', "table" 't');
CREATE FOREIGN TABLE t_rel (a int) SERVER lake OPTIONS (path 'x/y');
CREATE FOREIGN TABLE t_dotdot (a int) SERVER lake OPTIONS (database '..', "table" 't');
CREATE FOREIGN TABLE t_slash (a int) SERVER lake OPTIONS (database 'd', "table" 'a/b');
CREATE FOREIGN TABLE t_bucket (a int) SERVER lake OPTIONS (database 'd', "table" 't', bucket_filter '-1');
CREATE FOREIGN TABLE t_bucket (a int) SERVER lake OPTIONS (database 'd', "table" 't', bucket_filter 'one');
-- values are checked when set, as Java parses them (digits, an optional '-')
CREATE FOREIGN TABLE t_bucket (a int) SERVER lake OPTIONS (database 'd', "table" 't', bucket_filter '99999999999');
CREATE FOREIGN TABLE t_bucket (a int) SERVER lake OPTIONS (database 'd', "table" 't', bucket_filter ' 1');
CREATE FOREIGN TABLE t_bucket (a int) SERVER lake OPTIONS (database 'd', "table" 't', bucket_filter '1 ');
CREATE FOREIGN TABLE t_bucket (a int) SERVER lake OPTIONS (database 'd', "table" 't', bucket_filter '+3');
CREATE FOREIGN TABLE t_mode (a int) SERVER lake OPTIONS (database 'd', "table" 't', "scan.mode" 'bogus');
CREATE FOREIGN TABLE t_mode (a int) SERVER lake OPTIONS (database 'd', "table" 't', "csv.mode" 'bogus');
CREATE FOREIGN TABLE t_pf (a int) SERVER lake OPTIONS (database 'd', "table" 't', partition_filter 'not json');
CREATE FOREIGN TABLE t_pf (a int) SERVER lake OPTIONS (database 'd', "table" 't', partition_filter '[{"dt": {"x": 1}}]');
CREATE FOREIGN TABLE t_pf (a int) SERVER lake OPTIONS (database 'd', "table" 't', partition_filter '[{"dt": "a\u0000b"}]');
CREATE FOREIGN TABLE t_pk (a int) SERVER lake OPTIONS (path '/x', partition_keys 'dt');
-- a partition_filter is bounded (100000 alternatives), and parsed in linear time
DO $$
BEGIN
  EXECUTE format('CREATE FOREIGN TABLE t_pf (a int) SERVER lake OPTIONS (database %L, "table" %L, partition_filter %L)',
                 'd', 't', (SELECT '[' || string_agg(format('{"dt":"%s"}', i), ',') || ']' FROM generate_series(1, 100001) i));
EXCEPTION WHEN invalid_parameter_value THEN
  RAISE NOTICE '%', SQLERRM;
END $$;
DO $$
BEGIN
  EXECUTE format('CREATE FOREIGN TABLE t_pf (a int) SERVER lake OPTIONS (database %L, "table" %L, partition_filter %L)',
                 'd', 't', (SELECT '[' || string_agg(format('{"dt":"%s"}', i), ',') || ']' FROM generate_series(1, 100000) i));
END $$;
SELECT length(ftoptions[3]) FROM pg_foreign_table WHERE ftrelid = 't_pf'::regclass;
DROP FOREIGN TABLE t_pf;
CREATE FOREIGN TABLE t_unknown (a int) SERVER lake OPTIONS (database 'd', "table" 't', Wrong 'x');
CREATE FOREIGN TABLE t_colopt (a int OPTIONS (nosuch 'x')) SERVER lake OPTIONS (database 'd', "table" 't');
CREATE FOREIGN TABLE t_ok (a int OPTIONS (column_name 'A')) SERVER lake
  OPTIONS (database 'd', "table" 't', "scan.tag-name" 'v1', branch 'b1');

-- a missing table is an error at query time, naming it
SELECT * FROM t_ok;

-- per-session options
SET tablescan.scan_options = 'scan.snapshot-id';
SELECT * FROM t_ok;
RESET tablescan.scan_options;
-- server-only options act only on a server, never per session
SET tablescan.scan_options = 'warehouse=/tmp';
SET tablescan.scan_options = 'uri=http://127.0.0.1:1';
SET tablescan.scan_options = 'catalog=rest';
SHOW tablescan.scan_options;
-- a REST catalog's token provider is checked when set (Java's two values)
CREATE SERVER bad_srv FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri 'http://127.0.0.1:1', "token.provider" 'kerberos');
CREATE SERVER dlf_srv FOREIGN DATA WRAPPER tablescan_fdw
  OPTIONS (catalog 'rest', uri 'http://127.0.0.1:1', "token.provider" 'DLF');
DROP SERVER dlf_srv;
-- booleans are read as the validator checked them ('yes', 'on', '0' too)
ALTER FOREIGN TABLE t_ok OPTIONS (ADD cache 'yes');
SELECT * FROM t_ok;
ALTER FOREIGN TABLE t_ok OPTIONS (DROP cache);

-- path options need pg_read_server_files
CREATE ROLE regress_ts_plain;
GRANT USAGE ON FOREIGN DATA WRAPPER tablescan_fdw TO regress_ts_plain;
GRANT USAGE ON FOREIGN SERVER lake TO regress_ts_plain;
GRANT CREATE ON SCHEMA public TO regress_ts_plain;
SET ROLE regress_ts_plain;
CREATE FOREIGN TABLE t_path (a int) SERVER lake OPTIONS (path '/etc');
CREATE SERVER lake2 FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/etc');
-- a database/table inside the server's warehouse is fine
CREATE FOREIGN TABLE t_plain (a int) SERVER lake OPTIONS (database 'd', "table" 't');
RESET ROLE;
GRANT pg_read_server_files TO regress_ts_plain;
SET ROLE regress_ts_plain;
CREATE FOREIGN TABLE t_path (a int) SERVER lake OPTIONS (path '/etc');
RESET ROLE;
DROP FOREIGN TABLE t_path, t_plain;
REVOKE CREATE ON SCHEMA public FROM regress_ts_plain;
DROP OWNED BY regress_ts_plain;
DROP ROLE regress_ts_plain;

DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
