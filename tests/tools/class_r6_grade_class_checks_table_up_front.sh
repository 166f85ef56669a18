#!/usr/bin/env bash
# make grade-class asks collect-grades, before it grades anyone, whether the
# table may go where it is to be made (nothing lost, round 6: a grades.md with
# the teacher's notes was found only by the collection after the whole
# class's grading, which was then in place and its table not). A table of
# the teacher's (notes after grades.md, a mark changed in gradebook.csv)
# stops it up front: exit 2, named, "nothing graded", every file as it was;
# a job array's task, which collects nothing, goes on. The gradings are
# stand-ins (a tools/grade.sh of the scratch copy that writes a result at
# once, and a judge_prepare that builds nothing).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
tool_copy "$1"
passing_grading <<'SH'
# a grading at once (noted in MARKS): a passed ch01 for STUDENT in GRADE_OUT
echo "graded $STUDENT" >> "$MARKS"
SH
sub=$scratch/submissions G=$scratch/out
for s in ann bob; do mkdir -p "$sub/$s/ch01" || exit 1; done
gc() { : > "$scratch/marks"; MARKS=$scratch/marks GRADES_OUT=$G JOBS=2 BUILD=build bash tools/grade_class.sh "$sub" '' ch01 "$@" > "$scratch/said" 2>&1; }
state() { (cd "$G" && find . -printf '%p %m %y\n' | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort); }
gc || fail "the first grading failed: $(cat "$scratch/said")"
[ -f "$G/grades.md" ] || fail "no table: $(cat "$scratch/said")"
for edit in 'echo "Notes: ann has an extension" >> "$G/grades.md"' \
    'sed -i "s/^\"bob\",\"1\",/\"bob\",\"0.5\",/" "$G/gradebook.csv"'; do
    cp -a "$G" "$scratch/kept" && eval "$edit" || exit 1
    before=$(state)
    gc
    rc=$?
    [ $rc = 2 ] || fail "$edit: exit $rc, not 2: $(cat "$scratch/said")"
    grep -q 'is not a file collect-grades wrote' "$scratch/said" && grep -q 'nothing graded' "$scratch/said" ||
        fail "$edit: not said up front: $(cat "$scratch/said")"
    [ ! -s "$scratch/marks" ] || fail "$edit: students were graded before the refusal: $(cat "$scratch/marks")"
    [ "$(state)" = "$before" ] || fail "$edit: files changed in $G"
    rm -rf "$G" && mv "$scratch/kept" "$G" || exit 1
done
echo "my notes" >> "$G/grades.md" || exit 1
SHARD=0/2 gc || fail "a job array's task refused for a table it does not make: $(cat "$scratch/said")"
echo "grade-class: a table of the teacher's in GRADES_OUT stops it before anyone is graded; a job array's task goes on"
