#!/usr/bin/env bash
# make grade-class says where the logs are before it grades anyone, and a
# line per student as each is done (round 8, item 3: no progress during a
# grading; the logs showed only under a hidden work folder when every student
# was done). Its first line, before anything is built, is "grading N students,
# J at a time; each one's log appears in FOLDER/ID.log when done (in progress:
# FOLDER/.ID.XXXXXX)": while a student is graded, its log in progress is a
# file of that pattern; when it is done, FOLDER/ID.log is there while the
# next is graded, and a line names the student and that log. The gradings are
# stand-ins (a tools/grade.sh that notes what it finds, a judge_prepare that
# builds nothing and says so).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "grade-class collects with tools/collect_grades.py"
tool_copy "$1"
passing_grading 'echo "grade-class: (the stand-in judge_prepare)";' <<'SH'
# a grading at once; notes the logs folder as it finds it (its stdout is the
# log in progress)
logs=$(dirname "$(dirname "$GRADE_OUT")")/logs
ls -A "$logs" > "$NOTES/$STUDENT"
SH
export NOTES=$scratch/notes
mkdir -p "$NOTES" || exit 1
sub=$scratch/submissions
for s in ann bob; do mkdir -p "$sub/$s/ch01" || exit 1; done
GRADES_OUT=$scratch/out JOBS=1 BUILD=build bash tools/grade_class.sh "$sub" '' ch01 > "$scratch/said" 2>&1 ||
    fail "grade-class failed: $(cat "$scratch/said")"
first=$(head -n 1 "$scratch/said")
re="^grade-class: grading 2 students, 1 at a time; each one's log appears in (.*)/ID\.log when done \(in progress: (.*)/\.ID\.XXXXXX\)"
[[ $first =~ $re ]] || fail "the first line does not say where each log appears: $(cat "$scratch/said")"
done_at=${BASH_REMATCH[1]} progress_at=${BASH_REMATCH[2]}
[ "$(grep -n 'stand-in judge_prepare' "$scratch/said" | cut -d: -f1)" -gt 1 ] || fail "the line comes after what the gradings share is built: $(cat "$scratch/said")"
grep -qx '\.ann\.[A-Za-z0-9]\{6\}' "$NOTES/ann" || fail "while ann was graded, $progress_at held no .ann.XXXXXX (it held: $(cat "$NOTES/ann"))"
grep -qx 'ann\.log' "$NOTES/bob" || fail "while bob was graded, $done_at held no ann.log (it held: $(cat "$NOTES/bob"))"
grep -qF "grade-class: ann: 1 passed, 0 failed (log: $done_at/ann.log)" "$scratch/said" || fail "no line says ann is done, and where its log is: $(cat "$scratch/said")"
[ "$(grep -n '^grade-class: ann: ' "$scratch/said" | cut -d: -f1)" -lt "$(grep -n '^grade-class: bob: ' "$scratch/said" | cut -d: -f1)" ] ||
    fail "the students' lines are not in the order they were done: $(cat "$scratch/said")"
[ -f "$scratch/out/logs/ann.log" ] && [ -f "$scratch/out/logs/bob.log" ] || fail "the logs are not in place at the end: $(ls -A "$scratch/out")"
echo "grade-class: the first line says where each log appears and where it is in progress; a line per student names its log as each is done"
