#!/usr/bin/env bash
# make_dry_run.sh PROJECT: `make -n TARGET` exits 0 for every target `make help`
# lists, and `make -n CUDA_COMPILER=clang chNN` for every GPU chapter where a
# clang compiles CUDA, on a copy of PROJECT without its build folders, as a
# fresh clone has it (make -n must not need what a build would make first),
# and writes nothing there but the clang probe's cache (build/.probe, which
# every make reads or writes first). Prints each failure with its output;
# exits 1 if any failed.
set -u
work=$(mktemp -d /tmp/make_dry_run.XXXXXX) || exit 2
trap 'rm -rf "$work"' EXIT
tar -C "$1" --exclude=./.git --exclude=./build --exclude=./build-clang --exclude=./build-san -cf - . |
    tar -C "$work" -xf - || exit 2
cd "$work" || exit 2
export MAKEFLAGS= # not the flags of a make this runs under
help=$(make -s help) || { echo "make help failed"; exit 1; }
# "  make T ...", "  make T / U ...": T (and U) is a target; chNN, every chapter.
runs=()
for t in $(sed -n 's|^  make \([a-zA-Z0-9-]*\)\( / \([a-z0-9-]*\)\)\{0,1\} .*|\1 \3|p' <<<"$help"); do
    if [ "$t" = chNN ]; then runs+=($(make -s print-chapters)); else runs+=("$t"); fi
done
if grep -q 'CUDA_COMPILER=clang' <<<"$help" && ! grep -q 'CLANG_CUDA=none' <<<"$help"; then
    eval "$(make -s print-registry)" || exit 2
    for c in $CHAPTERS; do
        gpu=${c}_GPU
        [ "${!gpu}" = none ] || runs+=("CUDA_COMPILER=clang:$c")
    done
fi
[ ${#runs[@]} -gt 10 ] || { echo "make help listed only: ${runs[*]}"; exit 1; }
find build -mindepth 1 -maxdepth 1 ! -name .probe -exec rm -rf {} + # print-registry wrote build/registry.sh
# Four at a time (make -n writes nothing, so they cannot collide): each reads
# the whole registry, a second or more.
mkdir .dry-runs
i=0
for run in "${runs[@]}"; do
    i=$((i + 1))
    { make -n ${run/:/ } > .dry-runs/$i.out 2>&1 || echo "${run/:/ }" > .dry-runs/$i.failed; } &
    while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
done
wait
failed=0
for f in .dry-runs/*.failed; do
    [ -e "$f" ] || continue
    echo "make -n $(cat "$f") failed:"
    tail -n 20 "${f%.failed}.out"
    failed=1
done
written=$(find build build-clang build-san -path build/.probe -prune -o ! -type d -print 2>/dev/null)
[ -z "$written" ] || { echo "make -n wrote: $written"; failed=1; }
echo "make -n: ${#runs[@]} targets"
exit $failed
