#!/usr/bin/env bash
# Every chart in data/plots is shown by the book or a chapter's evidence page
# (a chart nobody links is stale or a duplicate: make book links each one it
# draws), and every chart they or the README link is there. Needs nothing but
# the committed files.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
cd "$1" || exit 1
shopt -s nullglob
charts=(data/plots/*.svg)
[ ${#charts[@]} -gt 0 ] || fail "no chart in data/plots"
status=0
pages=(evidence/*.md)
for svg in "${charts[@]}"; do
    grep -qF "]($svg)" book.md || grep -qF "](../$svg)" "${pages[@]}" /dev/null ||
        { echo "$svg: neither book.md nor an evidence page shows it"; status=1; }
done
for svg in $({ grep -ohE '\]\(data/plots/[^)]*\)' book.md README.md; grep -ohE '\]\(\.\./data/plots/[^)]*\)' "${pages[@]}" /dev/null; } |
    sed 's/^](//; s/^\.\.\///; s/)$//' | sort -u); do
    [ -f "$svg" ] || { echo "$svg: linked, but not in data/plots"; status=1; }
done
[ $status -eq 0 ] || fail "charts and the book's links to them disagree (above)"
echo "all ${#charts[@]} charts in data/plots are shown by book.md or an evidence page, and every chart they link is there"
