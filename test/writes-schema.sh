#!/bin/bash
# writes-schema.sh WAREHOUSE OUTSIDE FIXTURES - the empty tables sql/writes.sql writes into:
# schema files written by hand here (the Paimon schema JSON of PAIMON-FORMAT.md), so that
# what the suite reads back does not depend on a table the code under test created.
# w.db/typed (every type the writer takes), big (target-file-size 64 kb), parted
# (partitioned by p, 4 buckets on id), orders (a copy of the generated sales.orders),
# pk / dv / orcfmt / timecol (refused), escape (a symbolic link to OUTSIDE/escape), linked (its
# bucket-0 a symbolic link to OUTSIDE/linked_bucket).
set -euo pipefail
WH=$1 OUT=$2 FX=$3
source "$(dirname "$0")/schema-lib.sh"
mkdir -p "$WH/w.db" "$OUT"
schema "$WH/w.db/typed" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 b BOOLEAN)" "$(f 2 ti TINYINT)" \
    "$(f 3 si SMALLINT)" "$(f 4 big BIGINT)" "$(f 5 f FLOAT)" "$(f 6 d DOUBLE)" \
    "$(f 7 dec 'DECIMAL(10, 2)')" "$(f 8 dec18 'DECIMAL(18, 4)')" "$(f 9 s STRING)" \
    "$(f 10 vc 'VARCHAR(20)')" "$(f 11 bin BYTES)" "$(f 12 dt DATE)" "$(f 13 ts 'TIMESTAMP(6)')" \
    "$(f 14 ts3 'TIMESTAMP(3)')" "$(f 15 tsl 'TIMESTAMP(6) WITH LOCAL TIME ZONE')")" "" "" \
    '"bucket" : "-1"'
schema "$WH/w.db/big" "$(fields "$(f 0 id INT)" "$(f 1 name STRING)" "$(f 2 k INT)")" "" "" \
    '"bucket" : "-1", "target-file-size" : "64 kb"'
schema "$WH/w.db/parted" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 p STRING)" "$(f 2 v STRING)")" \
    '"p"' "" '"bucket" : "4", "bucket-key" : "id"'
schema "$WH/w.db/pk" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 v STRING)")" "" '"id"' '"bucket" : "-1"'
schema "$WH/w.db/dv" "$(fields "$(f 0 id INT)" "$(f 1 v STRING)")" "" "" \
    '"bucket" : "-1", "deletion-vectors.enabled" : "true"'
schema "$WH/w.db/orcfmt" "$(fields "$(f 0 id INT)" "$(f 1 v STRING)")" "" "" \
    '"bucket" : "-1", "file.format" : "orc", "file.compression" : "lzo"'
schema "$WH/w.db/timecol" "$(fields "$(f 0 id INT)" "$(f 1 t 'BLOB')")" "" "" '"bucket" : "-1"'
schema "$OUT/escape" "$(fields "$(f 0 id INT)" "$(f 1 name STRING)" "$(f 2 k INT)")" "" "" '"bucket" : "-1"'
schema "$WH/w.db/linked" "$(fields "$(f 0 id INT)" "$(f 1 name STRING)" "$(f 2 k INT)")" "" "" '"bucket" : "-1"'
mkdir -p "$OUT/linked_bucket"
ln -s "$OUT/linked_bucket" "$WH/w.db/linked/bucket-0"
ln -s "$OUT/escape" "$WH/w.db/escape"
cp -r "$FX/warehouse/sales.db/orders" "$WH/w.db/orders"
# the server runs as another user: it must be able to write here (and, but for
# the extension's scope checks, outside)
chmod -R a+rwX "$WH" "$OUT"
