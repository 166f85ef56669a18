#!/usr/bin/env bash
# make reset says everything it moved (nothing lost, round 6, item 4). On one
# file system your folder is moved whole by a rename, but the "your files
# moved" line listed only its regular files: a FIFO, a link, a socket or an
# empty folder went to saved/ unsaid. Now, with exercises/ch01 holding your
# answer, a FIFO, a link, a socket and an empty folder beside the stubs,
# reset succeeds, each is in saved/ch01-*/ as it was (of its type, the link
# to its target), and the line names each, said as such ("pipe (a FIFO)").
# In a scratch copy.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v git > /dev/null || { echo "no git here"; exit 77; }
    command -v python3 > /dev/null || { echo "no python3 here (to make a socket)"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
graded_copy "$1"
export MAKEFLAGS= # not the flags of a make this runs under
printf 'my answer\n' > exercises/ch01/vec.c
mkfifo exercises/ch01/pipe && ln -s vec.c exercises/ch01/link && mkdir exercises/ch01/empty &&
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' exercises/ch01/sock || fail "cannot make the special files"
make -s reset EX=ch01 > out 2>&1 || fail "reset with special files failed: $(cat out)"
kept=(saved/ch01-*)
[ ${#kept[@]} -eq 1 ] || fail "not one folder in saved/: $(find saved)"
k=${kept[0]}
[ -p "$k/pipe" ] && [ -L "$k/link" ] && [ "$(readlink "$k/link")" = vec.c ] && [ -S "$k/sock" ] && [ -d "$k/empty" ] &&
    [ "$(cat "$k/vec.c")" = "my answer" ] || fail "saved/ does not hold your folder as it was: $(ls -lA "$k")"
line=$(grep "^reset ch01: your files moved to $k/: " out) || fail "reset did not say what it moved: $(cat out)"
for want in vec.c vec.h 'pipe (a FIFO)' 'link (a link)' 'sock (a socket)' 'empty/ (an empty folder)'; do
    [[ $line == *"$want"* ]] || fail "reset's list of what it moved leaves out '$want': $line"
done
git diff --quiet HEAD -- exercises/ch01 && [ -z "$(git status --porcelain -- exercises/ch01)" ] ||
    fail "exercises/ch01 is not the stub again: $(ls -lA exercises/ch01)"
echo "reset moved a FIFO, a link, a socket and an empty folder with your files, and listed each"
