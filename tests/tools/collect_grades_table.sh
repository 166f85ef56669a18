#!/usr/bin/env bash
# make collect-grades DIR=... makes one table of a class's grade results: three
# students' files (quoted fields with "", a newline, a | and < inside, a file
# with CRLF line ends, one in the earlier eight-column format, an exercise one
# student has no row for) give the table, scores, pass counts, gradebook CSV and
# Gradescope results written below by hand; PARTS=half counts a GPU part not
# run as half. Malformed files (a foreign header, a row of 7 fields, an unknown
# verdict, a second student, a second file for a student, a NUL byte, an
# unclosed quote, bytes not UTF-8, an id with a direction override or a blank)
# are each named with their line and why, left out, and make the status 1 while
# the table keeps the three good ones. A 4 MB file of one unclosed quoted field
# is refused in a few seconds (the reading is linear), the outputs are as
# readable as the umask says, and the chart, where gnuplot is installed, uses
# colour-blind-safe colours, not red and green.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
tool_copy "$1"
h=student,commit,machine,gpu,date,exercise,verdict,messages,answer
h8=student,commit,machine,gpu,date,exercise,verdict,messages
mkdir class
cat > class/ann.csv <<EOF
$h
"ann","abc","m1","none","2026-11-20T10:00:00Z","ch01","passed","","0123456789abcdef"
"ann","abc","m1","none","2026-11-20T10:00:00Z","ch04","cpu-part-only","GPU part not run","fedcba9876543210"
EOF
cat > class/bob.csv <<EOF
$h8
"bob.b@uni.edu","abc-dirty","m2","NVIDIA H100","2026-11-21T10:00:00Z","ch01","failed","vec_dot: got 0, want 1
vec_add: got ""x"" | <b>, want 2, 3"
"bob.b@uni.edu","abc-dirty","m2","NVIDIA H100","2026-11-21T10:00:00Z","ch04","passed",""
"bob.b@uni.edu","abc-dirty","m2","NVIDIA H100","2026-11-21T10:00:00Z","ch03","does-not-compile","x.c:1: error"
EOF
printf '%s\r\n"cy","c","m","none","2026-11-22T00:00:00Z","ch01","passed","",""\r\n' "$h" > class/cy.csv
# ann's answers' hash: SHA-256 of "EXERCISE HASH\n" per exercise, in order
ann=$(printf 'ch01 0123456789abcdef\nch04 fedcba9876543210\n' | sha256sum | cut -c1-16)

want_md="| student | ch01 | ch03 | ch04 | score | gpu | date | answers |
|---|---|---|---|---|---|---|---|
| ann | pass | - | CPU part | 1 | none | 2026-11-20T10:00:00Z | $ann |
| bob.b@uni.edu | FAIL | no compile | pass | 1 | NVIDIA H100 | 2026-11-21T10:00:00Z |  |
| cy | pass | - | - | 1 | none | 2026-11-22T00:00:00Z |  |
| all: passed | 2 | 0 | 1 |  |  |  |  |
| all: passed what could run (CPU part, part) | 0 | 0 | 1 |  |  |  |  |
| all: failed (FAIL, no compile) | 1 | 1 | 0 |  |  |  |  |
| all: of students | 3 | 3 | 3 |  |  |  |  |

Score: 1 an exercise passed; its GPU part not run (CPU part, part, not run) 0 (PARTS=none); of 3."
want_csv="\"student\",\"ch01\",\"ch03\",\"ch04\",\"score\",\"gpu\",\"date\",\"answers\"
\"ann\",\"passed\",\"\",\"cpu-part-only\",\"1\",\"none\",\"2026-11-20T10:00:00Z\",\"$ann\"
\"bob.b@uni.edu\",\"failed\",\"does-not-compile\",\"passed\",\"1\",\"NVIDIA H100\",\"2026-11-21T10:00:00Z\",\"\"
\"cy\",\"passed\",\"\",\"\",\"1\",\"none\",\"2026-11-22T00:00:00Z\",\"\"
\"all: passed\",\"2\",\"0\",\"1\",\"\",\"\",\"\",\"\"
\"all: passed what could run (CPU part, part)\",\"0\",\"0\",\"1\",\"\",\"\",\"\",\"\"
\"all: failed (FAIL, no compile)\",\"1\",\"1\",\"0\",\"\",\"\",\"\",\"\"
\"all: of students\",\"3\",\"3\",\"3\",\"\",\"\",\"\",\"\""
want_book='"student","score","max","ch01","ch03","ch04"
"ann","1.5","3","1","0","0.5"
"bob.b@uni.edu","1","3","0","0","1"
"cy","1","3","1","0","0"'

