-- incremental-between on partial-update and aggregation tables without a
-- changelog producer (scan mode auto = delta): as Java's
-- IncrementalStartingScanner plans it and MergeFileSplitRead reads it, the
-- merge engine folds each key's records of the files the range's APPEND
-- snapshots added (and only those), DELETE results kept as -D rows.  The
-- models below are computed in SQL from what was written (ts_gen's write
-- stream <table>.ops.jsonl; our own INSERTs), not from our reader.
CREATE EXTENSION tablescan_fdw;
\getenv fixtures TS_FIXTURES
\set warehouse :fixtures/warehouse
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
CREATE TEMP TABLE ops_raw (line jsonb, src text);
\set ops :warehouse/pk.db/pk_aggregation.ops.jsonl
COPY ops_raw (line) FROM :'ops';
UPDATE ops_raw SET src = 'agg' WHERE src IS NULL;
\set ops :warehouse/pk.db/pk_partial_update.ops.jsonl
COPY ops_raw (line) FROM :'ops';
UPDATE ops_raw SET src = 'pu' WHERE src IS NULL;
-- the records APPEND snapshots wrote, with a sign: retracts (-U, -D) subtract
CREATE TEMP VIEW appended AS
SELECT r.src, (r.line->>'snapshot')::int AS snapshot, r.line->>'partition' AS part,
       r.line->>'key' AS key, (r.line->>'seq')::bigint AS seq, r.line->>'kind' AS kind,
       CASE WHEN r.line->>'kind' IN ('-U', '-D') THEN -1 ELSE 1 END AS sign,
       (r.line->'values'->>'id')::int AS id, (r.line->'values'->>'p')::int AS p,
       r.line->'values'->>'v' AS v, (r.line->'values'->>'n')::bigint AS n,
       (r.line->'values'->>'d')::float8 AS d
  FROM ops_raw r
  JOIN ops_raw s ON s.src = r.src AND s.line->>'op' = 'snapshot' AND s.line->>'kind' = 'APPEND'
                AND s.line->>'id' = r.line->>'snapshot'
 WHERE r.line->>'op' = 'record';
SELECT src, count(*) AS records, count(*) FILTER (WHERE sign < 0) AS retracts,
       count(DISTINCT snapshot) AS append_snapshots
  FROM appended GROUP BY 1 ORDER BY 1;

-- aggregation (n, d: sum; v: last_non_null_value, which a retract of a
-- non-null value sets to NULL): a key written once in the range is that
-- record with its kind; several times: +I with the sums of the range's
-- records and the last non-null v (NULL if that record is a retract)
CREATE FUNCTION pg_temp.agg_model(a int, b int)
  RETURNS TABLE (id int, p int, v text, n bigint, d float8, kind text) LANGUAGE sql AS $$
  WITH r AS (SELECT * FROM appended WHERE src = 'agg' AND snapshot > a AND snapshot <= b),
  g AS (SELECT part, key, count(*) AS c FROM r GROUP BY 1, 2)
  SELECT r.id, r.p, r.v, r.n, r.d, r.kind FROM r JOIN g USING (part, key) WHERE g.c = 1
  UNION ALL
  SELECT min(r.id), min(r.p),
         (SELECT CASE WHEN x.sign < 0 THEN NULL ELSE x.v END FROM r x
           WHERE x.part = r.part AND x.key = r.key AND x.v IS NOT NULL ORDER BY x.seq DESC LIMIT 1),
         sum(r.sign * r.n), sum(r.sign * r.d), '+I'
    FROM r JOIN g USING (part, key) WHERE g.c > 1 GROUP BY r.part, r.key
