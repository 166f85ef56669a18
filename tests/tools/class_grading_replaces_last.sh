#!/usr/bin/env bash
# Grading a class twice never mixes the two (issue 66, the instructor's dry
# run): a second make grade-class of a class that lost a student replaces the
# first's results/, logs/, table and gradescope/ as a whole, and says so in
# one line (the lost student's files once stayed, in the table too). A
# teacher's file in results/, or a read-only result, stops it before anything
# is graded, and stays, and so does a result or a log with notes added (the
# whole file is judged: a log by its stamp's hash of the text under it) and
# a log of an older grade-class (no stamp). A job array's tasks (SHARD) each
# remove the last grading's files of their own students and of students no
# longer in DIR, and keep the other tasks'. The layout one level too deep
# (DIR/ID/exercises/ch01/...) is graded from there, and said so up front; a
# student folder with no exercise folder, or with both layouts, is named with
# what it holds and the expected layout, and left out before any grading.
# Counts of one are singular ("1 exercise each").
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_grading python3
graded_copy "$1"
sub=$scratch/submissions
mkdir -p "$sub/ann" "$sub/bob" "$sub/cy/exercises" "$sub/dan/misc" "$sub/eve/exercises" || exit 1
cp -r solutions/ch01 "$sub/ann/" && cp -r exercises/ch01 "$sub/bob/" && cp -r solutions/ch01 "$sub/cy/exercises/" &&
    cp -r solutions/ch01 "$sub/eve/" && cp -r solutions/ch01 "$sub/eve/exercises/" && : > "$sub/dan/notes.txt" || exit 1
gc() { make --no-print-directory grade-class DIR="$sub" EX=ch01 "$@" > said 2>&1; }
verdict() { sed -n 2p "mine/grades/results/$1.csv" | awk -F'","' '{print $7}'; }

# 1. The first grading: the layouts told apart up front.
gc JOBS=2
rc=$?
[ $rc = 2 ] && grep -q 'grade-class\] Error 1' said || fail "two folders to leave out, yet exit $rc: $(cat said)"
grep -qF "grade-class: 1 student's folder holds exercises/ one level down, graded from there: cy" said ||
    fail "the deeper layout not said: $(cat said)"
grep -qF "$sub/dan holds no exercise folder, at its top or in an exercises/ folder: left out; a student's folder is laid out as exercises/ is: $sub/ID/ch01/..." said &&
    grep -qF '(it holds: misc/ notes.txt)' said || fail "dan's folder not named with what it holds: $(cat said)"
grep -qF "$sub/eve holds exercise folders and an exercises/ folder too" said || fail "eve's two layouts not named: $(cat said)"
[ "$(grep -n 'holds no exercise folder' said | cut -d: -f1)" -lt "$(grep -n 'exercises each\|exercise each' said | cut -d: -f1)" ] ||
    fail "the layout is not said before the grading starts: $(cat said)"
grep -q '^grade-class: 3 students, 1 exercise each, 2 at once' said || fail "counts: $(grep '^grade-class: 3' said)"
[ "$(verdict ann)" = passed ] && [ "$(verdict bob)" = failed ] && [ "$(verdict cy)" = passed ] ||
    fail "verdicts: ann $(verdict ann), bob $(verdict bob), cy $(verdict cy): $(cat said)"
[ "$(ls mine/grades/results)" = "$(printf 'ann.csv\nbob.csv\ncy.csv')" ] || fail "results: $(ls mine/grades/results)"
head -n 1 mine/grades/logs/cy.log | grep -qE "^grade-class: the log of cy, sha256 [0-9a-f]{64} of the lines below; its answers in $sub/cy/exercises/\$" ||
    fail "cy's log does not say where its answers were: $(head -n 2 mine/grades/logs/cy.log)"
grep -q 'replaced as a whole' said && fail "a first grading said it replaced one: $(cat said)"

# 2. Again, ann gone and fay new: nothing of ann's is left anywhere.
rm -rf "$sub/ann" "$sub/dan" "$sub/eve" && mkdir "$sub/fay" && cp -r exercises/ch01 "$sub/fay/" || exit 1
gc JOBS=3 || fail "the second grading failed: $(cat said)"
grep -qF "grade-class: the last grading in mine/grades (3 students' results, 1 not in this one) replaced as a whole, not mixed with this one" said ||
    fail "the second grading did not say it replaced the first: $(cat said)"
grep -qF "collect-grades: the last collection in mine/grades replaced as a whole, not mixed with this one: its gradescope/ held 3 students, 1 not in this one" said ||
    fail "the second collection did not say it replaced the first: $(cat said)"
[ "$(ls mine/grades/results)" = "$(printf 'bob.csv\ncy.csv\nfay.csv')" ] && [ "$(ls mine/grades/logs)" = "$(printf 'bob.log\ncy.log\nfay.log')" ] &&
    [ "$(ls mine/grades/gradescope)" = "$(printf 'bob\ncy\nfay')" ] || fail "the first grading's files are mixed in: $(ls -R mine/grades)"
