-- tablescan_fdw demo over a warehouse our generator wrote (see test/demo.sh)
\pset footer off
CREATE EXTENSION tablescan_fdw;
CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse :'warehouse');
IMPORT FOREIGN SCHEMA sales FROM SERVER lake INTO public;
\d orders

-- a whole-table aggregate
SELECT dt, count(*) AS orders, sum(amount) AS revenue FROM orders GROUP BY dt ORDER BY dt;

-- partition pruning (dt) and bucket pruning (id) happen while PostgreSQL plans
EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE dt = 'dt_0' AND id = 4242;
SELECT * FROM orders WHERE dt = 'dt_0' AND id = 4242;

-- aggregates computed while scanning the pruned files (no Aggregate node)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*), sum(amount) FROM orders WHERE dt IN ('dt_0', 'dt_1') AND amount > 50;

-- count(*) per partition straight from the manifests: no data file is read
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT dt, count(*) FROM orders WHERE dt <> 'dt_2' GROUP BY dt;

-- the files a scan reads, and time travel to an older snapshot
SELECT partition, bucket, count(*) AS files, sum(row_count) AS rows
  FROM tablescan_files('orders') GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 6;
CREATE FOREIGN TABLE orders_v1 (id int, amount numeric(10,2))
  SERVER lake OPTIONS (database 'sales', "table" 'orders', "scan.snapshot-id" '1');
SELECT count(*) AS rows_in_snapshot_1, (SELECT count(*) FROM orders) AS rows_now FROM orders_v1;

-- a join with a local table
CREATE TABLE vip(id int PRIMARY KEY, tier text);
INSERT INTO vip VALUES (7, 'gold'), (4242, 'silver'), (9001, 'bronze');
SELECT v.tier, o.* FROM vip v JOIN orders o USING (id) ORDER BY id;

-- a primary-key table: each key's latest row, merged while reading ...
SELECT * FROM accounts ORDER BY id;
-- ... and what snapshot 3 changed, each row with its kind
CREATE FOREIGN TABLE accounts_changes (id int, owner text, balance numeric(10,2), "_ROW_KIND" text)
  SERVER lake OPTIONS (database 'sales', "table" 'accounts', "incremental-between" '2,3');
SELECT "_ROW_KIND", id, owner, balance FROM accounts_changes ORDER BY id;

-- following changes: a consumer reads what changed since it last looked, and
-- its position moves with the reading transaction ("Following changes")
CREATE FOREIGN TABLE accounts_feed (id int, owner text, balance numeric(10,2), "_ROW_KIND" text)
  SERVER lake OPTIONS (database 'sales', "table" 'accounts', "scan.mode" 'latest');
SELECT count(*) AS new_changes FROM tablescan_changes(NULL::accounts_feed, consumer => 'demo');
-- writing into the lake: one Paimon commit per transaction ("Writing")
INSERT INTO accounts VALUES (3, 'owner_new', 12.50), (0, 'owner_91', 1.00);
DELETE FROM accounts WHERE id = 11;
BEGIN;
SELECT "_ROW_KIND", id, owner, balance
  FROM tablescan_changes(NULL::accounts_feed, consumer => 'demo') ORDER BY id, "_ROW_KIND";
COMMIT;
SELECT consumer, next_snapshot FROM tablescan_consumers;
SELECT count(*) AS new_changes FROM tablescan_changes(NULL::accounts_feed, consumer => 'demo');