umask 022
make --no-print-directory collect-grades DIR=class > said 2>&1 || fail "make collect-grades of three good files failed: $(cat said)"
[ "$(cat mine/grades/grades.md)" = "$want_md" ] || fail "grades.md is:
$(cat mine/grades/grades.md)"
[ "$(cat mine/grades/grades.csv)" = "$want_csv" ] || fail "grades.csv is:
$(cat mine/grades/grades.csv)"
grep -qF '| cy | pass | - | - | 1 | none |' said || fail "the table is not printed: $(cat said)"
for f in grades.md grades.csv gradebook.csv gradescope/ann/results.json; do
    [ "$(stat -c %a "mine/grades/$f")" = 644 ] || fail "$f has mode $(stat -c %a "mine/grades/$f"), not 644 (umask 022)"
done
if command -v gnuplot > /dev/null; then
    grep -q '<svg' mine/grades/grades.svg && grep -q '>ch04<' mine/grades/grades.svg ||
        fail "no chart with the exercises in mine/grades/grades.svg"
    # (gnuplot writes #0072B2 as rgb(  0, 114, 178); red and green were #c62828 and #2e7d32)
    grep -q 'rgb( *0, *114, *178)' mine/grades/grades.svg && ! grep -q 'rgb(198, *40, *40)\|rgb( *46, *125, *50)' mine/grades/grades.svg ||
        fail "the chart's colours are not the colour-blind-safe ones"
else
    grep -q 'no chart: gnuplot is not installed' said || fail "without gnuplot it does not say so: $(cat said)"
fi

# PARTS=half: a CPU part counts half, in the gradebook and in Gradescope's results.
make --no-print-directory collect-grades DIR=class PARTS=half > said 2>&1 || fail "PARTS=half failed: $(cat said)"
[ "$(cat mine/grades/gradebook.csv)" = "$want_book" ] || fail "gradebook.csv with PARTS=half is:
$(cat mine/grades/gradebook.csv)"
python3 - mine/grades/gradescope <<'PY' || fail "Gradescope's results.json are not as they should be"
import json, sys
ann = json.load(open(sys.argv[1] + "/ann/results.json"))
assert ann["score"] == 1.5 and ann["max_score"] == 3, ann
tests = {t["name"]: t for t in ann["tests"]}
assert tests["ch01"]["score"] == 1 and tests["ch04"]["score"] == 0.5 and tests["ch03"]["score"] == 0, tests
assert "GPU part not run" in tests["ch04"]["output"] and "fedcba9876543210" in tests["ch04"]["output"]
bob = json.load(open(sys.argv[1] + "/bob.b@uni.edu/results.json"))
assert 'got "x" | <b>' in {t["name"]: t for t in bob["tests"]}["ch01"]["output"]
PY
make --no-print-directory collect-grades DIR=class PARTS=most > said 2>&1 && fail "PARTS=most exited 0"
grep -q 'PARTS=most: say none, half or full' said || fail "PARTS=most said: $(cat said)"

