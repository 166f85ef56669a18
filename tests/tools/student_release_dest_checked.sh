#!/usr/bin/env bash
# make student-release's up-front check of DEST means what it says (issue
# 65): an empty folder written as empty/. (or empty/./) or empty/.., a DEST
# inside this checkout, and one inside it through a symbolic link are each
# refused before anything is made (exit 2, saying why): no release, no
# scratch copy beside DEST or in the checkout, the empty folder still empty.
# (They passed: the whole copy was made, then its rename failed, or the
# release was a repository inside the course's.) A release check that fails
# (RELEASE_CHECK) stands in for the release's make check, so a DEST that is
# wrongly taken fails quickly.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_release
release_scratch "$1"
mkdir "$scratch/empty" && ln -s "$root" "$scratch/course" || fail "cannot make the DEST fixtures"
inside=$root/release-inside-$$
left() { ls -d "$root"/*.tmp.* "$root"/.*.tmp.* "$scratch"/*.tmp.* "$scratch"/empty/* "$scratch"/empty/.[!.]* "$inside"* 2> /dev/null; }
[ -z "$(left)" ] || fail "scratch copies of an earlier release are in the way: $(left)"
# refused DEST WANT: student-release DEST is refused up front, saying WANT
refused() {
    (cd "$root" && RELEASE_CHECK='exit 3' bash tools/student_release.sh "$1") > "$scratch/log" 2>&1 # its own status: make's is 2 for any failure
    local rc=$?
    [ $rc -eq 2 ] || fail "DEST=$1: exit $rc, not 2: $(tail -n 3 "$scratch/log")"
    grep -q "^student-release: .*$2" "$scratch/log" || fail "DEST=$1: not said why ($2): $(cat "$scratch/log")"
    [ -z "$(left)" ] || fail "DEST=$1 left $(left)"
}
refused "$scratch/empty/." "ends in '.' or '..'"
refused "$scratch/empty/./" "ends in '.' or '..'"
refused "$scratch/empty/.." "ends in '.' or '..'"
refused "$inside" "is inside this checkout"
refused "$scratch/course/release" "is inside this checkout"
echo "student-release refused DEST ending in . or .., and DEST inside the checkout (directly or through a link), before making anything"
