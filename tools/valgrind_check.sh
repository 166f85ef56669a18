#!/usr/bin/env bash
# Part of `make sanitize`: Valgrind's memcheck over the chapters that register
# chNN_VALGRIND argument sets, at small sizes. Any invalid access, use of
# uninitialised memory or leak fails (valgrind exits 97 then); each run must
# end with the exit status it is meant to (2 for the bad-input run).
set -u
if ! command -v valgrind >/dev/null; then echo "valgrind-check: valgrind not installed: skipped"; exit 0; fi
eval "$(make -s print-registry)" || exit 2
mkdir -p build/valgrind
failures=0
check() { # name expected-exit-status program args...
    local name=$1 want=$2 status
    shift 2
    valgrind --quiet --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --track-origins=yes "$@" > "build/valgrind/$name.log" 2>&1
    status=$?
    if [ $status -eq "$want" ]; then
        echo "  ok    valgrind $name"
    else
        echo "  FAIL  valgrind $name: exit $status, expected $want (build/valgrind/$name.log)"
        grep -m 10 '==' "build/valgrind/$name.log"
        failures=$((failures + 1))
    fi
}
for ch in $CHAPTERS; do
    sets=${ch}_VALGRIND ray=${ch}_RAYTRACER
    [ -n "${!sets}" ] || continue
    out=()
    [ "${!ray}" = yes ] && out=(--quiet --out "build/valgrind/$ch.ppm")
    IFS=';' read -ra argsets <<<"${!sets}"
    k=0
    for a in "${argsets[@]}"; do
        k=$((k + 1))
        # shellcheck disable=SC2086 # an argument set is words
        check "$ch-$k" 0 ./"$ch" $a "${out[@]}"
    done
    check "$ch-bad-input" 2 ./"$ch" --width 12x
done
echo "valgrind-check: $failures failures"
[ $failures -eq 0 ]
