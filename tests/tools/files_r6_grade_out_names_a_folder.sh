#!/usr/bin/env bash
# make grade GRADE_OUT= a folder's name is refused before any grading
# (nothing lost, round 6, item 3). GRADE_OUT=nodir/ (the trailing slash tab
# completion adds, a folder that does not exist) passed the checks (its
# folder taken to be .), every exercise was graded, and only the rename at
# the end failed. Now it, nodir/., a file's name with a slash after it, .,
# .. and a folder that is there, with or without its slash, are refused up
# front (exit 2, said, no judge built, nothing made). In a scratch copy.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
tar -C "$1" -cf - exercises | tar -C "$repo" -xf - || fail "cannot copy the exercises"
cd "$repo" || exit 1
export CLANG_CUDA= MAKEFLAGS= # no clang probe: the registry is all this needs
mkdir there && echo student,commit,machine,gpu,date,exercise,verdict,messages,answer > g.csv || exit 1
snapshot() { find . -path ./build -prune -o -printf '%p %m %s\n' | LC_ALL=C sort; }
for out in nodir/ nodir// nodir/. g.csv/ . .. there there/ there/.. ./; do
    before=$(snapshot)
    GRADE_OUT=$out STUDENT=s1 BUILD=build bash tools/grade.sh ch01 ch01 ch02 > "$scratch/said" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "GRADE_OUT=$out: exit $rc, not 2: $(tail -n 3 "$scratch/said")"
    grep -q "^grade: GRADE_OUT=$out " "$scratch/said" || fail "GRADE_OUT=$out: not said why: $(tail -n 3 "$scratch/said")"
    ! grep -q '^PASS\|^FAIL\|passed,' "$scratch/said" || fail "GRADE_OUT=$out: graded before refusing: $(tail -n 3 "$scratch/said")"
    [ ! -e build/tests ] || fail "GRADE_OUT=$out: the judges were built before refusing"
    [ "$(snapshot)" = "$before" ] || fail "GRADE_OUT=$out: made or changed: $(diff <(echo "$before") <(snapshot))"
done
grep -q "names a folder" "$scratch/said" || fail "a folder's name not said as such: $(cat "$scratch/said")"
echo "GRADE_OUT naming a folder (nodir/, x/., ., .., a folder) refused before any grading"
