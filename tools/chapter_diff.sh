#!/usr/bin/env bash
# make diff A=ch04 B=ch05: what changed from one chapter's sources to the next,
# file by file. Files are paired by name; then by B's registry entry
# (chNN_RENAMED "new:old", when A is the chapter just before B: ch04's card.h
# is ch03's card.c made host-and-device code); then by stem (render.c with render.cu). Every hunk's header names its
# pair ("--- ch03/card.c" "+++ ch04/card.h"). A file only B has is shown whole
# as added; one only A has is named as gone.
# make diff A=ch05:loop B=ch05:float-only: what the second stage changes from
# the first, within one chapter (tools/stage_diff.py --help says how).
set -u
# --help: the comment above, as the usage text.
case ${1:-} in -h | --help) sed -n '2,/^set -u$/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
a=${1:-}
b=${2:-}
# A=chNN:STAGE B=chNN:STAGE: two stages of one chapter, by tools/stage_diff.py.
case $a$b in *:*) exec python3 "$(dirname "$0")/stage_diff.py" "$a" "$b" ;; esac
if [ -z "$a" ] || [ -z "$b" ]; then
    echo "usage: make diff A=chNN B=chMM   (e.g. make diff A=ch04 B=ch05)" >&2
    exit 2
fi
# The registry, checked: eval of empty text succeeds (a make that printed
# nothing), so its text must define what it always defines (CHAPTERS),
# not empty; the environment's own (make bench CHAPTERS=...) does not count.
registry=$(make -s print-registry) && grep -q "^CHAPTERS='." <<< "$registry" && eval "$registry" ||
    { echo "make diff: the chapter registry did not load (make -s print-registry gave no CHAPTERS): run this from the course's root, through make" >&2; exit 2; }
for c in "$a" "$b"; do # names checked against the registry before any use
    case " $CHAPTERS " in *" $c "*) ;; *) echo "make diff: no chapter '$c' (chapters: $CHAPTERS)" >&2; exit 2 ;; esac
done
da_var=${a}_DIR db_var=${b}_DIR renamed_var=${b}_RENAMED
da=${!da_var:-}
db=${!db_var:-}
[ -n "$da" ] || { echo "make diff: no chapter $a (chapters: $CHAPTERS)" >&2; exit 2; }
[ -n "$db" ] || { echo "make diff: no chapter $b (chapters: $CHAPTERS)" >&2; exit 2; }
mapfile -t fa < <(cd "$da" && ls)
mapfile -t fb < <(cd "$db" && ls)
declare -A partner used
for f in "${fb[@]}"; do [ -e "$da/$f" ] && partner[$f]=$f && used[$f]=1; done
# B's renames are from the chapter just before it: they hold only when A is that one.
before=
for c in $CHAPTERS; do [ "$c" = "$b" ] && break; before=$c; done
[ "$a" = "$before" ] || renamed_var=no_renames
no_renames=
for pair in ${!renamed_var}; do
    new=${pair%%:*} old=${pair#*:}
    [ -e "$db/$new" ] && [ -e "$da/$old" ] && partner[$new]=$old && used[$old]=1
done
for f in "${fb[@]}"; do
    [ -n "${partner[$f]:-}" ] && continue
    for g in "${fa[@]}"; do
        if [ -z "${used[$g]:-}" ] && [ "${g%.*}" = "${f%.*}" ]; then partner[$f]=$g; used[$g]=1; break; fi
    done
done
status=0
for f in "${fb[@]}"; do
    g=${partner[$f]:-}
    if [ -n "$g" ]; then
        [ "$g" != "$f" ] && echo "=== $a/$g -> $b/$f (renamed)"
        diff -u --label "$a/$g" --label "$b/$f" "$da/$g" "$db/$f"
    else
        echo "=== $b/$f: new in $b"
        diff -u --label /dev/null --label "$b/$f" /dev/null "$db/$f"
    fi
    [ $? -le 1 ] || status=2
done
for g in "${fa[@]}"; do
    [ -z "${used[$g]:-}" ] && echo "=== $a/$g: gone in $b ($(wc -l < "$da/$g") lines)"
done
exit $status