grep -q '| ann |' mine/grades/grades.md && fail "ann is still in the table: $(cat mine/grades/grades.md)"
grep -q '^"ann"' mine/grades/gradebook.csv && fail "ann is still in the gradebook"
[ -z "$(find mine/grades -mindepth 1 -maxdepth 1 -name '.*')" ] || fail "a grading left its work folder: $(ls -A mine/grades)"

# 3. A teacher's file among the results, a read-only result: nothing graded, both kept.
echo 'my notes' > mine/grades/results/notes.txt || exit 1
before=$(cat mine/grades/results/bob.csv)
gc && fail "a teacher's file in results/, yet exit 0"
grep -qF 'mine/grades/results/notes.txt is not a file grade-class writes there' said && grep -q 'nothing graded' said &&
    ! grep -q 'students, 1 exercise' said || fail "the teacher's file not named, or graded anyway: $(cat said)"
[ "$(cat mine/grades/results/notes.txt)" = 'my notes' ] && [ "$(cat mine/grades/results/bob.csv)" = "$before" ] || fail "files changed"
rm mine/grades/results/notes.txt && chmod 444 mine/grades/results/cy.csv || exit 1
gc && fail "a read-only result, yet exit 0"
grep -qF 'mine/grades/results/cy.csv is read-only (mode 444)' said || fail "the read-only result not named: $(cat said)"
chmod 644 mine/grades/results/cy.csv && cp mine/grades/results/fay.csv fay.csv && echo 'fay: ask about ch01' >> mine/grades/results/fay.csv || exit 1
gc && fail "a result with the teacher's notes added, yet exit 0"
grep -q 'mine/grades/results/fay.csv: line [0-9]*: 1 fields, not 9: not a grade file grade-class wrote' said ||
    fail "the result with notes not named: $(cat said)"
grep -q 'ask about ch01' mine/grades/results/fay.csv || fail "the result with notes was changed"
mv fay.csv mine/grades/results/fay.csv && cp mine/grades/logs/fay.log fay.log && echo 'my note' >> mine/grades/logs/fay.log || exit 1
gc && fail "a log with the teacher's notes added, yet exit 0"
grep -qF 'mine/grades/logs/fay.log is not as grade-class wrote it' said || fail "the log with notes not named: $(cat said)"
mv fay.log mine/grades/logs/fay.log && sed 1d mine/grades/logs/fay.log > fay.log && cp fay.log mine/grades/logs/fay.log || exit 1
gc && fail "a log of an older grade-class (no stamp), yet exit 0"
grep -qF 'mine/grades/logs/fay.log is not a log grade-class wrote (its first line is not its stamp' said || fail "the log with no stamp: $(cat said)"
rm mine/grades/logs/fay.log || exit 1 # (moved away, as the message says)

# 4. A job array: fay gone from the class; task 0 of 2 grades bob, task 1 cy.
# each log rewritten to a text of our own, stamped as grade-class stamps: kept
# until its student is graded again
mark() { # ID: its log's text is "the last grading of ID"
    local text="the last grading of $1"
    { echo "grade-class: the log of $1, sha256 $(echo "$text" | sha256sum | cut -c1-64) of the lines below; its answers in x/"
      echo "$text"; } > "mine/grades/logs/$1.log"
}
mark bob && mark cy || exit 1
rm -rf "$sub/fay" || exit 1
gc SHARD=0/2 || fail "task 0 of 2 failed: $(cat said)"
grep -qF "grade-class: removed the last grading's files of 2 students (1 no longer in $sub): this grading replaces them" said ||
    fail "task 0 did not say what it removed: $(cat said)"
[ "$(ls mine/grades/results)" = "$(printf 'bob.csv\ncy.csv')" ] && [ "$(ls mine/grades/logs)" = "$(printf 'bob.log\ncy.log')" ] ||
    fail "after task 0: $(ls -R mine/grades/results mine/grades/logs)"
grep -q 'the last grading of bob' mine/grades/logs/bob.log && fail "task 0 did not grade bob again"
grep -q 'the last grading of cy' mine/grades/logs/cy.log || fail "task 0 graded task 1's cy"
gc SHARD=1/2 || fail "task 1 of 2 failed: $(cat said)"
grep -qF "removed the last grading's files of 1 student (0 no longer in" said || fail "task 1: $(cat said)"
make --no-print-directory collect-grades DIR=mine/grades/results > said 2>&1 || fail "collecting the shards failed: $(cat said)"
[ "$(ls mine/grades/gradescope)" = "$(printf 'bob\ncy')" ] || fail "after the shards, gradescope/ holds $(ls mine/grades/gradescope)"
grep -qF "its gradescope/ held 3 students, 1 not in this one" said || fail "the shards' collection: $(cat said)"
echo "grade-class: a second grading and a job array's replace the first whole (said), a teacher's or read-only file stops it; exercises/ one level down graded, a folder without exercises named with what it holds"
