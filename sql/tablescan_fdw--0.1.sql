/* tablescan_fdw--0.1.sql: query Apache Paimon tables in place */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION tablescan_fdw" to load this file. \quit

CREATE FUNCTION tablescan_fdw_handler()
RETURNS fdw_handler
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE FUNCTION tablescan_fdw_validator(text[], oid)
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT;

CREATE FOREIGN DATA WRAPPER tablescan_fdw
  HANDLER tablescan_fdw_handler
  VALIDATOR tablescan_fdw_validator;

-- The live data files the scan of a foreign table would read, each with
-- the deletion vector applied to it (NULLs when it has none) and its file
-- index: file_index lists "kind column" ("bitmap f0, bloom-filter f1"),
-- index_file names the sidecar .index file (NULL when embedded or none).
CREATE FUNCTION tablescan_files(regclass,
    OUT partition jsonb, OUT bucket integer, OUT total_buckets integer,
    OUT file_name text, OUT level integer, OUT row_count bigint,
    OUT file_size bigint, OUT schema_id bigint,
    OUT deletion_file text, OUT deletion_offset bigint,
    OUT deletion_length bigint, OUT deletion_cardinality bigint,
    OUT file_index text, OUT index_file text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tablescan_files'
LANGUAGE C STRICT VOLATILE;

-- The bucket the table's bucket function assigns to bucket-key values.
CREATE FUNCTION tablescan_bucket(regclass, VARIADIC "any")
RETURNS integer
AS 'MODULE_PATHNAME', 'tablescan_bucket'
LANGUAGE C VOLATILE;

-- What the last Paimon scan planned in this backend did (point-in-time copy).
CREATE FUNCTION tablescan_last_metrics(
    OUT manifests_read bigint, OUT manifests_skipped bigint, OUT entries_read bigint,
    OUT files_total bigint, OUT files_kept bigint,
    OUT files_pruned_partition bigint, OUT files_pruned_bucket bigint,
    OUT files_pruned_stats bigint,
    OUT partitions_total bigint, OUT partitions_kept bigint,
    OUT buckets_total bigint, OUT buckets_kept bigint,
    OUT planning_ms double precision, OUT cache_hit boolean)
RETURNS record
AS 'MODULE_PATHNAME', 'tablescan_last_metrics'
LANGUAGE C VOLATILE;

-- The partitions of a format table (the seed's ListPartitions): each as
-- jsonb of its partition values keyed by field name, in a stable order.
CREATE FUNCTION tablescan_partitions(regclass)
RETURNS SETOF jsonb
AS 'MODULE_PATHNAME', 'tablescan_partitions'
LANGUAGE C STRICT VOLATILE;

-- Empty this backend's cache of live manifest entries.
CREATE FUNCTION tablescan_cache_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'tablescan_cache_reset'
LANGUAGE C VOLATILE;

-- The manifests of the snapshot a foreign table's options select (Paimon's
-- t$manifests): one row per manifest of its base then delta manifest list,
-- partition statistics as jsonb keyed by partition key, NULL where the
-- manifest list does not record a value.
CREATE FUNCTION tablescan_manifests(regclass,
    OUT list_kind text, OUT manifest_list text, OUT file_name text,
    OUT file_size bigint, OUT num_added_files bigint, OUT num_deleted_files bigint,
    OUT partition_min jsonb, OUT partition_max jsonb, OUT partition_null_counts jsonb,
    OUT schema_id bigint, OUT min_bucket integer, OUT max_bucket integer,
    OUT min_level integer, OUT max_level integer,
    OUT min_row_id bigint, OUT max_row_id bigint, OUT snapshot_id bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tablescan_manifests'
LANGUAGE C STRICT VOLATILE;

-- Every entry (ADD / DELETE of a data file) of those manifests, in
-- manifest-list then file order.
CREATE FUNCTION tablescan_manifest_entries(regclass,
    OUT manifest text, OUT kind text, OUT partition jsonb,
    OUT bucket integer, OUT total_buckets integer,
    OUT file_name text, OUT file_size bigint, OUT row_count bigint,
    OUT min_sequence_number bigint, OUT max_sequence_number bigint,
    OUT schema_id bigint, OUT level integer, OUT delete_row_count bigint,
    OUT file_source text, OUT manifest_list text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'tablescan_manifest_entries'
LANGUAGE C STRICT VOLATILE;

-- What this backend asked of object stores (requests sent) and of the
-- on-disk metadata cache (tablescan.metadata_cache_dir): hits, misses,
-- entries stored, entries found corrupt (removed and fetched again),
-- entries evicted; cache_bytes is what the cache directory holds now
-- (NULL when the cache is off); round_trips: the times it waited for the
-- store (a request sent alone, or a batch of concurrent ones, counts one).
CREATE FUNCTION tablescan_object_store_stats(
    OUT requests bigint, OUT cache_hits bigint, OUT cache_misses bigint,
    OUT cache_stores bigint, OUT cache_corrupt bigint, OUT cache_evicted bigint,
    OUT cache_bytes bigint, OUT round_trips bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'tablescan_object_store_stats'
LANGUAGE C VOLATILE;

-- Decoded manifests shared by backends through the same directory
-- (src/meta/manifest_cache.c), counted for this backend: manifests whose
-- entries a plan took from a record, manifests decoded from their file
-- with the cache on, records written, records that did not check (removed
-- and rebuilt); cache_bytes: what the directory holds now (NULL when off);
-- live_sets_from_records: cold plans that took a snapshot's whole live set
-- from its record (no manifest list or manifest record read), and
-- live_sets_stored: such records written.
CREATE FUNCTION tablescan_metadata_cache_stats(
    OUT manifests_from_cache bigint, OUT manifests_decoded bigint,
    OUT records_stored bigint, OUT records_rejected bigint, OUT cache_bytes bigint,
    OUT manifests_from_light_records bigint, OUT live_sets_from_records bigint,
    OUT live_sets_stored bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'tablescan_metadata_cache_stats'
LANGUAGE C VOLATILE;

-- Live sets of manifest entries in shared memory (src/fdw/shared_cache.c,
-- tablescan_fdw in shared_preload_libraries): this backend's finds and
-- publications, whether the region is in huge pages (NULL: no region), then
-- the region's counts over every backend (NULL when it is not used).
CREATE FUNCTION tablescan_shared_cache_stats(
    OUT live_sets_found bigint, OUT live_sets_published bigint,
    OUT in_huge_pages boolean, OUT sets integer, OUT pinned_sets integer, OUT bytes_used bigint, OUT bytes_size bigint,
    OUT finds bigint, OUT publications bigint, OUT evictions bigint,
    OUT refused bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'tablescan_shared_cache_stats'
LANGUAGE C VOLATILE;

-- Following changes (src/fdw/changes.c): each consumer's next snapshot,
-- moved by tablescan_changes in the reading transaction.
CREATE TABLE tablescan_consumers (
    table_oid regclass NOT NULL,
    consumer text NOT NULL,
    next_snapshot bigint,           -- NULL: not started (first read per scan.mode)
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_oid, consumer)
);
SELECT pg_catalog.pg_extension_config_dump('tablescan_consumers', '');

-- The changes a consumer has not read yet (or those of snapshots
-- from_snapshot .. to_snapshot), as rows of the foreign table whose row
-- type the first argument has: tablescan_changes(NULL::orders, consumer => 'c').
-- paimon_consumer: also write Paimon's consumer/consumer-<id> at COMMIT.
CREATE FUNCTION tablescan_changes(tbl anyelement, consumer text DEFAULT NULL,
    from_snapshot bigint DEFAULT NULL, to_snapshot bigint DEFAULT NULL,
    max_snapshots integer DEFAULT NULL, paimon_consumer boolean DEFAULT false)
RETURNS SETOF anyelement
AS 'MODULE_PATHNAME'
LANGUAGE C VOLATILE;

-- Set a consumer's next snapshot (NULL: start again per scan.mode).
CREATE FUNCTION tablescan_consumer_reset(tbl regclass, consumer text,
    next_snapshot bigint DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME'
LANGUAGE C VOLATILE;

CREATE FUNCTION tablescan_consumer_drop(tbl regclass, consumer text)
RETURNS boolean
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;

-- A dropped foreign table's consumers go with it (an OID used again later
-- must not inherit a stale position), whoever drops it: the function runs
-- as the extension's owner and deletes only the rows of dropped relations.
CREATE FUNCTION tablescan_forget_dropped_consumers()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nsp name;
BEGIN
    SELECT n.nspname INTO nsp
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'tablescan_fdw';
    IF nsp IS NULL THEN
        RETURN;
    END IF;
    EXECUTE format('DELETE FROM %I.tablescan_consumers c
                     USING pg_event_trigger_dropped_objects() d
                     WHERE d.classid = ''pg_class''::regclass AND d.objsubid = 0
                       AND d.objid = c.table_oid::oid', nsp);
END
$$;
REVOKE ALL ON FUNCTION tablescan_forget_dropped_consumers() FROM PUBLIC;
CREATE EVENT TRIGGER tablescan_forget_dropped_consumers ON sql_drop
    EXECUTE FUNCTION tablescan_forget_dropped_consumers();

-- The latest snapshot id once one after 'after' exists; NULL at the timeout.
CREATE FUNCTION tablescan_wait_for_snapshot(tbl regclass, after bigint,
    timeout interval DEFAULT '10 s')
RETURNS bigint
AS 'MODULE_PATHNAME'
LANGUAGE C STRICT VOLATILE;
-- Scale out (README "Scaling out"): from a local tablescan_fdw foreign
-- table and a list of postgres_fdw servers (one per shard), create on each
-- worker, over dblink on that server's connection, the tablescan_fdw
-- server, the foreign table <table>_shard_K_of_N with "scan.shard" 'K/N'
-- and the pseudo-column "_SHARD" (which holds K); then
-- on this node the table <coordinator> PARTITION BY LIST ("_SHARD") with
-- one postgres_fdw foreign partition per shard (async_capable, fetch_size,
-- use_remote_estimate: the workers know their rows, the coordinator has no statistics).
-- Calling it again with another server list re-shards (the coordinator
-- table is re-created; the lake holds the data, nothing moves).  Needs the
-- extensions dblink and postgres_fdw (not at CREATE EXTENSION); user
-- mappings for the tablescan_fdw server on the workers are not copied.
CREATE FUNCTION tablescan_create_sharded(local_table regclass, servers text[],
    coordinator text DEFAULT NULL, fetch_size integer DEFAULT 10000)
RETURNS regclass
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog
AS $fn$
DECLARE
    n integer := coalesce(array_length(servers, 1), 0);
    nsp text;
    rel text;
    coord text;
    srv record;
    cols text := '';
    remote_cols text := '';
    ftopts text := '';
    srvopts text := '';
    a record;
    kv text;
    k integer;
    conn text := 'tablescan_create_sharded';
    sql text;
BEGIN
    IF n = 0 THEN
        RAISE EXCEPTION 'tablescan_create_sharded: no worker servers given'
            USING ERRCODE = '22023';
    END IF;
    IF fetch_size IS NULL OR fetch_size < 1 THEN
        RAISE EXCEPTION 'tablescan_create_sharded: fetch_size must be positive' USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'dblink')
       OR NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgres_fdw') THEN
        RAISE EXCEPTION 'tablescan_create_sharded needs the extensions dblink and postgres_fdw'
            USING ERRCODE = '0A000', HINT = 'CREATE EXTENSION dblink; CREATE EXTENSION postgres_fdw;';
    END IF;
    -- dblink's functions where its extension put them (search_path is pg_catalog here)
    PERFORM set_config('search_path', 'pg_catalog, ' || quote_ident(e.extnamespace::regnamespace::text), true)
       FROM pg_extension e WHERE e.extname = 'dblink';
    SELECT c.relname, s.nspname, fs.srvname, fs.srvoptions, ft.ftoptions, w.fdwname
      INTO srv
      FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
      JOIN pg_foreign_table ft ON ft.ftrelid = c.oid
      JOIN pg_foreign_server fs ON fs.oid = ft.ftserver
      JOIN pg_foreign_data_wrapper w ON w.oid = fs.srvfdw
     WHERE c.oid = local_table;
    IF NOT FOUND OR srv.fdwname <> 'tablescan_fdw' THEN
        RAISE EXCEPTION 'tablescan_create_sharded: "%" is not a tablescan_fdw foreign table', local_table
            USING ERRCODE = '42809';
    END IF;
    FOREACH kv IN ARRAY coalesce(srv.ftoptions, '{}') LOOP
        IF split_part(kv, '=', 1) = 'scan.shard' THEN
            RAISE EXCEPTION 'tablescan_create_sharded: "%" has option scan.shard already', local_table
                USING ERRCODE = '22023';
        END IF;
        ftopts := ftopts || format('%I %L, ', split_part(kv, '=', 1), substr(kv, strpos(kv, '=') + 1));
    END LOOP;
    FOREACH kv IN ARRAY coalesce(srv.srvoptions, '{}') LOOP
        srvopts := srvopts || CASE WHEN srvopts = '' THEN '' ELSE ', ' END ||
            format('%I %L', split_part(kv, '=', 1), substr(kv, strpos(kv, '=') + 1));
    END LOOP;
    FOR a IN SELECT attname, format_type(atttypid, atttypmod) AS typ, attfdwoptions
               FROM pg_attribute WHERE attrelid = local_table AND attnum > 0 AND NOT attisdropped
              ORDER BY attnum LOOP
        IF a.attname = '_SHARD' THEN
            RAISE EXCEPTION 'tablescan_create_sharded: "%" has a column "_SHARD" already', local_table
                USING ERRCODE = '42701';
        END IF;
        cols := cols || format('%I %s, ', a.attname, a.typ);
        remote_cols := remote_cols || format('%I %s', a.attname, a.typ);
        IF a.attfdwoptions IS NOT NULL THEN
            remote_cols := remote_cols || ' OPTIONS (' || (SELECT string_agg(format('%I %L',
                split_part(o, '=', 1), substr(o, strpos(o, '=') + 1)), ', ')
                FROM unnest(a.attfdwoptions) o) || ')';
        END IF;
        remote_cols := remote_cols || ', ';
    END LOOP;
    nsp := srv.nspname;
    rel := srv.relname;
    coord := coalesce(coordinator, rel || '_sharded');
    -- re-sharding drops the coordinator table: never another table of that name
    IF to_regclass(format('%I.%I', nsp, coord)) IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM pg_partitioned_table pt
          JOIN pg_attribute pa ON pa.attrelid = pt.partrelid AND pa.attnum = pt.partattrs[0]
         WHERE pt.partrelid = to_regclass(format('%I.%I', nsp, coord))
           AND pt.partstrat = 'l' AND pt.partnatts = 1 AND pa.attname = '_SHARD') THEN
        RAISE EXCEPTION 'tablescan_create_sharded: "%" exists and is not a coordinator table', coord
            USING ERRCODE = '42P07',
                  HINT = 'A coordinator is a table partitioned by list of "_SHARD"; drop it or name another coordinator.';
    END IF;
    FOR k IN 1 .. n LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_foreign_server fs JOIN pg_foreign_data_wrapper w
                        ON w.oid = fs.srvfdw WHERE fs.srvname = servers[k]
                        AND w.fdwname = 'postgres_fdw') THEN
            RAISE EXCEPTION 'tablescan_create_sharded: "%" is not a postgres_fdw server', servers[k]
                USING ERRCODE = '42704';
        END IF;
        PERFORM dblink_connect(conn, servers[k]);
        BEGIN
            PERFORM dblink_exec(conn, 'CREATE EXTENSION IF NOT EXISTS tablescan_fdw');
            PERFORM dblink_exec(conn, format('CREATE SCHEMA IF NOT EXISTS %I', nsp));
            PERFORM dblink_exec(conn, format('CREATE SERVER IF NOT EXISTS %I FOREIGN DATA WRAPPER tablescan_fdw%s',
                srv.srvname, CASE WHEN srvopts = '' THEN '' ELSE ' OPTIONS (' || srvopts || ')' END));
            PERFORM dblink_exec(conn, format('DROP FOREIGN TABLE IF EXISTS %I.%I CASCADE', nsp, rel || '_shard_' || k || '_of_' || n));
            PERFORM dblink_exec(conn, format('CREATE FOREIGN TABLE %I.%I (%s"_SHARD" integer) SERVER %I OPTIONS (%s"scan.shard" %L)',
                nsp, rel || '_shard_' || k || '_of_' || n, remote_cols, srv.srvname, ftopts, k || '/' || n));
        EXCEPTION WHEN OTHERS THEN
            PERFORM dblink_disconnect(conn);
            RAISE;
        END;
        PERFORM dblink_disconnect(conn);
    END LOOP;
    IF to_regclass(format('%I.%I', nsp, coord)) IS NOT NULL THEN
        EXECUTE format('DROP TABLE %I.%I CASCADE', nsp, coord);
    END IF;
    EXECUTE format('CREATE TABLE %I.%I (%s"_SHARD" integer NOT NULL) PARTITION BY LIST ("_SHARD")',
        nsp, coord, cols);
    FOR k IN 1 .. n LOOP
        EXECUTE format('CREATE FOREIGN TABLE %I.%I PARTITION OF %I.%I FOR VALUES IN (%s) SERVER %I '
                       'OPTIONS (schema_name %L, table_name %L, async_capable ''true'', fetch_size %L, '
                       'use_remote_estimate ''true'')',
            nsp, coord || '_' || k, nsp, coord, k, servers[k], nsp, rel || '_shard_' || k || '_of_' || n,
            fetch_size::text);
    END LOOP;
    RETURN format('%I.%I', nsp, coord)::regclass;
END
$fn$;
