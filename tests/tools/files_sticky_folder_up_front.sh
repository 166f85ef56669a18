#!/usr/bin/env bash
# In a folder with the sticky bit (/tmp), a file of another user's that you
# may write (mode 0666) still cannot be renamed over: only its owner, the
# folder's or root may. -w does not say so, and the rename failed only after
# the work was done (nothing lost, round 5, item C). Now each tool that
# replaces a file by a rename refuses it up front (exit 2), the work not done
# and the file as it was: tools/write_checked.sh (make host-record) before its
# command runs, make hint before it gives a hint, make grade GRADE_OUT=
# before it grades. Run as an ordinary user (uid 65534) beside a file of
# uid 65533, which only root can set up: skipped otherwise.
set -u
if [ "${1:-}" = --can-run ]; then
    [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null ||
        { echo "needs root and setpriv (to run as one user beside another's file)"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
tar -C "$1" -cf - tests/hints common exercises | tar -C "$repo" -xf - || fail "cannot copy the hints"
chmod 0755 "$scratch" && chown -R 65534:65534 "$repo" || exit 1
sticky=$scratch/tmp
mkdir "$sticky" && chmod 1777 "$sticky" || exit 1
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$sticky" CLANG_CUDA= "$@"; }
# theirs NAME TEXT: a file of uid 65533's in the sticky folder, that anyone may write
theirs() { printf '%s\n' "$2" > "$sticky/$1" && chown 65533:65533 "$sticky/$1" && chmod 0666 "$sticky/$1" || exit 1; }
cd "$repo" || exit 1

theirs host.txt "their host record"
as_user bash tools/write_checked.sh "$sticky/host.txt" sh -c "touch '$sticky/ran'; echo mine" > "$scratch/said" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "write_checked: exit $rc, not 2: $(cat "$scratch/said")"
grep -q "host.txt belongs to .* a folder with the sticky bit" "$scratch/said" || fail "write_checked did not say why: $(cat "$scratch/said")"
[ ! -e "$sticky/ran" ] || fail "write_checked ran its command before refusing"
[ "$(cat "$sticky/host.txt")" = "their host record" ] || fail "write_checked changed their file"

theirs ch01 1
as_user env HINTS_DIR="$sticky" bash tools/hint.sh ch01 ch01 ch02 > "$scratch/said" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "hint: exit $rc, not 2: $(cat "$scratch/said")"
grep -q "hint: $sticky/ch01 belongs to .* sticky bit" "$scratch/said" || fail "hint did not say why: $(cat "$scratch/said")"
! grep -q '^hint 2 of' "$scratch/said" || fail "hint gave a hint before refusing: $(cat "$scratch/said")"
[ "$(cat "$sticky/ch01")" = 1 ] || fail "hint changed their count"

theirs g.csv student,commit,machine,gpu,date,exercise,verdict,messages,answer
as_user env GRADE_OUT="$sticky/g.csv" STUDENT=ann BUILD=build bash tools/grade.sh ch01 ch01 ch02 > "$scratch/said" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "grade: exit $rc, not 2: $(cat "$scratch/said")"
grep -q "grade: GRADE_OUT=$sticky/g.csv belongs to .* sticky bit" "$scratch/said" || fail "grade did not say why: $(cat "$scratch/said")"
[ ! -e build/tests ] || fail "grade built the judges before refusing"
[ "$(stat -c %u "$sticky/g.csv")" = 65533 ] || fail "grade replaced their grade file"

# your own file in the sticky folder is yours to replace
printf 'old\n' > "$sticky/mine.txt" && chown 65534:65534 "$sticky/mine.txt" || exit 1
as_user bash tools/write_checked.sh "$sticky/mine.txt" echo new > "$scratch/said" 2>&1 || fail "write_checked refused your own file: $(cat "$scratch/said")"
[ "$(cat "$sticky/mine.txt")" = new ] || fail "write_checked did not replace your own file in the sticky folder"
echo "another user's file in a sticky folder refused up front by write_checked, hint and grade; your own replaced"