$$;
-- partial-update with partial-update.remove-record-on-delete: several
-- records of a key give +I with each column's last non-null value among
-- the adds after the key's last -D; -D (its NOT NULL columns, the key,
-- only) when the last record is a -D or there is no add at all
CREATE FUNCTION pg_temp.pu_model(a int, b int)
  RETURNS TABLE (id int, p int, v text, n bigint, d float8, kind text) LANGUAGE sql AS $$
  WITH r AS (SELECT * FROM appended WHERE src = 'pu' AND snapshot > a AND snapshot <= b),
  g AS (SELECT part, key, count(*) AS c, max(seq) FILTER (WHERE kind = '-D') AS last_delete,
               (array_agg(kind ORDER BY seq DESC))[1] AS last_kind,
               count(*) FILTER (WHERE sign > 0) AS adds
          FROM r GROUP BY 1, 2),
  after AS (SELECT r.* FROM r JOIN g USING (part, key)
             WHERE g.c > 1 AND r.sign > 0 AND r.seq > coalesce(g.last_delete, -1))
  SELECT r.id, r.p, r.v, r.n, r.d, r.kind FROM r JOIN g USING (part, key) WHERE g.c = 1
  UNION ALL
  SELECT min(r.id), min(r.p),
         CASE WHEN g.last_kind = '-D' OR g.adds = 0 THEN NULL ELSE
           (SELECT x.v FROM after x WHERE x.part = g.part AND x.key = g.key AND x.v IS NOT NULL
             ORDER BY x.seq DESC LIMIT 1) END,
         CASE WHEN g.last_kind = '-D' OR g.adds = 0 THEN NULL ELSE
           (SELECT x.n FROM after x WHERE x.part = g.part AND x.key = g.key AND x.n IS NOT NULL
             ORDER BY x.seq DESC LIMIT 1) END,
         CASE WHEN g.last_kind = '-D' OR g.adds = 0 THEN NULL ELSE
           (SELECT x.d FROM after x WHERE x.part = g.part AND x.key = g.key AND x.d IS NOT NULL
             ORDER BY x.seq DESC LIMIT 1) END,
         CASE WHEN g.last_kind = '-D' OR g.adds = 0 THEN '-D' ELSE '+I' END
    FROM r JOIN g USING (part, key) WHERE g.c > 1 GROUP BY g.part, g.key, g.last_kind, g.adds
$$;

CREATE FOREIGN TABLE agg (id int, p int, v text, n bigint, d float8, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_aggregation', "incremental-between" '0,1');
CREATE FOREIGN TABLE pu (id int, p int, v text, n bigint, d float8, "_ROW_KIND" text) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_partial_update', "incremental-between" '0,1');
-- every range (a, b], 0 <= a < b <= 9, of foreign table tab against its model
CREATE FUNCTION pg_temp.check_ranges(tab text, model text)
  RETURNS TABLE (ranges bigint, rows bigint, merged_keys bigint, deletes bigint, different bigint)
LANGUAGE plpgsql AS $$
DECLARE
  a int; b int; x bigint;
BEGIN
  ranges := 0; rows := 0; merged_keys := 0; deletes := 0; different := 0;
  FOR a IN 0..8 LOOP
    FOR b IN a + 1..9 LOOP
      EXECUTE format('ALTER FOREIGN TABLE %I OPTIONS (SET "incremental-between" %L)', tab, a || ',' || b);
      CREATE TEMP TABLE got AS SELECT * FROM pg_temp.read_table(tab);
      EXECUTE format('SELECT count(*) FROM ((TABLE got EXCEPT ALL SELECT * FROM %1$s(%2$s, %3$s))
        UNION ALL (SELECT * FROM %1$s(%2$s, %3$s) EXCEPT ALL TABLE got)) d', model, a, b) INTO x;
      ranges := ranges + 1;
      different := different + x;
      rows := rows + (SELECT count(*) FROM got);
      deletes := deletes + (SELECT count(*) FROM got WHERE "_ROW_KIND" = '-D');
      EXECUTE format('SELECT count(*) FROM (SELECT part, key FROM appended WHERE src = %L AND snapshot > %s
        AND snapshot <= %s GROUP BY 1, 2 HAVING count(*) > 1) k', CASE WHEN tab = 'agg' THEN 'agg' ELSE 'pu' END,
        a, b) INTO x;
      merged_keys := merged_keys + x;
      DROP TABLE got;
    END LOOP;
  END LOOP;
  RETURN NEXT;
