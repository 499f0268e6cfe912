#!/bin/bash
# concurrent.sh - a writer commits snapshots and expires old ones while
# queries run.
#
# The generator writes the same table with 1..K snapshots into staging
# directories (its output is deterministic, each one a prefix of the next),
# so the files of commit s are those of stage s not in stage s-1.  The
# writer publishes commit s into the live table as Paimon does (data files
# and manifests first, then snapshot-s by an atomic rename, then the LATEST
# hint) and expires snapshot s-RETAIN (its snapshot file and manifest lists, then
# the EARLIEST hint).  Meanwhile READERS psql sessions run queries until the writer is done,
# every other one with parallel plans forced (a Parallel Foreign Scan: the leader and its
# workers plan on their own, the workers pinned to the leader's snapshot).
# Every query must return exactly the rows of one snapshot: snapshot s holds
# ids 0 .. s*ROWS-1, so count = s*ROWS and sum(id) = count*(count-1)/2; or one
# of the errors README.md documents for a snapshot expired underneath it, with
# its SQLSTATE (the sessions run with VERBOSITY verbose): 58P01
# (undefined_file) naming the snapshot or manifest file, or 40001
# (serialization_failure) when a parallel worker finds its leader's snapshot
# gone.  Any other error fails.  Every session must survive to the end (no crash).
source "$(dirname "$0")/lib.sh"
ensure_db || { fail "database setup"; summary; exit 1; }
W=$(scratch concurrent)
K=${CONC_SNAPSHOTS:-12}
ROWS=${CONC_ROWS:-500}
READERS=${CONC_READERS:-4}
RETAIN=${CONC_RETAIN:-1}     # snapshots kept by the expiry (Paimon minimum: 1)
ARGS=(--column 'id:INT NOT NULL' --column name:STRING --column dt:STRING --partition dt
      --partitions 2 --buckets 2 --bucket-key id --rows "$ROWS" --files 2)
stage_commits "$W" "$K" "${ARGS[@]}" || { fail "ts_gen"; summary; exit 1; }
q -c "DROP FOREIGN TABLE IF EXISTS conc" \
  -c "CREATE FOREIGN TABLE conc (id int, name text, dt text) SERVER rel OPTIONS (path '$W/live')" >/dev/null 2>&1

writer() {
    local s f
    for s in $(seq 2 "$K"); do
        sleep 0.2
        publish_commit "$W" "$s"
        if [ "$s" -gt "$RETAIN" ]; then   # expire snapshot s-RETAIN: its snapshot file and manifest lists
            local e=$((s - RETAIN))
            rm -f "$W/live/snapshot/snapshot-$e"
            grep 'manifest-list-' "$W/stage/new$e" | while read -r f; do rm -f "$W/live/$f"; done
            printf '%s' "$((e + 1))" > "$W/live/snapshot/.EARLIEST.tmp"
            mv "$W/live/snapshot/.EARLIEST.tmp" "$W/live/snapshot/EARLIEST"
        fi
    done
}

# readers: one psql session each, fed queries until the writer is done;
# reader 2, 4, ... with parallel plans forced (it says so first: 'P true')
PARALLEL="SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET cpu_tuple_cost = 1; SET max_parallel_workers_per_gather = 2;"
reader() {
    echo '\set VERBOSITY verbose'
    if [ $(($1 % 2)) -eq 0 ]; then
        echo "$PARALLEL"
        echo "CREATE TEMP TABLE plan_lines (l text);"
        echo "DO \$\$ DECLARE l text; BEGIN FOR l IN EXECUTE 'EXPLAIN SELECT count(*), sum(id::bigint) FROM conc' LOOP INSERT INTO plan_lines VALUES (l); END LOOP; END \$\$;"
        echo "SELECT 'P ' || bool_or(l LIKE '%Parallel Foreign Scan%') FROM plan_lines;"
    fi
    while [ ! -f "$W/writer_done" ]; do
        echo "SELECT 'R ' || count(*) || ' ' || coalesce(sum(id::bigint), 0) FROM conc;"
        sleep 0.02
    done
    echo "SELECT 'alive';"
}
pids=()
for r in $(seq 1 "$READERS"); do
    reader "$r" | q >"$W/reader$r.out" 2>&1 &
    pids+=($!)
done
writer
touch "$W/writer_done"
for p in "${pids[@]}"; do wait "$p"; done

good=0; errors=0; bad=0; seen=""; parallel=0
dead=$(sessions_lost "$W" "$READERS")
for r in $(seq 1 "$READERS"); do
    grep -qx 'P true' "$W/reader$r.out" && parallel=$((parallel + 1))
    while read -r tag c sum; do
        if [ "$tag" = R ]; then
            if [ $((c % ROWS)) -eq 0 ] && [ "$c" -ge "$ROWS" ] && [ "$c" -le $((K * ROWS)) ] &&
               [ "$sum" -eq $((c * (c - 1) / 2)) ]; then
                good=$((good + 1)); seen+=" $((c / ROWS))"
            else
                bad=$((bad + 1)); echo "reader $r: rows of no snapshot: count $c sum $sum"
            fi
        fi
    done < "$W/reader$r.out"
    while read -r line; do
        errors=$((errors + 1))
        if ! printf '%s\n' "$line" |
             grep -qE '^ERROR: +(58P01|40001): .*(snapshot-[0-9]+|snapshot [0-9]+ of table|manifest-list-|manifest-)'; then
            bad=$((bad + 1)); echo "reader $r: not a documented error (58P01 / 40001 naming the expired file): $line"
        fi
    done < <(grep '^ERROR:' "$W/reader$r.out")
done
final=$(q -c "SELECT count(*) || ' ' || sum(id::bigint) FROM conc" 2>&1)
distinct=$(printf '%s\n' $seen | sort -nu | wc -l)
echo "concurrent: $((good + errors)) queries, $good consistent results ($distinct distinct snapshots seen), $errors errors (expired files), $bad bad, $dead sessions lost"
[ "$parallel" -eq $((READERS / 2)) ] && ok "$parallel of the readers ran Parallel Foreign Scans" ||
    fail "$parallel readers had parallel plans, not $((READERS / 2))"
[ "$dead" -eq 0 ] && ok "all $READERS reader sessions survived $K commits with expiry" || fail "$dead reader sessions lost"
[ "$bad" -eq 0 ] && [ "$good" -gt 0 ] && ok "every query returned one snapshot's rows or a clear error" ||
    fail "$bad queries with rows of no snapshot or an unclear error"
[ "$final" = "$((K * ROWS)) $((K * ROWS * (K * ROWS - 1) / 2))" ] && ok "after the writer: the rows of snapshot $K" ||
    fail "after the writer: $final"
q -c "DROP FOREIGN TABLE IF EXISTS conc" >/dev/null 2>&1
[ "$FAILED" -eq 0 ] && rm -rf "$W"
summary
