#!/usr/bin/env bash
# chapters/ch07_nbody/issue_slots.sh (the book's issue-slot ceiling in the
# target's units) on a fixture: k = 13e6 thread instructions over the n^2 = 1e6
# interactions of the profiled launch is 13.00; the log's best FMA ceiling
# row (65000 GFLOP/s at 2000 MHz on 100 SMs), not its last, gives 20 x 128 x
# 100 x 2000 MHz / 13 = 39385 GFLOP/s and 10 x 65000 / 13 = 50000; the
# stage's row at the profile's n (19692.3, not the 99999 of another n) is
# 50.0% of the first. A symmetric stage (n^2 / 2 a launch) is left out.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch=$(mktemp -d) && trap 'rm -rf "$scratch"' EXIT
m=M1
mkdir -p "$scratch/data/results/$m" "$scratch/data/profiles/$m"
cat > "$scratch/data/results/$m/ch07.txt" <<'LOG'
# run 20261126T0415Z-3f9a commit abc1234 machine 0123abcd date 2026-11-26T04:15:00Z

ch07  workload n=500 steps=2
stage                      threads    time (ms)           spread (ms)   speedup          value unit       check  note
gpu-x                            0        1.000        0.900-1.100 x3     1.00x      99999.000 GFLOP/s    ok     error 1e-06
ceiling-fp32-peak                0        1.000                     -         -      60000.000 GFLOP/s    n/a    measured: x, no memory, best of 5 runs of 55 ms after a warm-up; ran at 1000 MHz on 10 SMs: 1.0% of the data sheet's 1 at that clock

ch07  workload n=1000 steps=2
stage                      threads    time (ms)           spread (ms)   speedup          value unit       check  note
gpu-x                            0        1.000        0.900-1.100 x3     1.00x      19692.300 GFLOP/s    ok     error 1e-06
gpu-symmetric-y                  0        1.000        0.900-1.100 x3     1.00x       5000.000 GFLOP/s    ok     error 1e-06
ceiling-fp32-peak                0        1.000                     -         -      65000.000 GFLOP/s    n/a    measured: x, no memory, best of 5 runs of 55 ms after a warm-up; ran at 2000 MHz on 100 SMs: 1.0% of the data sheet's 1 at that clock
ceiling-fp32-peak                0        1.000                     -         -      61000.000 GFLOP/s    n/a    measured: x, no memory, best of 5 runs of 55 ms after a warm-up; ran at 1500 MHz on 100 SMs: 1.0% of the data sheet's 1 at that clock
LOG
for s in gpu-x gpu-symmetric-y; do
    printf '%s\n' "# device: fixture" "ch07  workload n=1000 steps=2" \
        "    smsp__thread_inst_executed.sum                                                     inst 13,000,000" \
        > "$scratch/data/profiles/$m/ch07_$s.txt"
done
out=$(chapters/ch07_nbody/issue_slots.sh "$scratch") || fail "issue_slots.sh failed: $out"
echo "$out"
grep -qxF '| gpu-x | 13.00 | 39385 | 50000 | 19692 | 50.0% |' <<<"$out" || fail "gpu-x's row is not the fixture's numbers"
grep -q 'the FMA ceiling 65000 GFLOP/s .* run at 2000 MHz on 100 SMs' <<<"$out" || fail "not the log's best ceiling row"
! grep -q 'symmetric' <<<"$out" || fail "a symmetric stage was counted"
