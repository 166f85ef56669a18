#!/usr/bin/env bash
# make collect-grades replaces an output of the last collection only when it
# is still wholly as that collection wrote it (nothing lost, round 6, item 1:
# each output was judged by its first bytes, and writable by any write bit,
# so a teacher's notes after the table, a column added to the gradebook, a
# mark changed in it, a hand-made results.json and a file of mode 0464 were
# all replaced, exit 0). Each edit alone, made after a collection, stops the
# next one before it writes anything (exit 2, the file named) and every file
# stays as it was, no work folder left: notes after grades.md, a field added
# to gradebook.csv's header, a mark changed in it (its shape kept), a row of
# grades.csv removed, results.json replaced by other JSON, words after the
# chart's SVG; a file whose owner may not write it (0464, 0044), for root
# too. A collection of an older collect-grades (no grades.sha256 beside it)
# is not known as one: refused, "move it away once". Untouched, the outputs
# are replaced again and again (grades.sha256 records what each one was).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
tool_copy "$1"
h=student,commit,machine,gpu,date,exercise,verdict,messages,answer
mkdir class || exit 1
printf '%s\n"ann","c","m","none","2026-11-20T10:00:00Z","ch01","passed","",""\n"ann","c","m","none","2026-11-20T10:00:00Z","ch02","failed","x",""\n' "$h" > class/ann.csv &&
    printf '%s\n"bob","c","m","none","2026-11-20T10:00:00Z","ch01","failed","",""\n' "$h" > class/bob.csv || exit 1
G=$scratch/g1
collect() { GRADES_OUT=$G make --no-print-directory collect-grades DIR=class > said 2>&1; }
# state: every file and folder under G with its mode and content's hash
state() { (cd "$G" && find . -printf '%p %m %y\n' | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort); }
work_left() { find "$G" -name '.collect-grades.*'; }

collect || fail "the first collection failed: $(cat said)"
rm -rf "$scratch/first" && cp -a "$G" "$scratch/first" || exit 1

# refused WHAT NAME: the edit just made (WHAT) stops the collection: exit 2,
# NAME named, nothing changed, no work folder; then the first collection back
refused() {
    local before rc
    before=$(state)
    collect
    rc=$?
    [ $rc = 2 ] || fail "$1: exit $rc, not 2: $(cat said)"
    grep -qF "$G/$2" said || fail "$1: $2 not named: $(cat said)"
    [ "$(state)" = "$before" ] || fail "$1: the collection changed files in $G"
    [ -z "$(work_left)" ] || fail "$1: a work folder was left: $(work_left)"
    rm -rf "$G" && cp -a "$scratch/first" "$G" || exit 1
}
echo "Notes: alice has an extension" >> "$G/grades.md" && refused "notes after grades.md" grades.md
grep -q 'not a file collect-grades wrote' said || fail "notes after grades.md: why not said: $(cat said)"
sed -i '1s/$/,"my comments"/' "$G/gradebook.csv" && refused "a field added to gradebook.csv's header" gradebook.csv
sed -i 's/^"bob","0",/"bob","0.5",/' "$G/gradebook.csv" && grep -q '^"bob","0.5",' "$G/gradebook.csv" || fail "cannot change bob's mark"
refused "a mark changed in gradebook.csv" gradebook.csv
sed -i 2d "$G/grades.csv" && refused "a row of grades.csv removed" grades.csv
echo '{"teacher":"mine"}' > "$G/gradescope/ann/results.json" && refused "results.json replaced" gradescope/ann/results.json
chmod 0464 "$G/grades.csv" && refused "grades.csv of mode 0464" grades.csv
grep -qF "$G/grades.csv is read-only (mode 464)" said || fail "mode 0464: not said read-only: $(cat said)"
chmod 0044 "$G/gradescope/bob/results.json" && refused "results.json of mode 0044" gradescope/bob/results.json
if [ -f "$G/grades.svg" ]; then
    echo "my notes on the chart" >> "$G/grades.svg" && refused "words after the chart" grades.svg
fi
[ -f "$G/grades.sha256" ] || fail "no grades.sha256 beside the outputs: $(ls "$G")"
(cd "$G" && sha256sum -c --quiet grades.sha256) || fail "sha256sum -c grades.sha256 fails on the collection just written"
echo "# my own" > "$G/grades.sha256" && echo 'x' >> "$G/grades.md" && refused "grades.md, and a grades.sha256 of mine" grades.md

# An older collect-grades's collection: no grades.sha256.
rm "$G/grades.sha256" || exit 1
refused "a collection without grades.sha256" grades.md
grep -q 'move it away once' said || fail "an older collection: not said how to go on: $(cat said)"

# Untouched: replaced, twice, and said so.
collect || fail "the untouched collection was not replaced: $(cat said)"
grep -q 'replaced as a whole' said || fail "the replacement not said: $(cat said)"
rm class/bob.csv && collect || fail "a third collection failed: $(cat said)"
[ "$(ls "$G/gradescope")" = ann ] && ! grep -q bob "$G/grades.sha256" || fail "bob's files stayed: $(ls "$G/gradescope"; cat "$G/grades.sha256")"
(cd "$G" && sha256sum -c --quiet grades.sha256) || fail "grades.sha256 does not match the third collection"
[ -z "$(work_left)" ] || fail "a work folder was left: $(work_left)"
echo "collect-grades: each output replaced only as the last collection wrote it (grades.sha256), its owner's write bit set; an edited, read-only or older one refused up front, all kept"
