#!/usr/bin/env bash
# make reset EX=chNN in a scratch repository whose first commit holds stubs
# this test writes: after a student commits an answer and adds a file, reset
# puts the stubs back, keeps the student's files in saved/<folder>-<time>/,
# and touches no other exercise; a second reset moves nothing; an unknown or
# missing EX, or a manifest whose blob is missing, changes nothing and fails;
# ch07gpu's folder, shared with ch07, is reset whole and it says so.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v git > /dev/null || { echo "no git here"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
export MAKEFLAGS= CLANG_CUDA= # not the flags of a make this runs under; no clang probe
commit() { git -c user.name=test -c user.email=test@localhost commit -q "$@" || fail "git commit $*"; }
mkdir -p exercises/ch01 exercises/ch07
printf 'stub vec.c\n' > exercises/ch01/vec.c
printf 'stub vec.h\n' > exercises/ch01/vec.h
printf 'stub simd\n' > exercises/ch07/simd_interaction.h
printf 'stub tile\n' > exercises/ch07/tile_loop.cuh
git init -q . && bash tools/stubs_manifest.sh write > /dev/null && git add -A && commit -m stubs

printf 'my answer\n' > exercises/ch01/vec.c
printf 'my notes\n' > exercises/ch01/notes.txt
printf 'my tile\n' > exercises/ch07/tile_loop.cuh
git add -A && commit -m "my answers"
make -s reset EX=ch01 > out 2>&1 || fail "make reset EX=ch01 failed: $(cat out)"
[ "$(cat exercises/ch01/vec.c)" = "stub vec.c" ] || fail "vec.c is not the stub after reset: $(cat exercises/ch01/vec.c)"
[ "$(cat exercises/ch01/vec.h)" = "stub vec.h" ] || fail "vec.h is not the stub after reset"
[ ! -e exercises/ch01/notes.txt ] || fail "the student's added file is still in exercises/ch01/"
saved=(saved/ch01-*)
[ ${#saved[@]} -eq 1 ] && [ -d "${saved[0]}" ] || fail "not one folder saved/ch01-*: ${saved[*]}"
[ "$(cat "${saved[0]}/vec.c")" = "my answer" ] || fail "the student's vec.c was not kept in ${saved[0]}"
[ "$(cat "${saved[0]}/notes.txt")" = "my notes" ] || fail "the student's notes.txt was not kept in ${saved[0]}"
grep -qF "${saved[0]}" out || fail "reset does not say where the student's files went: $(cat out)"
[ "$(cat exercises/ch07/tile_loop.cuh)" = "my tile" ] || fail "reset EX=ch01 changed ch07"

make -s reset EX=ch01 > out 2>&1 || fail "a second reset failed: $(cat out)"
grep -q 'nothing moved' out || fail "a second reset does not say nothing was moved: $(cat out)"
saved=(saved/ch01-*)
[ ${#saved[@]} -eq 1 ] || fail "a second reset, with the stub in place, saved a folder: ${saved[*]}"

for ex in nope ''; do
    make -s reset EX="$ex" > out 2>&1 && fail "make reset EX='$ex' succeeded"
    [ -n "$ex" ] || grep -q usage out || fail "make reset without EX does not say how to use it: $(cat out)"
    [ -z "$ex" ] || grep -q "no exercise 'nope'" out || fail "make reset EX=nope does not say why: $(cat out)"
    [ "$(cat exercises/ch07/tile_loop.cuh)" = "my tile" ] || fail "make reset EX='$ex' changed ch07"
done
[ ! -e saved/ch07-* ] || fail "a refused reset saved a folder"

cp exercises/STUBS good
sed -i 's|^[0-9a-f]* exercises/ch01/vec.h$|0123456789012345678901234567890123456789 exercises/ch01/vec.h|' exercises/STUBS
printf 'my answer again\n' > exercises/ch01/vec.c
make -s reset EX=ch01 > out 2>&1 && fail "reset succeeded with vec.h's blob missing from the manifest"
grep -q 'exercises/STUBS:[0-9]*: blob 0123456789' out || fail "reset does not name the manifest's line: $(cat out)"
[ "$(cat exercises/ch01/vec.c)" = "my answer again" ] || fail "a failed reset changed the student's vec.c"
saved=(saved/ch01-*)
[ ${#saved[@]} -eq 1 ] || fail "a failed reset saved a folder"
[ -z "$(find exercises -name '.reset-*')" ] || fail "a failed reset left its scratch folder"
cp good exercises/STUBS

make -s reset EX=ch07gpu > out 2>&1 || fail "make reset EX=ch07gpu failed: $(cat out)"
[ "$(cat exercises/ch07/tile_loop.cuh)" = "stub tile" ] || fail "reset EX=ch07gpu did not restore tile_loop.cuh"
grep -q 'also holds ch07' out || fail "reset EX=ch07gpu does not say the folder holds ch07 too: $(cat out)"
[ "$(cat saved/ch07-*/tile_loop.cuh)" = "my tile" ] || fail "the student's tile_loop.cuh was not kept"
# exercises/ch01 a symbolic link to the student's own folder: refused, saying
# so (the stubs would go into the student's folder, or the link be moved and
# its relative target break), the link and the student's files as they were,
# no empty folder left under saved/.
mkdir -p ../elsewhere/ch01 && printf 'my own\n' > ../elsewhere/ch01/vec.c || fail "cannot make the student's folder"
rm -rf exercises/ch01 && ln -s ../../elsewhere/ch01 exercises/ch01 || fail "cannot link exercises/ch01"
ls saved > before.saved
make -s reset EX=ch01 > out 2>&1 && fail "make reset EX=ch01 succeeded with exercises/ch01 a symbolic link: $(cat out)"
grep -q 'exercises/ch01 is a symbolic link' out || fail "reset does not say exercises/ch01 is a link: $(cat out)"
grep -q 'mv:' out && fail "reset gave mv's error, not its own: $(cat out)"
[ -L exercises/ch01 ] && [ "$(cat exercises/ch01/vec.c)" = "my own" ] || fail "reset changed the link or the student's files"
ls saved | cmp -s - before.saved || fail "reset left a folder under saved/: $(ls saved)"
rm exercises/ch01 && git checkout -q -- exercises/ch01 || fail "cannot put exercises/ch01 back"
echo "reset put the stubs back after a commit, kept the student's files in saved/, and refused what it should"
