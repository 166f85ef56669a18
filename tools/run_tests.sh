#!/usr/bin/env bash
# Runs test binaries and adds up their "RESULT name passed=P failed=F skipped=S"
# lines into one closing line: "N passed, N failed, N skipped".
#   --suites A B ...      ordinary suites (Check forks each test)
#   --gpu-suites A B ...  GPU suites, run with CK_FORK=no (CUDA cannot be used in a
#                         forked child once the parent touched it)
#   --must-fail A B ...   exercise stubs and wrong answers (ex_*_wrong_CASE): each must
#                         FAIL its test; one check each
#   --unavailable "chNN: why" ...   chapters not built here (what they need is missing):
#                         one line each, each counted as one skipped
# A binary that dies without its RESULT line counts as one failure.
# TEST_JOBS=N runs N binaries at once (make check-gpu does, on a many-core
# machine); each one's lines are printed whole, in order, once it is done.
set -u
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

run_one_counted() { # mode binary
    local out status
    [ "$jobs" -gt 1 ] || echo "  ...   $2" # announced before it runs: some suites take minutes
    if [ "$1" = gpu-suites ]; then
        out=$(CK_FORK=no "$2" 2>&1); status=$?
    else
        out=$("$2" 2>&1); status=$?
    fi
    local result
    result=$(grep '^RESULT ' <<<"$out" | tail -n1)
    if [ "$1" = must-fail ]; then
        local p f s what="the untouched stub"
        case $2 in *_wrong_*) what="the wrong answer '${2##*_wrong_}'" ;; esac
        p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$result")
        f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$result")
        s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$result")
        if [ -z "$result" ] && [ "$status" -ne 0 ]; then
            passed=$((passed + 1)); echo "  ok    $2: $what fails its test (it crashed), as it must"
        elif [ -n "$f" ] && [ "$f" -gt 0 ]; then
            passed=$((passed + 1)); echo "  ok    $2: $what fails its test ($f failures), as it must"
        elif [ "${s:-0}" -gt 0 ] && { [ "${p:-0}" -eq 0 ] || [[ $2 == *_wrong_* ]]; }; then
            skipped=$((skipped + 1)); echo "  skip  $2: its test needs a GPU, so $what was not checked here"
        else
            failed=$((failed + 1)); echo "  FAIL  $2: $what passes its test: the checker is broken"
        fi
        return
    fi
    if [ -z "$result" ]; then
        failed=$((failed + 1)); echo "  FAIL  $2 died without a result (status $status):"; echo "$out" | tail -n 20
        return
    fi
    local p f s
    p=$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$result")
    f=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$result")
    s=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$result")
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    if [ "$f" -gt 0 ]; then
        echo "  FAIL  $2: $p passed, $f failed, $s skipped"; grep -E ':[EF]:' <<<"$out" | head -n 30
    else
        echo "  ok    $2: $p passed, $s skipped"
    fi
}

# Each binary's output goes to its own file; show() prints the finished ones
# in order and adds up their counts.
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
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
