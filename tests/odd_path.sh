#!/usr/bin/env bash
# tests/odd_path.sh: the graders work in a checkout whose path has a space, a
# quote and a $ in it. Copies this tree (committed files plus uncommitted
# changes, no build folders) to "<tmp>/a dir's $path/course", and there
# grades solutions/ (tools/judge.sh, as make grade does) with the exercise
# tests that compile code themselves (ch02, ch03: its -include and TSan build, ch05 and ch07gpu: nvcc
# -ptx, ch09) and a plain C one (ch01), then `make grade EX=ch01`. Prints one
# "ok"/"FAIL" line each and a closing "N passed, N failed, N skipped"; exit
# status non-zero if any failed. make check-exercises runs it (a few minutes
# on a loaded machine: ODD_PATH_EXERCISES="ch01" makes it one exercise).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
exercises=${ODD_PATH_EXERCISES:-ch01 ch02 ch03 ch05 ch07gpu ch09}
base=$(mktemp -d) || exit 2
trap 'rm -rf "$base"' EXIT
root="$base/a dir's \$path/course"
mkdir -p "$root"

# The working tree as git sees it (tracked and untracked, not ignored), so
# build outputs stay behind; outside git, everything but the build folders.
if git -C "$here" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    (cd "$here" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$root" 2>/dev/null)
else
    tar -C "$here" --exclude=./build --exclude=./build-clang --exclude=./build-san -cf - . | tar -C "$root" -xf -
fi
[ -f "$root/Makefile" ] || { echo "odd_path: could not copy the tree to $root"; exit 2; }

cd "$root" || exit 2
# The judges are built from the stubs as handed out, read by blob id (exercises/STUBS): the copy's own git holds them
git init -q . && git hash-object -w $(sed -n 's/^[0-9a-f]* //p' exercises/STUBS) > /dev/null ||
    { echo "odd_path: cannot write the stubs' blobs in $root"; exit 2; }
passed=0 failed=0 skipped=0
nvcc_here() { command -v nvcc > /dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }

. tools/judge.sh
for e in $exercises; do
    case $e in ch05 | ch07gpu) nvcc_here || { echo "  skip  $e: no nvcc here"; skipped=$((skipped + 1)); continue; } ;; esac
    if ! log=$(make --no-print-directory -j2 judges JUDGE_TARGETS="build/tests/ex_${e}_stub build/sandbox" 2>&1); then
        echo "  FAIL  $e: its judge does not build under '$root':"; tail -n 15 <<<"$log"
        failed=$((failed + 1)); continue
    fi
    if out=$(tools/run_tests.sh --exercises "$e=solutions/$(judge_registry; judge_dir "$e")" 2>&1); then
        echo "  ok    $e: the solution passes under '$root'"; passed=$((passed + 1))
    else
        echo "  FAIL  $e: the solution fails under '$root':"; tail -n 25 <<<"$out"; failed=$((failed + 1))
    fi
done

cp solutions/ch01/* exercises/ch01/
if out=$(make --no-print-directory grade EX=ch01 2>&1) && grep -q '^1 passed, 0 failed, of 1$' <<<"$out"; then
    echo "  ok    make grade EX=ch01 under '$root'"; passed=$((passed + 1))
else
    echo "  FAIL  make grade EX=ch01 under '$root':"; tail -n 15 <<<"$out"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
