#!/usr/bin/env bash
# make check-add-stage: adding a stage is adding its row. In a scratch copy of
# the repository (its tracked and untracked-but-not-ignored files), one row is
# added to ch03's stages.h and nothing else is edited; then the program, its
# test suite, make bench (the standard run and the row's own bench runs) and
# make book must all show the new stage. ch03 runs on any machine (CPU only).
# Prints what it checked; exit 0 if all of it held, 1 otherwise.
set -u
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
fail() { echo "add-stage: FAIL: $*"; exit 1; }
step() { echo "add-stage: $*"; }

git -C "$root" ls-files -z -co --exclude-standard | (cd "$root" && xargs -0 cp --parents -t "$work") ||
    fail "could not copy the repository"
cd "$work" || fail "no scratch folder"
row='    {{"rng-local-again", "rng-local-dynamic once more: a row added by tests/add_stage.sh", .where = STAGE_CPU,
      .bench = "--width 24 --height 16 --spp 2"}, rows_on_demand, RNG_LOCAL},'
awk -v row="$row" '{print} /^    \{\{"rng-local-dynamic"/ {getline; print; print row}' \
    chapters/ch03_threads/stages.h > stages.h.new && mv stages.h.new chapters/ch03_threads/stages.h
grep -q rng-local-again chapters/ch03_threads/stages.h || fail "the row was not added"
step "one row added to chapters/ch03_threads/stages.h; no other file edited"

make -s ch03 build/tests/test_ch03 build/image_diff build/ppm2png > build.log 2>&1 || { cat build.log; fail "build"; }
./ch03 --list-stages | grep -q "^rng-local-again	cpu	-	--width 24 --height 16 --spp 2	" ||
    fail "--list-stages does not show the row"
./ch03 --help | grep -q "^  rng-local-again " || fail "--help does not list the stage"
step "--help and --list-stages show it"
./ch03 --stage rng-local-again --width 33 --height 31 --spp 2 --threads 3 --quiet > run.txt 2>&1 ||
    { cat run.txt; fail "./ch03 --stage rng-local-again"; }
grep -q "^rng-local-again .* ok " run.txt || { cat run.txt; fail "the stage did not run and check ok"; }
step "./ch03 --stage rng-local-again runs and checks ok"
CK_VERBOSITY=silent build/tests/test_ch03 > suite.txt 2>&1 || { cat suite.txt; fail "test_ch03 with the new row"; }
step "tests/test_ch03 (every row of the table) passes with it"

# COURSE_DATA=1: a maintainer's bench, into the course's data/ (what make book reads)
COURSE_DATA=1 CHAPTERS=ch03 IMAGE_DIFF=build/image_diff IMAGE_EXT=ppm tools/bench.sh > bench.log 2>&1 ||
    { tail -20 bench.log; fail "make bench CHAPTERS=ch03"; }
csv=$(ls data/results/*.csv | xargs grep -l "^ch03,rng-local-again," | head -n1)
[ -n "$csv" ] || fail "no CSV row for the stage"
# the bench's workload for ch03: 512x512 at the samples ch03_BENCH_ARGS gives (--spp 4)
grep -q "^ch03,rng-local-again,512x512x4spp," "$csv" || fail "no row at the bench's workload (512x512x4spp) in $csv"
grep -q "^ch03,rng-local-again,24x16x2spp," "$csv" || fail "no row from the stage's own bench runs in $csv"
step "make bench wrote its rows (the standard run, and the row's bench arguments) to $csv"
PPM2PNG=build/ppm2png python3 tools/book.py > book.log 2>&1 || { tail -20 book.log; fail "make book"; }
awk '/<!-- results:ch03 -->/ {on = 1} /<!-- end results:ch03 -->/ {on = 0} on' book.md | grep -q "rng-local-again" ||
    fail "book.md's ch03 table does not show the stage"
step "make book put it in book.md's ch03 table"
echo "add-stage: ok"
