#!/usr/bin/env bash
# make collect-grades never leaves half of one collection and half of another
# (nothing lost, round 6, item 2). In a folder with the sticky bit (a shared
# GRADES_OUT, like /tmp), as an ordinary user, over outputs another user
# owns: the rename failed with "Operation not permitted" after grades.md was
# already in place, exit 1 (which means "some files rejected") and a hidden
# .collect-grades.* folder left. Now that is refused up front (exit 2, the
# file and the sticky rule named), every file as it was, no work folder;
# the user's own collection there is replaced as usual. And a rename that
# fails while the collection is put in place (made to fail here) puts back
# what was moved: the last collection whole, exit 2, no work folder. Run as
# uid 65534 beside files of uid 65533, which only root can set up: the
# sticky part is skipped otherwise.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_python3 "collect-grades is tools/collect_grades.py"
tool_copy "$1"
mkdir class || exit 1
for s in ann bob cy; do grade_file "class/$s.csv" "$s" ch01 passed; done
state() { (cd "$1" && find . -printf '%p %m %U %y\n' | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort); }

# 1. A rename that fails while the new collection is put in place.
G=$scratch/g
GRADES_OUT=$G python3 tools/collect_grades.py class > said 2>&1 || fail "the first collection failed: $(cat said)"
rm class/cy.csv || exit 1
before=$(state "$G")
cat > failing.py <<'PY'
import errno, os, sys
sys.path.insert(0, "tools")
import collect_grades as cg
real_rename, real_replace = os.rename, os.replace
def refuse(src, dst):  # the new gradescope/ into place
    if os.path.basename(src) == os.path.basename(dst) == "gradescope" and os.path.basename(os.path.dirname(src)).startswith(".collect-grades."):
        raise OSError(errno.EPERM, "Operation not permitted", dst)
def failing(src, dst, *a, **k):
    refuse(src, dst)
    return real_rename(src, dst, *a, **k)
def failing_replace(src, dst, *a, **k):
    refuse(src, dst)
    return real_replace(src, dst, *a, **k)
os.rename, os.replace = failing, failing_replace
sys.exit(cg.main(["collect_grades.py", "class"]))
PY
GRADES_OUT=$G python3 failing.py > said 2>&1
rc=$?
[ $rc = 2 ] || fail "a rename failing while putting the collection in place: exit $rc, not 2: $(cat said)"
grep -q 'Operation not permitted' said && grep -qF "nothing replaced in $G" said || fail "the failed rename: not said: $(cat said)"
[ "$(state "$G")" = "$before" ] || fail "a failed rename left half a collection: $(ls -AR "$G")"
[ -z "$(find "$G" -name '.collect-grades.*')" ] || fail "a failed rename left a work folder: $(ls -A "$G")"

# 2. The sticky folder, as uid 65534.
py=
for p in /usr/bin/python3 /usr/local/bin/python3 "$(command -v python3)"; do
    [ -x "$p" ] && command -v setpriv > /dev/null && [ "$(id -u)" = 0 ] &&
        setpriv --reuid=65534 --regid=65534 --clear-groups "$p" -c '' 2> /dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
    echo "a failed rename puts the last collection back whole (the sticky folder skipped: needs root, setpriv and a python3 uid 65534 may run)"
    exit 0
fi
chmod 0755 "$scratch" && chown -R 65534:65534 "$repo" || exit 1
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$scratch" CLANG_CUDA= PATH=/usr/bin:/bin "$@"; }
S=$scratch/shared
mkdir "$S" && chmod 1777 "$S" || exit 1
collect_as_user() { as_user env GRADES_OUT="$S" "$py" tools/collect_grades.py class > said 2>&1; }
collect_as_user || fail "uid 65534's first collection in the sticky folder failed: $(cat said)"
collect_as_user || fail "uid 65534's own collection in the sticky folder was not replaced: $(cat said)"
# theirs PATH...: uid 65533's from now on, and anyone may write it
theirs() { chown 65533:65533 "$@" && chmod a+w "$@" || exit 1; }
for f in gradebook.csv gradescope; do
    theirs "$S/$f"
    before=$(state "$S")
    collect_as_user
    rc=$?
    [ $rc = 2 ] || fail "$f of another user in the sticky folder: exit $rc, not 2: $(cat said)"
    grep -qF "$S/$f belongs to" said && grep -q 'sticky bit' said || fail "$f of another user: the sticky rule not said: $(cat said)"
    [ "$(state "$S")" = "$before" ] || fail "$f of another user: files changed (half a collection?): $(ls -lAR "$S")"
    [ -z "$(find "$S" -name '.collect-grades.*')" ] || fail "$f of another user: a work folder was left: $(ls -A "$S")"
    chown -R 65534:65534 "$S/$f" || exit 1
done
collect_as_user || fail "uid 65534's collection, all its own again, failed: $(cat said)"
echo "collect-grades: another user's output in a sticky folder refused up front, nothing changed; a rename failing midway puts the last collection back"
