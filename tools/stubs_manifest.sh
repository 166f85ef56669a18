#!/usr/bin/env bash
# stubs_manifest.sh: the exercise stubs as handed out, known by content.
# exercises/STUBS holds one line per stub file, "<git blob id> <path>"; a blob
# id is a hash of the file's bytes, so it names the stub in any clone (and in a
# student release, whose first commit holds the stubs) whatever a student has
# committed since. make check-exercises and make reset read the stubs from it.
#   stubs_manifest.sh write           (make stubs-manifest) the manifest from the
#                                     exercise files as they are now; stores their blobs
#   stubs_manifest.sh check           exit 1, with the differences, if the manifest
#                                     and the exercise files differ (CI, on pristine main)
#   stubs_manifest.sh extract FOLDER DEST   the stubs of FOLDER (exercises/chNN)
#                                     from the manifest into DEST/ (made if missing)
# The exercise files: every file under exercises/ but the manifest itself, a
# hidden one (an editor's swap file) or a backup (name~). Run from the
# repository's root, as make does.
set -u
# the blobs as git stored them: a replace ref (git replace) does not stand in for a stub
export GIT_NO_REPLACE_OBJECTS=1
manifest=exercises/STUBS
me=stubs_manifest

exercise_files() { # the paths the manifest must list, sorted, NUL-separated
    find exercises -path "$manifest" -prune -o -name '.*' -prune -o -type f ! -name '*~' -print0 |
        LC_ALL=C sort -z
}

# entries [-w]: the manifest's text for the exercise files as they are now
# (-w: their blobs written into git's objects, so the ids resolve at once).
entries() {
    local path id
    echo "# The exercise stubs as handed out: git blob id, path (tools/stubs_manifest.sh)."
    echo "# Written by make stubs-manifest; read by make check-exercises and make reset."
    while IFS= read -r -d '' path; do
        case $path in *$'\n'* | *' '*) echo "$me: '$path': a stub's name may not hold a space or a newline" >&2; return 1 ;; esac
        id=$(git hash-object "$@" -- "$path") || { echo "$me: git cannot hash $path" >&2; return 1; }
        echo "$id $path"
    done < <(exercise_files)
}

write() {
    git rev-parse --git-dir > /dev/null 2>&1 || { echo "$me: not a git checkout: the stubs' blobs cannot be stored" >&2; exit 2; }
    local text tmp=$manifest.tmp.$$
    text=$(entries -w) || exit 2 # before the temporary file exists: it is under exercises/
    printf '%s\n' "$text" > "$tmp" && mv -f "$tmp" "$manifest" || { rm -f "$tmp"; exit 2; }
    echo "$me: $manifest lists $(grep -vc '^#' "$manifest") stub files (commit it with them)"
}

check() {
    [ -f "$manifest" ] || { echo "$me: $manifest is missing: make stubs-manifest writes it" >&2; exit 1; }
    local differences
    differences=$(diff <(grep -v '^#' "$manifest") <(entries | grep -v '^#')) && {
        echo "$me: $manifest lists the exercise files as they are"
        return 0
    }
    echo "$me: $manifest differs from the exercise files (< the manifest, > the files; make stubs-manifest, then commit both):" >&2
    grep '^[<>]' <<< "$differences" >&2
    exit 1
}

# extract FOLDER DEST: each stub of FOLDER (entries FOLDER/NAME) written to
# DEST/NAME through a temporary name. Says which line when a blob is missing.
extract() {
    local folder=${1%/} dest=$2 id path line=0 found=0
    [ -f "$manifest" ] || { echo "$me: $manifest is missing (make stubs-manifest writes it)" >&2; exit 2; }
    mkdir -p "$dest" || exit 2
    while read -r id path; do
        line=$((line + 1))
        case $id in '#'* | '') continue ;; esac
        [ "${path%/*}" = "$folder" ] || continue
        if [ "$(git cat-file -t "$id" 2> /dev/null)" != blob ]; then
            echo "$me: $manifest:$line: blob $id ($path) is not in this repository's objects" \
                "(a copy without git's history? make stubs-manifest writes the blobs)" >&2
            exit 2
        fi
        # a stub already there as it should be is left alone (its time too: the judges built from it stay built)
        git cat-file blob "$id" > "$dest/${path##*/}.tmp.$$" || exit 2
        if cmp -s "$dest/${path##*/}.tmp.$$" "$dest/${path##*/}"; then rm -f "$dest/${path##*/}.tmp.$$"
        else mv -f "$dest/${path##*/}.tmp.$$" "$dest/${path##*/}" || exit 2; fi
        found=$((found + 1))
    done < "$manifest"
    [ "$found" -gt 0 ] || { echo "$me: $manifest lists no stub in $folder/" >&2; exit 2; }
}

case ${1:-} in
write) write ;;
check) check ;;
extract) [ $# -eq 3 ] || { echo "usage: $0 extract FOLDER DEST" >&2; exit 2; }; extract "$2" "$3" ;;
*) echo "usage: $0 write | check | extract FOLDER DEST" >&2; exit 2 ;;
esac
