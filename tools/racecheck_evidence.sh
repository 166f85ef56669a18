#!/usr/bin/env bash
# The book's evidence for a deliberately racy stage (a row tagged racy, e.g.
# ch06 warp-unrolled-volatile): compute-sanitizer racecheck's report on it,
# saved as data/profiles/<machine>/<chapter>_racecheck_<stage>.log (not .txt:
# the profile tools read every .txt there as an Nsight Compute report), its first
# line naming the device, then the commit, the run id (tools/run_provenance.sh) and
# the command. make profiles runs
# it; CHAPTERS="ch06" limits it. The report's first lines and its summary are
# kept; a report that flags no race is not.
set -u
# shellcheck source=tools/columns.sh
. "$(dirname "$0")/columns.sh"
requested=${CHAPTERS:-}
eval "$(make -s print-registry)" || exit 2
[ -n "$requested" ] && CHAPTERS=$requested
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "racecheck-evidence: compute-sanitizer not found: nothing saved"; exit 0; }
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
[ -n "$device" ] || { echo "racecheck-evidence: no GPU: nothing saved"; exit 0; }
# the commit and run id the logs carry (tools/run_provenance.sh: BENCH_RUN_ID when given)
# shellcheck source=tools/run_provenance.sh
. "$(dirname "$0")/run_provenance.sh"
provenance_init
dir=data/profiles/$MACHINE
mkdir -p "$dir" || exit 1
failures=0
for ch in $CHAPTERS; do
    gpu=${ch}_GPU sets=${ch}_SANITIZE
    [ "${!gpu}" = none ] && continue
    args=${!sets##*;} # the chapter's last (largest) sanitizer argument set
    while IFS=$'\t' read -r stage tags; do
        case " $tags " in *" racy "*) ;; *) continue ;; esac
        out=$dir/${ch}_racecheck_${stage}.log
        {
            echo "# device: $device (nvidia-smi: name, driver)"
            provenance_lines
            echo "# command: compute-sanitizer --tool racecheck ./$ch --stage $stage --repeat 1 --quiet $args"
            # shellcheck disable=SC2086 # an argument set is words
            "$cs" --tool racecheck ./"$ch" --stage "$stage" --repeat 1 --quiet $args > "$out.full" 2>&1 < /dev/null
            head -n 12 "$out.full" # the first reports, as the book shows them
            echo "(...)"
            grep -E 'RACECHECK SUMMARY' "$out.full"
        } > "$out.tmp"
        rm -f "$out.full"
        if grep -qE 'RACECHECK SUMMARY: [1-9][0-9]* hazard' "$out.tmp"; then
            mv "$out.tmp" "$out" && echo "racecheck-evidence: $out"
        else
            echo "racecheck-evidence: $ch $stage: racecheck found no race (log: $out.tmp)"; failures=$((failures + 1))
        fi
    done < <(./"$ch" --list-stages | stage_fields name tags)
done
[ $failures -eq 0 ]
