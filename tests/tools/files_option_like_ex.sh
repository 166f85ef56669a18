#!/usr/bin/env bash
# An EX that looks like an option is a name like any other (nothing lost,
# round 5, item C): make hint, make reset and make grade with EX=--help, -h
# or -n say "no exercise '...'" (exit 2) and do nothing, where --help and -h
# used to print the tool's usage and exit 0, as if the make target had been
# asked for help. The tools alone still answer --help (tools_answer_help.sh).
# In a scratch copy.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
scratch_copy "$1"
tar -C "$1" -cf - tests/hints exercises | tar -C "$repo" -xf - || fail "cannot copy the hints and exercises"
cd "$repo" || exit 1
export CLANG_CUDA='' MAKEFLAGS='' # no clang probe; not the flags of a make this runs under
before=$(find . ! -path './build*' | LC_ALL=C sort | cksum)
for target in hint reset grade; do
    for ex in --help -h -n --stage=all; do
        make --no-print-directory "$target" EX="$ex" > "$scratch/said" 2>&1
        rc=$?
        [ $rc -ne 0 ] || fail "make $target EX=$ex exited 0: $(head -n 2 "$scratch/said")"
        grep -qF -- "$target: no exercise '$ex'" "$scratch/said" || fail "make $target EX=$ex said: $(head -n 2 "$scratch/said")"
        ! grep -q '^make [a-z]* EX=chNN' "$scratch/said" || fail "make $target EX=$ex printed the tool's usage text"
    done
done
[ "$(find . ! -path './build*' | LC_ALL=C sort | cksum)" = "$before" ] || fail "an option-like EX changed the copy"
[ ! -e build/hints ] && [ ! -e saved ] || fail "an option-like EX gave a hint or saved a folder"
echo "make hint, reset and grade take an option-like EX as a name that is no exercise"
