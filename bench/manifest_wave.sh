#!/bin/bash
# manifest_wave.sh - where a cold plan's round trips go: a table of N
# manifests (test/s3/manifests-table.sh) planned cold (ts_scan_bench
# --plan-only 1) through the test proxy (test/s3/proxy.mjs --trace
# --trace-times) with each added latency, RUNS times, and for each run one
# line: the round trips waited ("waited", the proxy's depth counter) and
# the requests; the plan's wall and CPU time and the proxy process's CPU
# time meanwhile; when the last answer at the manifest lists' depth went out
# (the lists', and any other request of that depth) and when the first and
# last manifest request reached the store (ms after the plan's first
# request), over how many ms the first 512 manifests arrived, and how many
# manifest requests got each depth.  Prints figures, asserts nothing.
#   bash bench/manifest_wave.sh [N] [DELAYS] [RUNS]   (default 1000 "20 50" 3)
# TS_WAVE_IN_FLIGHT="512 1024": the requests in flight tried, in turn in
# each run (TS_S3_MAX_IN_FLIGHT, as tablescan.s3_max_in_flight);
# TS_SCAN_BENCH_BEFORE=<another build's ts_scan_bench>: that binary is run
# too, alternating with this build's, on the same store (its lines name it).
# TS_WAVE_PROXY_ARGS="--check-one-in 1000": more options for the proxy (a
# store cheaper per request; test/s3/proxy.mjs).
# TS_WAVE_METADATA_CACHE="0 1": without and with the metadata cache, in
# turn in each run.  With it (1), each binary first plans once with a metadata
# cache directory of its own (--metadata-cache, as tablescan.metadata_cache_dir;
# not counted), then every counted run is a new process planning with that
# filled directory: a new connection's cold plan on a server whose cache is
# warm, against the lines without it (a table never planned on this server).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000} DELAYS=${2:-20 50} RUNS=${3:-3}
BUILD=${BUILD:-build}
make -s -j2 BUILD=$BUILD core tools bench-bins >/dev/null
[ -d test/s3/node_modules/s3rver ] || (cd test/s3 && npm install --no-audit --no-fund >/dev/null)
D=$(mktemp -d /tmp/tablescan_fdw_wave.XXXXXX)
trap 'rm -rf "$D"' EXIT
bash test/s3/manifests-table.sh "$N" "$D/m" $BUILD
BINS=("$BUILD/bench/ts_scan_bench")
[ -n "${TS_SCAN_BENCH_BEFORE:-}" ] && BINS=("$TS_SCAN_BENCH_BEFORE" "${BINS[@]}")
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
echo "manifest_wave: $N manifests, $(date -u +%H:%M) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for delay in $DELAYS; do
    : > "$D/trace"
    rm -f "$D/port"
    node test/s3/proxy.mjs --dir "$D/store" --delay "$delay" --trace --trace-times ${TS_WAVE_PROXY_ARGS:-} \
        --upload "lake/wh/t.db/m=$D/m" > "$D/port" 2>> "$D/trace" &
    pid=$!
    for _ in $(seq 1 300); do [ -s "$D/port" ] && break; sleep 0.1; done
    export TS_S3_ENDPOINT=http://127.0.0.1:$(cat "$D/port")
    for run in $(seq 1 "$RUNS"); do
        for inflight in ${TS_WAVE_IN_FLIGHT:-512}; do
            for bin in "${BINS[@]}"; do
              for cache in ${TS_WAVE_METADATA_CACHE:-0}; do
                mc=()
                if [ "$cache" = 1 ]; then
                    mc=(--metadata-cache "$D/mcache-$delay-$(basename "$bin")-$([ "$bin" = "${BINS[-1]}" ] && echo this || echo before)")
                    [ -d "${mc[1]}" ] || { mkdir -m 700 -p "${mc[1]}"; TS_S3_MAX_IN_FLIGHT=$inflight "$bin" s3://lake/wh/t.db/m --plan-only 1 "${mc[@]}" >/dev/null 2>&1; }
                fi
                curl -s "$TS_S3_ENDPOINT/__latency?reset=1" >/dev/null
                echo "---- mark" >> "$D/trace"
                c0=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
                out=$(TS_S3_MAX_IN_FLIGHT=$inflight "$bin" s3://lake/wh/t.db/m --plan-only 1 "${mc[@]}" 2>&1 | tr '\n' ' ')
                c1=$(awk '{ print $14 + $15 }' /proc/$pid/stat)
                st=$(curl -s "$TS_S3_ENDPOINT/__latency")
                # the trace since the mark: arrivals ("depth D METHOD PATH [RANGE] t=MS"), answers ("answered D t=MS")
                wave=$(sed -n '/^---- mark$/h; /^---- mark$/!H; ${x;p}' "$D/trace" | awk '
                    /^depth / { t = substr($NF, 3) + 0; if (t0 == "") t0 = t
                                if ($4 ~ /\/manifest\/manifest-list-/) ld = $2
                                else if ($4 ~ /\/manifest\/manifest-/) {
                                    n++; if (n == 1) first = t; if (n == 512) at512 = t; last = t; per[$2]++ } }
                    /^answered / && ld != "" && $2 == ld { listed = substr($NF, 3) - t0 }
                    END { if (n == 0) { printf "no manifest fetched"; exit }
                          printf "lists answered %.0f, manifests arrived %.0f-%.0f, first 512 over %.0f ms; depths:",
                                 listed, first - t0, last - t0, (at512 ? at512 : last) - first
                          for (d = 1; d <= 64; d++) if (per[d]) printf " %d:%d", d, per[d] }')
                printf '%s ms, %s in flight, %s: waited %s, %s requests; plan %s ms, CPU %s ms; proxy CPU %s ms; %s\n' \
                    "$delay" "$inflight" "$([ "$bin" = "${BINS[-1]}" ] && echo this build || basename "$bin")${mc:+, metadata cache filled}" \
                    "$(sed -n 's/.*"depth":\([0-9]*\).*/\1/p' <<< "$st")" \
                    "$(sed -n 's/.*"requests":\([0-9]*\).*/\1/p' <<< "$st")" \
                    "$(sed -n 's/.*: \([0-9.]*\) ms each.*/\1/p' <<< "$out")" \
                    "$(sed -n 's/.*CPU \([0-9.]*\) ms.*/\1/p' <<< "$out")" \
                    "$(( (c1 - c0) * 1000 / $(getconf CLK_TCK) ))" "$wave"
              done
            done
        done
    done
    kill $pid 2>/dev/null; wait $pid 2>/dev/null || true
done
