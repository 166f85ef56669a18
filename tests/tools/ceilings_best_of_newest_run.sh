#!/usr/bin/env bash
# The tools take a run's best ceiling row, never a file's last one
# (tools/evidence.py best_ceiling, read by its roofline and counted_flops):
# among the rows of the newest run_id, the largest value; a FAIL row and an
# older run's better row do not count; a file whose rows predate run ids is one
# run. Fixtures: tests/fixtures/results_*.csv, tests/fixtures/profiles/.
# Expected values worked out by hand from the fixtures.
set -u
. "$(dirname "$0")/lib.bash"
can_run_book "$@" # (tools/evidence.py, like make book's generator, needs python3: without it, skipped, saying so)
fixture_copy "$1"
best() { python3 tools/evidence.py best_ceiling "$@"; }

# the newest run (20261126T0415Z-3f9a): 65350.4, not its later 61900 (the
# file's last row), its FAIL row 99999, run ...aaaa's 66000 or the old 70100
got=$(best "$fixtures/results_two_runs.csv" ceiling-fp32-peak)
[ "$got" = "65350.4 20261126T0415Z-3f9a" ] || fail "FP32 ceiling of two runs: want '65350.4 20261126T0415Z-3f9a', got '$got'"
# ch06's row of the newest run (3300), not ch05's 9999 nor the older run's 3400
got=$(best "$fixtures/results_two_runs.csv" ceiling-read-stream ch06)
[ "$got" = "3300 20261126T0415Z-3f9a" ] || fail "ch06 read ceiling: want '3300 20261126T0415Z-3f9a', got '$got'"
# no run ids: all rows one run, the best (61085.5), not the last (60640.5)
got=$(best "$fixtures/results_no_run_id.csv" ceiling-fp32-peak)
[ "$got" = "61085.5 -" ] || fail "FP32 ceiling without run ids: want '61085.5 -', got '$got'"
got=$(best "$fixtures/results_no_run_id.csv" ceiling-copy)
[ -z "$got" ] || fail "a ceiling with no row: want nothing, got '$got'"
best /nonexistent.csv ceiling-fp32-peak 2> err.txt && fail "an unreadable CSV was accepted"
grep -q '/nonexistent.csv' err.txt || fail "the error does not name the file: $(cat err.txt)"

# The tools that read the ceiling: ch07_gpu-tiled counts 20e9 FP32 operations
# (1e9 FADD + 1e9 FMUL + 2 x 9e9 FFMA) in 500 ms: 40000 GFLOP/s, 61.2% of
# 65350.4 (the last row's 61900 would give 64.6%).
machine=Fixture-GPU_Fixture-CPU
mkdir -p "data/profiles/$machine" data/results data/plots build/book
cp "$fixtures"/profiles/*.txt "data/profiles/$machine/"
cp "$fixtures/results_two_runs.csv" "data/results/$machine.csv"
python3 tools/evidence.py counted_flops > flops.md 2>&1 || fail "counted_flops failed: $(tail -n 3 flops.md)"
grep -q 'ceiling 65350.4 GFLOP/s, the best ch07 ceiling row of run 20261126T0415Z-3f9a' flops.md ||
    fail "counted_flops does not name the newest run's best ceiling: $(grep '^\*' flops.md)"
grep -q '^| ch07_gpu-tiled | .* | 40000 | 61.2% |$' flops.md || fail "counted_flops: want 40000 GFLOP/s, 61.2%: $(grep gpu-tiled flops.md)"
python3 tools/evidence.py roofline build/book > roof.md 2>&1 || fail "roofline failed: $(tail -n 3 roof.md)"
grep -q 'FP32 ceiling 65350 GFLOP/s (ch07, run 20261126T0415Z-3f9a), DRAM read ceiling 3300 GB/s (ch06, run 20261126T0415Z-3f9a)' roof.md ||
    fail "roofline does not take the newest run's best ceilings: $(grep '^\*' roof.md)"
grep -q '^| ch07_gpu-tiled | .* | 65350 | 61.2% | arithmetic |$' roof.md || fail "roofline: want 61.2% of 65350: $(grep gpu-tiled roof.md)"
# a results file from before run ids: the best row, 61085.5: 40000 is 65.5% of it
cp "$fixtures/results_no_run_id.csv" "data/results/$machine.csv"
python3 tools/evidence.py counted_flops > flops.md 2>&1 || fail "counted_flops failed: $(tail -n 3 flops.md)"
grep -q '^| ch07_gpu-tiled | .* | 40000 | 65.5% |$' flops.md || fail "counted_flops without run ids: want 65.5%: $(grep gpu-tiled flops.md)"
echo "best_ceiling: the newest run's best row, over a later worse row, a FAIL row and an older run; counted_flops and roofline read it"
