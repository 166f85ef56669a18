#!/usr/bin/env bash
# make grade [EX=chNN]: runs each exercise's test against your code in
# exercises/. PASS or FAIL per exercise, with the test's own got / want lines
# for a FAIL; a test that could run only its CPU part (no CUDA device) says
# so, never a plain PASS; SKIP where nothing could run. The last line counts
# the exercises that pass; the exit status is non-zero if any fails.
# `make hint EX=chNN` when you are stuck.
# Usage: grade.sh EX-TEXT EXERCISE...   (the environment: BUILD)
set -u
tool=grade
. "$(dirname "$0")/exercise_names.sh"
exercise_names "$@"
build=${BUILD:-build}
status=0 passed=0
for e in "${names[@]}"; do
    bin=$build/tests/ex_${e}_exercise
    if ! log=$(make --no-print-directory "$bin" 2>&1); then
        echo "FAIL  $e: your code does not compile:"
        grep -E 'error|Error' <<<"$log" | head -n 20 | sed 's/^/      /'
        status=1
        continue
    fi
    out=$("$bin" 2>&1)
    result=$(grep '^RESULT ' <<<"$out" | tail -n1)
    if grep -q 'passed=0 failed=0 skipped=[1-9]' <<<"$result"; then
        echo "SKIP  $e (its test needs a CUDA device)"
    elif grep -q 'failed=0 skipped=0' <<<"$result"; then
        echo "PASS  $e"
        passed=$((passed + 1))
    elif grep -q 'failed=0 ' <<<"$result"; then # some checks could not run here: say which part
        if [ -f "tests/test_ex_$e.cu" ]; then
            echo "PASS  $e (CPU part; GPU part not run: no CUDA device)"
        else
            echo "PASS  $e (the checks run here; $(sed -n 's/.*skipped=//p' <<<"$result") not run: the test's output says why)"
        fi
        passed=$((passed + 1))
    else
        echo "FAIL  $e"
        grep -E ':[EF]:' <<<"$out" | sed 's/^[^:]*:[0-9]*:[EF]:[^:]*:[^:]*:[0-9]*: /      /' | head -n 10
        [ -n "$result" ] || echo "      (the test died: $(tail -n 1 <<<"$out"))"
        echo "      stuck? make hint EX=$e"
        status=1
    fi
done
echo "$passed of ${#names[@]} exercise$([ ${#names[@]} -eq 1 ] || echo s) pass"
exit $status
