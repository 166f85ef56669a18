#!/usr/bin/env bash
# Part of `make sanitize`: Valgrind's memcheck over ch01-ch03 at a small size.
# Any invalid access, use of uninitialised memory or leak fails (valgrind exits
# 97 then); each run must end with the exit status it is meant to (2 for bad input).
set -u
if ! command -v valgrind >/dev/null; then echo "valgrind-check: valgrind not installed: skipped"; exit 0; fi
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
check ch01 0 ./ch01 --width 9 --height 7 --spp 1 --quiet --out build/valgrind/ch01.ppm
# ch02's -march=native builds may use AVX-512, which Valgrind cannot execute:
# run its portable builds (the code is the same card.c).
for stage in gcc-O0 gcc-O2 gcc-O3; do
    check ch02-$stage 0 ./ch02 --stage $stage --width 5 --height 3 --spp 1 --quiet --out build/valgrind/ch02.ppm
done
check ch03 0 ./ch03 --width 9 --height 7 --spp 1 --threads 3 --quiet --out build/valgrind/ch03.ppm
check ch03-bad-input 2 ./ch03 --width 12x
echo "valgrind-check: $failures failures"
[ $failures -eq 0 ]
