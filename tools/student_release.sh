#!/usr/bin/env bash
# make student-release DEST=path: a copy of the course for students, in a git
# repository of its own with one commit. Left out, because they show the
# answers: solutions/; tests/wrong/ (a wrong answer is a patch against the
# solution, and its context lines are the solution's); the last hint of each
# exercise (tests/hints: "nearly the code"), replaced by a line that says so;
# and what needs those: tests/odd_path.sh, this script and its test, and CI
# (.ci/). The Makefile
# sees there is no solutions/ (STUDENT_RELEASE): make check tests no exercise
# against solutions, and check-exercises, stubs-manifest and student-release
# say they are not in a student release. exercises/ holds the stubs as handed
# out, read from exercises/STUBS by blob id (not this checkout's exercise
# files, which may hold answers); the release's commit holds them, so the
# manifest's ids resolve there and make reset works.
# The copy is this checkout's tracked files as they are in the working tree.
# It is made beside DEST and renamed to it when complete.
# Usage: student_release.sh DEST
set -u
me=student-release
dest=${1:-}
[ -n "$dest" ] || { echo "usage: make student-release DEST=path   (a folder that does not exist yet, or an empty one)" >&2; exit 2; }
if [ -e "$dest" ] && { [ ! -d "$dest" ] || [ -n "$(ls -A "$dest")" ]; }; then
    echo "$me: $dest exists and is not an empty folder: give a new one" >&2
    exit 2
fi
git rev-parse --verify -q HEAD > /dev/null || { echo "$me: not a git checkout with a commit: the release is made from the tracked files" >&2; exit 2; }
[ -d solutions ] || { echo "$me: no solutions/ here: this is already a student release" >&2; exit 2; }
tools/stubs_manifest.sh check > /dev/null 2>&1 ||
    echo "$me: note: exercises/ here differ from exercises/STUBS; the release has the manifest's stubs"

# What is left out, as path patterns (case), and why (said above).
left_out() {
    case $1 in
    solutions/* | tests/wrong/* | .ci/* | exercises/*) return 0 ;; # exercises/: from the manifest, below
    tests/odd_path.sh | tools/student_release.sh | tests/tools/student_release_*) return 0 ;;
    esac
    return 1
}

# last_hint_withheld FILE: the hints of FILE (separated by lines of ---) with
# the last one's text replaced by a line that says it is withheld; the count of
# hints stays (make hint says "hint 3 of 3").
last_hint_withheld() {
    awk -v last="$(grep -c '^---$' "$1")" '
        /^---$/ { n++ }
        n < last { print; next }
        !done { if (last > 0) print "---"
                print "The last hint (nearly the code) is not in the student release: ask your teacher."
                done = 1 }' "$1"
}

source_commit=$(git rev-parse --short HEAD)
work=$dest.tmp.$$
trap 'rm -rf "$work"' EXIT
mkdir -p "$work" || exit 2
while IFS= read -r -d '' f; do
    left_out "$f" && continue
    [ -e "$f" ] || [ -L "$f" ] || continue # deleted here, not yet committed
    printf '%s\0' "$f"
done < <(git ls-files -z --cached) | tar --null -T - -cf - | tar -C "$work" -xf - || { echo "$me: copying the tracked files failed" >&2; exit 1; }

# The stubs, from the manifest.
mkdir -p "$work/exercises" && cp exercises/STUBS "$work/exercises/STUBS" || exit 1
for folder in $(grep -v '^#' exercises/STUBS | awk '{print $2}' | sed 's|/[^/]*$||' | sort -u); do
    tools/stubs_manifest.sh extract "$folder" "$work/$folder" || { echo "$me: cannot write the stubs of $folder" >&2; exit 1; }
done

hints=0
for f in tests/hints/*.txt; do
    [ -f "$work/$f" ] || continue
    last_hint_withheld "$f" > "$work/$f" || exit 1
    hints=$((hints + 1))
done

# The README says so first.
{
    echo "> **Student release** (made by \`make student-release\` from commit $source_commit):"
    echo "> the solutions, the wrong answers the graders are tested with (tests/wrong/) and the last hint of"
    echo "> each exercise are left out; what the README says of them does not apply here. \`make grade\`"
    echo "> grades your answers, \`make hint EX=chNN\` gives a hint, \`make reset EX=chNN\` puts a stub back."
    echo
    cat README.md
} > "$work/README.md" || exit 1

# One commit, in the object format of this repository, so the manifest's ids are the same.
format=$(git rev-parse --show-object-format 2> /dev/null || echo sha1)
(
    cd "$work" || exit 1
    git init -q --object-format="$format" . && git add -A -f || exit 1 # -f: a tracked file .gitignore matches too
    who=()
    git config user.email > /dev/null || who=(-c user.name="Student release" -c user.email="student-release@localhost")
    git "${who[@]}" commit -q -m "Student release of the course (from $source_commit)" || exit 1
    while read -r id path; do
        case $id in '#'* | '') continue ;; esac
        [ "$(git cat-file -t "$id" 2> /dev/null)" = blob ] || { echo "$me: $path's blob $id is not in the release's commit" >&2; exit 1; }
    done < exercises/STUBS
) || { echo "$me: making the release's git repository failed" >&2; exit 1; }

[ ! -d "$dest" ] || rmdir "$dest" || exit 1
mv "$work" "$dest" || { echo "$me: could not rename $work to $dest" >&2; exit 1; }
trap - EXIT
echo "$me: $dest: the course for students, one commit ($(git -C "$dest" rev-parse --short HEAD)), from $source_commit$(git diff --quiet HEAD || echo ' with uncommitted changes')"
echo "$me: left out: solutions/ ($(git ls-files solutions | wc -l) files), tests/wrong/ ($(git ls-files tests/wrong | wc -l) wrong answers), the last hint of $hints exercises, tests/odd_path.sh, tools/student_release.sh and .ci/"