# Malformed files: each named, with why; the good three still make the table.
printf 'a,b\n' > class/foreign.csv
printf '%s\n"x","c","m","g","d","ch01","passed",""\n' "$h" > class/short.csv
printf '%s\n"y","c","m","g","d","ch01","great","",""\n' "$h" > class/verdict.csv
printf '%s\n"w","c","m","g","d","ch01","passed","",""\n"v","c","m","g","d","ch02","failed","",""\n' "$h" > class/two.csv
# (two files for one student: neither counted, both named; a file cannot take a classmate's place)
printf '%s\n"zed","c","m","g","d","ch03","passed","",""\n' "$h" > class/aa.csv
printf '%s\n"zed","c","m","g","d","ch01","passed","",""\n' "$h" > class/zed.csv
printf '%s\n"u","c","m","g","d","ch01","passed","\0",""\n' "$h" > class/nul.csv
printf '%s\n"t","c","m","g","d","ch01","passed","oops\n' "$h" > class/open.csv
printf '%s\n"s","c","m","g","d","ch01","passed","\xff",""\n' "$h" > class/latin.csv
printf '%s\n"abc\xe2\x80\xaedef","c","m","g","d","ch01","passed","",""\n' "$h" > class/rlo.csv
printf '%s\n"an n","c","m","g","d","ch01","passed","",""\n' "$h" > class/blank.csv
make --no-print-directory collect-grades DIR=class > said 2>&1 && fail "malformed files, yet exit 0"
for why in 'foreign.csv: line 1: its header is not' 'short.csv: line 2: 8 fields, not 9' \
    'verdict.csv: line 2: verdict "great" is not one' 'two.csv: line 3: a second student' \
    'aa.csv: one of 2 files for student "zed"' 'zed.csv: one of 2 files for student "zed"' 'nul.csv: line 2: a NUL byte' 'open.csv: line 2: a quote is never closed' \
    'latin.csv: line 2: bytes that are not UTF-8' 'rlo.csv: line 2: the student id is not' 'blank.csv: line 2: the student id is not'; do
    grep -qF "class/$why" said || fail "not said: $why; it said: $(cat said)"
done
[ "$(cat mine/grades/grades.md)" = "$want_md" ] || fail "with malformed files beside them, grades.md is:
$(cat mine/grades/grades.md)"

# Linear: one 4 MB field of 200000 lines, never closed, is refused in seconds.
mkdir big
{ echo "$h"; printf '"z","c","m","g","d","ch01","passed","'; yes 'a line of the hand-in' | head -n 200000; } > big/z.csv
start=$SECONDS
make --no-print-directory collect-grades DIR=big > said 2>&1
[ $? = 2 ] || fail "a file with a field never closed, alone: exit $?, not 2: $(tail -n 3 said)"
grep -qF 'big/z.csv: line 2: a quote is never closed' said || fail "the unclosed 4 MB field: $(head -c 300 said)"
[ $((SECONDS - start)) -le 20 ] || fail "a 4 MB file took $((SECONDS - start)) s: the reading is not linear"
# A hand-in past 64 MiB is left out unread, and the others still make their
# table (it once read the whole file: a MemoryError traceback, no table).
cp class/*.csv big/ 2> /dev/null; rm -f big/z.csv
{ echo "$h"; head -c 70000000 /dev/zero | tr '\0' a; } > big/huge.csv
make --no-print-directory collect-grades DIR=big GRADES_OUT=bigout > said 2>&1
grep -qF 'big/huge.csv: over 64 MiB: not a grade result' said || fail "a 70 MB hand-in: $(head -c 300 said)"
grep -q Traceback said && fail "a 70 MB hand-in gave a traceback"
[ -s bigout/grades.md ] || fail "a 70 MB hand-in stopped the table: $(tail -n 3 said)"
rm -rf bigout

# The teacher's own files where the outputs go are never replaced: a
# read-only one, one that is no output of collect-grades, a link.
rm -rf big && mkdir -p teacher && echo 'MY GRADEBOOK' > teacher/gradebook.csv && chmod 444 teacher/gradebook.csv &&
    echo 'my notes' > teacher/grades.md && ln -s /etc/hostname teacher/grades.csv || exit 1
make --no-print-directory collect-grades DIR=class GRADES_OUT=teacher > said 2>&1 && fail "GRADES_OUT holding the teacher's files: exit 0"
grep -q 'gradebook.csv is read-only' said && grep -q 'grades.md is not a file collect-grades wrote' said &&
    grep -q 'grades.csv is a symbolic link' said || fail "the teacher's files were not named: $(cat said)"
[ "$(cat teacher/gradebook.csv)" = 'MY GRADEBOOK' ] && [ "$(cat teacher/grades.md)" = 'my notes' ] && [ ! -e teacher/gradescope ] ||
    fail "collect-grades wrote where the teacher's files are"

make --no-print-directory collect-grades DIR=nowhere > said 2>&1 && fail "DIR=nowhere exited 0"
grep -q 'not a folder' said || fail "DIR=nowhere said: $(cat said)"
echo "collect-grades made the expected table, scores, gradebook and Gradescope results from three files, named each malformed one, and read 4 MB in $((SECONDS - start)) s"