END $$;
CREATE FUNCTION pg_temp.read_table(tab text)
  RETURNS TABLE (id int, p int, v text, n bigint, d float8, "_ROW_KIND" text) LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT * FROM %I', tab);
END $$;
SELECT 'agg' AS t, * FROM pg_temp.check_ranges('agg', 'pg_temp.agg_model')
UNION ALL SELECT 'pu', * FROM pg_temp.check_ranges('pu', 'pg_temp.pu_model');

-- one range of each, row by row
ALTER FOREIGN TABLE agg OPTIONS (SET "incremental-between" '1,4');
SELECT * FROM agg ORDER BY p, id;
ALTER FOREIGN TABLE pu OPTIONS (SET "incremental-between" '0,9');
SELECT * FROM pu WHERE "_ROW_KIND" = '-D' ORDER BY p, id;
SELECT "_ROW_KIND", count(*) FROM pu GROUP BY 1 ORDER BY 1;
-- scan mode delta said explicitly reads the same; the COMPACT snapshots add nothing
ALTER FOREIGN TABLE pu OPTIONS (ADD "incremental-between-scan-mode" 'delta');
SELECT count(*) AS rows FROM pu;
ALTER FOREIGN TABLE pu OPTIONS (SET "incremental-between" '2,3');
SELECT count(*) AS rows FROM pu;
-- without _ROW_KIND the -D rows are rows as well
CREATE FOREIGN TABLE pu_plain (id int, p int, n bigint) SERVER lake
  OPTIONS (database 'pk', "table" 'pk_partial_update', "incremental-between" '0,9');
SELECT count(*) = (SELECT count(*) FROM pg_temp.pu_model(0, 9)) AS same_count FROM pu_plain;

-- written by this extension: each INSERT / DELETE is an APPEND snapshot of
-- level-0 files; the log keeps what each one wrote
\! rm -rf /tmp/ts_inc_engines_wh && mkdir -p /tmp/ts_inc_engines_wh && bash -c 'source test/schema-lib.sh; KV="$(fields "$(f 0 id "INT NOT NULL")" "$(f 1 name STRING)" "$(f 2 v INT)")"; schema /tmp/ts_inc_engines_wh/w.db/agg "$KV" "" "\"id\"" "\"bucket\" : \"1\", \"merge-engine\" : \"aggregation\", \"fields.v.aggregate-function\" : \"sum\""; schema /tmp/ts_inc_engines_wh/w.db/partial "$KV" "" "\"id\"" "\"bucket\" : \"2\", \"merge-engine\" : \"partial-update\", \"partial-update.remove-record-on-delete\" : \"true\""; chmod -R a+rwX /tmp/ts_inc_engines_wh'
CREATE SERVER wlake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '/tmp/ts_inc_engines_wh');
CREATE FOREIGN TABLE wagg (id int NOT NULL, name text, v int) SERVER wlake
  OPTIONS (database 'w', "table" 'agg');
CREATE FOREIGN TABLE wpartial (id int NOT NULL, name text, v int) SERVER wlake
  OPTIONS (database 'w', "table" 'partial');
CREATE TEMP TABLE wlog (snapshot int, ord serial, id int, name text, v int);
INSERT INTO wlog (snapshot, id, name, v) VALUES
  (1, 1, 'a', 10), (1, 2, 'b', 20), (2, 1, NULL, 5), (2, 3, 'c', 30),
  (3, 1, 'a3', -2), (3, 2, NULL, 7), (4, 4, 'd', 40), (4, 1, NULL, 1);
