#!/usr/bin/env bash
# The tools that read the chapter registry (eval "$(make -s print-registry)")
# check that it loaded: eval of empty text succeeds, so a make that prints
# nothing (a Makefile without the target, a make that says nothing) must be
# caught by what the registry always defines. With a stand-in make that
# exits 0 and prints nothing, bench.sh, hint.sh and chapter_diff.sh each exit
# 2 saying the registry did not load, never "unbound variable", and bench
# writes nothing.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
mkdir -p "$scratch/bin" && printf '#!/bin/sh\nexit 0\n' > "$scratch/bin/make" && chmod +x "$scratch/bin/make" || exit 1
check() { # NAME COMMAND...: exit 2, the registry named, no unbound variable
    local name=$1
    shift
    PATH=$scratch/bin:$PATH "$@" > "$scratch/out" 2>&1
    local rc=$?
    [ $rc -eq 2 ] || fail "$name with an empty registry: exit $rc, not 2: $(head -n 3 "$scratch/out")"
    grep -q 'registry did not load' "$scratch/out" || fail "$name does not say the registry did not load: $(head -n 3 "$scratch/out")"
    grep -q 'unbound variable' "$scratch/out" && fail "$name stopped on an unbound variable: $(head -n 3 "$scratch/out")"
    return 0
}
check bench.sh bash tools/bench.sh
[ ! -e mine ] && [ ! -e data/results ] || fail "bench.sh wrote results with an empty registry"
check hint.sh bash tools/hint.sh ch01 ch01
check chapter_diff.sh bash tools/chapter_diff.sh ch01 ch02
echo "bench.sh, hint.sh and chapter_diff.sh refuse an empty registry (exit 2), saying so"
