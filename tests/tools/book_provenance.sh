#!/usr/bin/env bash
# make book writes every provenance sentence from the results rows
# (tools/provenance.sh): on the fixture tests/fixtures/book_provenance/ (one
# results file, two machines, two runs, one row without provenance, ch03's rows
# built before ch03's code last changed), in a scratch copy that is a git
# repository of two commits, book.sh must
#   - list each machine's runs, commits, times, rows and chapters, and the row
#     without provenance as "not recorded";
#   - head each chapter table with its machine, run and commit, and mark
#     ch03's rows stale (†) with a footnote naming both commits;
#   - refuse (and leave book.md alone) when one chapter's rows come from two
#     machines, naming the file, the chapter and the machines;
#   - refuse an include of an empty or a missing file, with book.md:LINE;
#   - say "unknown" where the commit is not in the history, or there is no git.
# Every expected line below is written by hand; only the commits' hashes come
# from git.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v git > /dev/null || { echo "needs git (the scratch repository's history)"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
fixture=$1/tests/fixtures/book_provenance
cd "$repo" || exit 1

# The history: C1 as copied, then C2 changes ch03's code (only).
g() { git -c user.name=test -c user.email=test@example.invalid "$@"; }
g init -q . && g add -A && g commit -qm C1 || fail "cannot make the scratch repository"
echo "/* a change to ch03's code */" >> chapters/ch03_threads/main.c
g commit -qam C2 || fail "cannot commit C2"
c1=$(git rev-parse HEAD~1 | cut -c1-7) c2=$(git rev-parse HEAD | cut -c1-7)

csv=data/results/GPU-A_CPU-A.csv
mkdir -p data/results || exit 1
sed "s/@C1@/$c1/g; s/@C2@/$c2/g" "$fixture/GPU-A_CPU-A.csv" > "$csv" || exit 1
cp "$fixture/book.md" book.md || exit 1

# expect TEXT: book.md has the line TEXT, whole.
expect() { grep -qxF -- "$1" book.md || { cat book.md; fail "book.md lacks the line (book.md above): $1"; }; }

bash tools/book.sh > "$scratch/book.log" 2>&1 || { cat "$scratch/book.log"; fail "book.sh failed on the fixture (its output above)"; }

# The provenance block: oldest first; ch03 stale.
expect '| not recorded | not recorded | not recorded | 2026-11-20T10:00Z | 1 | ch01 |'
expect "| 1111aaaa | 20261125T0100Z-aaaa | $c1 | 2026-11-25T01:00Z to 2026-11-25T01:05Z | 2 | ch03 † |"
expect "| 2222bbbb | 20261126T0200Z-bbbb | $c2-dirty | 2026-11-26T02:00Z to 2026-11-26T02:01Z | 2 | ch04 |"
expect '**`GPU-A_CPU-A`** (`data/results/GPU-A_CPU-A.csv`, 5 rows):'
[ "$(grep -c '^| .* | .* | .* | 2026-' book.md)" -eq 3 ] || fail "the provenance block has other than three lines (one a run, one the day without provenance)"
# The chapter tables: headed by machine, run and commit; ch03's rows marked, with the footnote.
expect "*Measured on CPU A, 2026-11-25; machine id 1111aaaa, run 20261125T0100Z-aaaa, commit $c1 (\`$csv\`).*"
expect "*Measured on GPU A, 2026-11-26; machine id 2222bbbb, run 20261126T0200Z-bbbb, commit $c2-dirty (\`$csv\`).*"
expect '| rand-shared † | 512x512x64spp | 4 | 1.00 s | 1.00x | 0.5 Msamples/s | ok |'
expect '| rng-local † | 512x512x64spp | 4 | 500.0 ms | 2.00x | 1 Msamples/s | ok |'
expect '| loop | 512x512x64spp | GPU | 10.0 ms | 10.00x | 26.0 Msamples/s | ok |'
expect "*† stale: measured before its chapter's code last changed: commit $c1 lacks $c2, the last change to ch03's code (\`chapters/<dir>/\` or \`common/\`).*"
# The summary: one table per machine (and one for the day without provenance).
expect "*CPU A, 2026-11-20; provenance not recorded (\`$csv\`)*"
expect "*CPU A, 2026-11-25; machine id 1111aaaa, run 20261125T0100Z-aaaa, commit $c1 (\`$csv\`)*"
expect "*GPU A, 2026-11-26; machine id 2222bbbb, run 20261126T0200Z-bbbb, commit $c2-dirty (\`$csv\`)*"
cp book.md "$scratch/book.good"

# Refused: a ch04 row of the other machine joins ch04's rows.
echo "ch04,block-shape,512x512x64spp,0,5,52,Msamples/s,ok,GPU A,2026-11-25T01:06:00Z,$c1,20261125T0100Z-aaaa,1111aaaa,-,-,-,-,-,-" >> "$csv"
bash tools/book.sh > "$scratch/mixed.log" 2>&1 && { cat "$scratch/mixed.log"; fail "book.sh put two machines' ch04 rows under one heading"; }
grep -qF "book: $csv: ch04: rows of 2 machines under one heading (machine id 2222bbbb; machine id 1111aaaa)" "$scratch/mixed.log" ||
    { cat "$scratch/mixed.log"; fail "the refusal does not name the file, the chapter and both machines (output above)"; }
cmp -s book.md "$scratch/book.good" || fail "book.md changed although book.sh refused"
sed -i '$d' "$csv" || exit 1

# Refused: an include of an empty file, and of a missing one (book.md:LINE).
: > data/empty.txt
printf '\n<!-- include:data/empty.txt -->\n<!-- end include:data/empty.txt -->\n' >> book.md
line=$(grep -n '^<!-- include:data/empty.txt -->$' book.md | cut -d: -f1)
bash tools/book.sh > "$scratch/empty.log" 2>&1 && { cat "$scratch/empty.log"; fail "book.sh included an empty file"; }
grep -qF "book: book.md:$line: <!-- include:data/empty.txt -->: the file is empty" "$scratch/empty.log" ||
    { cat "$scratch/empty.log"; fail "the empty include's error does not say where and why (output above)"; }
rm data/empty.txt
bash tools/book.sh > "$scratch/missing.log" 2>&1 && { cat "$scratch/missing.log"; fail "book.sh included a missing file"; }
grep -qF "book: book.md:$line: <!-- include:data/empty.txt -->: no such file" "$scratch/missing.log" ||
    { cat "$scratch/missing.log"; fail "the missing include's error does not say where and why (output above)"; }

# Unknown, never a failure: a commit git does not have (ch04's rows) is marked
# ‡ and said to be unknown; with no git history at all, the same.
rm -f book.md && cp "$scratch/book.good" book.md || exit 1
sed -i "s/,$c2-dirty,/,0badc0d,/" "$csv" || exit 1
bash tools/book.sh > "$scratch/unknown.log" 2>&1 || { cat "$scratch/unknown.log"; fail "book.sh failed on a commit it does not know"; }
expect '| recursive ‡ | 512x512x64spp | GPU | 100.0 ms | 1.00x | 2.6 Msamples/s | ok |'
expect "*‡ stale or not: unknown (commit 0badc0d: not in this repository's history).*"
. tools/provenance.sh
mkdir "$scratch/nogit" || exit 1
[ "$(BOOK_GIT=$scratch/nogit prov_last_change chapters/ch03_threads)" = "no git history here" ] ||
    fail "without a git history the last change is not unknown: $(BOOK_GIT=$scratch/nogit prov_last_change chapters/ch03_threads)"
echo "make book lists machines, runs and commits from the rows, marks stale rows, refuses two machines under one heading and empty includes"
