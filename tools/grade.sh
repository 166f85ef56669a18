#!/usr/bin/env bash
# make grade [EX=chNN]: runs each exercise's test against your code in
# exercises/. PASS or FAIL per exercise (SKIP where the test needs a GPU this
# machine lacks), with the test's own got / want lines for a FAIL; exits
# non-zero if any fails. `make hint EX=chNN` when you are stuck.
set -u
status=0
for e in "$@"; do
    bin=build/tests/ex_${e}_exercise
    if [ ! -x "$bin" ]; then
        echo "FAIL  $e: your code does not compile (the compiler's errors are above)"
        status=1
        continue
    fi
    out=$("$bin" 2>&1)
    result=$(grep '^RESULT ' <<<"$out" | tail -n1)
    if grep -q 'passed=0 failed=0 skipped=[1-9]' <<<"$result"; then
        echo "SKIP  $e (its test needs a CUDA device)"
    elif grep -q 'failed=0 ' <<<"$result"; then
        echo "PASS  $e"
    else
        echo "FAIL  $e"
        grep -E ':[EF]:' <<<"$out" | sed 's/^[^:]*:[0-9]*:[EF]:[^:]*:[^:]*:[0-9]*: /      /' | head -n 10
        [ -n "$result" ] || echo "      (the test died: $(tail -n 1 <<<"$out"))"
        echo "      stuck? make hint EX=$e"
        status=1
    fi
done
exit $status
