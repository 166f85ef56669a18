#!/usr/bin/env bash
# make student-release DEST=... into a scratch folder, then in the release:
# no solutions/ or tests/wrong/; no distinctive line of any solution anywhere
# (a line of 20 characters or more, blanks squeezed, that is in the solution
# but not in its stub as the manifest has it, nor in chapters/ or common/,
# which the release must keep); the last hint of each exercise absent, the
# others there; the stubs are the manifest's, committed in the release's one
# commit (the manifest's ids resolve); make -n check works and names no
# solution; the manifest's own tests pass there; make check-exercises says it
# is not in a student release; and make grade EX=ch01 builds and FAILs the stub.
# make student-release runs the release's make check in the copy before it
# hands it over; here a reduced check (RELEASE_CHECK: common/'s suite, and
# the one tools test that needs solutions/ skipping cleanly) stands in for it.
# Its README says nothing of solutions/ that is untrue there. The up-front
# check of DEST: an empty folder given with a trailing slash is taken; a
# non-empty folder, a file, a link to an empty folder and a dangling link are
# refused (exit 2) before anything is made; a release whose check fails
# leaves nothing behind (neither DEST nor its scratch copy).
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_release
root=$(cd "$1" && pwd) || exit 1
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
export MAKEFLAGS= CLANG_CUDA= # not the flags of a make this runs under; no clang probe
rel=$scratch/release
norm() { tr -s ' \t' ' ' | sed 's/^ //; s/ $//'; }

# Refused up front: nothing made beside or in DEST.
mkdir -p "$scratch/full" "$scratch/empty" && : > "$scratch/full/x" && : > "$scratch/file" &&
    ln -s empty "$scratch/link-to-empty" && ln -s nowhere "$scratch/dangling" || fail "cannot make the DEST fixtures"
for d in full/ file link-to-empty link-to-empty/ dangling; do
    (cd "$root" && make -s student-release DEST="$scratch/$d") > "$scratch/refused.log" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "DEST=$d: exit $rc, not 2: $(tail -n 3 "$scratch/refused.log")"
    grep -q 'exists and is not an empty folder' "$scratch/refused.log" || fail "DEST=$d: not said why: $(cat "$scratch/refused.log")"
done
[ -z "$(ls "$scratch/empty")" ] && [ -z "$(ls -d "$scratch"/*.tmp.* 2> /dev/null)" ] || fail "a refused DEST left files behind"
# A release whose check fails: nothing left, DEST=new/ (the slash) included.
(cd "$root" && make -s student-release DEST="$scratch/new/" RELEASE_CHECK='echo checking; exit 3') > "$scratch/failed.log" 2>&1 &&
    fail "a release whose check failed was made"
grep -q "'echo checking; exit 3' failed in the release" "$scratch/failed.log" || fail "a failed check not said: $(tail -n 3 "$scratch/failed.log")"
[ ! -e "$scratch/new" ] && [ -z "$(ls -d "$scratch"/new.tmp.* 2> /dev/null)" ] || fail "a failed release left $(ls -d "$scratch"/new*)"

mkdir "$rel" || exit 1 # an empty folder, given with a trailing slash
check='make -s build/tests/test_common && build/tests/test_common && { bash tests/tools/grade_result_file.sh --can-run; [ $? -eq 77 ]; }'
(cd "$root" && make -s student-release DEST="$rel/" RELEASE_CHECK="$check") > "$scratch/make.log" 2>&1 || fail "make student-release failed: $(tail -n 5 "$scratch/make.log")"
grep -q "passed in the release" "$scratch/make.log" || fail "make student-release did not say its check passed: $(tail -n 5 "$scratch/make.log")"
[ -z "$(ls -d "$scratch"/release?* 2> /dev/null)" ] || fail "the release left $(ls -d "$scratch"/release?*)"
[ ! -e "$rel/build" ] || fail "the release's check left its build/ in the release"
untrue=$(grep -n 'solutions/' "$rel/README.md" | grep -v 'left out\|not in')
[ -z "$untrue" ] || fail "the release's README says of solutions/: $untrue"
[ ! -e "$rel/solutions" ] || fail "the release has solutions/"
[ ! -e "$rel/tests/wrong" ] || fail "the release has tests/wrong/"

