#!/bin/bash
# start.sh - start the test REST catalog (server.mjs) over the generated
# fixture warehouse, for the regress suite rest_catalog.  Prints shell
# assignments to eval: TS_REST_URI, TS_REST_TOKEN, TS_REST_PID and
# TS_REST_TOKEN_LOG (one line per data-token request).  Adds format tables
# whose schema lives only in the catalog ("ft.events_rest": partitions listed
# from its directories; "ft.events_registered": the catalog also knows a
# partition without files; "ft.events_501": the catalog answers 501 to list
# partitions), "s3db.orders" at s3://lake/wh/sales.db/orders (test/s3/start.sh)
# whose data token holds the object store's keys, tokens.fast and
# tokens.fast_customers (tokens due for refresh 6 s after they are issued),
# tokens.badkey (a token with a wrong secret), tokens.refreshfail (a fast token that
# cannot be renewed), trouble.flaky (429 then 503 before each answer),
# trouble.down (always 503) and trouble.badschema (a schema id missing under
# its location).  Further arguments go to server.mjs (e.g. --testdata).
#   eval "$(bash test/rest/start.sh)"; ...; kill "$TS_REST_PID"
set -euo pipefail
cd "$(dirname "$0")"
FIX=${TS_FIXTURES:-/tmp/tablescan_fdw_fixtures}
D=${TS_REST_DIR:-/tmp/tablescan_fdw_rest}
rm -rf "$D"; mkdir -p "$D/events/region=eu" "$D/events/region=us"
printf '1,anna,10.50\n2,bert,20.00\n' > "$D/events/region=eu/part-0.csv"
printf '3,carl,30.25\n' > "$D/events/region=us/part-0.csv"
ORDERS=$(cat "$FIX/warehouse/sales.db/orders/schema/schema-0" 2>/dev/null || echo null)
CUSTOMERS=$(cat "$FIX/warehouse/sales.db/customers/schema/schema-0" 2>/dev/null || echo null)
KEYS='{"fs.s3a.access.key": "S3RVER", "fs.s3a.secret.key": "S3RVER"}'
EVENTS='{"fields": [{"id": 0, "name": "id", "type": "INT"},
                     {"id": 1, "name": "name", "type": "STRING", "description": "who"},
                     {"id": 2, "name": "amount", "type": "DECIMAL(10, 2)"},
                     {"id": 3, "name": "region", "type": "STRING"}],
          "partitionKeys": ["region"], "primaryKeys": [],
          "options": {"type": "format-table", "file.format": "csv"},
          "comment": "events listed only in the catalog"}'
cat > "$D/extra.json" <<JSON
{"ft.events_rest": {"path": "file:$D/events", "schema": $EVENTS},
 "ft.events_registered": {"path": "file:$D/events", "schema": $EVENTS,
  "partitions": [{"region": "eu"}, {"region": "us"}, {"region": "apac"}]},
 "ft.events_501": {"path": "file:$D/events", "schema": $EVENTS, "partitions": 501},
 "s3db.orders": {"path": "s3://lake/wh/sales.db/orders", "schema": $ORDERS, "token": $KEYS},
 "tokens.fast": {"path": "s3://lake/wh/sales.db/orders", "schema": $ORDERS,
  "token": $KEYS, "tokenExpiresIn": 3606000},
 "tokens.fast_customers": {"path": "s3://lake/wh/sales.db/customers", "schema": $CUSTOMERS,
  "token": $KEYS, "tokenExpiresIn": 3606000},
 "tokens.badkey": {"path": "s3://lake/wh/sales.db/customers", "schema": $CUSTOMERS,
  "token": {"fs.s3a.access.key": "S3RVER", "fs.s3a.secret.key": "not-the-secret"}},
 "tokens.refreshfail": {"path": "s3://lake/wh/sales.db/orders", "schema": $ORDERS,
  "token": $KEYS, "tokenExpiresIn": 3606000, "tokenFail": "after-first"},
 "trouble.flaky": {"like": "sales.customers", "fail": "twice"},
 "trouble.down": {"like": "sales.customers", "fail": "always"},
 "trouble.badschema": {"like": "sales.customers", "schemaId": 99}}
JSON
TOKEN=ts-rest-$RANDOM$RANDOM
node server.mjs --warehouse "$FIX/warehouse" --token "$TOKEN" --page-size 2 \
    --extra "$D/extra.json" --token-log "$D/tokens.log" "$@" > "$D/port" 2> "$D/server.log" &
pid=$!
for _ in $(seq 1 100); do [ -s "$D/port" ] && break; sleep 0.1; done
[ -s "$D/port" ] || { echo "echo 'REST test catalog did not start' >&2"; kill $pid 2>/dev/null; exit 1; }
echo "export TS_REST_URI=http://127.0.0.1:$(cat "$D/port") TS_REST_TOKEN=$TOKEN TS_REST_PID=$pid TS_REST_TOKEN_LOG=$D/tokens.log"
