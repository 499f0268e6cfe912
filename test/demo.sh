#!/bin/bash
# The demo command of README.md: on a fresh Debian 12 machine, install what
# is needed, build and install the extension, generate a sample warehouse
# with our own generator, start a throwaway cluster and run test/demo.sql
# (CREATE EXTENSION, IMPORT FOREIGN SCHEMA, EXPLAIN showing pruning, SELECTs, an
# INSERT / DELETE into a primary-key table followed by a consumer).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo

bash test/install-deps.sh
make -s -j2 >/dev/null
$SUDO make -s install >/dev/null
make -s tools >/dev/null

DEMO=${TS_DEMO_DIR:-/tmp/tablescan_fdw_demo}
rm -rf "$DEMO"; mkdir -p "$DEMO/warehouse/sales.db"
build/tools/ts_gen "$DEMO/warehouse/sales.db/orders" \
    --column 'id:INT NOT NULL' --column customer:STRING --column 'amount:DECIMAL(10, 2)' \
    --column 'ordered_at:TIMESTAMP(3)' --column dt:STRING \
    --partition dt --partitions 3 --buckets 8 --bucket-key id \
    --rows 5000 --snapshots 2 --files 2 --null-every 11
build/tools/ts_gen "$DEMO/warehouse/sales.db/customers" \
    --column 'id:INT NOT NULL' --column name:STRING --column 'city:VARCHAR(20)' --rows 100
# a primary-key table: 3 commits of updates and deletes over 12 keys
build/tools/ts_gen "$DEMO/warehouse/sales.db/accounts" \
    --column 'id:INT NOT NULL' --column owner:STRING --column 'balance:DECIMAL(10, 2)' \
    --primary-key id --buckets 2 --rows 40 --keys 12 --snapshots 3 --delete-every 6 --no-ops
chmod -R a+rwX "$DEMO"      # the cluster's user writes into accounts

pg_virtualenv -t -v 15 psql -X -e -v ON_ERROR_STOP=1 -v warehouse="$DEMO/warehouse" -f test/demo.sql
