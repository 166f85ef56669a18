#!/usr/bin/env bash
# make hint EX=chNN: the next of an exercise's three hints (where to look; the
# idea; nearly the code), from exercises/<folder>/hints.txt, whose hints are
# separated by lines of "---". Which hint comes next is remembered in
# build/hints/<exercise>; `rm -r build/hints` starts over.
set -u
ex=${1:-}
shift
if [ -z "$ex" ]; then echo "usage: make hint EX=<exercise>   (exercises: $*)" >&2; exit 2; fi
case " $* " in *" $ex "*) ;; *) echo "hint: no exercise '$ex' (exercises: $*)" >&2; exit 2 ;; esac
eval "$(make -s print-registry)" || exit 2
dvar=ex_${ex}_DIR
file=exercises/${!dvar}/hints.txt
[ -f "$file" ] || { echo "hint: $file is missing" >&2; exit 1; }
mkdir -p build/hints
given=$(cat "build/hints/$ex" 2>/dev/null || echo 0)
total=$(awk '/^---$/ {n++} END {print n + 1}' "$file")
if [ "$given" -ge "$total" ]; then
    echo "hint: all $total hints for $ex given. The model answer is in solutions/${!dvar}/ (rm -r build/hints to see the hints again)."
    exit 0
fi
next=$((given + 1))
echo "hint $next of $total for $ex:"
awk -v k="$next" '/^---$/ {n++; next} n + 1 == k' "$file" | sed 's/^/  /'
echo "$next" > "build/hints/$ex"
