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
rm -rf "$dest"
for folder in "$@"; do
    "$(dirname "$0")/stubs_manifest.sh" extract "$folder" "$dest/$(basename "$folder")" || {
        echo "check-exercises: cannot lay out the stubs of $folder" >&2
        exit 2
    }
done
