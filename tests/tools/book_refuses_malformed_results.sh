#!/usr/bin/env bash
# make book (tools/book.py) on a results file with one bad line, in a scratch
# copy holding the book fixture (tests/fixtures/book): a row whose chapter is
# no registered chapter (a path to a script outside the course, with no stage
# list beside it: book.py ran it as ./<chapter> --list-stages), a line of NUL
# bytes, a row cut short, a merge-conflict marker. Each is refused (exit 1)
# naming the file and line, with no Python traceback; the script never runs;
# book.md is left as it was. And time linear in the input: a file of 20000
# rows, each of its own run, is answered in seconds (a quadratic sort took
# minutes).
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (make book's generator is tools/book.py: without python3, skipped, saying so)
fixture=$1/tests/fixtures/book
book_copy "$1"
csv=data/results/GPU-F_CPU-F.csv
mkdir -p data/results/GPU-F_CPU-F && cp "$fixture"/ch0[45]-stages.tsv data/results/GPU-F_CPU-F/ &&
    cp "$fixture/note.txt" data/ && cp "$fixture/book.md" "$fixture/README.md" . || exit 1
cp book.md "$scratch/book.good" || exit 1
printf '#!/bin/sh\ntouch "%s/ran"\n' "$scratch" > "$scratch/evil.sh" && chmod +x "$scratch/evil.sh" || exit 1
rows=$(wc -l < "$fixture/GPU-F_CPU-F.csv")
bad=$((rows + 1))
refused() { # WHY WANT: the fixture plus one line (on stdin), refused at file:line saying WANT
    cp "$fixture/GPU-F_CPU-F.csv" "$csv" && cat >> "$csv" || exit 1
    timeout 120 python3 tools/book.py > "$scratch/out" 2>&1
    local rc=$?
    [ $rc -eq 1 ] || fail "$1: book.py exited $rc, not 1: $(tail -n 3 "$scratch/out")"
    grep -q Traceback "$scratch/out" && fail "$1: a Python traceback: $(tail -n 3 "$scratch/out")"
    grep -q "$csv:$bad: .*$2" "$scratch/out" || fail "$1: not named as $csv:$bad ($2): $(tail -n 3 "$scratch/out")"
    [ ! -e "$scratch/ran" ] || fail "$1: book.py ran the script the row named"
    cmp -s book.md "$scratch/book.good" || fail "$1: book.md changed although book.py refused"
}
# (input by redirection, not a pipe: a function in a pipeline is a subshell, and its fail would not end the test)
refused "a chapter that is a path to a script" "not a chapter" \
    <<< "../evil.sh,cpu-one,64x64x4spp,1,2000,0.008192,Msamples/s,ok,CPU F,2026-11-01T09:00:00Z"
refused "a line of NUL bytes" "NUL" < <(head -c 64 /dev/zero; echo)
refused "a row cut short" "fields" <<< "ch04,loop"
refused "a merge-conflict marker" "merge-conflict" <<< "<<<<<<< HEAD"
# a field that would be gnuplot code in a chart's script (system "..." runs a shell)
refused "a value that is gnuplot code" "a field with a quote" \
    <<< "ch04,loop,64x64x4spp,0,8,1; system \"touch $scratch/ran\" #,Msamples/s,n/a,GPU F,2026-11-01T09:00:00Z"
refused "a stage name that is gnuplot code" "a quote" \
    <<< "ch04,x\" . system(\"touch $scratch/ran\") . \",64x64x4spp,0,8,2.048,Msamples/s,ok,GPU F,2026-11-01T09:00:00Z"

# A header the programs never write, said for what it is: a byte-order mark, CR LF line ends.
header_refused() { # WHY WANT: the fixture rewritten by sed SCRIPT ($3), refused at file:1 saying WANT
    sed "$3" "$fixture/GPU-F_CPU-F.csv" > "$csv" || exit 1
    python3 tools/book.py > "$scratch/out" 2>&1 && fail "$1: book.py did not refuse it"
    grep -q "$csv:1: .*$2" "$scratch/out" || fail "$1: not named as $csv:1 ($2): $(tail -n 3 "$scratch/out")"
    cmp -s book.md "$scratch/book.good" || fail "$1: book.md changed although book.py refused"
}
header_refused "a byte-order mark" "byte-order mark" '1s/^/\xef\xbb\xbf/'
# (a header of ten columns: with more, its CR sits past "date," and the file reads as it is)
header_refused "CR LF line ends" "CR LF" '1s/^\(\([^,]*,\)\{9\}[^,]*\).*$/\1\r/'

# 20000 rows, each of its own machine and run: refused (several machines under
# one heading), but soon.
cp "$fixture/GPU-F_CPU-F.csv" "$csv" || exit 1
awk 'BEGIN { for (i = 0; i < 20000; i++)
    printf "ch04,loop,64x64x4spp,0,8,2.048,Msamples/s,ok,GPU F,2026-11-01T09:02:00Z,c%d,r%d,m%d,-,-,-,-,-,-\n", i, i, i }' >> "$csv"
start=$(date +%s)
timeout 60 python3 tools/book.py > "$scratch/out" 2>&1
rc=$?
[ $rc -ne 124 ] || fail "book.py on 20000 rows took more than 60 s (time quadratic in the rows?)"
grep -q Traceback "$scratch/out" && fail "20000 rows: a Python traceback: $(tail -n 3 "$scratch/out")"
echo "book.py named each malformed line by file and line, ran nothing a row named, and read 20000 rows in $(($(date +%s) - start)) s"
