#!/usr/bin/env bash
# make profiles: make profile for every GPU stage that names a kernel, in every
# GPU chapter of the registry (CHAPTERS="ch06 ch07": a subset), into
# data/profiles/<machine>/ (the device named in each report, with the commit
# and one run id for them all: BENCH_RUN_ID, or a new one). Needs ncu and a GPU.
set -u
# shellcheck source=tools/columns.sh
. "$(dirname "$0")/columns.sh"
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
requested=${CHAPTERS:-}
eval "$(make -s print-registry)" || exit 2
[ -n "$requested" ] && CHAPTERS=$requested
command -v ncu > /dev/null || [ -x /usr/local/cuda/bin/ncu ] || { echo "profiles: ncu (Nsight Compute) not found (it comes with the full CUDA Toolkit): nothing profiled" >&2; exit 1; }
# One run id for every report of this invocation (make bench's, BENCH_RUN_ID,
# when given): exported, so profile.sh and racecheck_evidence.sh write it.
# shellcheck source=tools/run_provenance.sh
. "$(dirname "$0")/run_provenance.sh"
provenance_init
echo "profiles: run $BENCH_RUN_ID, commit $(provenance_commit)"
failures=0 done=0
for ch in $CHAPTERS; do
    gpu=${ch}_GPU
    [ "${!gpu}" = none ] && continue
    [ -x "./$ch" ] || { echo "profiles: ./$ch is not built (make $ch)"; failures=$((failures + 1)); continue; }
    while IFS=$'\t' read -r stage kernel; do
        [ "$kernel" = - ] && continue
        if tools/profile.sh "$ch" "$stage" > /dev/null < /dev/null; then done=$((done + 1)); else failures=$((failures + 1)); fi
    done < <(./"$ch" --list-stages | stage_fields name kernel)
done
echo "profiles: $done stages profiled into data/profiles/$MACHINE/, $failures failed"
# The racy rows' racecheck reports, which the book quotes.
tools/racecheck_evidence.sh || failures=$((failures + 1))
[ $failures -eq 0 ]
