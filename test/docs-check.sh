#!/bin/bash
# docs-check.sh - every source file under src/ is named in docs/ARCHITECTURE.md, so that a
# newcomer finds any file (and the feature it holds) from there in one hop.
# A file src/DIR/NAME counts as named when the document holds "DIR/NAME", or a line holding
# both "`DIR/`" and "`NAME`" (the one-line-per-file-group list at its end).  Exit 1 naming
# the files it misses.
cd "$(dirname "$0")/.." || exit 1
doc=docs/ARCHITECTURE.md
missing=0
while IFS= read -r f; do
    rel=${f#src/}
    dir=${rel%/*}
    name=${rel##*/}
    grep -qF -- "$rel" "$doc" && continue
    grep -F -- "\`$dir/\`" "$doc" | grep -qF -- "\`$name\`" && continue
    echo "docs-check: src/$rel is not named in $doc"
    missing=$((missing + 1))
done < <(find src -name '*.[ch]' | sort)
[ "$missing" -eq 0 ] && echo "docs-check: every file of src/ is named in $doc"
[ "$missing" -eq 0 ]
