#!/usr/bin/env bash
# make grade GRADE_OUT=FILE replaces FILE only when the whole file is a grade
# file (nothing lost, round 5, item A): a file whose first line is make
# grade's header but which goes on with something else (your notes after the
# rows or in place of them, a row cut short or with a field more, a verdict
# make grade never writes, a quote never closed, CR line ends, a NUL) is
# refused (exit 2) before anything is built, and left as it was. A grade
# file as grade.sh writes it (quoted fields, a message of several lines with
# a quote and a comma in it) is replaced by a grading. And the check is made
# again just before the rename: notes added to the file while it is graded
# (by a stand-in nvidia-smi, which grade.sh calls after its first check) keep
# the file as it is, and the result is said not recorded. In a scratch copy.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_grading
graded_copy "$1"
out=$scratch/out
mkdir "$out" || exit 1
header=student,commit,machine,gpu,date,exercise,verdict,messages,answer

# grade FILE [PATH-PREFIX]: make grade EX=ch01 into FILE, what it said in $scratch/said, its status in rc.
grade() {
    PATH=${2:-}$PATH make --no-print-directory grade EX=ch01 STUDENT=ann GRADE_OUT="$1" > "$scratch/said" 2>&1
    rc=$?
}
# A grade file as grade.sh writes it, made by hand: two rows, the first with
# a message of three lines holding a quote ("") and a comma.
genuine=$scratch/genuine.csv
printf '%s\n' "$header" \
    '"ann","0123abc","m","none","2026-12-01T10:00:00Z","ch01","failed","vec_scale: got 1, want 2' \
    '  the ""scale"" is wrong, see' \
    'line 3","0123456789abcdef"' \
    '"ann","0123abc","m","none","2026-12-01T10:00:00Z","ch02","passed","",""' > "$genuine"

# refused WHAT: $out/g.csv as the caller made it is refused before anything is built, and kept.
refused() {
    local sum
    sum=$(cksum < "$out/g.csv")
    grade "$out/g.csv"
    [ "$rc" = 2 ] || fail "$1: make grade exited $rc, not 2: $(tail -n 3 "$scratch/said")"
    grep -q "grade: GRADE_OUT=$out/g.csv is not a grade file (.*): not replaced" "$scratch/said" ||
        fail "$1: not said: $(tail -n 3 "$scratch/said")"
    [ ! -e build/tests/ex_ch01_stub ] || fail "$1: grade built the judge before refusing"
    [ "$(cksum < "$out/g.csv")" = "$sum" ] || fail "$1: the file was changed"
    [ -z "$(find "$out" -name '*.tmp')" ] || fail "$1: a temp file was left: $(ls -A "$out")"
}
{ cat "$genuine"; echo "my notes for the viva"; } > "$out/g.csv" && refused "your notes after the rows"
{ echo "$header"; echo "my notes: ch03 left to do"; } > "$out/g.csv" && refused "your notes after the header"
{ echo "$header"; echo "ann,0123abc,m,none,2026,ch01,passed,,0123456789abcdef"; } > "$out/g.csv" && refused "a row not quoted"
{ cat "$genuine"; echo '"ann","c","m","none","d","ch03","passed","","0123456789abcdef","notes"'; } > "$out/g.csv" &&
    refused "a row of ten fields"
{ cat "$genuine"; echo '"ann","c","m","none","d","ch03","passed",""'; } > "$out/g.csv" && refused "a row of eight fields"
{ cat "$genuine"; echo '"ann","c","m","none","d","ch03","great","","0123456789abcdef"'; } > "$out/g.csv" &&
    refused "a verdict make grade never writes"
{ cat "$genuine"; printf '"my notes, never closed\n\nmore notes\n'; } > "$out/g.csv" && refused "a quote never closed"
sed 's/$/\r/' "$genuine" > "$out/g.csv" && refused "CR line ends"
{ cat "$genuine"; printf 'a\0b\n'; } > "$out/g.csv" && refused "a NUL byte"

# The genuine file is replaced by a grading (the stub: ch01 failed).
cp "$genuine" "$out/g.csv" || exit 1
grade "$out/g.csv"
[ "$rc" = 2 ] && grep -q "^grade: wrote $out/g.csv" "$scratch/said" ||
    fail "a grade file as grade.sh writes it was not replaced (exit $rc): $(tail -n 3 "$scratch/said")"
[ "$(head -n 1 "$out/g.csv")" = "$header" ] && grep -q '^"ann",".*","ch01","failed","' "$out/g.csv" &&
    ! grep -q '"ch02"' "$out/g.csv" || fail "the grading did not write its own rows: $(cat "$out/g.csv")"

# Notes added while grading: a file of the earlier eight columns (taken at
# the start) given a line of yours by the time of the rename.
printf '%s\n' student,commit,machine,gpu,date,exercise,verdict,messages \
    '"ann","0123abc","m","none","2026-11-01T10:00:00Z","ch01","failed","vec_add: got 0"' > "$out/g.csv"
mkdir -p "$scratch/bin" || exit 1
cat > "$scratch/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
# grade.sh's call (its describe_run, after the first check), not machine.sh's: notes added to the grade file
grep -q 'tools/grade.sh' /proc/\$PPID/cmdline 2>/dev/null && echo "my notes, added while it was graded" >> "$out/g.csv"
exit 1
SCRIPT
chmod +x "$scratch/bin/nvidia-smi" || exit 1
cp "$out/g.csv" "$scratch/eight.csv" && echo "my notes, added while it was graded" >> "$scratch/eight.csv" || exit 1
grade "$out/g.csv" "$scratch/bin:"
grep -q '^FAIL  ch01' "$scratch/said" || fail "the eight-column grade file was refused before grading: $(tail -n 3 "$scratch/said")"
[ "$rc" = 2 ] && grep -q "is not a grade file (.*): not replaced; the result above is not recorded" "$scratch/said" ||
    fail "notes added while grading: exit $rc, said: $(tail -n 3 "$scratch/said")"
cmp -s "$out/g.csv" "$scratch/eight.csv" || fail "the file given notes while it was graded was replaced: $(cat "$out/g.csv")"
[ -z "$(find "$out" -name '*.tmp')" ] || fail "a temp file was left: $(ls -A "$out")"
echo "make grade replaced only a whole grade file: notes after its header or rows, odd rows, CR, NUL refused first, and notes added while grading kept"
