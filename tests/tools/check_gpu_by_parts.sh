#!/usr/bin/env bash
# make check-gpu by parts (tools/check_gpu.sh PART...), with stand-ins for
# nvidia-smi, make, compute-sanitizer's script and the bench, so it runs
# without a GPU: the whole gate passes; parts run in two calls pass; a part
# that failed, a part never run, a part run on another commit or another GPU
# each make the summary FAIL, naming the part; an unknown part is refused.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
mkdir -p bin
cat > bin/nvidia-smi <<'SCRIPT'
#!/bin/sh
echo "${GPU:-Stand-in GPU}, 1.0"
SCRIPT
# make check: a summary line, passing unless CHECK_FAILS is set
cat > bin/make <<'SCRIPT'
#!/bin/sh
[ -n "${CHECK_FAILS:-}" ] && { echo "3 passed, 1 failed, 0 skipped"; exit 2; }
echo "3 passed, 0 failed, 0 skipped"
SCRIPT
printf '#!/bin/sh\necho "gpu-sanitize: 4 runs, 0 failures"\n' > tools/gpu_sanitize.sh
cat > tools/bench.sh <<'SCRIPT'
#!/bin/sh
m=$(tools/machine.sh) && mkdir -p build/bench-smoke &&
printf 'chapter,stage,check\nch06,clean,ok\nch06,cpu,n/a\n' > "build/bench-smoke/$m.csv"
SCRIPT
chmod +x bin/* tools/gpu_sanitize.sh tools/bench.sh
export PATH=$PWD/bin:$PATH COURSE_COMMIT=abc1234
gate() { bash tools/check_gpu.sh "$@" > gate.log 2>&1; }
summary() { tail -n 1 gate.log; }
want_pass='check-gpu: PASS on Stand-in GPU (commit abc1234): make check 3 passed, 0 failed, 0 skipped; compute-sanitizer 4 runs, 0 failures; bench smoke 2 rows, 0 not ok'
gate || fail "the whole gate failed: $(cat gate.log)"
[ "$(summary)" = "$want_pass" ] || fail "whole gate: $(summary)"
rm -rf build
gate '' || fail "the whole gate, as make check-gpu gives no PARTS (one empty word), failed: $(cat gate.log)"
[ "$(summary)" = "$want_pass" ] || fail "whole gate from an empty PARTS: $(summary)"
rm -rf build
gate check || true
grep -q 'check-gpu: sanitize: not run' gate.log || fail "a part not run is not named: $(cat gate.log)"
summary | grep -q '^check-gpu: FAIL' || fail "one part of three passed: $(summary)"
gate sanitize bench-smoke || fail "the other two parts in a second call failed: $(cat gate.log)"
grep -q 'check-gpu: check: kept from an earlier call' gate.log || fail "the earlier part is not said kept: $(cat gate.log)"
[ "$(summary)" = "$want_pass" ] || fail "two calls: $(summary)"
COURSE_COMMIT=def5678 gate sanitize bench-smoke && fail "a part from another commit counted: $(cat gate.log)"
grep -q "check-gpu: check: run on another commit or device" gate.log || fail "the other commit's part is not named: $(cat gate.log)"
GPU="Other GPU" gate sanitize bench-smoke && fail "a part from another GPU counted: $(summary)"
CHECK_FAILS=1 gate check && fail "a failed make check passed"
gate sanitize bench-smoke && fail "a part that failed in an earlier call counted: $(summary)"
summary | grep -q 'make check 3 passed, 1 failed' || fail "the failed part's line is not shown: $(summary)"
gate bogus && fail "an unknown part was taken"
grep -q "no part 'bogus'" gate.log || fail "an unknown part is not named: $(cat gate.log)"
echo "check-gpu by parts: whole and in two calls pass; a part failed, not run, or from another commit or GPU fails"
