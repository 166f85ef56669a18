#!/usr/bin/env bash
# make grade [EX=chNN]: runs each exercise's test against your code in
# exercises/. PASS or FAIL per exercise, with the test's own got / want lines
# for a FAIL; a test that could run only its CPU part (no CUDA device) says
# so, never a plain PASS; SKIP where nothing could run. The verdict is the
# test harness's own, through a channel your code cannot write to
# (tools/verdict.sh): a test that did not run to its end is a FAIL.
# The last line counts each kind, e.g.
#   3 passed, 1 passed the CPU part only (GPU part not run: no CUDA device), 1 failed, of 5
# Exit status: 0 every exercise passed in full; 1 one or more failed (or did
# not compile); 3 none failed, but some part of one was not run here (a CPU
# part only, checks skipped, or SKIP). (make grade itself exits 2 for both 1
# and 3, saying "Error 1" or "Error 3".)
# `make hint EX=chNN` when you are stuck.
# Usage: grade.sh EX-TEXT EXERCISE...   (the environment: BUILD)
set -u
tool=grade
. "$(dirname "$0")/exercise_names.sh"
. "$(dirname "$0")/verdict.sh"
exercise_names "$@"
build=${BUILD:-build}
passed=0 cpu_only=0 in_part=0 not_run=0 failed=0

fail() { # exercise: the test's failure lines, or why the run does not count
    echo "FAIL  $1${why:+: $why}"
    grep -E ':[EF]:' <<<"$out" | sed 's/^[^:]*:[0-9]*:[EF]:[^:]*:[^:]*:[0-9]*: /      /' | head -n 10
    grep -A1 'did not run to .* end' <<<"$out" | sed 's/^/      /' | head -n 4
    echo "      stuck? make hint EX=$1"
    failed=$((failed + 1))
}

part() { # exercise: passed, but some of its test did not run here
    if [ "$(verdict_count passed)" -eq 0 ]; then
        echo "SKIP  $1 (its test needs a CUDA device)"
        not_run=$((not_run + 1))
    elif [ -f "tests/test_ex_$1.cu" ]; then
        echo "PASS  $1 (CPU part; GPU part not run: no CUDA device)"
        cpu_only=$((cpu_only + 1))
    else
        echo "PASS  $1 (the checks run here; $(verdict_count skipped) not run: the test's output says why)"
        in_part=$((in_part + 1))
    fi
}

grade_one() { # exercise
    local bin=$build/tests/ex_${1}_exercise log
    if ! log=$(make --no-print-directory "$bin" 2>&1); then
        echo "FAIL  $1: your code does not compile:"
        grep -E 'error|Error' <<<"$log" | head -n 20 | sed 's/^/      /'
        failed=$((failed + 1))
        return
    fi
    verdict_run "$bin"
    case $verdict in
    pass) echo "PASS  $1"; passed=$((passed + 1)) ;;
    part) part "$1" ;;
    *) fail "$1" ;;
    esac
}

# The closing line: every kind with a count, passed and failed always.
summary() {
    local line="$passed passed"
    [ "$cpu_only" -eq 0 ] || line+=", $cpu_only passed the CPU part only (GPU part not run: no CUDA device)"
    [ "$in_part" -eq 0 ] || line+=", $in_part passed the checks that could run here (some not run: see above)"
    [ "$not_run" -eq 0 ] || line+=", $not_run not run (needs a CUDA device)"
    echo "$line, $failed failed, of ${#names[@]}"
}

for e in "${names[@]}"; do
    grade_one "$e"
done
summary
if [ "$failed" -gt 0 ]; then exit 1; fi
if [ $((cpu_only + in_part + not_run)) -gt 0 ]; then exit 3; fi
exit 0
