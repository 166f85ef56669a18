#!/usr/bin/env bash
# committed_stubs.sh DEST FOLDER...: the stubs of each exercise folder as
# handed out, read by blob id from the manifest exercises/STUBS
# (tools/stubs_manifest.sh) into DEST/<folder name>, for make check-exercises.
# Not the working copy nor the last commit: a student's answers live there,
# committed or not, and the stubs' blobs stay in git's objects whatever is
# committed since.
set -u
dest=$1
shift
# Files already laid and unchanged keep their times (stubs_manifest.sh
# extract replaces only what differs), so what was built from them stays built;
# a file the manifest no longer lists goes.
for folder in "$@"; do
    for f in "$dest/$(basename "$folder")"/*; do
        [ -e "$f" ] || continue
        grep -q " $folder/$(basename "$f")\$" exercises/STUBS || rm -f -- "$f"
    done
done
for folder in "$@"; do
    "$(dirname "$0")/stubs_manifest.sh" extract "$folder" "$dest/$(basename "$folder")" || {
        echo "check-exercises: cannot lay out the stubs of $folder" >&2
        exit 2
    }
done
