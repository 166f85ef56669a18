#!/usr/bin/env bash
# issue_slots.sh [ROOT]: ch07's issue-slot ceiling in the target's units (GFLOP/s
# at 20 flops per interaction), per machine and profiled stage, as Markdown
# for `make book` (book_extra.py). Reads only committed data under ROOT
# (default .): the bench log data/results/<machine>/ch07.txt and the profiles
# data/profiles/<machine>/ch07_<stage>.txt.
#
# An SM issues at most one warp instruction per scheduler per cycle: 4 x 32
# thread instructions per SM per cycle. A stage whose loop takes k thread
# instructions per interaction (counted: smsp__thread_inst_executed.sum over
# the n^2 interactions of the profiled launch) reaches at most
#   20 x 4 x 32 x SMs x clock / k   flops a second  (at the clock the FMA ceiling ran at), or
#   10 x FMA ceiling / k                            (each FMA one issue slot: on sm_86 and newer
#                                                    the 128 FP32 lanes are the 4 x 32 issue lanes).
# The FMA ceiling is the log's best ceiling-fp32-peak row; its note gives the
# clock and SMs (common/gpu/ceiling.h), "-" where an older log lacks them. The
# symmetric stages do n^2 / 2 interactions a launch and are left out.
set -u
root=${1:-.}
shopt -s nullglob
for log in "$root"/data/results/*/ch07.txt; do
    m=$(basename "$(dirname "$log")")
    profiles=("$root/data/profiles/$m"/ch07_gpu-*.txt)
    [ ${#profiles[@]} -gt 0 ] || continue
    # the best FMA ceiling row: value, MHz, SMs
    read -r fma mhz sms < <(awk '$1 == "ceiling-fp32-peak" {
        v = 0; for (i = 2; i < NF; i++) if ($(i + 1) == "GFLOP/s") v = $i + 0
        if (v > best) {
            best = v; clock = "-"; count = "-"
            if (match($0, /ran at [0-9]+ MHz on [0-9]+ SMs/)) { split(substr($0, RSTART, RLENGTH), w, " "); clock = w[3]; count = w[6] }
        }
    } END { if (best > 0) print best, clock, count }' "$log")
    [ -n "${fma:-}" ] || continue
    ran="run at $mhz MHz on $sms SMs"
    [ "$mhz" = - ] && ran="its clock not in this log's note"
    echo "*\`$m\`: the FMA ceiling $(printf '%.0f' "$fma") GFLOP/s (\`${log#"$root"/}\`'s best ceiling-fp32-peak row), $ran; instructions from \`data/profiles/$m/\`:*"
    echo
    echo "| stage | thread instructions per interaction (counted) | issue-slot ceiling at that clock, GFLOP/s | 10 x FMA ceiling / k, GFLOP/s | the stage, GFLOP/s | of the issue-slot ceiling |"
    echo "|---|---:|---:|---:|---:|---:|"
    for p in "${profiles[@]}"; do
        stage=$(basename "$p" .txt)
        stage=${stage#ch07_}
        case $stage in *symmetric*) continue ;; esac
        awk -v stage="$stage" -v fma="$fma" -v mhz="$mhz" -v sms="$sms" '
        FNR == NR && /^ch07  workload n=/ { split($3, w, "="); n = w[2] }
        FNR == NR && $1 == "smsp__thread_inst_executed.sum" { v = $NF; gsub(/,/, "", v); inst = v + 0 }
        FNR == NR { next }
        /^ch07  workload n=/ { split($3, w, "="); here = w[2] == n }
        here && $1 == stage { for (i = 2; i < NF; i++) if ($(i + 1) == "GFLOP/s") rate = $i + 0 }
        END {
            if (!n || !inst) exit
            k = inst / (n * n)
            clocked = mhz == "-" ? "-" : sprintf("%.0f", 20 * 128 * sms * mhz / 1000 / k)
            ceiling = mhz == "-" ? 10 * fma / k : 20 * 128 * sms * mhz / 1000 / k
            printf "| %s | %.2f | %s | %.0f | %s | %s |\n", stage, k, clocked, 10 * fma / k,
                rate ? sprintf("%.0f", rate) : "-", rate ? sprintf("%.1f%%", 100 * rate / ceiling) : "-"
        }' "$p" "$log" || exit 1
    done
    if [ "$mhz" = "-" ]; then
        echo
        echo "*(This log predates the clock in the ceiling's note: the share is of the FMA-derived column.)*"
    fi
    echo
done