# The release is one commit holding everything, the manifest's stubs among it.
[ "$(git -C "$rel" rev-list --count HEAD)" = 1 ] || fail "the release's repository has not exactly one commit"
[ -z "$(git -C "$rel" status --porcelain)" ] || fail "files of the release are not committed: $(git -C "$rel" status --porcelain | head -n 5)"
stubs=0
while read -r id path; do
    case $id in '#'* | '') continue ;; esac
    [ "$(git -C "$rel" cat-file -t "$id" 2> /dev/null)" = blob ] || fail "the manifest's $id ($path) is not a blob in the release"
    cmp -s <(git -C "$root" cat-file blob "$id") "$rel/$path" || fail "the release's $path is not the manifest's stub"
    stubs=$((stubs + 1))
done < "$root/exercises/STUBS"
[ "$stubs" -gt 0 ] || fail "the manifest lists no stub"

# Every text line of the release, and the lines of the course's programs.
grep -rIh --exclude-dir=.git '' "$rel" | norm | sort -u > "$scratch/release.lines"
(cd "$root" && git grep -h -I -e '' -- chapters common) | norm | sort -u > "$scratch/programs.lines"
looked=0
for sol in $(cd "$root" && git ls-files solutions); do
    stub=exercises/${sol#solutions/}
    id=$(awk -v p="$stub" '$2 == p {print $1}' "$root/exercises/STUBS")
    git -C "$root" cat-file blob "$id" 2> /dev/null | norm | sort -u > "$scratch/stub.lines"
    norm < "$root/$sol" | awk 'length >= 20' | sort -u | comm -23 - "$scratch/stub.lines" |
        comm -23 - "$scratch/programs.lines" > "$scratch/distinctive"
    looked=$((looked + $(wc -l < "$scratch/distinctive")))
    found=$(comm -12 "$scratch/distinctive" "$scratch/release.lines")
    [ -z "$found" ] || fail "the release holds lines of $sol: $found"
done
[ "$looked" -gt 0 ] || fail "no solution has a line of its own to look for"

# The last hint: none of its lines anywhere; the first hint still there.
hints=0
for h in "$root"/tests/hints/*.txt; do
    last=$(grep -c '^---$' "$h")
    [ "$last" -gt 0 ] || continue
    awk -v k="$last" '/^---$/ {n++; next} n == k' "$h" | norm | awk 'length >= 20' | sort -u > "$scratch/last"
    found=$(comm -12 "$scratch/last" "$scratch/release.lines")
    [ -z "$found" ] || fail "the release holds the last hint of tests/hints/${h##*/}: $found"
    grep -qxF "$(head -n 1 "$h")" "$rel/tests/hints/${h##*/}" || fail "the release's tests/hints/${h##*/} lost its first hint"
    hints=$((hints + 1))
done
[ "$hints" -gt 0 ] || fail "no hint file with more than one hint to check"

cd "$rel" || exit 1
make -n check > "$scratch/n.log" 2>&1 || fail "make -n check fails in the release: $(tail -n 5 "$scratch/n.log")"
grep -q 'solutions/' "$scratch/n.log" && fail "make -n check in the release names solutions/: $(grep -m 3 'solutions/' "$scratch/n.log")"
for t in tests/tools/stub_manifest_*.sh; do # the manifest's own tests, as the release's make check runs them
    bash "$t" "$rel" > "$scratch/t.log" 2>&1 || fail "in the release, $t fails: $(tail -n 3 "$scratch/t.log")"
done
make -s check-exercises > "$scratch/ce.log" 2>&1 && fail "make check-exercises succeeded in the release"
grep -q 'not in a student release' "$scratch/ce.log" || fail "make check-exercises does not say why: $(cat "$scratch/ce.log")"
nice make -s grade EX=ch01 > "$scratch/grade.log" 2>&1 && fail "make grade EX=ch01 passed the stub"
grep -q 'does not compile' "$scratch/grade.log" && fail "the ch01 stub does not compile in the release: $(tail -n 15 "$scratch/grade.log")"
grep -q '^FAIL  ch01' "$scratch/grade.log" && grep -q '^0 passed, 1 failed, of 1$' "$scratch/grade.log" ||
    fail "make grade EX=ch01 did not FAIL the stub: $(tail -n 10 "$scratch/grade.log")"
echo "release: $stubs stubs, no solution ($looked distinctive lines looked for), $hints last hints withheld; make -n check works, grade FAILs the ch01 stub"
