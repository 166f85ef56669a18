#!/usr/bin/env bash
# make grade: runs each exercise's test against your code in exercises/chNN.
# PASS or FAIL per exercise (SKIP where the test needs a GPU this machine lacks);
# exits non-zero if any fails.
set -u
status=0
for e in "$@"; do
    out=$(build/tests/ex_${e}_exercise 2>&1)
    result=$(grep '^RESULT ' <<<"$out" | tail -n1)
    if grep -q 'passed=0 failed=0 skipped=[1-9]' <<<"$result"; then
        echo "SKIP  $e (its test needs a CUDA device)"
    elif grep -q 'failed=0 ' <<<"$result"; then
        echo "PASS  $e"
    else
        echo "FAIL  $e"
        grep -E ':[EF]:' <<<"$out" | sed 's/^/      /' | head -n 10
        [ -n "$result" ] || echo "      (the test died: $(tail -n 1 <<<"$out"))"
        status=1
    fi
done
exit $status
