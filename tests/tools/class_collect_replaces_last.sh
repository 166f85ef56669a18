#!/usr/bin/env bash
# make collect-grades twice never mixes the two collections (issue 66, the
# instructor's dry run: a student of the first stayed in gradescope/, and a
# chart the second did not draw stayed beside its tables): the second
# replaces the first's tables, chart and gradescope/ as a whole and says so
# in one line; no work folder is left. A file in gradescope/ that is not a
# collection's (a teacher's notes, a link for a student) stops it before
# anything is written, and stays; so does a foreign file made between the
# check and the swap (the swap checks again). One student's file is
# "1 student's file", not "1 students' files".
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
tool_copy "$1"
row() { grade_file "$3/$1.csv" "$1" ch01 "$2"; } # row STUDENT VERDICT FOLDER: FOLDER/STUDENT.csv, ch01 VERDICT
mkdir first second || exit 1
row ann passed first && row bob failed first && row cy passed first && row bob passed second && row cy failed second || exit 1
collect() { make --no-print-directory collect-grades DIR="$1" > said 2>&1; }
work_left() { find mine/grades -mindepth 1 -maxdepth 1 -name '.*'; }

collect first || fail "the first collection failed: $(cat said)"
[ "$(ls mine/grades/gradescope)" = "$(printf 'ann\nbob\ncy')" ] || fail "first: gradescope/ holds $(ls mine/grades/gradescope)"
grep -q 'replaced as a whole' said && fail "a first collection said it replaced one: $(cat said)"
[ -z "$(work_left)" ] || fail "the first collection left $(work_left)"
printf '<?xml version="1.0"?>\n<svg>an earlier chart</svg>\n' > mine/grades/grades.svg || exit 1 # (where gnuplot drew none)

# Without gnuplot (an empty PATH, python3 named by its path), so no chart is drawn.
py=$(python3 -c 'import sys; print(sys.executable)') && mkdir empty-path || exit 1
PATH=$PWD/empty-path "$py" tools/collect_grades.py second > said 2>&1 || fail "the second collection failed: $(cat said)"
[ "$(ls mine/grades/gradescope)" = "$(printf 'bob\ncy')" ] || fail "the first collection's ann stayed: gradescope/ holds $(ls mine/grades/gradescope)"
grep -q '| ann |' mine/grades/grades.md && fail "ann is in the second table"
[ ! -e mine/grades/grades.svg ] || fail "the first collection's chart stayed beside the second's tables"
grep -qxF "collect-grades: the last collection in mine/grades replaced as a whole, not mixed with this one: its gradescope/ held 3 students, 1 not in this one; its chart removed (none drawn this time)" said ||
    fail "the replacement not said in one line: $(cat said)"
grep -q '^collect-grades: 2 students. files taken in, 0 rejected' said || fail "count: $(cat said)"
[ -z "$(work_left)" ] || fail "the second collection left $(work_left)"

# One student: singular.
mkdir third && row dan passed third || exit 1
collect third || fail "one student's collection failed: $(cat said)"
grep -q "^collect-grades: 1 student's file taken in, 0 rejected" said || fail "one student's count: $(grep 'taken in' said)"
grep -qF 'its gradescope/ held 2 students, 2 not in this one' said || fail "third: $(cat said)"

# Not the collection's files: nothing replaced, each kept.
before=$(cat mine/grades/grades.md)
echo 'my notes' > mine/grades/gradescope/notes.txt || exit 1
collect first && fail "a teacher's file in gradescope/, yet exit 0"
grep -qF 'mine/grades/gradescope/notes.txt is not a student' said || fail "the teacher's file not named: $(cat said)"
[ "$(cat mine/grades/grades.md)" = "$before" ] && [ -f mine/grades/gradescope/notes.txt ] && [ -z "$(work_left)" ] ||
    fail "a refused collection changed something"
rm mine/grades/gradescope/notes.txt && echo x > mine/grades/gradescope/dan/extra.txt || exit 1
collect first && fail "a teacher's file in gradescope/dan/, yet exit 0"
grep -qF 'mine/grades/gradescope/dan/extra.txt is not a file collect-grades wrote' said || fail "dan/extra.txt not named: $(cat said)"
rm mine/grades/gradescope/dan/extra.txt && ln -s /tmp mine/grades/gradescope/eve || exit 1
collect first && fail "a link in gradescope/, yet exit 0"
grep -qF 'mine/grades/gradescope/eve is not a student' said && [ -L mine/grades/gradescope/eve ] || fail "the link: $(cat said)"
rm mine/grades/gradescope/eve || exit 1

# A foreign file made while collecting (after the first check): the swap checks again.
cat > slow.py <<'PY'
import os, runpy, sys
sys.argv = ["collect_grades.py", "first"]
sys.path.insert(0, "tools")
import collect_grades as cg
real = cg.Writer.commit
def commit(self):
    with open(os.path.join(self.out, "grades.md"), "w") as f:
        f.write("the teacher's own table\n")
    real(self)
cg.Writer.commit = commit
sys.exit(cg.main(sys.argv))
PY
python3 slow.py > said 2>&1 && fail "a foreign grades.md made while collecting, yet exit 0"
grep -qF "mine/grades/grades.md is not a file collect-grades wrote" said && grep -q 'nothing replaced' said || fail "the late file: $(cat said)"
[ "$(cat mine/grades/grades.md)" = "the teacher's own table" ] && [ "$(ls mine/grades/gradescope)" = dan ] && [ -z "$(work_left)" ] ||
    fail "the late foreign file, or the collection before, was not kept as it was: $(ls -A mine/grades mine/grades/gradescope)"
echo "collect-grades: a second collection replaces the first whole (a student gone, a chart not drawn: said in one line); foreign files in gradescope/ or made meanwhile stop it, kept"
