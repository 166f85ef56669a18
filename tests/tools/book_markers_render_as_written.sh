#!/usr/bin/env bash
# The book's number markers render as written on GitHub and in pandoc: no
# line of book.md, README.md or evidence/*.md starts with one (an HTML block
# there ends the paragraph and shows the rest of the line's Markdown raw),
# and none in a table row holds a bare | (it would split the cell). make
# book refuses both (tools/book.py, marker_layout_problem); this shows it
# does, on a made-up page, and that the committed pages have neither.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v python3 > /dev/null || { echo "no python3: tools/book.py needs it"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
said=$(python3 - <<'PY'
import glob, sys
sys.path.insert(0, "tools")
import book
bad = []
for doc in ["book.md", "README.md"] + sorted(glob.glob("evidence/*.md")):
    fence = False
    for number, line in enumerate(open(doc, encoding="utf-8", errors="surrogateescape").read().split("\n"), 1):
        fence = fence != line.lstrip().startswith("```")
        problem = None if fence else book.marker_layout_problem(line)
        if problem:
            bad.append("%s:%d: %s" % (doc, number, problem))
made_up = ["<!-- n:{ch01/baseline/ms}|time -->1 s<!-- /n --> starts a line",
           "| a | <!-- n:{ch01/baseline/ms}|time -->1 s<!-- /n --> |"]
fine = ["text <!-- n:{ch01/baseline/ms}|time -->1 s<!-- /n -->", "| a | <!-- n:{ch01/baseline/ms}\\|time -->1 s<!-- /n --> |"]
for line in made_up:
    if not book.marker_layout_problem(line):
        bad.append("not refused: " + line)
for line in fine:
    if book.marker_layout_problem(line):
        bad.append("refused though fine: " + line)
print("\n".join(bad[:5]))
PY
) || fail "the check did not run: $said"
[ -z "$said" ] || fail "$said"
echo "no number marker starts a line or splits a table cell; make book refuses both"
