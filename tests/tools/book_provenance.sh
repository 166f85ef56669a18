#!/usr/bin/env bash
# make book writes every provenance sentence from the results rows
# (tools/book.py): on the fixture tests/fixtures/book_provenance/ (one
# results file, two machines, two runs, one row without provenance, ch03's rows
# measured on other code than ch03's now: its log's stamp names another code
# fingerprint), in a scratch copy, book.py must
#   - list each machine's runs, commits, times, rows and chapters, and the row
#     without provenance as "not recorded";
#   - head each chapter's own table (a lesson's) with its device and day, a
#     link to where its rows come from, and no run, commit or code id; its
#     evidence table (results:chNN-full) with its machine, run and commit;
#     mark ch03's rows stale (†): in the lesson with a plain footnote linking
#     the evidence, in the evidence table with a footnote naming both
#     fingerprints; ch04's rows, stamped with its code's fingerprint as it
#     is, fresh until a file of ch04 changes;
#   - refuse (and leave book.md alone) when one chapter's rows come from two
#     machines, naming the file, the chapter and the machines;
#   - refuse an include of an empty or a missing file, with book.md:LINE;
#   - say "unknown" where a chapter's log records no fingerprint.
# Every expected line below is written by hand. No git: stale or not comes
# from the files (tools/code_id.sh), the same with or without a history.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (make book's generator is tools/book.py: without python3, skipped, saying so)
fixture=$1/tests/fixtures/book_provenance
book_copy "$1"

c1=1234567 c2=89abcde
csv=data/results/GPU-A_CPU-A.csv
mkdir -p data/results || exit 1
sed "s/@C1@/$c1/g; s/@C2@/$c2/g" "$fixture/GPU-A_CPU-A.csv" > "$csv" || exit 1
cp "$fixture/book.md" book.md || exit 1
# The logs' stamps (make bench writes them): ch03 measured on code that is not
# ch03's now, ch04 on ch04's code as it is here.
mkdir -p data/results/GPU-A_CPU-A || exit 1
echo "# run 20261125T0100Z-aaaa commit $c1 machine 1111aaaa code 0123456789ab date 2026-11-25T01:05:00Z" > data/results/GPU-A_CPU-A/ch03.txt
echo "# run 20261126T0200Z-bbbb commit $c2-dirty machine 2222bbbb code $(tools/code_id.sh chapters/ch04_gpu_loop) date 2026-11-26T02:01:00Z" \
    > data/results/GPU-A_CPU-A/ch04.txt

# expect TEXT: book.md has the line TEXT, whole.
expect() { grep -qxF -- "$1" book.md || { cat book.md; fail "book.md lacks the line (book.md above): $1"; }; }

python3 tools/book.py > "$scratch/book.log" 2>&1 || { cat "$scratch/book.log"; fail "book.py failed on the fixture (its output above)"; }

# The provenance block: oldest first; ch03 stale.
expect '| not recorded | not recorded | not recorded | 2026-11-20T10:00Z | 1 | ch01 |'
expect "| 1111aaaa | 20261125T0100Z-aaaa | $c1 | 2026-11-25T01:00Z to 2026-11-25T01:05Z | 2 | ch03 † |"
expect "| 2222bbbb | 20261126T0200Z-bbbb | $c2-dirty | 2026-11-26T02:00Z to 2026-11-26T02:01Z | 2 | ch04 |"
expect '**`GPU-A_CPU-A`** (`data/results/GPU-A_CPU-A.csv`, 5 rows):'
[ "$(grep -c '^| .* | .* | .* | 2026-' book.md)" -eq 3 ] || fail "the provenance block has other than three lines (one a run, one the day without provenance)"
# The chapter tables: the lesson's headed by device and day; the evidence's by machine, run and
# commit; ch03's rows marked, with the footnotes.
expect "*Measured on CPU A, 2026-11-25 (\`$csv\`; where its rows come from: [the evidence](evidence/intro.md)).*"
expect "*Measured on GPU A, 2026-11-26 (\`$csv\`; where its rows come from: [the evidence](evidence/intro.md)).*"
expect "*† measured on an earlier version of this chapter's code (its folder or \`common/\` changed since); the next bench replaces it ([which versions](evidence/ch03.md)).*"
[ "$(grep -c '^\*Measured on .*20261125T0100Z-aaaa' book.md)" -eq 1 ] && [ "$(grep -c '^\*Measured on .*run 20261126T0200Z-bbbb' book.md)" -eq 1 ] ||
    { cat book.md; fail "a run id in a lesson's table, or none in its evidence table (book.md above)"; }
