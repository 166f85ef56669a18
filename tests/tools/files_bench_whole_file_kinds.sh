#!/usr/bin/env bash
# make bench judges a file of mine/ it would replace by the whole file, never
# by its first line alone (nothing lost, round 5, item B). A stand-in ch04 (a
# raytracer: a row, a log on stdout and on stderr, a stage image) runs in a
# scratch copy. Twice from clean, the second run replacing the first's files
# (its own kind: a log's stamp carries the hash of the text under it), and
# over a whole PNG of the stage's name. Then, one at a time, each file the
# bench wrote keeps its first line and gets your notes after it (or in it):
# the log and the error log (notes added, the text edited), a log stamped by
# an older bench (no hash), the results CSV (notes, a row of three fields), the
# stage list, load.txt, bench-run.txt, image_diffs.txt, the stage image (a P6
# header and its pixels, then notes) and a PNG followed by notes: each is
# refused before anything runs (exit 2, the chapter never started), kept as
# it was, and named with why.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
registry_copy "$1"
stand_in_ch04 <<SCRIPT
touch "$scratch/ran"
echo "ch04,loop,w,1,1,1,ms,ok,d,x" >> "\$csv"
printf 'P6\n2 1\n255\nabcdef' > "\$images/ch04-loop.ppm"
printf 'a table\nof two lines\n'
echo "a warning" >&2
SCRIPT
logs=mine/results/$MACHINE images=mine/images/$MACHINE csv=mine/results/$MACHINE.csv
bench() { rm -f "$scratch/ran"; CHAPTERS=ch04 bash tools/bench.sh > bench.log 2>&1; }
# a whole PNG of one pixel: the signature, IHDR, IDAT, IEND
png() { printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0\x90wS\xde\0\0\0\x0cIDAT\x08\xd7c\xf8\xcf\xc0\0\0\x03\x01\x01\0\x18\xdd\x8d\xb0\0\0\0\0IEND\xaeB`\x82'; }

bench || fail "a bench from clean failed: $(tail -n 5 bench.log)"
mkdir -p "$images" && png > "$images/ch04-loop.png" || exit 1
printf 'diff-a|ch04-loop|ch04-loop|PSNR inf dB\n' > "$logs/image_diffs.txt" || exit 1
bench || fail "a second bench, over the first's files, a whole PNG and an image_diffs.txt of its form, failed: $(tail -n 5 bench.log)"
for f in "$logs/ch04.err" "$logs/ch04-stages.tsv" "$logs/load.txt" "$logs/bench-run.txt" "$images/ch04-loop.ppm" "$csv"; do
    [ -s "$f" ] || fail "the bench did not write $f: $(ls -R mine)"
done

# refused WHAT FILE: FILE made by the caller (kept in $scratch/kept first) is
# refused up front and left as it is; then FILE is put back as the bench wrote it.
refused() {
    local sum
    sum=$(cksum < "$2")
    bench
    local rc=$?
    [ $rc -eq 2 ] || fail "$1: bench exited $rc, not 2: $(tail -n 3 bench.log)"
    [ ! -e "$scratch/ran" ] || fail "$1: the chapter ran before the refusal"
    grep -q "^bench: $2 holds something else (.*): not replaced" bench.log || fail "$1: not said: $(tail -n 3 bench.log)"
    [ "$(cksum < "$2")" = "$sum" ] || fail "$1: $2 was changed"
    cp "$scratch/kept" "$2" || exit 1
}
# notes WHAT FILE: FILE as the bench wrote it, and your notes after it.
notes() { cp "$2" "$scratch/kept" && echo "my notes" >> "$2" && refused "$1" "$2"; }
notes "notes after the log" "$logs/ch04.txt"
notes "notes after the error log" "$logs/ch04.err"
cp "$logs/ch04.txt" "$scratch/kept" && sed -i 's/two/my/' "$logs/ch04.txt" && refused "the log's text edited" "$logs/ch04.txt"
cp "$logs/ch04.txt" "$scratch/kept" && sed -i '1s/ body [0-9a-f]*$//' "$logs/ch04.txt" &&
    refused "a log of an older bench (no hash in its stamp)" "$logs/ch04.txt"
grep -q 'an older bench' bench.log || fail "an older bench's log: not said why: $(tail -n 2 bench.log)"
notes "notes after the results" "$csv"
cp "$csv" "$scratch/kept" && echo "ch04,my,notes" >> "$csv" && refused "a row of three fields in the results" "$csv"
# a column of your own in the header (and in the rows): the bench would rewrite the file without it
cp "$csv" "$scratch/kept" && sed -i '1s/$/,my_note/; 2,$s/$/,MY NOTE/' "$csv" && refused "a column of your own in the results' header" "$csv"
notes "notes after the stage list" "$logs/ch04-stages.tsv"
notes "notes after load.txt" "$logs/load.txt"
notes "notes after bench-run.txt" "$logs/bench-run.txt"
notes "notes after image_diffs.txt" "$logs/image_diffs.txt"
notes "notes after the stage image's pixels" "$images/ch04-loop.ppm"
notes "notes after a PNG" "$images/ch04-loop.png"
bench || fail "the files put back as the bench wrote them were refused: $(tail -n 5 bench.log)"
[[ $(head -n 1 "$logs/ch04.txt") =~ ^#\ run\ .*\ body\ [0-9a-f]{16}$ ]] && [ "$(tail -n +2 "$logs/ch04.txt")" = "a table
of two lines" ] || fail "the log is not its stamp and the program's table: $(cat "$logs/ch04.txt")"
echo "bench replaced its own files, judged whole, and refused each kind given your notes past its first line"
