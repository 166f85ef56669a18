#!/usr/bin/env bash
# make check-gpu: the proof that the GPU code works on this machine's GPU, which
# CI (no GPU) cannot give. Three parts, each logged under build/check-gpu/:
#   1. the README's test command, `make check`, with the GPU suites running,
#      warnings as errors (WERROR=1, as CI builds: this machine's compilers
#      are not CI's, and a newer gcc warns where CI's does not; WERROR=0 lets
#      them pass);
#   2. compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over every
#      GPU stage at the chapters' small sizes (tools/gpu_sanitize.sh);
#   3. a smoke run of `make bench`: every chapter, every stage row, once, at its
#      small size (tools/bench.sh with BENCH_SMOKE=1; committed results untouched):
#      every chapter must exit 0 and every row say ok.
# It ends with one line: "check-gpu: PASS|FAIL on <device> (commit C): ..." and
# exits 0 only when all three passed. Without a GPU it says so and exits 3.
#
# Parts by name (tools/check_gpu.sh sanitize bench-smoke; make check-gpu
# ONLY="..."): runs those alone, for a machine lent in calls shorter than the
# whole gate. Each part leaves $out/NAME.done ("commit device exit"); the
# summary reads every part's log, and a part not run now counts only when its
# .done names this commit and this device and exit 0. Anything else: FAIL.
set -u
# shellcheck source=tools/columns.sh
. "$(dirname "$0")/columns.sh"
out=build/check-gpu
mkdir -p "$out" || exit 1
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
if [ -z "$device" ]; then
    echo "check-gpu: no CUDA device here (nvidia-smi lists none): run it on a machine with a GPU; make check tests the rest"
    exit 3
fi
# PROFILE_COMMIT: where the tree was copied from a commit whose history the copy lacks (as profile.sh)
commit=$("$(dirname "$0")/commit.sh") # as every tool records it (COURSE_COMMIT / PROFILE_COMMIT for a copied tree)
echo "check-gpu: on $device, commit $commit; logs in $out/"
make=(make --no-print-directory)
status=0
all_parts="check sanitize bench-smoke"
parts=$* # (make check-gpu passes ONLY as one word, empty when not given)
[ -n "${parts// /}" ] || parts=$all_parts
for p in $parts; do
    case " $all_parts " in *" $p "*) ;; *) echo "check-gpu: no part '$p' (the parts: $all_parts)" >&2; exit 2 ;; esac
done
wanted() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }

# part NAME CMD...: runs CMD with its output to the terminal and $out/NAME.log,
# and leaves $out/NAME.done: this commit, this device, CMD's exit status.
part() {
    local name=$1 start=$SECONDS
    shift
    echo "check-gpu: $name: $*"
    set -o pipefail
    "$@" 2>&1 | tee "$out/$name.log"
    local rc=$?
    set +o pipefail
    echo "check-gpu: $name took $((SECONDS - start)) s (exit $rc)"
    echo "$commit ${device%%,*} $rc" >"$out/$name.done"
    return $rc
}

# kept NAME: is part NAME's log from this commit and this device (run now or
# earlier)? Returns 0 when it is, so its log can be read; status becomes 1
# unless it is and the part passed; says which when not.
kept() {
    local name=$1 done=
    [ -f "$out/$name.done" ] && [ -f "$out/$name.log" ] && done=$(cat "$out/$name.done")
    case $done in
    "$commit ${device%%,*} 0")
        wanted "$name" || echo "check-gpu: $name: kept from an earlier call ($out/$name.log)"
        return 0 ;;
    "$commit ${device%%,*} "*)
        status=1
        return 0 ;;
    "") echo "check-gpu: $name: not run" ;;
    *) echo "check-gpu: $name: run on another commit or device ($out/$name.done: $done)" ;;
    esac
    status=1
    return 1
}

# 1. make check. Its suites run side by side here (TEST_JOBS), one per four
# cores: ch11's suite starts up to four MPI ranks of its own, each with a GPU
# context, so the cores and the GPU stay shared, not starved.
jobs=$(( $(nproc) / 4 > 1 ? $(nproc) / 4 : 1 ))
wanted check && part check env WERROR="${WERROR:-1}" TEST_JOBS="${TEST_JOBS:-$jobs}" "${make[@]}" -j"$(nproc)" check
check_line="not run" skips=
if kept check; then
    check_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out/check.log" | tail -n 1)
    [ -n "$check_line" ] || { check_line="no summary line"; status=1; }
    # On a GPU machine a skipped GPU suite is a part not run: name every skip.
    skips=$(grep -E '^  skip ' "$out/check.log" | sed 's/^  skip  //' | cut -c1-100)
fi

# 2. compute-sanitizer over every GPU stage.
wanted sanitize && part sanitize tools/gpu_sanitize.sh
san_line="not run"
kept sanitize && { san_line=$(tail -n 1 "$out/sanitize.log"); san_line=${san_line#gpu-sanitize: }; }

# 3. the bench's smoke run: every chapter exits 0, every row's check is ok.
wanted bench-smoke && part bench-smoke env BENCH_SMOKE=1 IMAGE_DIFF=build/image_diff tools/bench.sh
kept bench-smoke
machine=$(tools/machine.sh)
smoke_csv=build/bench-smoke/$machine.csv
rows=0 bad=0
if [ -f "$smoke_csv" ]; then
    rows=$(tail -n +2 "$smoke_csv" | wc -l)
    # (a file whose check column cannot be found: every row counts as not ok)
    bad=$rows
    csv_columns "$smoke_csv" check && bad=$(awk -F, "${cols[@]}" 'NR > 1 && $c_check != "ok" && $c_check != "n/a"' "$smoke_csv" | wc -l)
fi
[ "$rows" -gt 0 ] && [ "$bad" -eq 0 ] || status=1
grep -qs 'no CUDA device here' "$out/bench-smoke.log" && { echo "check-gpu: a chapter found no CUDA device"; status=1; }

[ -z "$skips" ] || { echo "check-gpu: skipped in make check:"; sed 's/^/  /' <<<"$skips"; }
verdict=PASS
[ $status -eq 0 ] || verdict=FAIL
echo "check-gpu: $verdict on ${device%%,*} (commit $commit): make check $check_line; compute-sanitizer $san_line; bench smoke $rows rows, $bad not ok"
exit $status
