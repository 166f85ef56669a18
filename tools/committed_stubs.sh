#!/usr/bin/env bash
# committed_stubs.sh DEST FOLDER...: copies each exercise folder as it is
# committed (git HEAD, not the working copy, where a student's answers live)
# into DEST/<folder name>, for make check-exercises.
set -u
dest=$1
shift
git rev-parse --verify -q HEAD >/dev/null || { echo "check-exercises: not a git checkout with a commit: the committed stubs cannot be read" >&2; exit 2; }
rm -rf "$dest"
for folder in "$@"; do
    name=$(basename "$folder")
    mkdir -p "$dest/$name"
    files=$(git ls-tree --name-only HEAD "$folder/") || exit 2
    [ -n "$files" ] || { echo "check-exercises: $folder is not committed" >&2; exit 2; }
    for f in $files; do
        git show "HEAD:$f" > "$dest/$name/$(basename "$f")" || exit 2
    done
done
