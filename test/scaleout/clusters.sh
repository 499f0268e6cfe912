#!/bin/bash
# clusters.sh - sourced by test/scaleout/run.sh and bench/scaleout.sh: throwaway
# PostgreSQL 15 clusters on 127.0.0.1 (initdb / pg_ctl, the installed extension),
# node i in $TMP/n$i on port ${PORTS[i]}, stopped and removed at exit.
BIN=$(pg_config --bindir 2>/dev/null)
[ -x "$BIN/initdb" ] || BIN=/usr/lib/postgresql/15/bin
TMP=$(mktemp -d /tmp/scaleout.XXXXXX)
# the clusters run as an unprivileged user (as pg_virtualenv's do when started by root)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$TMP"
PORTS=()
cleanup() {
    for d in "$TMP"/n*; do [ -f "$d/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$d" -m immediate stop >/dev/null 2>&1; done
    rm -rf "$TMP"
}
trap cleanup EXIT

# A port nothing listens on, from $1 on.  Ports below the kernel's ephemeral
# range: one inside it may be the local end of some client's connection, which
# a connect does not see but the postmaster's bind fails on.
free_port() {
    local p
    for p in $(seq "$1" $(($1 + 200))); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
    done
}
start_node() {		# start_node i [extra postgresql.conf lines]: cluster n$i on a free port
    local d="$TMP/n$1" base=$((20000 + ($$ * 7 + $1 * 211) % 12000)) try
    as_pg "$BIN/initdb" -D "$d" -A trust -U postgres --no-sync >/dev/null 2>&1 || { echo "initdb failed"; exit 1; }
    cat >>"$d/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$TMP'
fsync = off
shared_buffers = 16MB
max_connections = 30
max_parallel_workers_per_gather = 0
${2:-}
CONF
    # a port taken between the probe and the bind: the next one (a few times)
    for try in 1 2 3 4 5; do
        PORTS[$1]=$(free_port "$base")
        echo "port = ${PORTS[$1]}" >>"$d/postgresql.conf"	# the last line of a setting wins
        if as_pg "$BIN/pg_ctl" -D "$d" -w -l "$d/log" start >/dev/null; then
            return 0
        fi
        grep -q "Address already in use" "$d/log" || break
        base=$((PORTS[$1] + 1))
    done
    cat "$d/log"; exit 1
}
q() {		# q node sql: one value per line, errors to stdout
    local n=$1; shift
    "$BIN/psql" -X -q -At -h 127.0.0.1 -p "${PORTS[$n]}" -U postgres -d postgres \
        -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "$*" 2>&1
}
