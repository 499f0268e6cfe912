#!/bin/bash
# bench/writes.sh - write speed (issue 38 item 6), figures only.
#
#   bash bench/writes.sh        (BENCH_ROWS, default 5,000,000; BENCH_RUNS, default 3;
#                                BENCH_MEM_ROWS, default "1000000 10000000";
#                                BENCH_COMMITS, default 10000)
#
# The same rows (id INT, big BIGINT, d DOUBLE, amount DECIMAL(18,4), s STRING
# with a NULL in seven, day DATE, ts TIMESTAMP(6): formulas of g) are
#   - loaded into a PostgreSQL heap table and written into a Paimon append
#     table (Parquet, zstd, bucket -1) by `INSERT INTO lake SELECT * FROM heap`
#     (best of BENCH_RUNS, each run a new table made by ts_gen);
#   - made into a DuckDB table (npm @duckdb/node-api, threads = 1) and written
#     by `COPY m TO 'f.parquet' (FORMAT parquet, COMPRESSION zstd)`.
# Then the backend's peak RSS (VmHWM) after INSERTs of BENCH_MEM_ROWS rows (JIT on, then off),
# each in a new connection, and the cost per commit of BENCH_COMMITS
# single-row INSERT transactions into one table (per thousand: the first and
# the last thousand, since every commit reads the previous snapshot's
# manifest lists).  Runs in a throwaway cluster (pg_virtualenv) with the
# extension installed from this tree under the install lock
# (/tmp/ts-install.lock).  Nothing is asserted.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
ROWS=${BENCH_ROWS:-5000000}
RUNS=${BENCH_RUNS:-3}
MEM_ROWS=${BENCH_MEM_ROWS:-"1000000 10000000"}
COMMITS=${BENCH_COMMITS:-10000}
W=${BENCH_DIR:-/tmp/ts-writes-bench}
log() { printf '[writes %s] %s\n' "$(date +%T)" "$*" >&2; }

log "building"
make -s -j2 >/dev/null
make -s -j2 tools >/dev/null
[ -d bench/node_modules/@duckdb/node-api ] || (cd bench && npm install --no-audit --no-fund --silent >/dev/null)
rm -rf "$W"; mkdir -p "$W/duck"

