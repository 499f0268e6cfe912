-- A role without pg_read_server_files makes the extension read files under
-- the directories of the tables it may use, and nothing else: whatever an
-- option, a schema JSON, a metadata file or a symbolic link names.
CREATE EXTENSION tablescan_fdw;
\set VERBOSITY terse

-- a warehouse of copies, with the traps an attacker who can write files would set
\! rm -rf /tmp/ts_security && mkdir -p /tmp/ts_security/wh/db.db /tmp/ts_security/secret
\! printf '1,top secret,1.00\n' > /tmp/ts_security/secret/data.csv
\! cp -r "$TS_FIXTURES"/warehouse/sales.db/orders /tmp/ts_security/wh/db.db/orders
-- a snapshot naming a manifest list outside the table
\! cp -r /tmp/ts_security/wh/db.db/orders /tmp/ts_security/wh/db.db/escape_list
\! sed -i 's|"baseManifestList":[^,]*,|"baseManifestList": "../../../../../../../../etc/passwd",|' /tmp/ts_security/wh/db.db/escape_list/snapshot/snapshot-*
-- a format table whose schema file sends its data path elsewhere
\! mkdir -p /tmp/ts_security/wh/db.db/ft_path/schema
\! printf '{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},{"id":1,"name":"name","type":"STRING"}],"highestFieldId":1,"partitionKeys":[],"primaryKeys":[],"options":{"type":"format-table","file.format":"csv","path":"/tmp/ts_security/secret"}}' > /tmp/ts_security/wh/db.db/ft_path/schema/schema-0
-- a format table holding a symbolic link to a file outside
\! cp -r /tmp/ts_security/wh/db.db/ft_path /tmp/ts_security/wh/db.db/ft_link
\! sed -i 's|,"path":"/tmp/ts_security/secret"||' /tmp/ts_security/wh/db.db/ft_link/schema/schema-0
\! printf '2,fine\n' > /tmp/ts_security/wh/db.db/ft_link/part-0.csv
\! ln -s /tmp/ts_security/secret/data.csv /tmp/ts_security/wh/db.db/ft_link/part-1.csv
-- and one holding a link to a directory outside
\! cp -r /tmp/ts_security/wh/db.db/ft_path /tmp/ts_security/wh/db.db/ft_dirlink
\! sed -i 's|,"path":"/tmp/ts_security/secret"||' /tmp/ts_security/wh/db.db/ft_dirlink/schema/schema-0
\! ln -s /tmp/ts_security/secret /tmp/ts_security/wh/db.db/ft_dirlink/more

CREATE SERVER wh FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/tmp/ts_security/wh');
CREATE ROLE regress_ts_reader;
GRANT USAGE ON FOREIGN SERVER wh TO regress_ts_reader;
GRANT CREATE ON SCHEMA public TO regress_ts_reader;
CREATE FOREIGN TABLE orders (id int, dt text) SERVER wh OPTIONS (database 'db', "table" 'orders');
CREATE FOREIGN TABLE escape_list (id int) SERVER wh OPTIONS (database 'db', "table" 'escape_list');
CREATE FOREIGN TABLE ft_path (id int, name text) SERVER wh OPTIONS (database 'db', "table" 'ft_path');
CREATE FOREIGN TABLE ft_link (id int, name text) SERVER wh OPTIONS (database 'db', "table" 'ft_link');
CREATE FOREIGN TABLE ft_dirlink (id int, name text) SERVER wh OPTIONS (database 'db', "table" 'ft_dirlink');
GRANT SELECT ON orders, escape_list, ft_path, ft_link, ft_dirlink TO regress_ts_reader;

SET ROLE regress_ts_reader;
-- the table itself reads as usual
SELECT count(*) FROM orders;

-- 1. a table_schema that names a data path, or makes a format table, needs the privilege
CREATE FOREIGN TABLE t_schema (f0 bytea) SERVER wh OPTIONS (database 'nonexist', "table" 'y',
  table_schema '{"version":3,"id":0,"fields":[{"id":0,"name":"f0","type":"STRING"}],"highestFieldId":0,"partitionKeys":[],"primaryKeys":[],"options":{"type":"format-table","file.format":"text","path":"/tmp/ts_security/secret"}}');
CREATE FOREIGN TABLE t_schema (f0 bytea) SERVER wh OPTIONS (database 'nonexist', "table" 'y',
  table_schema '{"version":3,"id":0,"fields":[{"id":0,"name":"f0","type":"STRING"}],"highestFieldId":0,"partitionKeys":[],"primaryKeys":[],"options":{"type":"format-table","file.format":"text"}}');
CREATE FOREIGN TABLE t_schema (f0 bytea) SERVER wh OPTIONS (database 'db', "table" 'y',
  table_schema 'not json');

-- 2. external-path-map rewrites where files are read: it needs the privilege too
CREATE FOREIGN TABLE t_map (id int) SERVER wh OPTIONS (database 'db', "table" 'orders',
  "external-path-map" '/tmp/ts_security/wh=>/tmp/ts_security/secret');
SET tablescan.scan_options = 'external-path-map=/tmp/ts_security/wh=>/etc';
SELECT count(*) FROM orders;
SET tablescan.scan_options = 'data-file.external-paths=file:/etc';
SELECT count(*) FROM orders;
RESET tablescan.scan_options;

-- 3. names in metadata stay inside the table; links do not lead out
SELECT count(*) FROM escape_list;
SELECT * FROM ft_path;
SELECT * FROM ft_link;
SELECT * FROM ft_dirlink;
SELECT * FROM tablescan_files('ft_link');
RESET ROLE;
-- the same metadata name is refused for every role: it is not a file name
SELECT count(*) FROM escape_list;
-- roles with pg_read_server_files may read what the links point at
SELECT * FROM ft_link ORDER BY id;

-- 4. without SELECT, nothing is planned: the metrics still show the last scan
SELECT count(*) FROM orders WHERE dt = 'dt_1';
SELECT files_total, files_kept, partitions_kept FROM tablescan_last_metrics();
REVOKE SELECT ON orders FROM regress_ts_reader;
SET ROLE regress_ts_reader;
SELECT * FROM orders WHERE dt = 'dt_0';
EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE dt = 'dt_2';
SELECT files_total, files_kept, partitions_kept FROM tablescan_last_metrics();
RESET ROLE;

-- the option values that name paths are checked when set
CREATE FOREIGN TABLE t_bad (id int) SERVER wh OPTIONS (database 'db', "table" 'orders',
  "external-path-map" 'garbage');
CREATE FOREIGN TABLE t_bad (id int) SERVER wh OPTIONS (database 'db', "table" 'orders',
  "external-path-map" 'file:/a=>relative');
CREATE FOREIGN TABLE t_bad (id int) SERVER wh OPTIONS (database 'db', "table" 'orders',
  "data-file.path-directory" '../../elsewhere');

DROP FOREIGN TABLE orders, escape_list, ft_path, ft_link, ft_dirlink;
REVOKE CREATE ON SCHEMA public FROM regress_ts_reader;
DROP OWNED BY regress_ts_reader;
DROP ROLE regress_ts_reader;
DROP SERVER wh;
\! rm -rf /tmp/ts_security
DROP EXTENSION tablescan_fdw;
