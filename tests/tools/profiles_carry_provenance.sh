#!/usr/bin/env bash
# make profile and make profiles with stand-ins for nvidia-smi, ncu,
# compute-sanitizer and ch05, so they run without a GPU:
# - every report names its device on its first line, then carries
#   "# commit: HASH" (HASH-dirty when a tracked file outside data/ changed:
#   the reports make profiles writes are no change to the code) and
#   "# run: RUN_ID" (BENCH_RUN_ID when given; else one new id, shared by every
#   report of one make profiles, racecheck's log included);
# - the launch profiled is the stage's last launch of its kernel (the check
#   run after the timed runs, after any sweep): the stand-in ncu lists 27
#   launches (ch05 block-shape: 8 shapes x 3 launches, then its winner's 3),
#   so the profile must skip 26.
set -u
[ "${1:-}" = --can-run ] && { command -v git > /dev/null || { echo "no git"; exit 77; }; exit 0; }
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
export CLANG_CUDA=
mkdir -p bin
cat > bin/nvidia-smi <<'SCRIPT'
#!/bin/sh
case "$*" in
*compute_cap*) echo 9.0 ;; *clocks.sm*) echo "1980 MHz, 1980 MHz" ;; -L) echo "GPU 0: Stand-in GPU" ;;
*name,driver*) echo "Stand-in GPU, 1.0" ;; *) echo "Stand-in GPU" ;;
esac
SCRIPT
# ncu: --version; a light pass (no --metrics) lists LAUNCHES launches; the
# profile pass (--metrics) writes a report. Every call is logged.
cat > bin/ncu <<'SCRIPT'
#!/bin/bash
echo "$*" >> "$NCU_LOG"
case " $* " in *" --version "*) echo "Version stand-in"; exit 0 ;; esac
line='  void render_kernel<23>(unsigned char *, int *, camera, int) (64, 32, 1)x(8, 16, 1), Context 1, Stream 7, Device 0, CC 9.0'
case " $* " in
*" --metrics "*) echo "$line"; echo "    SM Frequency                    Ghz         1.98"; echo "    Registers Per Thread    register/thread    40" ;;
*) for ((i = 0; i < ${LAUNCHES:-27}; i++)); do echo "$line"; done ;;
esac
SCRIPT
cat > bin/compute-sanitizer <<'SCRIPT'
#!/bin/sh
echo "========= RACECHECK SUMMARY: 3 hazards displayed (3 errors, 0 warnings)"
SCRIPT
printf '#!/bin/sh\nprintf "fast-math\\tgpu\\trender_kernel\\t-\\t-\\tx\\nblock-shape\\tgpu\\trender_kernel\\t-\\t-\\tx\\nracy-one\\tgpu\\trender_kernel\\t-\\tracy\\tx\\n"\n' > ch05
chmod +x bin/* ch05
export PATH=$PWD/bin:$PATH NCU_LOG=$PWD/ncu.log
unset BENCH_RUN_ID PROFILE_COMMIT
git init -q . && git add -A && git -c user.name=test -c user.email=test@test commit -qm fixture || fail "git commit in the scratch copy"
hash=$(git rev-parse --short HEAD)
machine=$(bash tools/machine.sh)
dir=data/profiles/$machine

# header HEADER-LINES FILE: the file's first lines are HEADER-LINES
header() { [ "$(head -n "$(wc -l <<<"$1")" "$2")" = "$1" ] || fail "$2 does not start with: $1 (it starts: $(head -n 5 "$2"))"; }

# make profile, run id given: the last launch, the commit, the run
BENCH_RUN_ID=20261126T0415Z-3f9a bash tools/profile.sh ch05 block-shape > profile.log 2>&1 || fail "profile failed: $(tail -n 3 profile.log)"
header $'# device: Stand-in GPU, 1.0 (nvidia-smi: name, driver)\n# ncu: Version stand-in\n# commit: '"$hash"$'\n# run: 20261126T0415Z-3f9a' "$dir/ch05_block-shape.txt"
grep -q -- '--metrics .* --launch-skip 26 --launch-count 1 \|--launch-skip 26 --launch-count 1 .*--metrics ' ncu.log ||
    fail "the profile did not measure the last of 27 launches: $(grep -- --metrics ncu.log)"
grep -q 'SM Frequency' "$dir/ch05_block-shape.txt" || fail "the report lost ncu's SM Frequency"
grep -q '^# command: ./ch05 --stage block-shape --repeat 1 --quiet; kernel .*launch 27 of 27' "$dir/ch05_block-shape.txt" ||
    fail "the report does not say which launch it measured: $(grep '^# command' "$dir/ch05_block-shape.txt")"

# a tracked file changed: the commit is marked dirty
echo "# changed" >> Makefile
bash tools/profile.sh ch05 fast-math > profile.log 2>&1 || fail "profile failed: $(tail -n 3 profile.log)"
sed -n 3p "$dir/ch05_fast-math.txt" | grep -qx "# commit: $hash-dirty" || fail "a changed tree is not marked dirty: $(sed -n 3p "$dir/ch05_fast-math.txt")"
git checkout -q Makefile

# no launch of the kernel: nothing profiled, the old report kept, the log named
cp "$dir/ch05_fast-math.txt" before.txt
LAUNCHES=0 bash tools/profile.sh ch05 fast-math > profile.log 2>&1 && fail "a run without the kernel was profiled"
grep -q "ncu saw no launch of" profile.log || fail "no line says ncu saw no launch: $(cat profile.log)"
cmp -s before.txt "$dir/ch05_fast-math.txt" || fail "a failed profile replaced the last good report"

# make profiles, no run id given: one new id for all its reports and the
# racecheck log; the reports are committed (as the course's are), and one
# written is no change to the code: every report names the clean commit
rm -f "$dir"/*.failed
git add -A data && git -c user.name=test -c user.email=test@test commit -qm reports || fail "git commit of the reports"
hash=$(git rev-parse --short HEAD)
CHAPTERS=ch05 bash tools/profiles.sh > profiles.log 2>&1 || fail "profiles failed: $(tail -n 5 profiles.log)"
for f in "$dir"/ch05_*.txt "$dir"/ch05_racecheck_*.log; do
    head -n 5 "$f" | grep -qx "# commit: $hash" || fail "$f does not name the clean commit $hash: $(grep -m1 '^# commit' "$f")"
done
runs=$(for f in "$dir"/ch05_*.txt "$dir"/ch05_racecheck_*.log; do head -n 5 "$f" | grep '^# run:' || echo "no run line: $f"; done | sort | uniq -c)
[ "$(wc -l <<<"$runs")" -eq 1 ] || fail "make profiles wrote several run ids: $runs"
grep -qE '^ *4 # run: [0-9]{8}T[0-9]{4}Z-[0-9a-f]{4}$' <<<"$runs" || fail "want 4 files (3 reports, 1 log) of one run id like 20261126T0415Z-3f9a: $runs"
header $'# device: Stand-in GPU, 1.0 (nvidia-smi: name, driver)\n# commit: '"$hash"$'\n'"$(grep -m1 '^# run:' "$dir/ch05_block-shape.txt")" "$dir/ch05_racecheck_racy-one.log"
echo "profiles: device first, commit (dirty marked), one run id per invocation, the last launch profiled"
