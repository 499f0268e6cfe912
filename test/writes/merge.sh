#!/bin/bash
# merge.sh - the base manifest list of each commit is merged as Java's
# ManifestFileMerger says (src/write/manifest_merge.c).
#
# Table t (hand-written schema, partitioned by p, bucket -1) with
# manifest.target-file-size 4 kb and manifest.merge-min-count 5: 45 one-row
# INSERTs.  Before each INSERT the manifests of the latest snapshot (base then
# delta list, with their sizes as tablescan_manifests reads them from the
# manifest lists) go through the rule (awk below: runs whose sizes reach the
# target are merged, a run of one is kept, the trailing run is merged once it
# holds merge-min-count manifests); the new base list must be exactly that:
# the kept manifests by name, one new manifest per merged run.  Also checked:
# tablescan_files() after each INSERT = the files before plus the new one (a
# merge changes no live file); the rows equal a heap table given the same
# INSERTs.  Then a Java-written table of ../shared/testdata
# (append_complex_data, whose last snapshot is a COMPACT with DELETE entries)
# copied to a temp dir and appended to 40 times with the default options: the
# same rule holds at every commit, the merge that folds the DELETE entries
# leaves none in the base list, and the table reads its original rows plus
# the 40 new ones.  Runs inside pg_virtualenv with the extension installed;
# prints
#   writes-merge: N passed, N failed, 0 skipped
source "$(dirname "$0")/../reliability/lib.sh"
source "$(dirname "$0")/../schema-lib.sh"
summary() { echo "writes-merge: $PASSED passed, $FAILED failed, 0 skipped"; [ "$FAILED" -eq 0 ]; }
ensure_db || { fail "database setup"; summary; exit 1; }
SHARED=${TS_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
W=$(scratch writes_merge)
T=$W/w.db/t
schema "$T" "$(fields "$(f 0 id 'INT NOT NULL')" "$(f 1 p STRING)")" '"p"' "" \
    '"bucket" : "-1", "manifest.target-file-size" : "4 kb", "manifest.merge-min-count" : "5"'
mkdir -p "$W/j"
cp -r "$SHARED/testdata/parquet/append_complex_data.db/append_complex_data" "$W/j/"
J=$W/j/append_complex_data
chmod -R a+rwX "$W"
q -c "DROP SERVER IF EXISTS msrv CASCADE" -c "DROP TABLE IF EXISTS th" \
  -c "CREATE SERVER msrv FOREIGN DATA WRAPPER tablescan_fdw OPTIONS (warehouse '$W')" \
  -c "CREATE FOREIGN TABLE t (id int NOT NULL, p text) SERVER msrv OPTIONS (database 'w', table 't', updatable 'true')" \
  -c "CREATE FOREIGN TABLE j (f1 int, f2 int, f3 date, f4 timestamp, f5 numeric(23,5), f6 bytea) SERVER msrv OPTIONS (path '$J', updatable 'true')" \
  -c "CREATE TABLE th (id int NOT NULL, p text)" >/dev/null 2>&1

# the latest snapshot's manifests, base then delta: name size
manifests() { q -c "SELECT file_name || ' ' || file_size FROM tablescan_manifests('$1') WITH ORDINALITY m
                    ORDER BY list_kind <> 'base', ordinality"; }
base_list() { q -c "SELECT file_name FROM tablescan_manifests('$1') WITH ORDINALITY m
                    WHERE list_kind = 'base' ORDER BY ordinality"; }
live_files() { q -c "SELECT file_name FROM tablescan_files('$1') ORDER BY 1"; }
# the rule on "name size" lines: kept names, NEW per merged run
predict() {	# target min-count
    awk -v target="$1" -v min="$2" '
        function flush_run() { if (n == 1) print c[1]; else if (n > 1) print "NEW"; n = 0; total = 0 }
        { total += $2; c[++n] = $1; if (total >= target) flush_run() }
        END { if (n >= min && n > 1) print "NEW"; else for (i = 1; i <= n; i++) print c[i] }'
}
# the actual base list with names absent before shown as NEW (one per new file)
actual() {	# before-lines after-names
    awk 'NR == FNR { seen[$1] = 1; next } { print (($1 in seen) ? $1 : "NEW") }' <(echo "$1") <(echo "$2")
}

# commits: table, target, min-count, count, insert statement template (K = the commit)
run_commits() {
    local tab=$1 target=$2 min=$3 count=$4 stmt=$5 k before after want got files_b files_a
    BAD_RULE=0; BAD_FILES=0; MERGES=0
    for k in $(seq 1 "$count"); do
        before=$(manifests "$tab")
        files_b=$(live_files "$tab")
        q -c "${stmt//K/$k}" >/dev/null || { BAD_RULE=$((BAD_RULE + 1)); echo "INSERT $k failed"; continue; }
        after=$(base_list "$tab")
        want=$(echo -n "$before" | grep . | predict "$target" "$min")
        got=$(actual "$before" "$after")
        if [ "$want" != "$got" ]; then
            BAD_RULE=$((BAD_RULE + 1))
            [ $BAD_RULE -le 2 ] && echo "commit $k: want [$(echo $want)] got [$(echo $got)]"
        fi
        echo "$got" | grep -q NEW && MERGES=$((MERGES + 1))
        files_a=$(live_files "$tab")
        # the files before are all still live, plus exactly one
        if [ -n "$(comm -23 <(echo "$files_b" | grep .) <(echo "$files_a"))" ] ||
           [ "$(echo "$files_a" | grep -c .)" -ne $(( $(echo "$files_b" | grep -c .) + 1 )) ]; then
            BAD_FILES=$((BAD_FILES + 1))
        fi
    done
}

run_commits t 4096 5 45 "INSERT INTO t VALUES (K, 'p' || K % 3); INSERT INTO th VALUES (K, 'p' || K % 3)"
[ $BAD_RULE -eq 0 ] && ok "45 commits: every base list is what the merge rule predicts" ||
    fail "$BAD_RULE base lists differ from the rule"
[ $MERGES -ge 5 ] && ok "$MERGES of the commits merged manifests" || fail "only $MERGES commits merged"
longest=$(q -c "SELECT count(*) FROM tablescan_manifests('t') WHERE list_kind = 'base'")
[ "$longest" -lt 5 ] && ok "the base list stays short ($longest manifests after 45 commits)" ||
    fail "base list of $longest manifests"
[ $BAD_FILES -eq 0 ] && ok "tablescan_files: the files before each commit plus its own" ||
    fail "$BAD_FILES commits changed the live files"
got=$(q -c "SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM (SELECT * FROM t EXCEPT ALL SELECT * FROM th) x),
                   (SELECT count(*) FROM (SELECT * FROM th EXCEPT ALL SELECT * FROM t) y)")
[ "$got" = "45|0|0" ] && ok "rows equal the heap table's" || fail "rows vs heap: $got"
snaps=$(find "$T/snapshot" -name 'snapshot-*' | wc -l)
[ "$snaps" -eq 45 ] && ok "45 snapshots" || fail "$snaps snapshots"

# the Java-written table, appended to 40 times with the default options
orig=$(q -c "SELECT f1, f2, f3, f4, f5, f6 FROM j ORDER BY 1, 2, 3, 4, 5, 6")
dels=$(q -c "SELECT sum(num_deleted_files) FROM tablescan_manifests('j')")
[ -n "$orig" ] && [ "${dels:-0}" -gt 0 ] && ok "the Java table reads, its manifests hold $dels DELETE entries" ||
    fail "Java table: rows [$orig] deletes [$dels]"
run_commits j $((8 * 1024 * 1024)) 30 40 \
    "INSERT INTO j VALUES (10 + 10 * (K % 2), K, date '2024-01-01' + K, timestamp '2024-01-01 00:00:00' + K * interval '1 s', K * 1.5, ('\\x' || lpad(to_hex(K), 2, '0'))::bytea)"
[ $BAD_RULE -eq 0 ] && ok "Java table, 40 commits: every base list is what the rule predicts" ||
    fail "Java table: $BAD_RULE base lists differ from the rule"
[ $MERGES -ge 1 ] && ok "Java table: $MERGES merges" || fail "Java table: no merge"
[ $BAD_FILES -eq 0 ] && ok "Java table: tablescan_files the files before plus each commit's" ||
    fail "Java table: $BAD_FILES commits changed the live files"
dels=$(q -c "SELECT coalesce(sum(num_deleted_files), 0) FROM tablescan_manifests('j') WHERE list_kind = 'base'")
[ "$dels" = 0 ] && ok "the merge cancelled the DELETE entries against their ADDs" || fail "$dels DELETE entries left"
now=$(q -c "SELECT f1, f2, f3, f4, f5, f6 FROM j WHERE f6 IS NULL OR length(f6) <> 1 ORDER BY 1, 2, 3, 4, 5, 6")
[ "$now" = "$orig" ] && ok "Java table: its original rows unchanged" || fail "Java table rows changed"
got=$(q -c "SELECT count(*), count(DISTINCT f2), sum(f2), sum(f5) FROM j WHERE length(f6) = 1")
[ "$got" = "40|40|820|1230.00000" ] && ok "Java table: the 40 new rows" || fail "new rows: $got"

q -c "DROP SERVER IF EXISTS msrv CASCADE" -c "DROP TABLE IF EXISTS th" >/dev/null 2>&1
rm -rf "$W"
summary
