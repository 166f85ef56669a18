#!/usr/bin/env bash
# make student-release with RELEASE_CHECK=true (no check) says the check was
# skipped, and nothing of a log (an instructor preparing a class read "(make
# check: many minutes; its log: DEST.release-check.PID.log)" where no check
# ran and no log was made, and "'true' passed in the release" after it): no
# log is made, none named, and the closing lines say the check was skipped.
# RELEASE_CHECK=quick (make all, then make grade: every stub must FAIL) runs
# here on ch01 alone (CHAPTERS, which the release's make reads from the
# environment), says what it is, and passes on a release's stubs.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_release
release_scratch "$1"

(cd "$root" && RELEASE_CHECK=true bash tools/student_release.sh "$scratch/rel") > "$scratch/said" 2>&1 ||
    fail "the release with RELEASE_CHECK=true failed: $(tail -n 5 "$scratch/said")"
grep -qi 'log' "$scratch/said" && fail "RELEASE_CHECK=true speaks of a log: $(grep -i log "$scratch/said")"
grep -q 'many minutes' "$scratch/said" && fail "RELEASE_CHECK=true says the check takes many minutes: $(grep 'many minutes' "$scratch/said")"
grep -qF "passed in the release" "$scratch/said" && fail "RELEASE_CHECK=true says a check passed: $(grep -F passed "$scratch/said")"
grep -qF "the release's check was skipped (RELEASE_CHECK=true)" "$scratch/said" || fail "RELEASE_CHECK=true does not say the check was skipped: $(cat "$scratch/said")"
[ -z "$(find "$scratch" -mindepth 1 -maxdepth 1 ! -name rel ! -name said)" ] || fail "RELEASE_CHECK=true left beside DEST: $(ls -A "$scratch")"
[ -f "$scratch/rel/README.md" ] || fail "no release made: $(cat "$scratch/said")"

# quick, on ch01 alone: the stub FAILs, the check passes, its log goes
(cd "$root" && CHAPTERS=ch01 RELEASE_CHECK=quick bash tools/student_release.sh "$scratch/quick") > "$scratch/said" 2>&1 ||
    fail "the release with RELEASE_CHECK=quick (ch01) failed: $(tail -n 30 "$scratch/said")"
grep -qF "running the quick check in the release" "$scratch/said" || fail "RELEASE_CHECK=quick does not say what it runs: $(cat "$scratch/said")"
grep -qF "the quick check (make all; make grade: every stub FAILs) passed in the release" "$scratch/said" ||
    fail "RELEASE_CHECK=quick does not say it passed: $(tail -n 3 "$scratch/said")"
ls "$scratch"/quick.release-check.*.log > /dev/null 2>&1 && fail "a quick check that passed kept its log"
[ -z "$(git -C "$scratch/quick" status --porcelain)" ] || fail "the quick check left files in the release: $(git -C "$scratch/quick" status --porcelain | head -n 3)"
echo "student-release: RELEASE_CHECK=true says the check was skipped and names no log; RELEASE_CHECK=quick builds and fails the stubs (ch01 here)"
