#!/usr/bin/env bash
# make book is a function of the committed data: on a machine without gnuplot,
# clang or an MPI (ch11 then unregistered) it writes the same book.md, README.md and evidence pages as the committed
# ones (which make book wrote where both were installed), and leaves the charts
# alone. In a scratch copy, with a PATH that has every program of this one but
# gnuplot and clang, and the chapter programs as a build without clang would
# list their stages (ch09 and ch02 without their *-clang stages), book.py must
# not change a byte of either file: no speedup of a *-clang row against
# another work's first row, no link to a committed chart dropped.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (make book's generator is tools/book.py: without python3, skipped, saying so)
book_copy "$1"
cp -R "$1/book.md" "$1/README.md" "$1/data" . || exit 1
[ ! -d "$1/evidence" ] || cp -R "$1/evidence" . || exit 1

# The stand-in PATH: a link to the first of each name on PATH, but gnuplot, clang and mpicc.
bin=$scratch/bin
mkdir -p "$bin" || exit 1
IFS=: read -ra dirs <<< "$PATH"
for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    # (one ln a folder: the names not hidden and not taken by an earlier folder)
    (cd "$d" && find . -maxdepth 1 ! -type d -perm -u+x | sed 's|^\./||' | grep -v -e '^gnuplot' -e '^clang' -e '^mpicc' | sort) > "$scratch/names"
    (cd "$bin" && ls | sort) | comm -23 "$scratch/names" - | sed "s|^|$d/|" | xargs -r -d '\n' ln -s -t "$bin" || exit 1
done
PATH=$bin command -v gnuplot clang clang-22 clang++-22 mpicc > /dev/null && fail "the stand-in PATH still has gnuplot, clang or mpicc"

# Chapter programs as built here without clang: --list-stages is the committed
# list less the *-clang rows (what ch02's and ch09's builds without clang list).
for list in data/results/*/ch[0-9][0-9]-stages.tsv; do
    ch=$(basename "$list" -stages.tsv)
    [ -e "$ch" ] && continue
    grep -v -- $'^[^\t]*-clang\t' "$list" > "$scratch/$ch.list"
    printf '#!/usr/bin/env bash\n[ "$1" = --list-stages ] && exec cat %q\nexit 2\n' "$scratch/$ch.list" > "$ch"
    chmod +x "$ch"
done
[ -x ch09 ] || fail "no committed stage list of ch09 (data/results/*/ch09-stages.tsv)"

ls -l data/plots > "$scratch/plots.before"
PATH=$bin python3 tools/book.py > "$scratch/book.log" 2>&1 || { cat "$scratch/book.log"; fail "book.py failed (its output above)"; }
tail -n 3 "$scratch/book.log"
grep -q 'gnuplot is not installed' "$scratch/book.log" || fail "book.py found a gnuplot on the stand-in PATH"
for doc in book.md README.md evidence/*.md; do
    [ -f "$doc" ] || continue
    diff -u "$1/$doc" "$doc" > "$scratch/${doc//\//_}.diff" ||
        { head -n 40 "$scratch/${doc//\//_}.diff"; fail "$doc changed without gnuplot and clang (diff above, first 40 lines)"; }
done
ls -l data/plots | diff "$scratch/plots.before" - || fail "data/plots changed although gnuplot is missing"
echo "without gnuplot and clang, book.py wrote book.md, README.md and the evidence pages byte for byte as committed"
