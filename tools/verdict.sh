# shellcheck shell=bash
# Sourced by grade.sh and run_tests.sh: runs one test binary and takes its
# verdict from a channel the code under test cannot forge, never from its
# output (which that code can print into) nor from its exit status alone
# (which an exit(0) or an atexit handler can set).
#
# How (tests/harness.h, "The verdict", is the other half): two fresh random
# secrets go into a private file, opened on file descriptor 9 for the binary
# alone. The harness reads them in a constructor that runs before any of the
# code under test, empties the file, and at the end writes the RESULT line
# there, followed by the first secret if every test passed and ran to its end,
# by the second if all that ran did but some were skipped, by neither on a
# failure. So a pass must show a secret that only a finished, passing run of
# the harness could know, the counts that secret stands for, and exit status 0.
#
# verdict_run BINARY [NAME=VALUE...]: runs BINARY (with those variables in its
# environment, and the file VERDICT_INPUT, if set, open on descriptor 3) and sets
#   out      what it printed (stdout and stderr, for showing Check's messages)
#   status   its exit status
#   verdict  pass (every test passed) | part (passed, some skipped here) | fail
#   result   "RESULT name passed=P failed=F skipped=S" from the channel,
#            without its secret; empty when the harness wrote none
#   why      for a fail that is not a counted test failure: what went wrong
verdict_secret() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }

verdict_run() {
    local bin=$1 dir full part line
    shift
    dir=$(mktemp -d) || { out='' status=2 verdict=fail result='' why="mktemp failed"; return; }
    full=$(verdict_secret) part=$(verdict_secret)
    printf '%s %s\n' "$full" "$part" > "$dir/channel"
    out=$({ [ $# -eq 0 ] || export "$@"; } && HARNESS_VERDICT_FD=9 exec "$bin" 9<>"$dir/channel" 3<"${VERDICT_INPUT:-/dev/null}" 2>&1)
    status=$?
    line=$(head -n 1 "$dir/channel")
    rm -rf "$dir"
    verdict_judge "$line" "$full" "$part"
}

# verdict_judge LINE FULL-SECRET PART-SECRET: sets verdict, result, why (and
# reads status) as verdict_run says.
verdict_judge() {
    local line=$1 full=$2 part=$3 re='^RESULT .+ passed=[0-9]+ failed=[0-9]+ skipped=[0-9]+'
    verdict=fail why=
    result=$(grep -oE "$re" <<<"$line")
    if [ -z "$result" ]; then
        why="the test did not run to its end (no verdict from its harness; status $status)"
    elif [ "$line" = "$result $full" ] && [[ $result == *" failed=0 skipped=0" ]]; then
        verdict=pass
    elif [ "$line" = "$result $part" ] && [[ $result =~ \ failed=0\ skipped=[1-9][0-9]*$ ]]; then
        verdict=part
    elif [[ $result == *" failed=0 "* ]]; then
        why="its verdict was not the harness's own (no secret, or not the one its counts earn)"
        result=
    fi
    if [ "$verdict" != fail ] && [ "$status" -ne 0 ]; then
        verdict=fail why="the harness reported a pass, but the program then ended with status $status"
    fi
}

# verdict_count WHICH: P, F or S of $result (0 if none); a fail counts at least one failure.
verdict_count() {
    local n
    n=$(sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$result")
    n=${n:-0}
    if [ "$1" = failed ] && [ "$verdict" = fail ] && [ "$n" -eq 0 ]; then n=1; fi
    echo "$n"
}
