#!/usr/bin/env bash
# A value with a line break in it, given to a target that takes text (EX,
# GRADE_OUT, STUDENT, DIR, CH, ...), is refused by make at once, naming the
# variable, before any recipe: a line break would split the recipe's shell
# line into an unexplained "unexpected EOF" (round 9 of the attacks). So is
# one in any variable given on the command line, and in the build folder
# (BUILD names rules: "missing separator") and grade-class's GRADES_OUT (it
# made a folder of two lines and blamed the registry: round 11).
set -u
[ "${1:-}" != --can-run ] || exit 0
. "$(dirname "$0")/lib.bash"
cd "$1" || exit 1
for v in EX GRADE_OUT STUDENT DIR CH STAGE A DEST ONLY GRADES_OUT BUILD JUDGE_TIMEOUT NOT_A_COURSE_VARIABLE; do
    said=$(make -n --no-print-directory grade "$v=x"$'\n'"y" 2>&1) && fail "$v with a line break was taken: $said"
    grep -q "$v: a value with a line break in it is not taken" <<<"$said" || fail "$v with a line break: $said"
done
said=$(GRADES_OUT="x"$'\n'"y" make -n --no-print-directory grade-class 2>&1) && fail "GRADES_OUT with a line break, from the environment, was taken: $said"
grep -q "GRADES_OUT: a value with a line break" <<<"$said" || fail "GRADES_OUT with a line break, from the environment: $said"
echo "make refuses a line break in every text variable, naming it"
