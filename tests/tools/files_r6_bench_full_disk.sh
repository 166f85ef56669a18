#!/usr/bin/env bash
# make bench onto a full disk keeps every old file and the chapter's old rows
# (nothing lost, round 6, item 1). The bench builds a chapter's files in a
# scratch folder in $TMPDIR; with mine/ another file system (a small tmpfs
# mounted there), mv -f copied each into the old file in place, and a full
# disk left a cut picture (mode 0600) where the old one was while the bench
# said it wrote the chapter. A stand-in ch04 (a raytracer: a row, a log, a
# stage image: 12 KiB, then 96 KiB) runs in a scratch copy: once from clean; then with
# mine/ on a tmpfs of 256 KiB that has less room than the new image: the bench
# fails (exit 1) and says the copy failed; the old image, logs and CSV are
# byte for byte and mode for mode as they were (the run's own records,
# load.txt and bench-run.txt, say what this run was), the chapter's old row kept,
# no temporary file left, and it does not say it wrote the chapter. With
# room again, the next bench takes the chapter in: the new image (the mode
# the program gave it), log and row. Needs root and a tmpfs mount (a
# container may not allow it): skipped otherwise.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_tmpfs "to mount a small tmpfs as a full disk"
export MAKEFLAGS= # not the flags of a make this runs under
registry_copy "$1"
trap 'umount "$repo/mine" 2> /dev/null; rm -rf "$scratch"' EXIT
# ch04: its row's workload is $ROW, its image 128 x $H pixels of the byte $FILL
stand_in_ch04 <<SCRIPT
echo "ch04,loop,\$ROW,1,1,1,ms,ok,d,x" >> "\$csv"
{ printf 'P6\n128 %d\n255\n' "\$H"; head -c \$((128 * H * 3)) /dev/zero | tr '\0' "\$FILL"; } > "\$images/ch04-loop.ppm"
chmod 0644 "\$images/ch04-loop.ppm"
echo "a table of \$ROW"
SCRIPT
logs=mine/results/$MACHINE images=mine/images/$MACHINE csv=mine/results/$MACHINE.csv
bench() { CHAPTERS=ch04 bash tools/bench.sh > bench.log 2>&1; }
# mine/ less the run's own records (load.txt, bench-run.txt: what this run was, failed or not)
snapshot() {
    (cd mine && find . \( -path ./.filler -o -name load.txt -o -name bench-run.txt \) -prune -o \
        -type d -printf '%p %m\n' -o -type f -printf '%p %m %s\n' -exec sha256sum {} + -o -printf '%p %y\n' | LC_ALL=C sort)
}

ROW=old FILL=o H=32 bench || fail "a bench from clean failed: $(tail -n 5 bench.log)"
grep -q '^ch04,loop,old,' "$csv" || fail "the first bench wrote no row: $(cat "$csv")"
cp -a mine "$scratch/mine" && rm -rf mine && mkdir mine || exit 1
mount -t tmpfs -o size=256k tmpfs mine || fail "cannot mount a tmpfs on mine/"
cp -a "$scratch/mine/." mine/ || fail "cannot copy mine/ to the tmpfs"
before=$(snapshot)
# leave less room than the new image needs (96 KiB) with the old one's (12 KiB) freed
free=$(df -k --output=avail mine | tail -n 1)
[ "$free" -gt 80 ] || fail "the tmpfs has only $free KiB free before the filler"
head -c $(((free - 40) * 1024)) /dev/zero > mine/.filler || fail "cannot fill the tmpfs"

ROW=new FILL=n H=256 bench
rc=$?
[ $rc -eq 1 ] || fail "a bench onto a full disk exited $rc, not 1: $(tail -n 5 bench.log)"
[ "$(snapshot)" = "$before" ] || fail "a bench onto a full disk changed mine/:
$(diff <(echo "$before") <(snapshot))"
grep -q '^ch04,loop,old,' "$csv" && ! grep -q ',new,' "$csv" || fail "the chapter's old row was not kept: $(cat "$csv")"
grep -q 'bench: .*ch04-loop.ppm: the copy .*failed' bench.log || fail "the bench did not say the copy failed: $(tail -n 5 bench.log)"
! grep -q '^bench: wrote .*new rows of: ch04' bench.log && grep -q '^bench: no chapter taken in' bench.log ||
    fail "the bench said it wrote ch04: $(tail -n 3 bench.log)"
rm -f mine/.filler

ROW=new FILL=n H=256 bench || fail "a bench with room again failed: $(tail -n 5 bench.log)"
grep -q '^ch04,loop,new,' "$csv" && ! grep -q ',old,' "$csv" || fail "the new row was not taken in: $(cat "$csv")"
[ "$(stat -c %a "$images/ch04-loop.ppm")" = 644 ] && [ "$(tail -c 1 "$images/ch04-loop.ppm")" = n ] &&
    [ "$(stat -c %s "$images/ch04-loop.ppm")" -eq $((15 + 128 * 256 * 3)) ] || fail "the new image is not the program's: $(ls -l "$images")"
grep -q 'a table of new' "$logs/ch04.txt" || fail "the new log was not taken in"
[ -z "$(find mine -name '.*.bench-*')" ] || fail "temporary files left: $(find mine -name '.*bench-*')"
umount mine || exit 1
echo "bench onto a full disk kept every old file and row and said the copy failed; with room, took the chapter in"
