#!/usr/bin/env bash
# tools/evidence.py profile_summary says, in each device's caption, which commits and
# runs its reports come from (their "# commit:" and "# run:" header lines),
# so a set of profiles stitched from several commits or runs shows it.
# Fixtures: tests/fixtures/profiles/ (commit 2222222, run 20261126T0415Z-3f9a),
# and one of them rewritten as a report made before run ids.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (tools/evidence.py, like make book's generator, needs python3: without it, skipped, saying so)
fixture_copy "$1"
dir=data/profiles/Fixture-GPU_Fixture-CPU
mkdir -p "$dir"
cp "$fixtures"/profiles/*.txt "$dir/"
python3 tools/evidence.py profile_summary > summary.md 2>&1 || fail "profile_summary failed: $(tail -n 3 summary.md)"
grep -qF '(`data/profiles/Fixture-GPU_Fixture-CPU`, 4 reports; commit 2222222; run 20261126T0415Z-3f9a):*' summary.md ||
    fail "one commit, one run: $(grep '^\*Nsight' summary.md)"
# an older report: its commit line with words after the hash, no run line
sed -i -e 's/^# commit: 2222222$/# commit: eb20d45 (the tree profiled)/' -e '/^# run: /d' "$dir/ch05_fast-math.txt"
python3 tools/evidence.py profile_summary > summary.md 2>&1 || fail "profile_summary failed: $(tail -n 3 summary.md)"
grep -qF '4 reports; commits 2222222 (3), eb20d45 (1); runs 20261126T0415Z-3f9a (3), not recorded (1)):*' summary.md ||
    fail "two commits, a report without a run: $(grep '^\*Nsight' summary.md)"
echo "profile_summary: the caption names the reports' commits and runs, with counts where they differ"
