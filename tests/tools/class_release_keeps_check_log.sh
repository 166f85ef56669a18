#!/usr/bin/env bash
# make student-release, as an instructor's dry run met it (issue 66):
# - a release whose check fails keeps the check's log beside DEST, says where
#   (a full path), and prints the failing tests' lines (tools/run_tests.sh's
#   FAIL line and Check's file:line:F: line) even when many lines follow them
#   in the log (it once printed the log's last 40 lines and deleted the log);
#   no release and no scratch copy are left;
# - the release leaves out the teacher's guide, TEACHING.md, and its README
#   then has no link to it, and every line naming it says it is not in a
#   student release; tools/slurm/ names it nowhere; this test is left out
#   too (it makes releases: it needs what a release lacks), but
#   tools/student_release.sh is not: the release's make check runs its
#   --help (tests/tools/tools_answer_help.sh), which failed there when it
#   was left out.
# A reduced check stands in for the release's make check (RELEASE_CHECK):
# the README's claims are read in the release itself.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_release
release_scratch "$1"

# 1. The check fails: a real FAIL line from tools/run_tests.sh, a Check line
#    (as run_tests.sh prints them under it), then 80 lines that are not.
failing='tools/run_tests.sh --suites /bin/false; echo "tests/test_x.c:12:F:core:t_one:0: wanted 1, got 2"; seq 80 | sed "s/^/later line /"; exit 1'
(cd "$root" && RELEASE_CHECK=$failing bash tools/student_release.sh "$scratch/rel") > "$scratch/said" 2>&1 &&
    fail "a release whose check failed was made"
logs=("$scratch"/rel.release-check.*.log)
[ ${#logs[@]} -eq 1 ] && [ -f "${logs[0]}" ] || fail "the check's log was not kept beside DEST: $(ls -A "$scratch"); it said: $(tail -n 5 "$scratch/said")"
grep -qF "its whole log is kept: ${logs[0]}" "$scratch/said" || fail "the log's place is not said: $(tail -n 3 "$scratch/said")"
grep -q '^  FAIL  /bin/false: the test did not run to its end' "$scratch/said" &&
    grep -qF 'tests/test_x.c:12:F:core:t_one:0: wanted 1, got 2' "$scratch/said" &&
    grep -q '^0 passed, 1 failed, 0 skipped$' "$scratch/said" || fail "the failing tests' lines not printed: $(cat "$scratch/said")"
grep -q 'later line 80' "${logs[0]}" && grep -q 'FAIL  /bin/false' "${logs[0]}" || fail "the kept log is not the whole check's output"
[ ! -e "$scratch/rel" ] && [ -z "$(ls -d "$scratch"/rel.tmp.* 2> /dev/null)" ] || fail "a failed release left $(ls -A "$scratch")"
rm -f "${logs[0]}"
# A failure with no test's line (the build broke): the log's last lines, the log kept.
(cd "$root" && RELEASE_CHECK='echo "make: *** [Makefile:1: x] Error 1"; exit 2' bash tools/student_release.sh "$scratch/rel") > "$scratch/said" 2>&1 &&
    fail "a release whose build failed was made"
grep -q 'no test.s FAIL line in the log: its last lines' "$scratch/said" && grep -qF 'make: *** [Makefile:1: x] Error 1' "$scratch/said" ||
    fail "a failed build's last lines not shown: $(cat "$scratch/said")"
ls "$scratch"/rel.release-check.*.log > /dev/null 2>&1 || fail "a failed build's log not kept"
rm -f "$scratch"/rel.release-check.*.log

# 2. A release that passes: TEACHING.md is not in it, nor pointed to.
inside='[ ! -e TEACHING.md ] && ! grep -n TEACHING README.md | grep -v "left out\\|not in" && ! grep -rn TEACHING tools/slurm &&
    bash tests/tools/tools_answer_help.sh "$PWD"'
(cd "$root" && RELEASE_CHECK=$inside bash tools/student_release.sh "$scratch/rel") > "$scratch/said" 2>&1 ||
    fail "the release (TEACHING.md left out, README checked in it) failed: $(tail -n 8 "$scratch/said")"
[ -z "$(ls "$scratch"/rel.release-check.*.log 2> /dev/null)" ] || fail "a release that passed kept its check's log"
rel=$scratch/rel
[ ! -e "$rel/TEACHING.md" ] || fail "the release holds TEACHING.md"
git -C "$rel" ls-files | grep -q '^tests/tools/class_release_' && fail "the release holds tests/tools/class_release_*"
[ ! -e "$rel/.untrue" ] || fail "the release holds the script's scratch file .untrue"
grep -n 'TEACHING' "$rel/README.md" | grep -v 'left out\|not in' && fail "a line of the release's README points to TEACHING.md"
grep -qF '](TEACHING.md' "$rel/README.md" && fail "the release's README links to TEACHING.md"
grep -qF "the teacher's guide (TEACHING.md) are left out" "$rel/README.md" || fail "the release's banner does not say TEACHING.md is left out"
grep -q 'left out: .*TEACHING.md' "$scratch/said" || fail "the closing line does not name TEACHING.md: $(tail -n 2 "$scratch/said")"
echo "student-release: a failed check's log kept (its path said) and its FAIL lines printed; the release has no TEACHING.md and no line pointing to it"
