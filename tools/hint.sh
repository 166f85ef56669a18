#!/usr/bin/env bash
# make hint EX=chNN: the next of an exercise's three hints (where to look; the
# idea; nearly the code, never the answer's lines), from tests/hints/<exercise>.txt
# (not in the exercise's folder: a hint is read when asked for), whose hints are
# separated by lines of "---". Which hint comes next is remembered in
# build/hints/<exercise> (or $HINTS_DIR); `rm -r build/hints` starts over.
# That file is replaced (a rename: never written through a link) only if it is
# a count this script wrote: a regular file its owner may write (root too)
# that holds a number (not another user's in a sticky folder such as /tmp),
# in a folder its owner may write (root too); anything else there is
# someone's, and is refused (exit 2) before a hint is given.
# Usage: hint.sh EX-TEXT EXERCISE...
set -u
# --help alone: the comment above, as the usage text (make passes EX's text
# and then the exercises: EX=--help is a name that is no exercise, said so).
if [ $# -eq 1 ] && [[ $1 == -h || $1 == --help ]]; then sed -n '2,/^set -u$/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0; fi
tool=hint
. "$(dirname "$0")/exercise_names.sh"
# shellcheck source=tools/file_checks.bash
. "$(dirname "$0")/file_checks.bash"
text=$1
shift
read -r -d '' -a words <<< "$text"
if [ ${#words[@]} -ne 1 ]; then echo "usage: make hint EX=<one exercise>   (exercises: $*)" >&2; exit 2; fi
exercise_names "$text" "$@"
ex=${names[0]}
# The registry, checked: eval of empty text succeeds (a make that printed
# nothing), so its text must define what it always defines (CHAPTERS and EXERCISES),
# not empty; the environment's own (make bench CHAPTERS=...) does not count.
registry=$(make -s print-registry) && grep -q "^CHAPTERS='." <<< "$registry" && grep -q "^EXERCISES='." <<< "$registry" && eval "$registry" ||
    { echo "hint: the chapter registry did not load (make -s print-registry gave no CHAPTERS or EXERCISES): run this from the course's root, through make" >&2; exit 2; }
dvar=ex_${ex}_DIR
file=tests/hints/$ex.txt
[ -f "$file" ] || { echo "hint: $file is missing" >&2; exit 1; }
state=${HINTS_DIR:-build/hints}
# a folder whose owner made it read-only is left so, by root too
why=$(folder_problem "$state")
[ -z "$why" ] || { echo "hint: cannot keep the count of hints given in $state/: $why" >&2; exit 2; }
mkdir -p "$state" || exit 1
count=$state/$ex
# count_problem: why $count may not be replaced (nothing: it may, or it is not there).
count_problem() {
    local why
    why=$(replace_problem_common "$count")
    if [ -n "$why" ]; then echo "$why"; return; fi
    [ -e "$count" ] || return 0
    [[ $(cat -- "$count") =~ ^[0-9]{0,3}$ ]] || echo "holds something else, not a count of hints given"
}
refuse_count() {
    local why
    why=$(count_problem)
    [ -z "$why" ] && return
    echo "hint: $count $why: not replaced (move it away, and hints start over)" >&2
    rm -f "${tmp:-}"
    exit 2
}
tmp=
refuse_count
given=$(cat "$count" 2>/dev/null)
given=$((10#${given:-0})) # a number we wrote (never evaluated as code: decimal digits only), or none yet
total=$(awk '/^---$/ {n++} END {print n + 1}' "$file")
if [ "$given" -ge "$total" ]; then
    answer="The model answer is in solutions/${!dvar}/"
    [ -d solutions ] || answer="The model answer is not in a student release: ask your teacher"
    echo "hint: all $total hints for $ex given. $answer (rm -r build/hints to see the hints again)."
    exit 0
fi
next=$((given + 1))
echo "hint $next of $total for $ex:"
awk -v k="$next" '/^---$/ {n++; next} n + 1 == k' "$file" | sed 's/^/  /'
tmp=$(mktemp "$state/.$ex.XXXXXX") && echo "$next" > "$tmp" || exit 1
refuse_count # again, just before the rename
mv -f "$tmp" "$count" || { rm -f "$tmp"; exit 1; }
