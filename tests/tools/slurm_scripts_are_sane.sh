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

# The site's part: each script's partition and account are placeholders Slurm
# ignores (##SBATCH) until edited, it sources job.bash and sets up its job
# with job_setup, and --help prints its opening comment, exit 0.
for f in tools/slurm/job.bash tools/slurm/site.env tools/slurm/check_in_home.sh; do bash -n "$f" || fail "$f: bash -n failed"; done
for s in "${scripts[@]}"; do
    grep -qx '##SBATCH --partition=EDIT-ME-partition' "$s" && grep -qx '##SBATCH --account=EDIT-ME-account' "$s" ||
        fail "$s: no ##SBATCH --partition/--account placeholders"
    ! grep -qE '^#SBATCH +(--partition|--account|-p|-A)' "$s" || fail "$s: a live partition or account line (sites differ: leave it a placeholder)"
    grep -q '^\. tools/slurm/job.bash' "$s" && grep -q '^job_setup ' "$s" || fail "$s: does not source job.bash and run job_setup"
    said=$(bash "$s" --help) || fail "$s --help exited $?"
    [ "$(head -n 1 <<<"$said")" = "$(sed -n '2s/^# //p' "$s")" ] || fail "$s --help does not print its comment: $(head -n 2 <<<"$said")"
done
# job_setup in a scratch copy with a site.env of its own: the modules are
# loaded (a stand-in module command), CUDA_ARCHS reaches make, and a missing
# nvcc stops the job with a line that says what to edit.
rm -f "$planted"
scratch_copy "$PWD"
cd "$repo" || exit 1
printf 'COURSE_MODULES="cuda/12.4 openmpi/4.1"\nCUDA_ARCH=""\nCUDA_ARCHS="sm_80 sm_90"\n' > tools/slurm/site.env
module() { echo "module $*" >> "$repo/module.log"; }
export -f module; export repo
said=$(NVCC=/nonexistent/nvcc bash -c '. tools/slurm/job.bash && job_setup grade nvcc && echo "arch $(make -s print-cuda-arch)"' 2>&1) &&
    fail "job_setup passed without an nvcc: $said"
grep -q 'grade: nvcc not found in this job .*set COURSE_MODULES in tools/slurm/site.env' <<<"$said" || fail "job_setup without nvcc says: $said"
grep -qx 'module load cuda/12.4 openmpi/4.1' module.log || fail "job_setup did not load the site's modules: $(cat module.log 2> /dev/null)"
mkdir -p bin && printf '#!/bin/sh\n' > bin/nvcc && chmod +x bin/nvcc
said=$(NVCC=$repo/bin/nvcc bash -c '. tools/slurm/job.bash && job_setup grade nvcc && echo "arch $CUDA_ARCHS: $(make -s print-cuda-arch)"' 2>&1) ||
    fail "job_setup with an nvcc failed: $said"
grep -qx 'arch sm_80 sm_90: sm_80' <<<"$said" || fail "CUDA_ARCHS from site.env did not reach make: $said"
echo "${#scripts[@]} batch scripts: bash -n clean, every make target and program option exists, site placeholders, job_setup, --help"
