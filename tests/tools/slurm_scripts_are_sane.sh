#!/usr/bin/env bash
# The batch scripts in tools/slurm/ cannot rot unseen: each is valid bash
# (bash -n), every `make TARGET` it runs names a target the Makefile has, and
# every option it gives a chapter program (./chNN --opt) is one that
# program's --help lists. Read: each line's code (continued lines joined)
# and every `quoted` command in its comments. The checker is first given a
# planted script with one unknown target and one unknown option and must
# report both: a check that cannot fail proves nothing.
# Needs the chapter programs the scripts run built (make check builds them).
set -u
scripts=(tools/slurm/*.sbatch)
# The chapter programs the scripts run, once each.
programs() { grep -ohE '\./ch[0-9][0-9]\b' "${scripts[@]}" | sort -u; }
if [ "${1:-}" = --can-run ]; then
    [ -e "${scripts[0]}" ] || { echo "no tools/slurm/*.sbatch"; exit 77; }
    for p in $(programs); do
        [ -x "$p" ] || { echo "$p is not built (make ${p#./}): its --help lists its options"; exit 77; }
    done
    exit 0
fi
. "$(dirname "$0")/lib.bash"
export CLANG_CUDA= # no clang probe: only the rules are read

# Every target with a rule, from make's own database (chapter.mk's too);
# -q runs no recipe. Files and patterns (a / or %) are not targets one types.
targets=$(make -pq help 2> /dev/null | sed -n 's/^\([A-Za-z0-9_.-][A-Za-z0-9_.-]*\):.*/\1/p' | sort -u)
if ! grep -qx grade <<<"$targets" || ! grep -qx ch01 <<<"$targets"; then fail "could not read the Makefile's targets"; fi
# Each program's --help, read once.
declare -A help
for p in $(programs); do
    help[$p]=$("$p" --help 2> /dev/null) || fail "$p --help failed"
done

# The commands of a script, one per line: continued lines joined, then each
# line's code (before a comment) and each `...` span of its comment.
commands() { # FILE
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" | while IFS= read -r line; do
        local code=${line%%#*} comment=
        [ "$code" = "$line" ] || comment=${line#"$code"}
        printf '%s\n' "$code"
        grep -oE '`[^`]*`' <<<"$comment" | tr -d '`'
    done
}

# Prints one line per problem in FILE: a target make lacks, an option a
# program's --help does not list, a target given by a variable.
check_script() { # FILE
    commands "$1" | tr ';&|()' '\n' | while read -r -a words; do
        local i prog='' after_make=0 skip=0
        for ((i = 0; i < ${#words[@]}; i++)); do
            local w=${words[i]}
            if [ "$skip" = 1 ]; then skip=0; continue; fi
            if [ "$w" = make ]; then after_make=1; prog=; continue; fi
            if [[ $w =~ ^\./ch[0-9][0-9]$ ]]; then prog=$w; after_make=0; continue; fi
            if [ "$after_make" = 1 ]; then
                case $w in
                -C | -f | -I | -o | -W) skip=1 ;; # make options that take a word
                -* | *=*) ;;                      # other options, variables
                \$* | \"\$*) echo "make $w: a target given by a variable cannot be checked" ;;
                *) grep -qx -- "$w" <<<"$targets" || echo "make $w: no such target in the Makefile" ;;
                esac
            elif [ -n "$prog" ] && [[ $w == --* ]]; then
                local opt=${w%%=*}
                grep -qE -- "^ +$opt( |$)" <<<"${help[$prog]}" ||
                    echo "$prog $opt: not an option its --help lists"
            fi
        done
    done
}

# The checker must catch what it is for.
prog=$(programs | head -n 1)
planted=$(mktemp) || exit 1
trap 'rm -f "$planted"' EXIT
printf '%s\n' '#!/usr/bin/env bash' 'make grade no-such-target-here EX=ch03' \
    "# as in \`$prog --no-such-option 3\`" > "$planted"
said=$(check_script "$planted")
grep -q 'make no-such-target-here: no such target' <<<"$said" || fail "the checker missed a planted unknown target: $said"
grep -q -- "$prog --no-such-option: not an option" <<<"$said" || fail "the checker missed a planted unknown option: $said"
[ "$(wc -l <<<"$said")" -eq 2 ] || fail "the checker flagged more than the two planted mistakes: $said"

problems=0
for s in "${scripts[@]}"; do
    bash -n "$s" || { echo "$s: bash -n failed (above)"; problems=$((problems + 1)); continue; }
    said=$(check_script "$s")
    [ -z "$said" ] || { sed "s|^|$s: |" <<<"$said"; problems=$((problems + $(wc -l <<<"$said"))); }
done
[ "$problems" -eq 0 ] || fail "$problems problem(s) in tools/slurm/ (above)"
echo "${#scripts[@]} batch scripts: bash -n clean, every make target and program option exists"
