#!/usr/bin/env bash
# make grade: runs each exercise's test against your code in exercises/chNN.
# Prints PASS or FAIL per exercise; exits non-zero if any fails.
set -u
status=0
for e in "$@"; do
    out=$(build/tests/ex_${e}_exercise 2>&1)
    if grep -q '^RESULT .* failed=0 ' <<<"$out"; then
        echo "PASS  $e"
    else
        echo "FAIL  $e"
        grep -E ':[EF]:' <<<"$out" | sed 's/^/      /' | head -n 10
        status=1
    fi
done
exit $status
