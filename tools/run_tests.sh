#!/usr/bin/env bash
# Runs test binaries and adds up their "RESULT name passed=P failed=F skipped=S"
# lines into one closing line: "N passed, N failed, N skipped".
#   --suites A B ...      ordinary suites (Check forks each test)
#   --gpu-suites A B ...  GPU suites, run with CK_FORK=no (CUDA cannot be used in a
#                         forked child once the parent touched it)
#   --exercises E=DIR ... exercise E's answer in folder DIR (the solutions), graded as
#                         make grade grades (tools/judge.sh): its tests are counted
#   --must-fail E=DIR ... exercise stubs and wrong answers (DIR a stub's or a wrong
#                         answer's folder), graded the same way: each must FAIL; one
#                         check each
#   --unavailable "chNN: why" ...   chapters not built here (what they need is missing):
#                         one line each, each counted as one skipped
# The verdict of each is its harness's own, through a channel the code under
# test cannot write to (tools/verdict.sh): a binary that does not run to its
# end, or whose verdict is not the harness's, counts as one failure (at least).
# TEST_JOBS=N runs N binaries at once (make check-gpu does, on a many-core
# machine); each one's lines are printed whole, in order, once it is done.
set -u
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
. "$(dirname "$0")/judge.sh"
passed=0 failed=0 skipped=0 mode=suites
jobs=${TEST_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run_tests: TEST_JOBS='$jobs': want a positive number" >&2; exit 2; }

# run_one MODE BINARY: its lines, then "COUNTS p f s" (added up by the caller);
# run_one_counted adds to whichever passed/failed/skipped are in scope.
run_one() {
    local passed=0 failed=0 skipped=0
    run_one_counted "$@"
    echo "COUNTS $passed $failed $skipped"
}

run_one_counted() { # mode binary (or E=DIR)
    [ "$jobs" -gt 1 ] || echo "  ...   $2" # announced before it runs: some suites take minutes
    case $1 in
    gpu-suites) verdict_run "$2" CK_FORK=no ;;
    exercises | must-fail) judge_run "${2%%=*}" "${2#*=}"; [ "$stage" = run ] || why=${why:-$stage failed} ;;
    *) verdict_run "$2" ;;
    esac
    if [ "$1" = must-fail ]; then must_fail "$2"; else counted "$2"; fi
}

# must_fail BINARY: a stub or a wrong answer; one check: that it fails (a
# forged pass, without the harness's secret, is a failure like any other).
must_fail() {
    local what="the untouched stub"
    case $1 in *wrong/*) what=${1#*wrong/} what="the wrong answer '${what%%/*}'" ;; esac
    if [ "$verdict" = fail ]; then
        passed=$((passed + 1))
        echo "  ok    $1: $what fails its test (${why:-$(verdict_count failed) failures}), as it must"
    elif [ "$verdict" = part ] && { [ "$(verdict_count passed)" -eq 0 ] || [[ $1 == *wrong/* ]]; }; then
        skipped=$((skipped + 1)); echo "  skip  $1: its test needs a GPU, so $what was not checked here"
    else
        failed=$((failed + 1)); echo "  FAIL  $1: $what passes its test: the checker is broken"
    fi
}

# counted BINARY: a suite; its counts are added to the totals.
counted() {
    local p f s
    p=$(verdict_count passed) f=$(verdict_count failed) s=$(verdict_count skipped)
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    if [ -n "$why" ]; then
        echo "  FAIL  $1: $why:"; tail -n 20 <<<"$out"
    elif [ "$f" -gt 0 ]; then
        echo "  FAIL  $1: $p passed, $f failed, $s skipped"; grep -E ':[EF]:|did not run to .* end' <<<"$out" | head -n 30
    else
        echo "  ok    $1: $p passed, $s skipped"
    fi
}

# Each binary's output goes to its own file; show() prints the finished ones
# in order and adds up their counts.
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"; judge_cleanup' EXIT
trap 'exit 130' INT TERM
declare -a pids=()
shown=0
show() { # wait: also wait for the next one to finish
    local c
    while [ "$shown" -lt "${#pids[@]}" ]; do
        if [ "$1" = no ] && kill -0 "${pids[$shown]}" 2>/dev/null; then return; fi
        wait "${pids[$shown]}"
        grep -v '^COUNTS ' "$scratch/$shown"
        read -r _ p f s < <(grep '^COUNTS ' "$scratch/$shown" || echo "COUNTS 0 1 0")
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
        shown=$((shown + 1))
    done
}
for arg in "$@"; do
    case "$arg" in
    --suites) mode=suites ;;
    --gpu-suites) mode=gpu-suites ;;
    --must-fail) mode=must-fail ;;
    --exercises) mode=exercises ;;
    --unavailable) mode=unavailable ;;
    *) if [ "$mode" = unavailable ]; then
           skipped=$((skipped + 1)); echo "  skip  ${arg%%:*}'s suite: ${arg#*: }"
       elif [ "$jobs" -eq 1 ]; then
           run_one_counted "$mode" "$arg" # adds to the totals itself
       else
           while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; show no; done
           run_one "$mode" "$arg" > "$scratch/${#pids[@]}" 2>&1 &
           pids+=($!)
           show no
       fi ;;
    esac
done
show yes
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
