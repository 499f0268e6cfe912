#!/bin/bash
# layers-check.sh - the include graph of src/ runs one way, as docs/ARCHITECTURE.md says:
#
#   src/fdw -> src/write, src/read -> src/scan -> src/meta -> src/format -> src/expr -> src/base
#
# (src/write sits beside src/read, src/tools, the server-free programs, beside src/fdw and may not include it).  A file may
# include its own layer and the layers below it, never one above; no file outside src/fdw
# includes a PostgreSQL server header.  Checks (one line each, then
#   layers: N passed, N failed, 0 skipped):
#   - per layer: no include of a higher layer (each offending line named);
#   - no PostgreSQL header below src/fdw;
#   - ARCHITECTURE.md states the same order as LAYERS below;
#   - ts_fs_local_unconfined (a local fs outside every scope, base/ts_fs.h) is called only in
#     src/tools (and defined in src/base): the server's code reads through its own scoped ts_fs;
#   - self-test: a planted upward include, a planted PostgreSQL header and an unresolved
#     include in a scratch tree are found (and a downward include is not); planted calls of
#     ts_fs_local_unconfined in src/fdw, src/scan and src/read are found (and one in src/tools
#     and a mention in a comment are not).
# Exit 1 when a check fails.
cd "$(dirname "$0")/.." || exit 1

# lowest first; fdw and tools share the top
LAYERS="base expr format meta scan read write fdw"
DOC_ORDER='src/fdw -> src/write, src/read -> src/scan -> src/meta -> src/format -> src/expr -> src/base'

PGINC=$(pg_config --includedir-server 2>/dev/null)
# PostgreSQL server headers: the entries of its include directory that are no system header's
pg_names() {
    echo postgres.h postgres_fe.h fmgr.h funcapi.h miscadmin.h c.h
    [ -n "$PGINC" ] && for e in "$PGINC"/*; do
        e=${e##*/}
        [ -e "/usr/include/$e" ] || [ -e "/usr/include/$(uname -m)-linux-gnu/$e" ] || echo "$e"
    done
}

# awk statements splitting a line of grep -rn under ROOT/src (awk variable root = "ROOT/src/")
# into rel (the path below src/), line, text and from (its layer: the first directory)
SPLIT_GREP_LINE='file = $0; sub(/:.*/, "", file)
            rest = substr($0, length(file) + 2)
            line = rest; sub(/:.*/, "", line)
            text = substr(rest, length(line) + 2)
            rel = substr(file, length(root) + 1)
            from = rel; sub(/\/.*/, "", from)'

# check_tree ROOT: one line per offending include under ROOT/src, "KIND FILE:LINE: message"
# with KIND "up-LAYER" (LAYER includes a higher one), "pg" or "unresolved"
check_tree() {
    local root=$1
    grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$root/src" \
        --include='*.c' --include='*.h' | sort |
    awk -v root="$root/src/" -v pg="$(pg_names | tr '\n' ' ')" -v files="$(cd "$root/src" && find . -type f -name '*.[ch]' | sed 's|^\./||' | tr '\n' ' ')" '
        BEGIN {
            split("base expr format meta scan read fdw tools", l, " ")
            for (i = 1; i <= 7; i++) rank[l[i]] = i - 1
            rank["tools"] = 6
            rank["write"] = rank["read"]    # beside src/read: the same rank
            n = split(pg, a, " "); for (i = 1; i <= n; i++) ispg[a[i]] = 1
            n = split(files, a, " "); for (i = 1; i <= n; i++) isfile[a[i]] = 1
        }
        {
            '"$SPLIT_GREP_LINE"'
            if (!(from in rank)) next
            dir = rel; sub(/\/[^\/]*$/, "", dir)
            if (match(text, /"[^"]+"/)) {
                name = substr(text, RSTART + 1, RLENGTH - 2); q = "\"" name "\""
                to = name; sub(/\/.*/, "", to)
                if (to != name && (to in rank)) {
                    if (rank[to] > rank[from] || (from == "tools" && to == "fdw") || (from == "fdw" && to == "tools"))
                        print "up-" from " src/" rel ":" line ": includes " q " (" to " is above " from ")"
                } else if ((dir "/" name) in isfile || from == "fdw") {
                    # a header beside the file (same layer), or PostgreSQL for src/fdw
                } else if (to in ispg) {
                    print "pg src/" rel ":" line ": includes PostgreSQL header " q " below src/fdw"
                } else {
                    print "unresolved src/" rel ":" line ": includes " q ", which is no file of src/"
                }
            } else if (match(text, /<[^>]+>/) && from != "fdw") {
                name = substr(text, RSTART + 1, RLENGTH - 2)
                to = name; sub(/\/.*/, "", to)
                if (to in ispg)
                    print "pg src/" rel ":" line ": includes PostgreSQL header <" name "> below src/fdw"
            }
        }'
}

