#!/usr/bin/env bash
# tools/write_checked.sh, through which make host-record and make cpu-scaling
# write their files (issue 65, round 5: they wrote a .tmp name any link
# planted there was followed through, and replaced a read-only file): a
# destination that is a link, read-only (0444), writable only by its group
# (0464: refused for root too) or a folder is refused (exit 2, said), the file
# and the link's file as they were; a link planted at the old temp name is not
# followed; a failing command replaces nothing; a plain write works and
# leaves no temporary file.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
w=$1/tools/write_checked.sh
dir=$scratch/out dest=$scratch/out/host.txt
mkdir "$dir" || exit 1
echo precious > "$scratch/precious"

# refused WHAT: write_checked refuses dest as the test made it, saying "not replaced"
refused() {
    local before
    before=$(ls -l --time-style=+ "$dest" 2>&1; cat "$dest" "$scratch/precious" 2>&1)
    "$w" "$dest" echo new > "$scratch/out.txt" 2> "$scratch/err"
    local rc=$?
    [ $rc -eq 2 ] || fail "$1: exit $rc, not 2"
    grep -q "not replaced" "$scratch/err" || fail "$1: not said: $(cat "$scratch/err")"
    [ "$(ls -l --time-style=+ "$dest" 2>&1; cat "$dest" "$scratch/precious" 2>&1)" = "$before" ] || fail "$1: changed"
    [ -z "$(ls -A "$dir" | grep -v '^host.txt$')" ] || fail "$1: a temporary file was left: $(ls -A "$dir")"
}
ln -s "$scratch/precious" "$dest" && refused "a link to a file of yours"
rm -f "$dest"; echo notes > "$dest"; chmod 0444 "$dest" && refused "a read-only file (0444)"
chmod 0464 "$dest" && refused "a file only its group may write (0464)"
rm -f "$dest"; mkdir "$dest" && refused "a folder"
rmdir "$dest"
ln -s "$scratch/precious" "$dest.tmp" # the name the Makefile once wrote through
"$w" "$dest" echo new || fail "a plain write failed"
[ "$(cat "$dest")" = new ] || fail "a plain write wrote $(cat "$dest")"
[ "$(cat "$scratch/precious")" = precious ] || fail "the link at $dest.tmp was written through"
rm -f "$dest.tmp"
"$w" "$dest" false 2> /dev/null && fail "a failing command succeeded"
[ "$(cat "$dest")" = new ] || fail "a failing command replaced the file"
[ -z "$(ls -A "$dir" | grep -v '^host.txt$')" ] || fail "a temporary file was left: $(ls -A "$dir")"
echo "write_checked: links, read-only files and folders refused, planted temp names not followed, a failed command replaces nothing"
