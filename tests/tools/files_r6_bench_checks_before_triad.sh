#!/usr/bin/env bash
# make bench refuses what it may not replace before make host-record's triad
# (minutes of a 3 GiB STREAM run), not after it (nothing lost, round 6, item
# 2). host-record was a prerequisite of bench, so a log of yours in mine/
# was refused only once the triad had run. Now tools/bench.sh --check makes
# the bench's up-front checks alone (exit 2 on a refusal, 0 when all pass,
# nothing run or written), and make bench runs it first. In a scratch copy,
# with a stand-in ch04 and build/host_record (make -o: not rebuilt; it says
# when it ran): bench.sh --check with nothing in the way exits 0, runs
# nothing, writes nothing; with a note of yours in ch04's log it exits 2,
# saying so; make bench then stops the same way with the triad not run,
# and once the note is gone runs the triad and the chapter.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
export MAKEFLAGS= # not the flags of a make this runs under
registry_copy "$1"
stand_in_ch04 <<SCRIPT
touch "$scratch/chapter-ran"
echo "ch04,loop,w,1,1,1,ms,ok,d,x" >> "\$csv"
printf 'P6\n1 1\n255\nabc' > "\$images/ch04-loop.ppm"
echo "a table"
SCRIPT
mkdir -p build && printf '#!/bin/sh\ntouch "%s/triad-ran"\nprintf "%%s\\n" "cpu: AMD EPYC" "logical cpus online: 2" "isa: avx2" "triad a = b + s*c, 3 arrays of 1024 MiB, 24 B per element, best of 5:" "  1 thread:   30.2 GB/s" "  2 threads: 50.8 GB/s"\n' "$scratch" > build/host_record &&
    printf '#!/bin/sh\necho 0\n' > build/image_diff && chmod +x ch04 build/host_record build/image_diff || exit 1
ran() { [ -e "$scratch/$1-ran" ]; }
forget() { rm -f "$scratch/triad-ran" "$scratch/chapter-ran"; }
bench() { forget; make -s -o all -o build/image_diff -o build/host_record bench CHAPTERS=ch04 > "$scratch/said" 2>&1; }
snapshot() { find mine -printf '%p %m %s\n' -type f -exec cksum {} + 2> /dev/null | LC_ALL=C sort; }
log=mine/results/$MACHINE/ch04.txt

bench || fail "make bench from clean failed: $(tail -n 5 "$scratch/said")"
ran triad && ran chapter && [ -f "$log" ] || fail "make bench from clean did not run the triad and the chapter: $(tail -n 5 "$scratch/said")"
before=$(snapshot) && forget
CHAPTERS=ch04 bash tools/bench.sh --check > "$scratch/said" 2>&1 || fail "bench.sh --check refused a clean mine/: $(cat "$scratch/said")"
! ran chapter && [ "$(snapshot)" = "$before" ] || fail "bench.sh --check ran the chapter or wrote in mine/: $(cat "$scratch/said")"

echo "my note" >> "$log" && before=$(snapshot)
CHAPTERS=ch04 bash tools/bench.sh --check > "$scratch/said" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "^bench: $log holds something else" "$scratch/said" ||
    fail "bench.sh --check with your note in ch04's log: exit $rc: $(cat "$scratch/said")"
bench && fail "make bench with your note in ch04's log succeeded: $(tail -n 3 "$scratch/said")"
grep -q "^bench: $log holds something else" "$scratch/said" || fail "make bench did not say why: $(tail -n 3 "$scratch/said")"
! ran triad || fail "make bench ran host-record's triad before refusing ch04's log"
! ran chapter && [ "$(snapshot)" = "$before" ] || fail "a refused make bench ran the chapter or wrote in mine/"

head -n -1 "$log" > "$scratch/log" && cat "$scratch/log" > "$log" || exit 1
bench || fail "make bench without the note failed: $(tail -n 5 "$scratch/said")"
ran triad && ran chapter || fail "make bench without the note did not run the triad and the chapter"
echo "bench.sh --check makes the up-front checks alone; make bench refuses your log before host-record's triad"
