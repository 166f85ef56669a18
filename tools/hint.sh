#!/usr/bin/env bash
# make hint EX=chNN: the next of an exercise's three hints (where to look; the
# idea; nearly the code, never the answer's lines), from tests/hints/<exercise>.txt
# (not in the exercise's folder: a hint is read when asked for), whose hints are
# separated by lines of "---". Which hint comes next is remembered in
# build/hints/<exercise> (or $HINTS_DIR); `rm -r build/hints` starts over.
# Usage: hint.sh EX-TEXT EXERCISE...
set -u
# --help: the comment above, as the usage text.
case ${1:-} in -h | --help) sed -n '2,/^set -u$/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
tool=hint
. "$(dirname "$0")/exercise_names.sh"
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
mkdir -p "$state"
given=$(cat "$state/$ex" 2>/dev/null || echo 0)
[[ $given =~ ^[0-9]{1,3}$ ]] || given=0 # a number we wrote, or start over: never evaluated as code
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
echo "$next" > "$state/$ex"
