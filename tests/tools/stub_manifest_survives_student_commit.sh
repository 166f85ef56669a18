#!/usr/bin/env bash
# make check-exercises takes the stubs from the manifest by blob id, not from
# the last commit: in a scratch repository whose first commit holds two
# exercises' stubs (text this test writes), a student commits an answer to
# ch01; tools/committed_stubs.sh must still lay out the stub, and
# stubs_manifest.sh check must name the changed file. Then a maintainer
# changes a stub and runs stubs_manifest.sh write without committing: the new
# id is a blob at once, and committed_stubs.sh lays out the new stub.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v git > /dev/null || { echo "no git here"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
commit() { git -c user.name=test -c user.email=test@localhost commit -q "$@" || fail "git commit $*"; }
mkdir -p exercises/ch01 exercises/ch02
printf 'stub vec.c, as handed out\n' > exercises/ch01/vec.c
printf 'stub vec.h\n' > exercises/ch01/vec.h
printf 'stub card.c\n' > exercises/ch02/card.c
git init -q . || fail "git init"
bash tools/stubs_manifest.sh write > write.log 2>&1 || fail "stubs_manifest.sh write: $(cat write.log)"
[ "$(grep -vc '^#' exercises/STUBS)" -eq 3 ] || fail "the manifest does not list the 3 stubs: $(cat exercises/STUBS)"
git add -A && commit -m stubs
bash tools/stubs_manifest.sh check > check.log 2>&1 || fail "check fails on the files it was written from: $(cat check.log)"

printf 'my answer\n' > exercises/ch01/vec.c
git add -A && commit -m "my answer"
bash tools/committed_stubs.sh out exercises/ch01 exercises/ch02 || fail "committed_stubs.sh failed after a student's commit"
[ "$(cat out/ch01/vec.c)" = "stub vec.c, as handed out" ] || fail "after a student's commit, the stub laid out is: $(cat out/ch01/vec.c)"
[ "$(cat out/ch01/vec.h)" = "stub vec.h" ] && [ "$(cat out/ch02/card.c)" = "stub card.c" ] || fail "the other stubs were not laid out"
bash tools/stubs_manifest.sh check > check.log 2>&1 && fail "check passes although exercises/ch01/vec.c is not the stub"
grep -q 'exercises/ch01/vec.c' check.log || fail "check does not name the changed file: $(cat check.log)"
grep -q 'exercises/ch01/vec.h' check.log && fail "check names a file that did not change: $(cat check.log)"

printf 'stub vec.c, second edition\n' > exercises/ch01/vec.c
bash tools/stubs_manifest.sh write > write.log 2>&1 || fail "stubs_manifest.sh write: $(cat write.log)"
id=$(awk '$2 == "exercises/ch01/vec.c" {print $1}' exercises/STUBS)
[ "$(git cat-file -t "$id" 2> /dev/null)" = blob ] || fail "the new stub's id $id is not a blob before it is committed"
bash tools/committed_stubs.sh out exercises/ch01 || fail "committed_stubs.sh failed on the new manifest"
[ "$(cat out/ch01/vec.c)" = "stub vec.c, second edition" ] || fail "the new stub was not laid out: $(cat out/ch01/vec.c)"
echo "the stubs come from the manifest after a student's commit, and a rewritten manifest resolves at once"
