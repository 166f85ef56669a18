#!/usr/bin/env bash
# exercises/STUBS, the manifest make check-exercises and make reset read the
# stubs from: every entry is a blob in this repository's objects (so the stub
# can be read back whatever is committed since), no path is listed twice, and
# every file under exercises/ (but the manifest, hidden files and name~
# backups) is listed. Whether the listed blobs are the files' present content
# is CI's check (.ci/run), on pristine main: here a student's answers differ.
set -u
root=${1:-.}
if [ "$root" = --can-run ]; then
    git rev-parse --git-dir > /dev/null 2>&1 || { echo "not a git checkout: the manifest's blob ids cannot be looked up"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
cd "$root" || exit 1
manifest=exercises/STUBS
[ -f "$manifest" ] || fail "$manifest is missing (make stubs-manifest writes it)"
listed=$(mktemp) && files=$(mktemp) || exit 1
trap 'rm -f "$listed" "$files"' EXIT
n=0 line=0
while read -r id path rest; do
    line=$((line + 1))
    case $id in '#'* | '') continue ;; esac
    [ -z "$rest" ] || fail "$manifest:$line: more than a blob id and a path"
    [[ $id =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]] || fail "$manifest:$line: '$id' is not a git object id"
    [ "$(git cat-file -t "$id" 2> /dev/null)" = blob ] || fail "$manifest:$line: $id ($path) is not a blob in this repository"
    case $path in exercises/?*/?*) ;; *) fail "$manifest:$line: '$path' is not a file in an exercise's folder" ;; esac
    echo "$path" >> "$listed"
    n=$((n + 1))
done < "$manifest"
[ "$n" -gt 0 ] || fail "$manifest lists no stub"
dup=$(sort "$listed" | uniq -d)
[ -z "$dup" ] || fail "$manifest lists twice: $dup"
find exercises -mindepth 1 -name '.*' -prune -o -type f ! -name '*~' ! -path "$manifest" -print > "$files"
missing=$(sort "$files" | comm -23 - <(sort "$listed"))
[ -z "$missing" ] || fail "under exercises/ but not in $manifest (maintainers: make stubs-manifest, then commit it): $missing"
echo "$manifest: $n stubs, each a blob here; every file under exercises/ listed"
