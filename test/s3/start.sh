#!/bin/bash
# start.sh - start the test object store (proxy.mjs: s3rver behind a proxy
# that verifies SigV4 signatures) with copies of tables uploaded to bucket
# "lake": the generated fixture warehouse's databases sales, ft and pk under
# s3://lake/wh/, the plain CSV tree formattable/events_csv under
# s3://lake/files/, and a few ../shared/testdata tables under s3://lake/shared/.
# broken.db/customers lacks a data file.  big.db/orc_big (one ORC file of
# 8 stripes), big.db/pq_rg (one Parquet file of 8 row groups) and
# big.db/avro_big (one Avro file of many blocks), all over
# the 8 MiB a scan fetches whole, are written here by ts_gen (in
# $TS_S3_DIR.log/big; the local copies sql/s3.sql compares with).  Bucket "flaky" (a copy of
# sales.db/orders) fails the first attempt of every request, bucket "stall"
# never answers (test/s3/proxy.mjs).  With TS_S3_TESTDATA=1 the whole
# ../shared/testdata tree goes to s3://shared/testdata (conformance-s3).  Bucket "open" takes anonymous reads (a copy of sales.db).  Prints shell
# assignments to eval: TS_S3_ENDPOINT, TS_S3_PID, TS_S3_BIG (the local big.db).
#   eval "$(bash test/s3/start.sh)"; ...; kill "$TS_S3_PID"
set -euo pipefail
cd "$(dirname "$0")"
FIX=${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}
SHARED=${TS_SHARED:-/work/shared}
D=${TS_S3_DIR:-/tmp/tablescan_fdw_s3}
if [ ! -d node_modules/s3rver ] || [ ! -d node_modules/@smithy/signature-v4 ]; then
    npm install --no-audit --no-fund >/dev/null 2>&1 || { echo "echo 'npm install in test/s3 failed' >&2"; exit 1; }
fi
mkdir -p "$D.log"
# broken.db/customers: a copy whose first data file is missing
rm -rf "$D.log/broken"; mkdir -p "$D.log/broken"
cp -r "$FIX/warehouse/sales.db/customers" "$D.log/broken/customers"
rm "$(find "$D.log/broken/customers" -path '*bucket-*' -type f | sort | head -1)"
# big.db: files larger than a scan fetches whole (read by ranges, sql/s3.sql)
GEN=${TS_GEN:-../../build/tools/ts_gen}
BIG=$D.log/big
# kept between runs only while this script and the generator are the same
# (a stamp of both): another branch's or build's big.db is written again
if [ -x "$GEN" ]; then
    stamp=$(cat start.sh "$GEN" | sha256sum | cut -c1-16)
    if [ "$(cat "$BIG/stamp" 2>/dev/null)" != "$stamp" ]; then
        rm -rf "$BIG"
        cols=(--column 'id:INT NOT NULL' --column s:STRING --column bi:BIGINT --column d:DOUBLE
              --column 'dec:DECIMAL(18, 2)' --column 'ts:TIMESTAMP(6)' --null-every 9)
        "$GEN" "$BIG/big.db/orc_big" --format orc --rows 300000 --stripe-rows 40000 "${cols[@]}" >/dev/null &&
        "$GEN" "$BIG/big.db/avro_big" --rows 600000 "${cols[@]}" >/dev/null &&
        # big.db/pq_rg: the same rows in one Parquet file of 8 row groups (13.5 MB)
        "$GEN" "$BIG/big.db/pq_rg" --format parquet --rows 300000 --row-group-rows 40000 "${cols[@]}" >/dev/null &&
        echo "$stamp" > "$BIG/stamp"
        chmod -R a+rX "$BIG" 2>/dev/null || true
    fi
fi
ups=(--upload "lake/wh/sales.db=$FIX/warehouse/sales.db" --upload "lake/wh/ft.db=$FIX/warehouse/ft.db"
     --upload "lake/wh/pk.db=$FIX/warehouse/pk.db" --upload "lake/files/events_csv=$FIX/formattable/events_csv"
     --upload "lake/wh/broken.db=$D.log/broken"
     --upload "flaky/wh/sales.db/orders=$FIX/warehouse/sales.db/orders"
     --upload "open/wh/sales.db=$FIX/warehouse/sales.db" --public open)
# btree.db (a btree global index, read by range requests): in fixtures made since it exists
[ -d "$FIX/warehouse/btree.db" ] && ups+=(--upload "lake/wh/btree.db=$FIX/warehouse/btree.db")
# idx.db (file indexes; events_sidecar's are <data file>.index sidecars fetched with their data files)
[ -d "$FIX/warehouse/idx.db" ] && ups+=(--upload "lake/wh/idx.db=$FIX/warehouse/idx.db")
# (without the generator built, no big.db: sql/s3.sql then fails naming it)
[ -d "$BIG/big.db" ] && ups+=(--upload "lake/wh/big.db=$BIG/big.db")
for t in append_09 pk_table_scan_and_read_dv; do
    ups+=(--upload "lake/shared/$t.db=$SHARED/testdata/parquet/$t.db")
done
# TS_S3_TESTDATA=1: also the whole ../shared/testdata tree under s3://shared/testdata
# (the conformance run over the object store, test/pg-tests.sh; 1,700 files)
wait=300
if [ "${TS_S3_TESTDATA:-0}" = 1 ]; then
    ups+=(--upload "shared/testdata=$SHARED/testdata"); wait=3000
fi
# empty the port file first: the wait below must not read the previous run's port
rm -f "$D.log/port"
node proxy.mjs --dir "$D" --list-page-size 3 "${ups[@]}" \
    > "$D.log/port" 2> "$D.log/server.log" &
pid=$!
for _ in $(seq 1 $wait); do [ -s "$D.log/port" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
[ -s "$D.log/port" ] || { echo "echo 'test object store did not start: $(tail -1 "$D.log/server.log")' >&2"; kill $pid 2>/dev/null; exit 1; }
echo "export TS_S3_ENDPOINT=http://127.0.0.1:$(cat "$D.log/port") TS_S3_PID=$pid TS_S3_BIG=$BIG"
