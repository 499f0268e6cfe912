#!/bin/bash
# test/conformance/shmcache.sh - the conformance cases with the live sets of
# manifest entries in shared memory (src/fdw/shared_cache.c,
# tablescan.shared_cache_size).
#
# A cluster of its own (test/scaleout/clusters.sh) loads tablescan_fdw in
# shared_preload_libraries, the on-disk metadata cache off.  A first run of
# test/conformance/run.py publishes the live sets its sessions fill (and its
# later sessions of a table already find them), a second run plans from
# them; each run is held to the oracle and to test/baseline.json exactly as
# the plain run is, so sets read in place give the same answers as decoding.
# Checks besides: the first run published sets, the second found them, no
# set is still pinned once every session has ended (each backend gave its
# pins back at exit), and a backend killed while it pins a set (the
# postmaster then makes shared memory again) leaves a region that works:
# a table of the generator's read, published and found again; and, with
# tablescan.shared_cache_small_pages off, the region used only if it is in
# huge pages; the setting without preloading, a warning.  (The runs use it
# whatever the pages: small_pages on.)
# Prints the runs' FAIL lines and closes with
#     conformance-shmcache: N passed, N failed, N skipped
# (both runs' passes and failures plus the checks; the skips, the same in
# both runs, named and counted once).  Needs TS_SHARED.  SHMCACHE_CASES:
# run.py --case patterns (space separated) for a subset; default every case.
set -uo pipefail
cd "$(dirname "$0")/../.."
. test/scaleout/clusters.sh

. test/conformance/run_totals.sh

start_node 1 "shared_preload_libraries = 'tablescan_fdw'
tablescan.shared_cache_size = 64MB
tablescan.shared_cache_small_pages = on
tablescan.metadata_cache_dir = ''"
export PGHOST=127.0.0.1 PGPORT=${PORTS[1]} PGUSER=postgres PGDATABASE=postgres
unset PGOPTIONS
shm() { q 1 "SELECT $1 FROM tablescan_shared_cache_stats()"; }
cases=()
for c in ${SHMCACHE_CASES:-}; do cases+=(--case "$c"); done

q 1 "CREATE EXTENSION IF NOT EXISTS tablescan_fdw" >/dev/null
check "the region is there when preloaded ($(shm bytes_size) bytes, in huge pages: $(shm in_huge_pages))" \
    "$([ "$(shm bytes_size)" -ge $((64 << 20)) ] && echo 0 || echo 1)"

log=$(mktemp -d)
python3 test/conformance/run.py --shared "$TS_SHARED" "${cases[@]}" > "$log/fill.log" 2>&1
count_run "$log/fill.log" fill 0
pub=$(shm publications); finds1=$(shm finds)
check "sets published by the first run ($pub)" "$([ "${pub:-0}" -gt 0 ] && echo 0 || echo 1)"

python3 test/conformance/run.py --shared "$TS_SHARED" "${cases[@]}" > "$log/hit.log" 2>&1
count_run "$log/hit.log" hit 1
finds2=$(shm finds)
check "sets found by the second run ($((finds2 - finds1)))" \
    "$([ $((finds2 - finds1)) -gt 0 ] && echo 0 || echo 1)"
# the sessions ended: their backends gave every pin back (a backend's exit may lag its psql)
pinned=1
for _ in $(seq 50); do pinned=$(shm pinned_sets); [ "$pinned" = 0 ] && break; sleep 0.2; done
check "no set pinned once the sessions ended ($pinned)" "$([ "$pinned" = 0 ] && echo 0 || echo 1)"
echo "shared memory: $pub sets published by the first run, $((finds2 - finds1)) found by the second, $(shm sets) held, $(shm evictions) evicted, $(shm refused) refused"

# a backend holding a pin killed: the postmaster makes shared memory again, which works
gen="$TMP/wh/k.db/t"
build/tools/ts_gen "$gen" --column id:INT --column name:STRING --column p:INT --partition p \
    --buckets 2 --bucket-key id --rows 40 --snapshots 4 >/dev/null
