#!/usr/bin/env bash
# Student ids a spreadsheet would read as something else (nothing lost,
# round 6, item 6: 007, 3-4, 1e5, TRUE became 7, 4-Mar, 100000 and a boolean
# when gradebook.csv was opened in a spreadsheet) stay byte for byte the ids
# in every file collect-grades writes: the CSV fields quoted and nothing
# added (an apostrophe or ="..." would be part of the id for a gradebook's
# or Gradescope's import, which match students by it), grades.md, the
# folders of gradescope/, each results.json. How to open the CSVs in a
# spreadsheet with the student column as text is TEACHING.md's to say
# (checked where there is one: a student release has none).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
tool_copy "$1"
ids=(007 3-4 1e5 TRUE 0x1F 1.50 2026-03-04 12345678901234567890 N@A)
mkdir class || exit 1
for s in "${ids[@]}"; do
    grade_file "class/f$RANDOM$RANDOM.csv" "$s" ch01 passed
done
make --no-print-directory collect-grades DIR=class > said 2>&1 || fail "the collection failed: $(cat said)"
g=mine/grades
for s in "${ids[@]}"; do
    grep -qxF "\"$s\",\"1\",\"1\",\"1\"" $g/gradebook.csv || fail "gradebook.csv has no row \"$s\",\"1\",\"1\",\"1\": $(cat $g/gradebook.csv)"
    grep -q "^\"$s\",\"passed\"," $g/grades.csv || fail "grades.csv has no row of \"$s\": $(cat $g/grades.csv)"
    grep -qF "| $s | pass |" $g/grades.md || fail "grades.md has no row of $s"
    [ -f "$g/gradescope/$s/results.json" ] || fail "no gradescope/$s/: $(ls $g/gradescope)"
done
python3 - "$g" "${ids[@]}" <<'PY' || fail "the CSVs, read as CSV, do not give the ids as they are"
import csv, sys
g, ids = sys.argv[1], sys.argv[2:]
for name in ("gradebook.csv", "grades.csv"):
    with open(f"{g}/{name}", newline="") as f:
        got = [r[0] for r in csv.reader(f)][1:len(ids) + 1]
    assert sorted(got) == sorted(ids), (name, got)
PY
if [ -f "$1/TEACHING.md" ]; then
    t=$1/TEACHING.md
    flat=$(tr -s ' \n' ' ' < "$t")
    for want in "the student column as text" "Text Import" "Convert text to numbers, dates, and formulas" "Column data format" "007"; do
        grep -qF "$want" <<<"$flat" || fail "TEACHING.md does not say how to import the CSVs with ids as text (no \"$want\")"
    done
fi
echo "collect-grades: ids 007, 3-4, 1e5, TRUE and more kept as they are in every file; TEACHING.md says how to open the CSVs with them as text"
