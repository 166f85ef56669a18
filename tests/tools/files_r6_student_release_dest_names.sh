#!/usr/bin/env bash
# make student-release's up-front check of DEST, round 6 (nothing lost, item
# 5): DEST=-rel (a name that starts with a dash) made dirname say "invalid
# option" instead of the reason; and a DEST in a folder whose owner's write
# bit is clear (0555) was taken by root, for whom -w says yes whatever the
# mode (the copy was made in it). Now DEST=-rel is a name like any other,
# refused as inside this checkout with no option error; a new DEST, and an
# empty folder as DEST, in a 0555 folder are refused up front (exit 2, the
# folder's mode said), nothing made there or beside it. A release check that
# fails (RELEASE_CHECK) stands in for the release's make check, so a DEST
# that is wrongly taken fails quickly.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_release
release_scratch "$1"
trap 'chmod 0755 "$scratch/ro" 2> /dev/null; rm -rf "$scratch"' EXIT
# what a refused release left: in the checkout, or in the 0555 folder (but its empty folder)
left() { ls -d "$root"/-rel* "$root"/*.tmp.* 2> /dev/null; find "$scratch/ro" -mindepth 1 ! -path "$scratch/ro/empty" 2> /dev/null; }
[ -z "$(left)" ] || fail "scratch copies of an earlier release are in the way: $(left)"
# refused DEST WANT: make student-release DEST is refused up front (make's exit 2), saying WANT, nothing made
refused() {
    (cd "$root" && make -s student-release DEST="$1" RELEASE_CHECK='exit 3') > "$scratch/log" 2>&1
    local rc=$?
    [ $rc -eq 2 ] || fail "DEST=$1: exit $rc, not 2: $(tail -n 3 "$scratch/log")"
    grep -q "^student-release: .*$2" "$scratch/log" || fail "DEST=$1: not said why ($2): $(cat "$scratch/log")"
    ! grep -q 'invalid option\|unrecognized option' "$scratch/log" || fail "DEST=$1 was taken for an option: $(cat "$scratch/log")"
    ! grep -q 'running .* in the release' "$scratch/log" || fail "DEST=$1: the release was made before the refusal"
    [ -z "$(left)" ] || fail "DEST=$1 left $(left)"
}
refused -rel "is inside this checkout"
refused -rel/ "is inside this checkout"
mkdir -p "$scratch/ro/empty" && chmod 0555 "$scratch/ro" || exit 1
refused "$scratch/ro/release" "its folder cannot be written: '$scratch/ro' is read-only (mode 555)"
refused "$scratch/ro/empty" "its folder cannot be written: '$scratch/ro' is read-only (mode 555)"
[ -d "$scratch/ro/empty" ] || fail "the empty folder DEST in the 0555 folder was removed"
echo "student-release took DEST=-rel as a name, and refused a DEST in a 0555 folder (root too) before making anything"
