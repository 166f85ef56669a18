#!/usr/bin/env bash
# The GPU half of `make sanitize`: compute-sanitizer's memcheck, racecheck,
# synccheck and initcheck over every GPU stage of every GPU chapter in the
# registry, with each argument set of chNN_SANITIZE (small, odd sizes). The
# stages are the chapter's rows (--list-stages) that do not run on the CPU
# (those are left to the CPU sanitizers). Every stage must be clean, except a
# row tagged racy, which racecheck must flag (its race is the lesson): if
# racecheck finds nothing there, that is a failure too. Logs go to build/sanitize/.
set -u
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$cs" ]; then echo "gpu-sanitize: compute-sanitizer not found (it comes with the full CUDA Toolkit): GPU checks skipped"; exit 0; fi
if ! nvidia-smi -L >/dev/null 2>&1; then echo "gpu-sanitize: no GPU: GPU checks skipped"; exit 0; fi
requested=${CHAPTERS:-} # CHAPTERS="ch06 ch07" checks a subset; TOOLS="racecheck" one tool
eval "$(make -s print-registry)" || exit 2
[ -n "$requested" ] && CHAPTERS=$requested
mkdir -p build/sanitize
failures=0 runs=0

# The GPU stages of a chapter from its rows (--list-stages): name, and yes when
# the row is tagged racy (its race is its lesson: racecheck must flag it).
gpu_stages_of() { ./"$1" --list-stages | awk -F'\t' '$2 != "cpu" {print $1, ($5 ~ /(^| )racy( |$)/ ? "yes" : "no")}'; }

run() { # tool chapter stage racy args...
    local tool=$1 ch=$2 stage=$3 racy=$4
    shift 4
    local log=build/sanitize/${tool}_${ch}_${stage}$(printf '_%s' "$@" | tr -c 'A-Za-z0-9_.-' '_').log
    "$cs" --tool "$tool" --error-exitcode 99 ./"$ch" --stage "$stage" --repeat 1 --quiet "$@" > "$log" 2>&1
    local status=$? hazards
    runs=$((runs + 1))
    hazards=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -oE '[0-9]+' | head -n1)
    if [ "$tool" = racecheck ] && [ "$racy" = yes ]; then
        if [ "${hazards:-0}" -gt 0 ]; then
            echo "  ok    racecheck flags $ch $stage: $hazards hazards, as it must"
        else
            echo "  FAIL  racecheck found no race in $ch $stage (log: $log)"; failures=$((failures + 1))
        fi
        return
    fi
    if [ $status -eq 0 ] && [ "${hazards:-0}" -eq 0 ]; then
        echo "  ok    $tool $ch $stage $*"
    else
        echo "  FAIL  $tool $ch $stage $* (exit $status, log: $log)"; grep -m 5 -E '=====' "$log"; failures=$((failures + 1))
    fi
}

for tool in ${TOOLS:-memcheck racecheck synccheck initcheck}; do
    for ch in $CHAPTERS; do
        gpu=${ch}_GPU sets=${ch}_SANITIZE ray=${ch}_RAYTRACER
        [ "${!gpu}" = none ] && continue
        out=()
        [ "${!ray}" = yes ] && out=(--out "build/sanitize/$ch.ppm")
        IFS=';' read -ra argsets <<<"${!sets}"
        while read -r s racy; do
            for a in "${argsets[@]}"; do
                # shellcheck disable=SC2086 # an argument set is words
                run "$tool" "$ch" "$s" "$racy" $a "${out[@]}" < /dev/null
            done
        done < <(gpu_stages_of "$ch")
    done
done
echo "gpu-sanitize: $runs runs, $failures failures"
[ $failures -eq 0 ]
