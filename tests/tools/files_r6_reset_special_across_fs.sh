#!/usr/bin/env bash
# make reset to saved/ on another file system keeps a FIFO and a link (nothing
# lost, round 6, item 4). There your folder is copied, the copy compared
# with it, and only then removed; the comparison was diff -r, which calls two
# FIFOs different: reset failed, saying the copy differs, and left the copy
# in saved/ beside your folder. Now, with saved/ a tmpfs of its own and
# exercises/ch01 holding your answer, a FIFO, a link and an empty folder:
# reset succeeds, saved/ch01-*/ holds each as it was (of its type, the link to
# its target), the line names each, and exercises/ch01 is the stub. Then a
# copy that really differs is still caught: a full disk, your folder as it
# was and nothing in saved/. Needs root and a tmpfs mount (a container may
# not allow it): skipped otherwise.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_tmpfs "to mount a tmpfs as another file system" git
graded_copy "$1"
trap 'umount "$repo/saved" 2> /dev/null; rm -rf "$scratch"' EXIT
export MAKEFLAGS= # not the flags of a make this runs under
snapshot() { (cd "$1" && find . -printf '%p %y %l\n' -type f -exec sha256sum {} + | LC_ALL=C sort); }
printf 'my answer\n' > exercises/ch01/vec.c
mkfifo exercises/ch01/pipe && ln -s vec.c exercises/ch01/link && mkdir exercises/ch01/empty || fail "cannot make the special files"
before=$(snapshot exercises/ch01)
mkdir saved && mount -t tmpfs -o size=4m tmpfs saved || fail "cannot mount a tmpfs on saved/"
make -s reset EX=ch01 > out 2>&1 || fail "reset to another file system with a FIFO failed: $(cat out)"
kept=(saved/ch01-*)
[ ${#kept[@]} -eq 1 ] && [ "$(snapshot "${kept[0]}")" = "$before" ] || fail "the copy in saved/ is not your folder: $(ls -lA saved/*)"
[ -p "${kept[0]}/pipe" ] || fail "the FIFO was not kept as a FIFO"
line=$(grep "^reset ch01: your files moved to ${kept[0]}/: " out) || fail "reset did not say what it moved: $(cat out)"
for want in vec.c 'pipe (a FIFO)' 'link (a link)' 'empty/ (an empty folder)'; do
    [[ $line == *"$want"* ]] || fail "reset's list of what it moved leaves out '$want': $line"
done
git diff --quiet HEAD -- exercises/ch01 && [ -z "$(git status --porcelain -- exercises/ch01)" ] ||
    fail "exercises/ch01 is not the stub again: $(ls -lA exercises/ch01)"
umount saved || exit 1

# a copy cut short is still refused, the FIFO beside it
printf 'my answer\n' > exercises/ch01/vec.c && mkfifo exercises/ch01/pipe && head -c 300000 /dev/urandom > exercises/ch01/big.bin || exit 1
before=$(snapshot exercises/ch01)
mount -t tmpfs -o size=64k tmpfs saved || fail "cannot mount a small tmpfs on saved/"
make -s reset EX=ch01 > out 2>&1 && fail "reset onto a full disk succeeded: $(cat out)"
grep -q "left as it was, nothing kept in saved/" out || fail "reset onto a full disk did not say so: $(cat out)"
[ "$(snapshot exercises/ch01)" = "$before" ] && [ -z "$(ls -A saved)" ] || fail "reset onto a full disk changed exercises/ch01 or kept: $(find saved)"
umount saved || exit 1
echo "reset to another file system kept a FIFO, a link and an empty folder, compared them by type, and listed each"
