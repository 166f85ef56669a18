#!/usr/bin/env bash
# make check passes wherever a user puts the checkout: here a copy of it at
# "<mktemp -d>/read only/my course": a folder of mode 0700 above it (root's
# home, or mktemp -d, as a class's root-run VM has), a space in its path, and
# a parent folder of mode 0555. A representative part of make check runs from
# there: ch03 built and its suite run through tools/run_tests.sh, and the test
# that runs programs as another user (cpu_times_come_from_the_work.sh: that
# user cannot read the checkout) with ch08 rebuilt in the copy, so the scene
# path it was built with is the copy's. Nothing may be written beside the
# checkout (root ignores the 0555, so the parent's listing is compared).
# The copy reuses the CUDA objects of this checkout's build (BUILD, else
# build/): nvcc takes minutes on 2 cores; the C objects, which carry the
# checkout's path, are rebuilt.
set -u
build=${BUILD:-build}
needed=(ch03 ch06 ch07 ch08 ch10)
if [ "${1:-}" = --can-run ]; then
    for p in "${needed[@]}"; do [ -x "./$p" ] || { echo "./$p is not built (make $p)"; exit 77; }; done
    [ -d "$build/ch08" ] || { echo "$build/ch08 is not built (make ch08)"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
root=$PWD
scratch=$(mktemp -d) || exit 1
trap 'chmod -R u+w "$scratch" 2> /dev/null; rm -rf "$scratch"' EXIT
chmod 0700 "$scratch"
parent="$scratch/read only"
repo="$parent/my course"
mkdir -p "$repo" || exit 1
tar -C "$root" -cf - Makefile chapters common tests tools exercises solutions data/scenes data/reference |
    tar -C "$repo" -xf - || fail "cannot copy the checkout"
# The build's CUDA objects (each built from a .cu: none carries a path) and
# the nvcc settings they were built with, mtimes kept, so make reuses them.
cuda_objects() { # the build's objects whose source is a .cu, relative to the build
    local o base
    (cd "$root/$build" && find . -name '*.o') | while IFS= read -r o; do
        base=$(basename "$o" .o)
        [ -z "$(find "$root/chapters" "$root/common" -name "$base.cu" -print -quit)" ] || echo "$o"
    done
}
mkdir -p "$repo/build" && (cd "$root/$build" && cuda_objects | tar -cf - -T - nvcc-config.txt) | tar -C "$repo/build" -xf - ||
    fail "cannot copy $build's CUDA objects"
chmod 0555 "$parent"
before=$(ls -A "$parent")
cd "$repo" || exit 1
export CLANG_CUDA= BUILD=build
# Its own make's flags only (not make check's, through MAKEFLAGS), and WERROR
# as the objects were built (nvcc's settings must match, or it rebuilds them all).
unset MAKEFLAGS MFLAGS MAKELEVEL
werror=$(grep -q -e '-Werror=all-warnings' build/nvcc-config.txt 2> /dev/null && echo 1)
make -j2 --no-print-directory WERROR="$werror" ch03 ch06 ch07 ch08 ch10 build/tests/test_ch03 > build.log 2>&1 ||
    fail "the build under '$repo' failed: $(tail -n 5 build.log)"
said=$(tools/run_tests.sh --suites build/tests/test_ch03 2>&1) || fail "ch03's suite under '$repo': $(tail -n 5 <<<"$said")"
grep -qE '^[1-9][0-9]* passed, 0 failed' <<<"$said" || fail "ch03's suite under '$repo' ends: $(tail -n 1 <<<"$said")"
said=$(bash tests/tools/cpu_times_come_from_the_work.sh "$repo" 2>&1) ||
    fail "cpu_times_come_from_the_work.sh under '$repo': $(tail -n 3 <<<"$said")"
grep -q '(not run' <<<"$said" && [ "$(id -u)" = 0 ] && fail "as root, its other-user half did not run: $said"
[ "$(ls -A "$parent")" = "$before" ] || fail "something was written beside the checkout: $(ls -A "$parent")"
echo "a checkout under a 0700 folder, a space and a read-only parent builds, passes ch03's suite and the other-user test"
