#!/usr/bin/env bash
# tools/gpu_sanitize.sh (make sanitize's GPU half, make check-gpu's second part)
# with stand-ins for nvidia-smi, compute-sanitizer and ch06, so it runs without
# a GPU: a clean run passes, a sanitizer error fails, a racy row that racecheck
# does not flag fails, and every log's first line names the device, the next
# two its commit and run id (BENCH_RUN_ID, given here).
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
export CLANG_CUDA=
mkdir -p bin
cat > bin/nvidia-smi <<'SCRIPT'
#!/bin/sh
case "$*" in *compute_cap*) echo 9.0 ;; -L) echo "GPU 0: Stand-in GPU" ;; *) echo "Stand-in GPU, 1.0" ;; esac
SCRIPT
# compute-sanitizer --tool T --error-exitcode 99 ./chNN --stage S ...: as MODE says
cat > bin/compute-sanitizer <<'SCRIPT'
#!/bin/bash
tool=$2 stage=$7
if [ "$tool" = racecheck ] && [ "$stage" = racy-one ] && [ "$MODE" != misses-race ]; then
    echo "========= RACECHECK SUMMARY: 3 hazards displayed (3 errors, 0 warnings)"; exit 0
fi
if [ "$tool" = memcheck ] && [ "$stage" = clean ] && [ "$MODE" = error ]; then
    echo "========= Invalid __global__ read of size 4 bytes"; echo "========= ERROR SUMMARY: 1 error"; exit 99
fi
echo "========= ERROR SUMMARY: 0 errors"
SCRIPT
printf '#!/bin/sh\nprintf "cpu-one\\tcpu\\t-\\t-\\t-\\tx\\nclean\\tgpu\\tk\\t-\\t-\\tx\\nracy-one\\tgpu\\tk\\t-\\tracy\\tx\\n"\n' > ch06
chmod +x bin/* ch06
export PATH=$PWD/bin:$PATH
runs=$((4 * 2 * 2)) # four tools, two GPU rows, ch06's two argument sets
MODE=clean CHAPTERS=ch06 BENCH_RUN_ID=20261126T0415Z-3f9a bash tools/gpu_sanitize.sh > clean.log 2>&1 ||
    fail "a clean run failed: $(tail -n 5 clean.log)"
grep -q "^gpu-sanitize: $runs runs, 0 failures$" clean.log || fail "want $runs runs, 0 failures: $(tail -n 1 clean.log)"
grep -q 'cpu-one' clean.log && fail "a CPU row was run under compute-sanitizer"
for log in build/sanitize/*.log; do
    head -n 1 "$log" | grep -q '^# device: Stand-in GPU' || fail "$log does not name its device on its first line"
    sed -n 2p "$log" | grep -qE '^# commit: [^ ]+$' || fail "$log's second line is not its commit: $(sed -n 2p "$log")"
    sed -n 3p "$log" | grep -qx '# run: 20261126T0415Z-3f9a' || fail "$log's third line is not the run given: $(sed -n 3p "$log")"
done
MODE=misses-race CHAPTERS=ch06 bash tools/gpu_sanitize.sh > race.log 2>&1 && fail "a racy row racecheck did not flag passed"
grep -q 'FAIL  racecheck found no race in ch06 racy-one' race.log || fail "no line names the unflagged racy row"
MODE=error CHAPTERS=ch06 bash tools/gpu_sanitize.sh > error.log 2>&1 && fail "a memcheck error passed"
grep -q 'FAIL  memcheck ch06 clean' error.log || fail "no line names the memcheck error"
grep -q "^gpu-sanitize: $runs runs, 2 failures$" error.log || fail "want 2 failures: $(tail -n 1 error.log)"
# check-gpu without a GPU: says so and exits 3 (an nvidia-smi that lists none,
# in front of any real one).
mkdir -p nogpu && printf '#!/bin/sh\nexit 9\n' > nogpu/nvidia-smi && chmod +x nogpu/nvidia-smi
PATH=$PWD/nogpu:$PATH bash tools/check_gpu.sh > nogpu.log 2>&1
rc=$?
[ $rc -eq 3 ] && grep -q 'no CUDA device here' nogpu.log || fail "check-gpu without a GPU: exit $rc, $(cat nogpu.log)"
echo "gpu_sanitize: clean passes, a missed race and a memcheck error fail, logs name the device; check-gpu needs a GPU"