INSERT INTO wagg SELECT id, name, v FROM wlog WHERE snapshot = 1 ORDER BY ord;
INSERT INTO wagg SELECT id, name, v FROM wlog WHERE snapshot = 2 ORDER BY ord;
INSERT INTO wagg SELECT id, name, v FROM wlog WHERE snapshot = 3 ORDER BY ord;
INSERT INTO wagg SELECT id, name, v FROM wlog WHERE snapshot = 4 ORDER BY ord;
-- (a, b]: per key the sum of v and the last non-null name of the inserts in
-- the range (one insert: that row), against every range
CREATE FUNCTION pg_temp.wagg_model(a int, b int) RETURNS TABLE (id int, name text, v int, kind text)
LANGUAGE sql AS $$
  SELECT id, (SELECT x.name FROM wlog x WHERE x.id = l.id AND x.snapshot > a AND x.snapshot <= b
               AND x.name IS NOT NULL ORDER BY x.snapshot DESC LIMIT 1), sum(v)::int, '+I'
    FROM wlog l WHERE snapshot > a AND snapshot <= b GROUP BY id
$$;
CREATE FOREIGN TABLE wagg_inc (id int NOT NULL, name text, v int, "_ROW_KIND" text) SERVER wlake
  OPTIONS (database 'w', "table" 'agg', "incremental-between" '0,1');
CREATE FUNCTION pg_temp.wagg_ranges() RETURNS TABLE (ranges bigint, rows bigint, different bigint)
LANGUAGE plpgsql AS $$
DECLARE
  a int; b int; x bigint;
BEGIN
  ranges := 0; rows := 0; different := 0;
  FOR a IN 0..3 LOOP
    FOR b IN a + 1..4 LOOP
      EXECUTE format('ALTER FOREIGN TABLE wagg_inc OPTIONS (SET "incremental-between" %L)', a || ',' || b);
      SELECT count(*) INTO x FROM ((SELECT * FROM wagg_inc EXCEPT ALL SELECT * FROM pg_temp.wagg_model(a, b))
        UNION ALL (SELECT * FROM pg_temp.wagg_model(a, b) EXCEPT ALL SELECT * FROM wagg_inc)) d;
      ranges := ranges + 1;
      rows := rows + (SELECT count(*) FROM wagg_inc);
      different := different + x;
    END LOOP;
  END LOOP;
  RETURN NEXT;
END $$;
SELECT * FROM pg_temp.wagg_ranges();
ALTER FOREIGN TABLE wagg_inc OPTIONS (SET "incremental-between" '1,3');
SELECT * FROM wagg_inc ORDER BY id;
SELECT * FROM wagg ORDER BY id;

-- partial-update: the columns the range set; a key inserted and deleted
-- inside the range is one -D row holding its key only (Java's initRow keeps
-- the NOT NULL columns); a delete alone in its range is the -D record as
-- written (the deleted row's values)
INSERT INTO wpartial SELECT id, name, v FROM wlog WHERE snapshot = 1 ORDER BY ord;
INSERT INTO wpartial SELECT id, name, v FROM wlog WHERE snapshot = 2 ORDER BY ord;
DELETE FROM wpartial WHERE id = 2;
INSERT INTO wpartial SELECT id, name, v FROM wlog WHERE snapshot = 3 ORDER BY ord;
CREATE FOREIGN TABLE wpartial_inc (id int NOT NULL, name text, v int, "_ROW_KIND" text) SERVER wlake
  OPTIONS (database 'w', "table" 'partial', "incremental-between" '0,2');
SELECT * FROM wpartial_inc ORDER BY id;
ALTER FOREIGN TABLE wpartial_inc OPTIONS (SET "incremental-between" '0,3');
SELECT * FROM wpartial_inc ORDER BY id;
ALTER FOREIGN TABLE wpartial_inc OPTIONS (SET "incremental-between" '2,3');
SELECT * FROM wpartial_inc ORDER BY id;
ALTER FOREIGN TABLE wpartial_inc OPTIONS (SET "incremental-between" '1,4');
SELECT * FROM wpartial_inc ORDER BY id;
SELECT * FROM wpartial ORDER BY id;

DROP SERVER wlake CASCADE;
DROP SERVER lake CASCADE;
DROP EXTENSION tablescan_fdw;
\! rm -rf /tmp/ts_inc_engines_wh