# check_unconfined ROOT: one line per call of ts_fs_local_unconfined under ROOT/src outside
# src/tools and src/base, "unconfined FILE:LINE: ..." (comment lines, starting with * or /*, pass)
check_unconfined() {
    local root=$1
    grep -rnE 'ts_fs_local_unconfined[[:space:]]*\(' "$root/src" --include='*.c' --include='*.h' |
        sort | awk -v root="$root/src/" '
        {
            '"$SPLIT_GREP_LINE"'
            if (from == "tools" || from == "base" || text ~ /^[[:space:]]*(\*|\/\*|\/\/)/) next
            print "unconfined src/" rel ":" line ": calls ts_fs_local_unconfined (tools and tests only)"
        }'
}

pass=0; fail=0
report() {   # ok? description [details]
    if [ "$1" = 0 ]; then
        pass=$((pass + 1)); echo "ok   $2"
    else
        fail=$((fail + 1)); echo "FAIL $2"; [ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^[a-z-]* /     /'
    fi
}

found=$(check_tree .)
for l in $LAYERS tools; do
    bad=$(printf '%s\n' "$found" | grep "^up-$l ")
    [ -z "$bad" ]; report $? "src/$l includes no higher layer" "$bad"
done
bad=$(printf '%s\n' "$found" | grep -E '^(pg|unresolved) ')
[ -z "$bad" ]; report $? "no PostgreSQL header below src/fdw, every include of a layer resolves" "$bad"

bad=$(check_unconfined .)
[ -z "$bad" ]; report $? "ts_fs_local_unconfined is called in src/tools only" "$bad"

grep -qF -- "One direction of dependency: \`$DOC_ORDER\`" docs/ARCHITECTURE.md
report $? "docs/ARCHITECTURE.md states the order $DOC_ORDER"

# self-test on a scratch tree: three planted faults found, the downward include passes
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch"/src/{base,format,meta,scan}
printf '#include "scan/scan.h"\n' > "$scratch/src/format/up.c"
printf '#include "utils/elog.h"\n#include <postgres.h>\n' > "$scratch/src/meta/pg.c"
printf '#include "nowhere.h"\n' > "$scratch/src/base/lost.c"
printf '#include "base/ts_base.h"\n#include "meta/schema.h"\n#include <stdio.h>\n' > "$scratch/src/scan/down.c"
got=$(check_tree "$scratch" | cut -d' ' -f1-2 | tr '\n' ' ')
want="up-format src/format/up.c:1: pg src/meta/pg.c:1: pg src/meta/pg.c:2: unresolved src/base/lost.c:1: "
got_sorted=$(printf '%s\n' $got | paste -d' ' - - | sort | tr '\n' ' ')
want_sorted=$(printf '%s\n' $want | paste -d' ' - - | sort | tr '\n' ' ')
[ "$got_sorted" = "$want_sorted" ]
report $? "self-test: a planted upward include, PostgreSQL headers and an unresolved include are found" \
    "want: $want_sorted
got:  $got_sorted"

mkdir -p "$scratch"/src/{fdw,read,tools}
printf 'ts_fs *fs = ts_fs_local_unconfined();\n' > "$scratch/src/fdw/open.c"
printf '/* not ts_fs_local_unconfined() */\nx = ts_fs_local_unconfined ();\n' > "$scratch/src/scan/plan.c"
printf ' * the tool'"'"'s ts_fs_local_unconfined()\n\tr = f(ts_fs_local_unconfined(), p);\n' > "$scratch/src/read/r.h"
printf 'fs = ts_fs_local_unconfined();\n' > "$scratch/src/tools/tool.c"
got=$(check_unconfined "$scratch" | cut -d' ' -f1-2 | sort | tr '\n' ' ')
want="unconfined src/fdw/open.c:1: unconfined src/read/r.h:2: unconfined src/scan/plan.c:2: "
[ "$got" = "$want" ]
report $? "self-test: planted calls of ts_fs_local_unconfined in src/fdw, src/scan and src/read are found" \
    "want: $want
got:  $got"

echo "layers: $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
