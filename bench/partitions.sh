#!/bin/bash
# bench/partitions.sh - INSERT into many partitions (figures only, nothing asserted).
#
#   RUN_AFTER="bash $PWD/bench/partitions.sh" /work/wt/regress.sh NAME writes
#   (inside a cluster with the extension installed: PG* env set; BENCH_ROWS, default 100000;
#    BENCH_PARTS, default "100 1000 10000"; BENCH_RUNS, default 3; BENCH_SET, e.g.
#    "SET tablescan.max_open_writers = 64", run before each INSERT when set; BENCH_ORDER=sorted:
#    the rows ordered by partition)
#
# For each partition count P: an append table (Parquet, bucket -1, partition key p INT) made by
# hand (test/schema-lib.sh), then `INSERT INTO t SELECT g % P, g, 'v' || g FROM generate_series(1, ROWS) g` (rows
# of one partition far apart: every partition stays open to the end).  Prints per run the
# INSERT's wall ms and the backend's CPU ms (utime + stime from /proc), then the data files
# written and whether the rows read back equal.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROWS=${BENCH_ROWS:-100000}
PARTS=${BENCH_PARTS:-"100 1000 10000"}
RUNS=${BENCH_RUNS:-3}
W=${BENCH_DIR:-/tmp/ts-partitions-bench}
source "$ROOT/test/schema-lib.sh"
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
rm -rf "$W"; mkdir -p "$W/wh/b.db"; chmod -R a+rwX "$W"
q -c "CREATE EXTENSION IF NOT EXISTS tablescan_fdw" -c "DROP SERVER IF EXISTS pbench CASCADE" -c "CREATE SERVER pbench FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh')" >/dev/null
tick=$(getconf CLK_TCK)
for P in $PARTS; do for r in $(seq "$RUNS"); do
    t=p${P}_$r
    ORDER=""; [ "${BENCH_ORDER:-}" = sorted ] && ORDER="ORDER BY g % $P, g"
    schema "$W/wh/b.db/$t" "$(fields "$(f 0 p INT)" "$(f 1 id INT)" "$(f 2 v STRING)")" '"p"' "" \
        '"bucket" : "-1", "file.format" : "parquet"'
    chmod -R a+rwX "$W/wh"
    q -c "IMPORT FOREIGN SCHEMA b LIMIT TO ($t) FROM SERVER pbench INTO public" >/dev/null
    out=$(psql -X -q -At -v ON_ERROR_STOP=1 <<SQL
${BENCH_SET:+$BENCH_SET;}
SELECT pg_backend_pid() AS pid \gset
\setenv BACKEND_PID :pid
\! awk '{ print "cpu0", \$14 + \$15 }' /proc/\$BACKEND_PID/stat
\timing on
INSERT INTO $t SELECT g % $P, g, 'v' || g FROM generate_series(1, $ROWS) g $ORDER;
\timing off
\! awk '{ print "cpu1", \$14 + \$15 }' /proc/\$BACKEND_PID/stat
SQL
)
    ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out")
    c0=$(awk '/^cpu0/ { print $2 }' <<<"$out"); c1=$(awk '/^cpu1/ { print $2 }' <<<"$out")
    files=$(find "$W/wh/b.db/$t" -name 'data-*.parquet' | wc -l)
    same=$(q -c "SELECT count(*) = $ROWS AND count(DISTINCT p) = $P AND sum(id) = $ROWS::bigint * ($ROWS + 1) / 2 FROM $t")
    echo "partitions $P run $r wall_ms $ms cpu_ms $(( (c1 - c0) * 1000 / tick )) files $files rows_equal $same"
    rm -rf "$W/wh/b.db/$t"; q -c "DROP FOREIGN TABLE $t" >/dev/null
done; done
q -c "DROP SERVER pbench CASCADE" >/dev/null
