#!/usr/bin/env bash
# --help on the course's own tools: bench.sh, hint.sh, chapter_diff.sh,
# student_release.sh, reset_exercise.sh, book.py and show_stage.py each print their usage
# (the make target that runs them) on stdout and exit 0, doing nothing else:
# no release folder named --help, no results, nothing reset. In a scratch copy.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v python3 > /dev/null || { echo "no python3: tools/book.py needs it"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
cd "$repo" || exit 1
before=$(find . | LC_ALL=C sort | cksum)
for t in bench.sh:'make bench' hint.sh:'make hint' chapter_diff.sh:'make diff' student_release.sh:'make student-release' \
         reset_exercise.sh:'make reset' book.py:'make book' show_stage.py:'make show'; do
    tool=${t%%:*} want=${t#*:}
    case $tool in *.py) run=(python3 "tools/$tool") ;; *) run=(bash "tools/$tool") ;; esac
    "${run[@]}" --help > "$scratch/out" 2> "$scratch/err"
    rc=$?
    [ $rc -eq 0 ] || fail "tools/$tool --help: exit $rc, not 0: $(head -n 3 "$scratch/err")"
    grep -q "$want" "$scratch/out" || fail "tools/$tool --help does not say how it is run ('$want'): $(head -n 3 "$scratch/out")"
done
[ "$(find . | LC_ALL=C sort | cksum)" = "$before" ] || fail "a tool's --help changed the copy: $(find . -newer Makefile | head -n 5)"
echo "every tool answers --help with its usage, exit 0, and does nothing else"