log "DuckDB: COPY of $ROWS rows to Parquet (zstd, 1 thread), best of $RUNS"
duck=$(cd bench && flock /tmp/ts-install.lock node --input-type=module -e "
import { DuckDBInstance } from '@duckdb/node-api';
import { statSync } from 'node:fs';
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await db.connect();
await c.run(\`CREATE TABLE m AS SELECT g::INTEGER AS id, g * 1000000007 AS big, g * 1.25::DOUBLE AS d,
  CAST(g * 1.0001 AS DECIMAL(18,4)) AS amount, CASE WHEN g % 7 = 0 THEN NULL ELSE 's' || g END AS s,
  DATE '2020-01-01' + CAST(g % 1000 AS INTEGER) AS day,
  TIMESTAMP '2020-01-01 00:00:00.123456' + to_seconds(g) AS ts FROM range(1, $ROWS + 1) t(g)\`);
let best = Infinity;
for (let i = 0; i < $RUNS; i++) {
  const t0 = process.hrtime.bigint();
  await c.run(\"COPY m TO '$W/duck/f.parquet' (FORMAT parquet, COMPRESSION zstd)\");
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
}
console.log(best.toFixed(1) + ' ' + statSync('$W/duck/f.parquet').size);
")
read duck_ms duck_bytes <<<"$duck"

# the PostgreSQL side, in a throwaway cluster
cat > "$W/pg.sh" <<'PG'
set -euo pipefail
W=$1 ROWS=$2 RUNS=$3 MEM_ROWS=$4 COMMITS=$5 GEN=$6
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
COLS="--format parquet --column 'id:INT NOT NULL' --column big:BIGINT --column d:DOUBLE --column 'amount:DECIMAL(18, 4)' --column s:STRING --column day:DATE --column 'ts:TIMESTAMP(6)'"
VALUES="g, g * 1000000007::bigint, g * 1.25::float8, (g * 1.0001)::numeric(18,4),
        CASE WHEN g % 7 = 0 THEN NULL ELSE 's' || g END, DATE '2020-01-01' + g % 1000,
        TIMESTAMP '2020-01-01 00:00:00.123456' + g * interval '1 second'"
table() {	# table NAME: an empty-ish append table (one row of ts_gen's) and its foreign table
    eval "$GEN '$W/wh/b.db/$1' $COLS --rows 1" >/dev/null
    chown -R postgres "$W/wh" 2>/dev/null || true
    q -c "IMPORT FOREIGN SCHEMA b LIMIT TO ($1) FROM SERVER lake INTO public" >/dev/null
}
mkdir -p "$W/wh/b.db"; chmod -R a+rwX "$W"
q -c "CREATE EXTENSION tablescan_fdw" -c "CREATE SERVER lake FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W/wh')" >/dev/null
q -c "CREATE TABLE heap AS SELECT * FROM (SELECT $VALUES FROM generate_series(1, $ROWS) g) m(id, big, d, amount, s, day, ts)" -c "VACUUM ANALYZE heap" >/dev/null
best=""
for r in $(seq "$RUNS"); do
    table "t$r"
    ms=$( { echo '\timing on'; echo "INSERT INTO t$r SELECT * FROM heap;"; } | psql -X -q -At -v ON_ERROR_STOP=1 |
          sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
    if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$ms; fi
done
bytes=$(find "$W/wh/b.db/t1" -name '*.parquet' -printf '%s\n' | awk '{ s += $1 } END { print s }')
same=$(q -c "SELECT (SELECT count(*) FROM t1) = $ROWS + 1 AND (SELECT sum(id) FROM t1 WHERE id > 0) = (SELECT sum(id) FROM heap)")
echo "insert $best $bytes $same"
# backend peak RSS after an INSERT of N rows, each in a new connection
# (JIT as configured, then off: past jit_above_cost the plan loads LLVM, a step with the row estimate)
for jit in on off; do for n in $MEM_ROWS; do
    table "m$n$jit"
    mem=$(psql -X -q -At -v ON_ERROR_STOP=1 <<SQL | awk '/^(VmHWM|RssAnon|RssShmem):/ { printf "%s ", $2 }'
$( [ "$jit" = off ] && echo "SET jit = off;" )
SELECT pg_backend_pid() AS pid \gset
\setenv BACKEND_PID :pid
INSERT INTO m$n$jit SELECT $VALUES FROM generate_series(1, $n) g;
\! grep -E '^(VmHWM|RssAnon|RssShmem):' /proc/\$BACKEND_PID/status
SQL
)
    echo "memory $n $jit $mem"
done; done
# single-row INSERT transactions: ms per commit, per thousand
table c
for k in $( [ "$COMMITS" -gt 0 ] && seq 0 $(( (COMMITS - 1) / 1000 )) ); do
    n=$(( COMMITS - k * 1000 )); [ "$n" -gt 1000 ] && n=1000
    ms=$( { echo '\timing on'; echo "SELECT now();"
            for i in $(seq 1 "$n"); do g=$((k * 1000 + i + 10)); echo "INSERT INTO c SELECT $VALUES FROM (VALUES ($g)) v(g);"; done; } |
          psql -X -q -At -v ON_ERROR_STOP=1 | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n "$n" |
          awk '{ s += $1 } END { printf "%.2f", s / NR }')
    echo "commits $((k * 1000 + 1)) $((k * 1000 + n)) $ms"
done
echo "snapshots $(ls "$W/wh/b.db/c/snapshot" | grep -c '^snapshot-')"
PG
log "PostgreSQL: INSERT of $ROWS rows (best of $RUNS), memory, $COMMITS single-row commits (waits for /tmp/ts-install.lock)"
out=$(flock /tmp/ts-install.lock bash -c "make -s install >/dev/null && pg_virtualenv -t -v 15 bash '$W/pg.sh' '$W' '$ROWS' '$RUNS' '$MEM_ROWS' '$COMMITS' '$ROOT/build/tools/ts_gen'")
read _ ins_ms ins_bytes ins_same <<<"$(grep '^insert ' <<<"$out")"
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
cat <<OUT
## Writes (bench/writes.sh)

\`BENCH_ROWS=$ROWS bash bench/writes.sh\` on $(nproc) cores ($(date -u +%F)): $ROWS rows of 7 columns
(INT, BIGINT, DOUBLE, DECIMAL(18,4), STRING with NULLs, DATE, TIMESTAMP(6)), best of $RUNS.

| write | ms | bytes written | ratio to DuckDB |
|---|---|---|---|
| DuckDB \`COPY m TO 'f.parquet' (COMPRESSION zstd)\`, 1 thread, from an in-memory table | $duck_ms | $duck_bytes | 1.00x |
| \`INSERT INTO lake SELECT * FROM heap\` (Parquet zstd append table, bucket -1; rows read back: $ins_same) | $ins_ms | $ins_bytes | $(r "$ins_ms" "$duck_ms") |

Backend memory after one INSERT, a new connection each (/proc: peak RSS, and now the private
anonymous memory and the shared memory it has touched, which VmHWM counts too):
$(grep '^memory ' <<<"$out" | awk '{ printf "- %s rows, JIT %s: VmHWM %.1f MB, RssAnon %.1f MB, RssShmem %.1f MB\n", $2, $3, $4 / 1024, $5 / 1024, $6 / 1024 }')

Single-row INSERT transactions (autocommit), mean ms per commit:
$(grep '^commits ' <<<"$out" | awk '{ printf "- commits %s-%s: %s ms\n", $2, $3, $4 }')
- snapshots made: $(grep '^snapshots ' <<<"$out" | cut -d' ' -f2)
OUT
