#!/usr/bin/env bash
# make collect-grades DIR=... makes one table of a class's grade results: three
# students' files (quoted fields with "", a newline and a | inside, a file
# with CRLF line ends, an exercise one student has no row for) give the table
# and pass counts written below by hand, in Markdown and CSV; then malformed
# files (a foreign header, a row of 7 fields, an unknown verdict, a second
# student, a second file for a student, a NUL byte, an unclosed quote) are each
# named with why, left out, and make the status 1 while the table keeps the
# three good ones. The chart is drawn where gnuplot is installed, and its
# absence said otherwise.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
export CLANG_CUDA=
h=student,commit,machine,gpu,date,exercise,verdict,messages
mkdir class
cat > class/ann.csv <<EOF
$h
"ann","abc","m1","none","2026-11-20T10:00:00Z","ch01","passed",""
"ann","abc","m1","none","2026-11-20T10:00:00Z","ch04","cpu-part-only","GPU part not run"
EOF
cat > class/bob.csv <<EOF
$h
"Bob | <b>","abc-dirty","m2","NVIDIA H100","2026-11-21T10:00:00Z","ch01","failed","vec_dot: got 0, want 1
vec_add: got ""x"", want 2, 3"
"Bob | <b>","abc-dirty","m2","NVIDIA H100","2026-11-21T10:00:00Z","ch04","passed",""
"Bob | <b>","abc-dirty","m2","NVIDIA H100","2026-11-21T10:00:00Z","ch03","does-not-compile","x.c:1: error"
EOF
printf '%s\r\n"cy","c","m","none","2026-11-22T00:00:00Z","ch01","passed",""\r\n' "$h" > class/cy.csv

want_md='| student | ch01 | ch03 | ch04 | gpu | date |
|---|---|---|---|---|---|
| Bob \| &lt;b&gt; | FAIL | no compile | pass | NVIDIA H100 | 2026-11-21T10:00:00Z |
| ann | pass | - | CPU part | none | 2026-11-20T10:00:00Z |
| cy | pass | - | - | none | 2026-11-22T00:00:00Z |
| passed | 2 | 0 | 1 |  |  |
| passed what could run (CPU part, part) | 0 | 0 | 1 |  |  |
| failed (FAIL, no compile) | 1 | 1 | 0 |  |  |
| of students | 3 | 3 | 3 |  |  |'
want_csv='"student","ch01","ch03","ch04","gpu","date"
"Bob | <b>","failed","does-not-compile","passed","NVIDIA H100","2026-11-21T10:00:00Z"
"ann","passed","","cpu-part-only","none","2026-11-20T10:00:00Z"
"cy","passed","","","none","2026-11-22T00:00:00Z"
"passed","2","0","1","",""
"passed what could run (CPU part, part)","0","0","1","",""
"failed (FAIL, no compile)","1","1","0","",""
"of students","3","3","3","",""'

make --no-print-directory collect-grades DIR=class > said 2>&1 || fail "make collect-grades of three good files failed: $(cat said)"
[ "$(cat build/grades/grades.md)" = "$want_md" ] || fail "grades.md is:
$(cat build/grades/grades.md)"
[ "$(cat build/grades/grades.csv)" = "$want_csv" ] || fail "grades.csv is:
$(cat build/grades/grades.csv)"
grep -qF '| cy | pass | - | - | none |' said || fail "the table is not printed: $(cat said)"
if command -v gnuplot > /dev/null; then
    grep -q '<svg' build/grades/grades.svg && grep -q '>ch04<' build/grades/grades.svg ||
        fail "no chart with the exercises in build/grades/grades.svg"
else
    grep -q 'no chart: gnuplot is not installed' said || fail "without gnuplot it does not say so: $(cat said)"
fi

# Malformed files: each named, with why; the good three still make the table.
printf 'a,b\n' > class/foreign.csv
printf '%s\n"x","c","m","g","d","ch01","passed"\n' "$h" > class/short.csv
printf '%s\n"y","c","m","g","d","ch01","great",""\n' "$h" > class/verdict.csv
printf '%s\n"w","c","m","g","d","ch01","passed",""\n"v","c","m","g","d","ch02","failed",""\n' "$h" > class/two.csv
printf '%s\n"ann","c","m","g","d","ch03","passed",""\n' "$h" > class/ann2.csv
printf '%s\n"u","c","m","g","d","ch01","passed","\0"\n' "$h" > class/nul.csv
printf '%s\n"t","c","m","g","d","ch01","passed","oops\n' "$h" > class/open.csv
make --no-print-directory collect-grades DIR=class > said 2>&1 && fail "malformed files, yet exit 0"
for why in 'foreign.csv: line 1: its header is not' 'short.csv: line 2: 7 fields, not 8' \
    'verdict.csv: line 2: verdict "great" is not one' 'two.csv: line 3: a second student' \
    'ann2.csv: a second file for student "ann"' 'nul.csv: it has NUL bytes' 'open.csv: line 2: a quote is never closed'; do
    grep -qF "class/$why" said || fail "not said: $why; it said: $(cat said)"
done
[ "$(cat build/grades/grades.md)" = "$want_md" ] || fail "with malformed files beside them, grades.md is:
$(cat build/grades/grades.md)"
make --no-print-directory collect-grades DIR=nowhere > said 2>&1 && fail "DIR=nowhere exited 0"
grep -q 'not a folder' said || fail "DIR=nowhere said: $(cat said)"
echo "collect-grades made the expected table from three files and named each malformed one"
