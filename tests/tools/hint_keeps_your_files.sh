#!/usr/bin/env bash
# make hint (tools/hint.sh) remembers the hints given in a count file of its
# own, and replaces nothing else (issue 65): with that file a symbolic link to
# a file of yours (it was written through), read-only (0444), writable only by
# its group (0464: refused for root too), holding your notes, or a folder,
# make hint is refused (exit 2, saying why, no hint given), the file (and the
# link's file) as it was. A count it wrote goes on: hint 1, then hint 2, and
# no temporary file is left.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
export MAKEFLAGS= CLANG_CUDA= # not the flags of a make this runs under; no clang probe
hints=$scratch/hints count=$scratch/hints/ch01
mkdir "$hints" || exit 1
hint() { (cd "$1" && HINTS_DIR=$hints make -s hint EX=ch01) > "$scratch/out" 2> "$scratch/err"; }

# refused WHAT WANT: make hint is refused with the count file as the test made it, saying WANT
refused() {
    local before
    before=$(ls -l --time-style=+ "$count" 2>&1; cat "$count" 2>&1)
    hint "$1"
    local rc=$?
    [ $rc -eq 2 ] || fail "$2: make hint exited $rc, not 2: $(cat "$scratch/out" "$scratch/err")"
    grep -q "^hint: $count .*$3.*: not replaced" "$scratch/err" || fail "$2: not said: $(cat "$scratch/err")"
    grep -q '^hint [0-9]' "$scratch/out" && fail "$2: a hint was given"
    [ "$(ls -l --time-style=+ "$count" 2>&1; cat "$count" 2>&1)" = "$before" ] || fail "$2: the count file was changed"
    [ -z "$(ls -A "$hints" | grep -v '^ch01$')" ] || fail "$2: a temporary file was left: $(ls -A "$hints")"
}
echo precious > "$scratch/yours" && ln -s "$scratch/yours" "$count" || exit 1
refused "$1" "a link to a file of yours" "symbolic link"
[ "$(cat "$scratch/yours")" = precious ] || fail "the file the link names was written"
rm "$count" && echo 1 > "$count" && chmod 444 "$count" && refused "$1" "a read-only count" "read-only (mode 444)"
chmod 464 "$count" && refused "$1" "a count only its group may write" "read-only (mode 464)"
chmod 644 "$count" && echo "my notes" > "$count" && refused "$1" "your notes" "holds something else"
rm "$count" && mkdir "$count" && refused "$1" "a folder" "not a regular file"
rmdir "$count" || exit 1

hint "$1" && grep -q '^hint 1 of' "$scratch/out" || fail "the first hint: $(cat "$scratch/out" "$scratch/err")"
hint "$1" && grep -q '^hint 2 of' "$scratch/out" || fail "the second hint: $(cat "$scratch/out" "$scratch/err")"
[ -f "$count" ] && [ ! -L "$count" ] && [ "$(cat "$count")" = 2 ] || fail "the count file is not 2: $(ls -l "$count")"
[ "$(ls -A "$hints")" = ch01 ] || fail "a temporary file was left: $(ls -A "$hints")"
echo "make hint kept a link's file, a read-only, a group-only, a foreign count and a folder, and counted on in its own"
