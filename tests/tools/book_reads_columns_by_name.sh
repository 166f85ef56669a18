#!/usr/bin/env bash
# make book's generator (tools/book.py) reads the results CSV by column name,
# through the file's own header: the book fixture's results file with its
# columns in reverse order and a column "note" added first gives the same
# book.md and README.md, byte for byte, as the file as committed. And a file
# whose header lacks one of the ten columns the book needs is refused by name.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (make book's generator is tools/book.py: without python3, skipped, saying so)
fixture=$1/tests/fixtures/book
book_copy "$1"
csv=data/results/GPU-F_CPU-F.csv
mkdir -p data/results/GPU-F_CPU-F || exit 1
cp "$fixture"/ch0[45]-stages.tsv data/results/GPU-F_CPU-F/ && cp "$fixture/note.txt" data/ || exit 1

book_from() { # book_from CSV OUT: book.md and README.md made from CSV, kept as OUT.book.md, OUT.README.md
    cp "$1" "$csv" && cp "$fixture/book.md" "$fixture/README.md" . || exit 1
    python3 tools/book.py > "$scratch/$2.log" 2>&1 || { cat "$scratch/$2.log"; fail "book.py failed on $2 (output above)"; }
    cp book.md "$scratch/$2.book.md" && cp README.md "$scratch/$2.README.md" || exit 1
}
book_from "$fixture/GPU-F_CPU-F.csv" as-is
awk -F, -v OFS=, 'NR == 1 { n = NF } { s = NR == 1 ? "note" : "a note"; for (i = n; i >= 1; i--) s = s OFS $i; print s }' \
    "$fixture/GPU-F_CPU-F.csv" > "$scratch/moved.csv" || exit 1
[ "$(head -n 1 "$scratch/moved.csv" | cut -d, -f1-3)" = note,hi_ms,lo_ms ] || fail "the moved file is not moved: $(head -n 1 "$scratch/moved.csv")"
book_from "$scratch/moved.csv" moved
for doc in book README; do
    diff -u "$scratch/as-is.$doc.md" "$scratch/moved.$doc.md" > "$scratch/$doc.diff" ||
        { head -n 20 "$scratch/$doc.diff"; fail "$doc.md differs with the columns moved (diff above)"; }
done
grep -q '| plain ‡ | 64x64x4spp | GPU | 4.00 ms | 3.80-4.40 ms (5 runs) | 1.00x |' "$scratch/moved.book.md" ||
    fail "the moved file's ch05 table lost its values (the comparison compared nothing?)"

# A header without one of the ten: refused, naming the file, line 1 and the columns.
sed '1s/,median_ms,/,median,/' "$fixture/GPU-F_CPU-F.csv" > "$csv" && cp "$fixture/book.md" . || exit 1
python3 tools/book.py > "$scratch/lacks.log" 2>&1 && { cat "$scratch/lacks.log"; fail "book.py took a header without median_ms"; }
grep -qF "$csv:1: not a results file's header: the header must name the columns" "$scratch/lacks.log" ||
    { cat "$scratch/lacks.log"; fail "the refusal does not name the file, its line and the columns (output above)"; }
echo "make book reads the results by column name: columns moved, the same book; a header without median_ms refused by name"