expect "*Measured on CPU A, 2026-11-25; machine id 1111aaaa, run 20261125T0100Z-aaaa, commit $c1 (\`$csv\`).*"
expect "*Measured on GPU A, 2026-11-26; machine id 2222bbbb, run 20261126T0200Z-bbbb, commit $c2-dirty (\`$csv\`).*"
expect '| rand-shared † | 512x512x64spp | 4 | 1.00 s | 1.00x | 0.5 Msamples/s | ok |'
expect '| rng-local † | 512x512x64spp | 4 | 500.0 ms | 2.00x | 1 Msamples/s | ok |'
expect '| loop | 512x512x64spp | GPU | 10.0 ms | 10.00x | 26.0 Msamples/s | ok |'
grep -q "^\*† stale: measured on other code than the chapter's now (\`tools/code_id.sh\`: its folder, the folders it uses and \`common/\`): ch03 at commit $c1 was measured on code 0123456789ab, the code is now [0-9a-f]\{12\}\.\*$" book.md ||
    { cat book.md; fail "no footnote naming ch03's fingerprint then and now (book.md above)"; }
# The summary: one table per machine (and one for the day without provenance).
expect "*CPU A, 2026-11-20; provenance not recorded (\`$csv\`)*"
expect "*CPU A, 2026-11-25; machine id 1111aaaa, run 20261125T0100Z-aaaa, commit $c1 (\`$csv\`)*"
expect "*GPU A, 2026-11-26; machine id 2222bbbb, run 20261126T0200Z-bbbb, commit $c2-dirty (\`$csv\`)*"
cp book.md "$scratch/book.good"

# Refused: a ch04 row of the other machine joins ch04's rows.
echo "ch04,block-shape,512x512x64spp,0,5,52,Msamples/s,ok,GPU A,2026-11-25T01:06:00Z,$c1,20261125T0100Z-aaaa,1111aaaa,-,-,-,-,-,-" >> "$csv"
python3 tools/book.py > "$scratch/mixed.log" 2>&1 && { cat "$scratch/mixed.log"; fail "book.py put two machines' ch04 rows under one heading"; }
grep -qF "book: $csv: ch04: rows of 2 machines under one heading (machine id 2222bbbb; machine id 1111aaaa)" "$scratch/mixed.log" ||
    { cat "$scratch/mixed.log"; fail "the refusal does not name the file, the chapter and both machines (output above)"; }
cmp -s book.md "$scratch/book.good" || fail "book.md changed although book.py refused"
sed -i '$d' "$csv" || exit 1

# Refused: an include of an empty file, and of a missing one (book.md:LINE).
: > data/empty.txt
printf '\n<!-- include:data/empty.txt -->\n<!-- end include:data/empty.txt -->\n' >> book.md
line=$(grep -n '^<!-- include:data/empty.txt -->$' book.md | cut -d: -f1)
python3 tools/book.py > "$scratch/empty.log" 2>&1 && { cat "$scratch/empty.log"; fail "book.py included an empty file"; }
grep -qF "book: book.md:$line: <!-- include:data/empty.txt -->: the file is empty" "$scratch/empty.log" ||
    { cat "$scratch/empty.log"; fail "the empty include's error does not say where and why (output above)"; }
rm data/empty.txt
python3 tools/book.py > "$scratch/missing.log" 2>&1 && { cat "$scratch/missing.log"; fail "book.py included a missing file"; }
grep -qF "book: book.md:$line: <!-- include:data/empty.txt -->: no such file" "$scratch/missing.log" ||
    { cat "$scratch/missing.log"; fail "the missing include's error does not say where and why (output above)"; }

# A change to ch04's code: its rows are now stale too.
rm -f book.md && cp "$scratch/book.good" book.md || exit 1
echo "/* a change to ch04's code */" >> chapters/ch04_gpu_loop/stages.h
python3 tools/book.py > "$scratch/changed.log" 2>&1 || { cat "$scratch/changed.log"; fail "book.py failed after a code change"; }
expect '| loop † | 512x512x64spp | GPU | 10.0 ms | 10.00x | 26.0 Msamples/s | ok |'

# Unknown, never a failure: a log without a fingerprint marks its rows ‡.
rm -f book.md && cp "$scratch/book.good" book.md || exit 1
sed -i 's/ code [0-9a-f]* / /' data/results/GPU-A_CPU-A/ch04.txt || exit 1
python3 tools/book.py > "$scratch/unknown.log" 2>&1 || { cat "$scratch/unknown.log"; fail "book.py failed on a log without a fingerprint"; }
expect '| recursive ‡ | 512x512x64spp | GPU | 100.0 ms | 1.00x | 2.6 Msamples/s | ok |'
expect "*‡ stale or not: unknown (commit $c2-dirty: its log GPU-A_CPU-A/ch04.txt records no code fingerprint).*"
echo "make book lists machines, runs and commits from the rows, marks stale rows by their code, refuses two machines under one heading and empty includes"
