#!/usr/bin/env bash
# make grade-class names in grades.md the students it left out (round 8, item
# 5: a submission left out, an empty folder or a bad id, got no row, and the
# teacher had to compare the table with the class list). gradebook.csv keeps
# its format (student, score, max, an exercise's points: a note column would
# be a grade column to a learning-management system's import), so grades.md
# ends with "Left out": "- ID: not graded: REASON" for each folder with a
# valid id that was left out (no exercise folder, an empty folder) or whose
# make grade wrote no result; a folder whose name is not an id is named on
# the console only, and counted there. The gradings are stand-ins (a
# tools/grade.sh that writes a result at once, but for eve, whose grading
# fails; a judge_prepare that builds nothing).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "grade-class collects with tools/collect_grades.py"
tool_copy "$1"
passing_grading <<'SH'
[ "$STUDENT" != eve ] || { echo "the grader broke"; exit 2; }
SH
sub=$scratch/submissions
mkdir -p "$sub/ann/ch01" "$sub/bob" "$sub/bad id/ch01" "$sub/dan" "$sub/eve/ch01" || exit 1
echo notes > "$sub/bob/readme.txt"
GRADES_OUT=$scratch/out JOBS=2 BUILD=build bash tools/grade_class.sh "$sub" '' ch01 > "$scratch/said" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "grade-class exited $rc, not 1 (some folders left out): $(cat "$scratch/said")"
md=$scratch/out/grades.md
[ -f "$md" ] || fail "no grades.md: $(cat "$scratch/said")"
grep -qx 'Left out (no row above: compare with the class list):' "$md" || fail "grades.md has no \"Left out\": $(cat "$md")"
grep -qx -- '- bob: not graded: no exercise folder at its top or in its exercises/ (it holds: readme.txt)' "$md" || fail "bob (no exercise folder) is not under Left out with why: $(cat "$md")"
grep -qx -- '- dan: not graded: no exercise folder at its top or in its exercises/ (it holds: nothing)' "$md" || fail "dan (an empty folder) is not under Left out with why: $(cat "$md")"
grep -qE -- '^- eve: not graded: make grade wrote no result \(see .*/logs/eve\.log\)$' "$md" || fail "eve (her grading failed) is not under Left out: $(cat "$md")"
grep -qx -- '- 1 folder whose name is not a student id: not graded, named on make grade-class.s console' "$md" || fail "the bad id's folder is not counted under Left out: $(cat "$md")"
grep -q 'bad id' "$md" && fail "grades.md names a folder whose name is not an id: $(cat "$md")"
grep -qF 'bad\ id: not a student id' "$scratch/said" || fail "the console does not name the bad id: $(cat "$scratch/said")"
grep -q '^- ann' "$md" && fail "ann, graded, is under Left out: $(cat "$md")"
[ "$(cat "$scratch/out/gradebook.csv")" = $'"student","score","max","ch01"\n"ann","1","1","1"' ] ||
    fail "gradebook.csv is not in its format, ann's row only: $(cat "$scratch/out/gradebook.csv")"
# the table it printed is the one it wrote, and the next grading replaces it (its hash recorded)
(cd "$scratch/out" && sha256sum -c --quiet grades.sha256) || fail "grades.sha256 does not record grades.md as written"
GRADES_OUT=$scratch/out JOBS=2 BUILD=build bash tools/grade_class.sh "$sub" '' ch01 > "$scratch/said" 2>&1
[ $? = 1 ] || fail "grading again: $(cat "$scratch/said")"
echo "grade-class: the students left out are in grades.md under \"Left out\" with why; a bad id counted only; gradebook.csv as it was"
