#!/usr/bin/env bash
# make reset onto a full disk leaves no part of your files in saved/ (nothing
# lost, round 5, item C). With saved/ another file system (a small tmpfs
# mounted there: mv would copy, not rename), a student's ch01 folder holding
# more than fits: reset fails (exit 1), says the copy failed, leaves
# exercises/ch01 byte for byte as it was and nothing under saved/ (mv left a
# cut-short copy beside the whole). With room enough on the other file
# system, reset copies, compares and only then removes: every file in
# saved/ch01-*/ as it was, exercises/ch01 the stub. Needs root and a tmpfs
# mount (a container may not allow it): skipped otherwise.
set -u
. "$(dirname "$0")/lib.bash"
[ "${1:-}" != --can-run ] || can_run_tmpfs "to mount a small tmpfs as a full disk" git
graded_copy "$1"
trap 'umount "$repo/saved" 2> /dev/null; rm -rf "$scratch"' EXIT
export MAKEFLAGS= # not the flags of a make this runs under
snapshot() { (cd "$1" && find . -type f -exec sha256sum {} + | LC_ALL=C sort); }

printf 'my answer\n' > exercises/ch01/vec.c
head -c 300000 /dev/urandom > exercises/ch01/notes.bin # more than the 64 KiB disk holds
printf 'my notes\n' > exercises/ch01/z-notes.txt
before=$(snapshot exercises/ch01)
mkdir saved && mount -t tmpfs -o size=64k tmpfs saved || fail "cannot mount a tmpfs on saved/"
make -s reset EX=ch01 > out 2>&1
rc=$?
[ $rc -ne 0 ] || fail "reset onto a full disk succeeded: $(cat out)"
grep -q "reset: could not move exercises/ch01 aside (the copy to saved/ch01-.*failed.*); left as it was, nothing kept in saved/" out ||
    fail "reset onto a full disk did not say why: $(cat out)"
[ "$(snapshot exercises/ch01)" = "$before" ] || fail "reset onto a full disk changed exercises/ch01: $(ls -l exercises/ch01)"
[ -z "$(ls -A saved)" ] || fail "reset onto a full disk left in saved/: $(find saved)"
[ -z "$(find exercises -maxdepth 1 -name '.reset-*')" ] || fail "reset left its stub folder: $(ls -A exercises)"
umount saved || exit 1

mount -t tmpfs -o size=4m tmpfs saved || fail "cannot mount a larger tmpfs on saved/"
make -s reset EX=ch01 > out 2>&1 || fail "reset onto another file system with room failed: $(cat out)"
kept=(saved/ch01-*)
[ ${#kept[@]} -eq 1 ] && [ "$(snapshot "${kept[0]}")" = "$before" ] || fail "the copy in saved/ is not your folder: $(find saved)"
git diff --quiet HEAD -- exercises/ch01 && [ ! -e exercises/ch01/notes.bin ] || fail "exercises/ch01 is not the stub again: $(ls exercises/ch01)"
echo "reset onto a full disk kept your folder and left nothing in saved/; with room, copied, compared, then reset"
