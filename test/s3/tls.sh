#!/bin/bash
# tls.sh - HTTPS to the object store: the test proxy (proxy.mjs) serves a
# certificate of a CA made here; the server-free scan (bench/ts_scan_bench)
# reads sales.orders through it with that CA as its CA file, and fails with
# a certificate error without it (verification is always on).
# Prints "tls: N passed, M failed".
PART=tls
source "$(dirname "$0")/scan-setup.sh"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=tablescan test CA" \
    -keyout "$D/ca.key" -out "$D/ca.pem" >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$D/srv.key" -out "$D/srv.csr" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1\n' > "$D/ext"
openssl x509 -req -in "$D/srv.csr" -CA "$D/ca.pem" -CAkey "$D/ca.key" -CAcreateserial -days 2 \
    -extfile "$D/ext" -out "$D/srv.pem" >/dev/null 2>&1
node test/s3/proxy.mjs --dir "$D/store" --tls-key "$D/srv.key" --tls-cert "$D/srv.pem" \
    --upload "lake/wh/sales.db/orders=$FIX/warehouse/sales.db/orders" > "$D/port" 2> "$D/log" &
pid=$!
for _ in $(seq 1 300); do [ -s "$D/port" ] && break; sleep 0.1; done
export TS_S3_ENDPOINT=https://127.0.0.1:$(cat "$D/port") AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
out=$(TS_S3_CA_FILE="$D/ca.pem" "$D/scan" s3://lake/wh/sales.db/orders 2>&1)
local_out=$("$D/scan" "$FIX/warehouse/sales.db/orders" 2>&1)
if [ "$(echo "$out" | head -1 | cut -d, -f1-3)" = "$(echo "$local_out" | head -1 | cut -d, -f1-3)" ] &&
   echo "$out" | grep -q '^3000 rows'; then
    ok "https with the test CA as CA file: the same rows and checksum as local"
else
    bad "https with the test CA: $out"
fi
out=$("$D/scan" s3://lake/wh/sales.db/orders 2>&1)
if echo "$out" | grep -qi 'certificate'; then
    ok "https without the CA: refused ($(echo "$out" | head -1 | cut -c1-120))"
else
    bad "https without the CA was not refused: $out"
fi
kill $pid 2>/dev/null; wait $pid 2>/dev/null
rm -rf "$D"
echo "tls: $pass passed, $fail failed"
[ $fail -eq 0 ]
