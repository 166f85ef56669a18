#!/usr/bin/env bash
# make book's generator (tools/book.py) on a fixture small enough to work out by
# hand: tests/fixtures/book/ (its README says what is in it). In a scratch copy
# holding only the fixture's data, book.py must write book.md and README.md
# exactly as book.expected.md and README.expected.md, which were written by
# hand from the rows' numbers; a deliberately wrong expectation (one speedup
# changed) must not match. And its refusals: without the chapter registry it
# says so and exits 2, leaving book.md alone; without python3, make book says
# so in one line and fails.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (make book's generator is tools/book.py: without python3, skipped, saying so)
fixture=$1/tests/fixtures/book
book_copy "$1"
mkdir -p data/results/GPU-F_CPU-F || exit 1
cp "$fixture/GPU-F_CPU-F.csv" data/results/ && cp "$fixture"/ch0[45]-stages.tsv data/results/GPU-F_CPU-F/ &&
    cp "$fixture/note.txt" data/ && cp "$fixture/book.md" "$fixture/README.md" . || exit 1

python3 tools/book.py > "$scratch/book.log" 2>&1 || { cat "$scratch/book.log"; fail "book.py failed on the fixture (its output above)"; }
for doc in book README; do
    diff -u "$fixture/$doc.expected.md" "$doc.md" > "$scratch/$doc.diff" ||
        { cat "$scratch/$doc.diff"; fail "$doc.md is not $doc.expected.md of the fixture (diff above)"; }
done
# The comparison can fail: an expectation with one number wrong does not match.
sed 's/^| loop | 64x64x4spp | GPU | 8.00 ms | 250.00x |/| loop | 64x64x4spp | GPU | 8.00 ms | 250.01x |/' \
    "$fixture/book.expected.md" > "$scratch/wrong.md" || exit 1
cmp -s "$fixture/book.expected.md" "$scratch/wrong.md" && fail "the wrong expectation is not wrong (the sed matched nothing)"
cmp -s "$scratch/wrong.md" book.md && fail "book.md matched a deliberately wrong expectation"

# Refused: no chapter registry (a Makefile without print-registry): exit 2, book.md as it was.
cp book.md "$scratch/book.good" && mv Makefile "$scratch/Makefile" || exit 1
python3 tools/book.py > "$scratch/noreg.log" 2>&1
rc=$?
mv "$scratch/Makefile" Makefile || exit 1
[ $rc -eq 2 ] || { cat "$scratch/noreg.log"; fail "without the registry book.py exited $rc, not 2 (output above)"; }
grep -qxF "book: cannot read the chapter registry" "$scratch/noreg.log" || { cat "$scratch/noreg.log"; fail "no line saying the registry is unreadable (output above)"; }
cmp -s book.md "$scratch/book.good" || fail "book.md changed although book.py refused"

# Without python3: make book says so in one line and fails (its prerequisites,
# the chapters and ppm2png, taken as made: -o). The PATH: a link to the first of
# each name on PATH, but python*.
bin=$scratch/bin
mkdir -p "$bin" || exit 1
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    (cd "$d" && find . -maxdepth 1 ! -type d -perm -u+x | sed 's|^\./||' | grep -v '^python' | sort) > "$scratch/names"
    (cd "$bin" && ls | sort) | comm -23 "$scratch/names" - | sed "s|^|$d/|" | xargs -r -d '\n' ln -s -t "$bin" || exit 1
done
PATH=$bin command -v python3 > /dev/null && fail "the stand-in PATH still has python3"
chapters=$(make -s print-registry | sed -n "s/^CHAPTERS='\(.*\)'$/\1/p")
[ -n "$chapters" ] || fail "no CHAPTERS in make -s print-registry"
# shellcheck disable=SC2086 # one -o a chapter: the words of $chapters
PATH=$bin make -s -o build/ppm2png -o build-clang/ppm2png $(printf -- '-o %s ' $chapters) book > "$scratch/nopy.log" 2>&1 &&
    { cat "$scratch/nopy.log"; fail "make book succeeded without python3"; }
grep -q '^make book: python3 is not installed' "$scratch/nopy.log" || { cat "$scratch/nopy.log"; fail "make book did not say python3 is missing (output above)"; }
cmp -s book.md "$scratch/book.good" || fail "book.md changed although make book failed"
echo "book.py wrote the fixture's book.md and README.md as worked out by hand; refused without a registry (exit 2) and without python3"
