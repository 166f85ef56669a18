#!/usr/bin/env bash
# make student-release DEST=path: a copy of the course for students, in a git
# repository of its own with one commit. Left out, because they show the
# answers: solutions/; tests/wrong/ (a wrong answer is a patch against the
# solution, and its context lines are the solution's); the last hint of each
# exercise (tests/hints: "nearly the code"), replaced by a line that says so;
# and what needs those: tests/odd_path.sh, this script's tests and CI
# (.ci/). This script stays: the release's make check runs its --help
# (tests/tools/tools_answer_help.sh), and run there it says the copy is a
# release already. Also left out: the teacher's guide, TEACHING.md, which
# says where the answers stand in the chapters' code and how marks are
# given; the README's sentences that point to it are made true of the
# release (readme_for_release). The Makefile
# sees there is no solutions/ (STUDENT_RELEASE): make check tests no exercise
# against solutions, and check-exercises, stubs-manifest and student-release
# say they are not in a student release. exercises/ holds the stubs as handed
# out, read from exercises/STUBS by blob id (not this checkout's exercise
# files, which may hold answers); the release's commit holds them, so the
# manifest's ids resolve there and make reset works.
# The copy is this checkout's tracked files as they are in the working tree.
# It is made beside DEST and renamed to it when complete. DEST is a new path
# or an empty folder (not a link to one), outside this checkout, named by its
# own name (not ending in . or ..; one starting with - is a name too), in a
# folder whose owner may write it (its write bit set: for root too): anything
# else is refused before anything is made (exit 2). The release's make check
# (RELEASE_CHECK, below) runs in the copy first; when it fails, no release
# is made, its log is kept beside DEST (DEST.release-check.PID.log, named on
# stderr) and the failing tests' lines are printed.
# RELEASE_CHECK: the release's check, a shell command run in the copy;
# default `make check` (many minutes: a 2-core laptop takes about 12).
# RELEASE_CHECK=quick: `make all`, then `make grade` of the stubs as handed
# out, each of which must FAIL on its test (none PASS, none SKIP, none not
# compile or break a rule): that the release builds and grades (about 3
# minutes on a 2-core machine), not the whole of make check.
# RELEASE_CHECK=true (or :): no check at all (said so; no log).
# Usage: student_release.sh DEST
set -u
# --help: the comment above, as the usage text.
case ${1:-} in -h | --help) sed -n '2,/^set -u$/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
me=student-release
dest=${1:-}
[ -n "$dest" ] || { echo "usage: make student-release DEST=path   (a folder that does not exist yet, or an empty one)" >&2; exit 2; }
# DEST=new/ is the folder new: the copy is made beside it (new.tmp.PID), not in it.
while [ "$dest" != / ] && [ "${dest%/}" != "$dest" ]; do dest=${dest%/}; done
# DEST=-rel is a name, never an option (of dirname, ls, mkdir, cd...): ./-rel
case $dest in -*) dest=./$dest ;; esac
# shellcheck source=tools/file_checks.bash
. "$(dirname -- "$0")/file_checks.bash"
# DEST=empty/. or DEST=.. names a folder by where it is, not by a name of its
# own: the copy cannot be made beside it and renamed to it, nor it removed first.
case /$dest in */. | */..)
    echo "$me: DEST=$dest ends in '.' or '..': name the folder itself (DEST=path/name)" >&2; exit 2 ;;
esac
# A new path, or an empty folder (replaced by the copy); a symbolic link, even
# to an empty folder or to nothing, is refused: the rename would replace the
# link, not fill the folder it names.
if [ -L "$dest" ] || { [ -e "$dest" ] && { [ ! -d "$dest" ] || [ -n "$(ls -A "$dest")" ]; }; }; then
    echo "$me: $dest exists and is not an empty folder$([ -L "$dest" ] && echo " (a symbolic link to '$(readlink -- "$dest")')"): give a new one" >&2
    exit 2
fi
dest_dir=$(dirname -- "$dest")
[ "$dest" != / ] && [ -d "$dest_dir" ] ||
    { echo "$me: $dest: its folder '$dest_dir' does not exist: nothing made" >&2; exit 2; }
# written in (the copy beside DEST, then renamed to it): a folder its owner
# made read-only (0555) is not, by root either, whom -w would let
why=$(folder_problem "$dest_dir")
[ -z "$why" ] || { echo "$me: $dest: its folder cannot be written: $why: nothing made" >&2; exit 2; }
git rev-parse --verify -q HEAD > /dev/null || { echo "$me: not a git checkout with a commit: the release is made from the tracked files" >&2; exit 2; }
# Not inside this checkout (links resolved): the release would be a git
# repository inside the course's, its files beside the course's own.
top=$(cd "$(git rev-parse --show-toplevel)" && pwd -P) && parent=$(cd -- "$dest_dir" && pwd -P) ||
    { echo "$me: cannot resolve this checkout's folder or $dest's: nothing made" >&2; exit 2; }
