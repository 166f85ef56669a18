#!/usr/bin/env bash
# The GPU half of `make sanitize` (and of `make check-gpu`): compute-sanitizer's
# memcheck, racecheck, synccheck and initcheck over every GPU stage of every GPU
# chapter in the registry, with each argument set of chNN_SANITIZE (small, odd
# sizes). The stages are the chapter's rows (--list-stages) that do not run on
# the CPU (those are left to the CPU sanitizers). Every stage must be clean,
# except a row tagged racy, which racecheck must flag (its race is the lesson):
# if racecheck finds nothing there, that is a failure too.
# Logs go to build/sanitize/, each headed by the device (its first line), the
# commit, the run id (tools/run_provenance.sh) and the command. Runs are independent, so JOBS of them (default: half the cores, at
# most 8) share the GPU at once; CHAPTERS="ch06 ch07" and TOOLS="racecheck"
# choose a subset. Ends with one line: "gpu-sanitize: R runs, F failures".
set -u
# shellcheck source=tools/columns.sh
. "$(dirname "$0")/columns.sh"
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$cs" ]; then echo "gpu-sanitize: compute-sanitizer not found (it comes with the full CUDA Toolkit): GPU checks skipped"; exit 0; fi
if ! nvidia-smi -L >/dev/null 2>&1; then echo "gpu-sanitize: no GPU: GPU checks skipped"; exit 0; fi
requested=${CHAPTERS:-}
eval "$(make -s print-registry)" || exit 2
[ -n "$requested" ] && CHAPTERS=$requested
logs=build/sanitize
rm -rf "$logs" && mkdir -p "$logs" || exit 1
cores=$(nproc)
jobs=${JOBS:-$(( cores / 2 > 8 ? 8 : (cores / 2 < 1 ? 1 : cores / 2) ))}
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
# the commit and run id every log carries (tools/run_provenance.sh: BENCH_RUN_ID when given)
# shellcheck source=tools/run_provenance.sh
. "$(dirname "$0")/run_provenance.sh"
provenance_init
commit=$(provenance_commit)
export cs logs device commit

# The GPU stages of a chapter from its rows (--list-stages): name, and yes when
# the row is tagged racy (its race is its lesson: racecheck must flag it).
gpu_stages_of() {
    stage_columns name where tags || return 1
    ./"$1" --list-stages | awk -F'\t' "${cols[@]}" '$c_where != "cpu" {print $c_name, ($c_tags ~ /(^| )racy( |$)/ ? "yes" : "no")}'
}

# run_one ID TOOL CHAPTER STAGE RACY ARGS...: one run; prints one result line.
run_one() {
    local id=$1 tool=$2 ch=$3 stage=$4 racy=$5
    shift 5
    local log=$logs/${tool}_${ch}_${stage}$(printf '_%s' "$@" | tr -c 'A-Za-z0-9_.-' '_').log out=()
    case " $RAYTRACERS " in *" $ch "*) out=(--out "$logs/$ch-$id.ppm") ;; esac
    {
        echo "# device: ${device:-unknown} (nvidia-smi: name, driver)"
        echo "# commit: $commit"
        echo "# run: $BENCH_RUN_ID"
        echo "# command: compute-sanitizer --tool $tool ./$ch --stage $stage --repeat 1 --quiet $* ${out[*]}"
    } > "$log"
    "$cs" --tool "$tool" --error-exitcode 99 ./"$ch" --stage "$stage" --repeat 1 --quiet "$@" "${out[@]}" >> "$log" 2>&1 < /dev/null
    local status=$? hazards
    hazards=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | grep -oE '[0-9]+' | head -n1)
    if [ "$tool" = racecheck ] && [ "$racy" = yes ]; then
        if [ "${hazards:-0}" -gt 0 ]; then
            echo "  ok    racecheck flags $ch $stage $*: $hazards hazards, as it must"
        else
            echo "  FAIL  racecheck found no race in $ch $stage $* (log: $log)"
        fi
    elif [ $status -eq 0 ] && [ "${hazards:-0}" -eq 0 ]; then
        echo "  ok    $tool $ch $stage $*"
    else
        echo "  FAIL  $tool $ch $stage $* (exit $status, log: $log)"
        grep -m 5 -E '=====' "$log" | sed 's/^/        /'
    fi
}
export -f run_one

# The list of runs, one per line: ID TOOL CHAPTER STAGE RACY ARGS...
RAYTRACERS=
list=$logs/runs.txt
n=0
for ch in $CHAPTERS; do
    gpu=${ch}_GPU ray=${ch}_RAYTRACER
    [ "${!gpu}" = none ] && continue
    [ "${!ray}" = yes ] && RAYTRACERS="$RAYTRACERS $ch"
    [ -x "./$ch" ] || { echo "gpu-sanitize: ./$ch is not built (make $ch)"; exit 2; }
done
export RAYTRACERS
for tool in ${TOOLS:-memcheck racecheck synccheck initcheck}; do
    for ch in $CHAPTERS; do
        gpu=${ch}_GPU sets=${ch}_SANITIZE
        [ "${!gpu}" = none ] && continue
        IFS=';' read -ra argsets <<<"${!sets}"
        while read -r s racy; do
            for a in "${argsets[@]}"; do
                n=$((n + 1))
                echo "$n $tool $ch $s $racy $a"
            done
        done < <(gpu_stages_of "$ch")
    done
done > "$list"
echo "gpu-sanitize: $(wc -l < "$list") runs on ${device:-a GPU}, $jobs at a time (logs: $logs/)"
# An argument set is words (no spaces inside one), so xargs may split the line.
results=$(xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ < "$list")
printf '%s\n' "$results"
runs=$(grep -cE '^  (ok|FAIL) ' <<<"$results")
failures=$(grep -cE '^  FAIL ' <<<"$results")
[ "$runs" -eq "$(wc -l < "$list")" ] || { echo "gpu-sanitize: $runs results for $(wc -l < "$list") runs"; failures=$((failures + 1)); }
echo "gpu-sanitize: $runs runs, $failures failures"
[ "$failures" -eq 0 ]
