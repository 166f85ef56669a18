#!/usr/bin/env bash
# make bench replaces nothing of yours in mine/ (issue 65): a stand-in ch04
# (a raytracer: a row, a log, a stage image and an image of no stage) runs in
# a scratch copy. Twice from clean, the second run replacing the first's
# files: both succeed (the bench's own files are its kind). Then, one at a
# time, each refused before anything runs (exit 2, the chapter never started,
# the file as it was, saying why): its log made read-only (0444) or writable
# only by its group (0464, refused for root too), its log or its stage image
# holding your notes, the results CSV holding your notes, load.txt a symbolic
# link to a file of yours (cp wrote through it). An image the bench only
# learns of when the chapter has run (no stage's), holding your notes: the
# chapter is not taken in (exit 1), the image and the chapter's old rows as
# they were.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
registry_copy "$1"
stand_in_ch04 <<SCRIPT
touch "$scratch/ran"
echo "ch04,loop,\${ROW:-new},1,1,1,ms,ok,d,x" >> "\$csv"
printf 'P6\n1 1\n255\nabc' > "\$images/ch04-loop.ppm"
printf 'P6\n1 1\n255\nabc' > "\$images/ch04-extra.ppm"
echo "a table"
SCRIPT
logs=mine/results/$MACHINE images=mine/images/$MACHINE csv=mine/results/$MACHINE.csv
bench() { rm -f "$scratch/ran"; CHAPTERS=ch04 bash tools/bench.sh > bench.log 2>&1; }

bench || fail "a bench from clean failed: $(tail -n 5 bench.log)"
ROW=old bench || fail "a second bench, over the first's files, failed: $(tail -n 5 bench.log)"
grep -q '^ch04,loop,old,' "$csv" || fail "the second bench did not replace the rows: $(cat "$csv")"
[ -f "$logs/ch04.txt" ] && [ -f "$logs/load.txt" ] && [ -f "$images/ch04-loop.ppm" ] && [ -f "$images/ch04-extra.ppm" ] ||
    fail "the bench did not write its log, load.txt and images: $(ls -R mine)"

# refused WHAT FILE WANT: with FILE as the test made it, the bench is refused up front, saying WANT
refused() {
    local sum
    sum=$(cksum < "$2")
    bench
    local rc=$?
    [ $rc -eq 2 ] || fail "$1: bench exited $rc, not 2: $(tail -n 3 bench.log)"
    [ ! -e "$scratch/ran" ] || fail "$1: the chapter ran before the refusal"
    grep -q "^bench: $2 .*$3.*: not replaced" bench.log || fail "$1: not said: $(tail -n 3 bench.log)"
    [ "$(cksum < "$2")" = "$sum" ] || fail "$1: $2 was changed"
}
cp "$logs/ch04.txt" "$scratch/log" || exit 1
chmod 444 "$logs/ch04.txt" && refused "a read-only log" "$logs/ch04.txt" "read-only (mode 444)"
chmod 464 "$logs/ch04.txt" && refused "a log only its group may write" "$logs/ch04.txt" "read-only (mode 464)"
chmod 644 "$logs/ch04.txt" && echo "my notes" > "$logs/ch04.txt" && refused "your notes as the log" "$logs/ch04.txt" "holds something else"
cp "$scratch/log" "$logs/ch04.txt" || exit 1
cp "$images/ch04-loop.ppm" "$scratch/image" && echo "my notes" > "$images/ch04-loop.ppm" &&
    refused "your notes as a stage image" "$images/ch04-loop.ppm" "holds something else"
cp "$scratch/image" "$images/ch04-loop.ppm" && cp "$csv" "$scratch/csv" && echo "my notes" > "$csv" &&
    refused "your notes as the results CSV" "$csv" "holds something else"
cp "$scratch/csv" "$csv" && echo precious > "$scratch/yours" && rm "$logs/load.txt" && ln -s "$scratch/yours" "$logs/load.txt" &&
    refused "load.txt a link to a file of yours" "$logs/load.txt" "symbolic link"
[ -L "$logs/load.txt" ] && [ "$(cat "$scratch/yours")" = precious ] || fail "the link or the file it names was changed"
rm "$logs/load.txt" || exit 1

echo "my notes" > "$images/ch04-extra.ppm" || exit 1
ROW=newer bench
rc=$?
[ $rc -eq 1 ] || fail "an image of yours known only after the run: bench exited $rc, not 1: $(tail -n 3 bench.log)"
grep -q "^bench: $images/ch04-extra.ppm holds something else" bench.log || fail "the image not named: $(tail -n 3 bench.log)"
[ "$(cat "$images/ch04-extra.ppm")" = "my notes" ] || fail "the image of yours was replaced"
grep -q '^ch04,loop,old,' "$csv" && ! grep -q '^ch04,loop,newer,' "$csv" || fail "the chapter was taken in: $(cat "$csv")"
echo "bench replaced its own files, and refused read-only, group-only, foreign and linked files in mine/"