case $parent/ in "$top"/*)
    echo "$me: $dest is inside this checkout ($top): give a path outside it" >&2; exit 2 ;;
esac
[ -d solutions ] || { echo "$me: no solutions/ here: this is already a student release" >&2; exit 2; }
tools/stubs_manifest.sh check > /dev/null 2>&1 ||
    echo "$me: note: exercises/ here differ from exercises/STUBS; the release has the manifest's stubs"

# What is left out, as path patterns (case), and why (said above).
left_out() {
    case $1 in
    solutions/* | tests/wrong/* | .ci/* | exercises/*) return 0 ;; # exercises/: from the manifest, below
    tests/odd_path.sh | tests/tools/student_release_* | tests/tools/class_release_*) return 0 ;;
    TEACHING.md) return 0 ;;
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

# readme_for_release: the README (stdin) with each sentence about solutions/,
# tests/wrong/ and TEACHING.md, which the release leaves out, made true of the
# release (a link to TEACHING.md there would lead nowhere).
readme_for_release() {
    perl -0pe '
        s/the exercise tests run against `solutions\/`/the exercise tests are not run here (they need `solutions\/`, which is not in a student release)/;
        s/^\| `make check-exercises` \|.*$/| `make check-exercises` | not in a student release: it proves the solutions (left out) pass; `make grade` grades your answers |/m;
        s/^\| `make student-release [^|]*\|.*$/| `make student-release DEST=path` | not in a student release (it needs `solutions\/`, left out) |/m;
        s/answers are in `solutions\/` \(look after you try\)\. The graders are tested too:\n`tests\/wrong\/.*?rejected\./answers are not in this student release (`solutions\/` and `tests\/wrong\/` are left out: ask your teacher)./s;
        s/`make check` tests `solutions\/`, and only `make grade` reads your answers\./`make check` reads none of your answers (the exercise tests need `solutions\/`, not in a student release); only `make grade` reads them./;
        s/solutions\/chNN\/: the answers/(solutions\/: not in a student release)/;
        s/Teaching a course with it\? \[TEACHING\.md\]\(TEACHING\.md\) is the teacher.s guide:.*?\n\n/Teaching a course with it? The teacher\x27s guide, TEACHING.md, is not in a student release: it is in the\ncourse\x27s own repository. The batch scripts for a cluster are in `tools\/slurm\/` (`tools\/slurm\/README.md`).\n\n/s;
        s/ TEACHING\.md, "Grading a class" \|/ |/;
        s/^\| `make mock-class [^|]*\|.*$/| `make mock-class N=60 DIR=<folder>` | not in a student release (it needs `solutions\/`, left out) |/m;
        s/ \(TEACHING\.md,\n"Grading for marks"\)\./\n(`tests\/harness.h`, "the probe and the judge", says why)./;
        s/on a cluster \(TEACHING\.md\)/on a cluster (tools\/slurm\/README.md)/;
    '
}

source_commit=$(git rev-parse --short HEAD)
work=$dest.tmp.$$
log=$dest.release-check.$$.log
# (said as a full path: the teacher reads it from anywhere)
log_path=$(cd -- "$(dirname -- "$log")" && pwd)/$(basename -- "$log")
# made first, then removed on the way out (the log is kept when the check
# fails): a folder or file of that name that was already there is someone's,
# and is never removed
[ ! -e "$work" ] && [ ! -L "$work" ] && [ ! -e "$log" ] && [ ! -L "$log" ] ||
    { echo "student-release: $work or $log is in the way (not made by this run): move it" >&2; exit 2; }
mkdir "$work" || exit 2
keep_log=
trap 'rm -rf "$work"; [ -n "$keep_log" ] || rm -f "$log"' EXIT
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
    echo "> the solutions, the wrong answers the graders are tested with (tests/wrong/), the last hint of"
    echo "> each exercise and the teacher's guide (TEACHING.md) are left out; what the README says of them"
    echo "> does not apply here. \`make grade\` grades your answers, \`make hint EX=chNN\` gives a hint,"
    echo "> \`make reset EX=chNN\` puts a stub back."
    echo
    readme_for_release < README.md
} > "$work/README.md" || exit 1
# Every line the README still has about solutions/ or TEACHING.md must say it
# is left out.
if grep -n 'solutions/\|TEACHING' "$work/README.md" | grep -v 'left out\|not in' > "$work/.untrue"; then
    echo "$me: README.md says of solutions/ or TEACHING.md what is untrue of a release (rewrite it in readme_for_release):" >&2
    sed 's/^/README.md:/' "$work/.untrue" >&2
    exit 1
fi
rm -f "$work/.untrue"

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

# The release proven as its students meet it: the README's test command, make
# check (RELEASE_CHECK=COMMAND: another, e.g. a quicker one while working on
# this script), run in the copy; what it built is cleaned away after (git
# clean: the copy held only its commit's files). A release that fails it is
# not made.
check=${RELEASE_CHECK:-make check}
# quick: the release builds, and make grade fails each stub on its own test
# (the lines a failure shows are in run_tests.sh's FAIL form, for the report below)
# shellcheck disable=SC2016 # (expanded by the bash -c that runs it, in the release)
quick_check='make -j"$(nproc)" all || { echo "  FAIL  make all: the release does not build"; exit 1; }
out=$(make --no-print-directory grade 2>&1); printf "%s\n" "$out"
bad=$(grep -E "^(PASS|SKIP)  |^FAIL  [^ :]+: " <<<"$out")
[ -z "$bad" ] || { sed "s/^/  FAIL  make grade of a stub: /" <<<"$bad"; exit 1; }
grep -qE "^0 passed, ([0-9]+) failed, of \1$" <<<"$out" || { echo "  FAIL  make grade: not every stub failed on its test: $(tail -n 1 <<<"$out")"; exit 1; }'
case $check in
true | :) checked=skipped ;;
quick) checked="the quick check (make all; make grade: every stub FAILs)"
    echo "$me: running the quick check in the release before it is handed over (RELEASE_CHECK=quick: make all, then make grade, where every stub must FAIL; a few minutes; its log: $log_path)" ;;
*) checked="'$check'"
    echo "$me: running '$check' in the release before it is handed over ($([ "$check" != "make check" ] || echo "make check: many minutes; ")its log: $log_path)" ;;
esac
[ "$checked" != skipped ] || echo "$me: the release's check was skipped (RELEASE_CHECK=$check): nothing proves it builds or grades; RELEASE_CHECK=quick takes a few minutes"
[ "$check" != quick ] || check=$quick_check
set -C # (the log is made new: a file of that name made since the check above is not written through)
[ "$checked" = skipped ] || (cd "$work" && unset MAKEFLAGS MAKELEVEL && bash -c "$check") > "$log" 2>&1 || {
    # The failing tests by name: tools/run_tests.sh's FAIL lines, Check's
    # file:line:F: (or :E:) lines under them, a test that did not run to its
    # end, the closing count; where there are none (the build failed), the
    # log's last lines.
    keep_log=1
    fails=$(grep -E '^  FAIL  |^[^ :]+:[0-9]+:[EF]:|did not run to .* end|^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log")
    if [ -n "$fails" ]; then
        echo "$me: the failing tests (the log's FAIL lines):" >&2
        head -n 60 <<<"$fails" >&2
        more=$(($(wc -l <<<"$fails") - 60))
        [ "$more" -le 0 ] || echo "$me: ... $more more such line$([ "$more" -eq 1 ] || echo s) in the log" >&2
    else
        echo "$me: no test's FAIL line in the log: its last lines:" >&2
        tail -n 40 "$log" >&2
    fi
    echo "$me: $checked failed in the release: no release made; its whole log is kept: $log_path" >&2
    exit 1
}
set +C
rm -f "$log"
git -C "$work" clean -fdxq && [ -z "$(git -C "$work" status --porcelain)" ] ||
    { echo "$me: the release's files changed under $checked: $(git -C "$work" status --porcelain | head -n 3)" >&2; exit 1; }

[ ! -d "$dest" ] || rmdir "$dest" || exit 1
mv "$work" "$dest" || { echo "$me: could not rename $work to $dest" >&2; exit 1; }
trap - EXIT
echo "$me: $dest: the course for students, one commit ($(git -C "$dest" rev-parse --short HEAD)), from $source_commit$(git diff --quiet HEAD || echo ' with uncommitted changes')"
if [ "$checked" = skipped ]; then
    echo "$me: the release's check was skipped (RELEASE_CHECK=${RELEASE_CHECK}): run make check in $dest before handing it over"
else
    echo "$me: $checked passed in the release"
fi
# count N THING [THINGS]: "1 file", "3 files"
count() { if [ "$1" -eq 1 ]; then echo "$1 $2"; else echo "$1 ${3:-${2}s}"; fi; }
echo "$me: left out: solutions/ ($(count "$(git ls-files solutions | wc -l)" file)), tests/wrong/ ($(count "$(git ls-files tests/wrong | wc -l)" "wrong answer")), the last hint of $(count "$hints" exercise), TEACHING.md, tests/odd_path.sh, the tests of tools/student_release.sh and .ci/"