[ "$(id -u)" = 0 ] && chown -R postgres "$TMP/wh"
q 1 "CREATE SERVER kwh FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$TMP/wh');
     CREATE SCHEMA k; IMPORT FOREIGN SCHEMA k FROM SERVER kwh INTO k" >/dev/null
want=$(q 1 "SELECT count(*), sum(id) FROM k.t")
"$BIN/psql" -X -q -At -h 127.0.0.1 -p "${PORTS[1]}" -U postgres -d postgres \
    -c "SELECT count(*), sum(id) FROM k.t" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
sleeper=$!
victim=""
for _ in $(seq 50); do
    victim=$(q 1 "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' LIMIT 1")
    [ -n "$victim" ] && break; sleep 0.2
done
check "a sleeping session holds the set it found ($(shm pinned_sets) pinned)" \
    "$([ -n "$victim" ] && [ "$(shm pinned_sets)" -ge 1 ] && echo 0 || echo 1)"
[ -n "$victim" ] && kill -9 "$victim"
wait "$sleeper" 2>/dev/null
up=1
for _ in $(seq 100); do [ "$(q 1 "SELECT 1" 2>/dev/null)" = 1 ] && { up=0; break; }; sleep 0.2; done
check "the server back after the kill, its region made again ($(shm sets) sets, $(shm pinned_sets) pinned)" \
    "$([ $up = 0 ] && [ "$(shm sets)" = 0 ] && [ "$(shm pinned_sets)" = 0 ] && echo 0 || echo 1)"
got1=$(q 1 "SELECT count(*), sum(id) FROM k.t")
got2=$(q 1 "SELECT count(*), sum(id) FROM k.t")
check "the table read again, published and found ($got1 / $got2 / $want; $(shm publications) published, $(shm finds) found)" \
    "$([ "$got1" = "$want" ] && [ "$got2" = "$want" ] && [ "$(shm publications)" = 1 ] && [ "$(shm finds)" = 1 ] && echo 0 || echo 1)"

# without tablescan.shared_cache_small_pages the region is used only in huge pages
echo "tablescan.shared_cache_small_pages = off" >> "$TMP/n1/postgresql.conf"
as_pg "$BIN/pg_ctl" -D "$TMP/n1" -m fast -w restart -l "$TMP/n1/log" >/dev/null
huge=$(shm in_huge_pages)
got1=$(q 1 "SELECT count(*), sum(id) FROM k.t")
got2=$(q 1 "SELECT count(*), sum(id) FROM k.t")
if [ "$huge" = t ]; then
    check "in huge pages: used ($got1 / $got2 / $want; $(shm finds) found)" \
        "$([ "$got2" = "$want" ] && [ "$(shm finds)" = 1 ] && echo 0 || echo 1)"
else
    check "in 4 kB pages: not used ($got1 / $got2 / $want; sets '$(shm sets)', in_huge_pages '$huge')" \
        "$([ "$huge" = f ] && [ "$got2" = "$want" ] && [ -z "$(shm sets)" ] && [ "$(shm live_sets_found)" = 0 ] && echo 0 || echo 1)"
fi

# set, but the library not preloaded: a backend loading it says why the setting is not used
sed -i "/^shared_preload_libraries/d" "$TMP/n1/postgresql.conf"
as_pg "$BIN/pg_ctl" -D "$TMP/n1" -m fast -w restart -l "$TMP/n1/log" >/dev/null
said=$(q 1 "LOAD 'tablescan_fdw'")
check "not preloaded: loading the library warns that the setting is not used" \
    "$(echo "$said" | grep -q 'tablescan.shared_cache_size is not used: tablescan_fdw is not in shared_preload_libraries' && [ "$(shm "coalesce(sets::text, 'none')" | tail -1)" = none ] && echo 0 || echo 1)"

rm -rf "$log"
echo "conformance-shmcache: $passed passed, $failed failed, $skipped skipped"
