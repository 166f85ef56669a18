#!/usr/bin/env bash
# Summarises the Nsight Compute reports in data/profiles/<machine>/*.txt (made
# by `make profile` and `make profiles`) as Markdown tables for the book, one
# set per machine, under a heading that names its device (each report's first
# line): no device's numbers under another's. Values are ncu's own; a metric a
# report does not have shows as "-".
set -u
shopt -s nullglob

# table HEADER MARKER BODY: a table of the reports that contain MARKER (none:
# no table), one row each from the awk program BODY, which sees the report's
# name as `name`, val(line) (the line's last field) and unit(line) (the one
# before it), and prints its row in END.
table() {
    local header=$1 marker=$2 body=$3 f printed=0
    for f in "${profiles[@]}"; do
        grep -q "$marker" "$f" || continue
        if [ $printed -eq 0 ]; then
            printf '\n%s\n' "$header"
            awk -F'|' '{ s = "|"; for (i = 2; i < NF; i++) s = s (i == 2 ? "---|" : "---:|"); print s }' <<<"$header"
            printed=1
        fi
        awk -v name="$(basename "$f" .txt)" '
        function val(line) { n = split(line, a, " "); return a[n] }
        function unit(line) { n = split(line, a, " "); return a[n - 1] }
        function or_dash(v) { return v == "" ? "-" : v }
        '"$body" "$f"
    done
}

# provenance_of commit|run REPORT...: "commit A" or "commits A (n), B (m)" from
# the reports' "# commit: ..." (or "# run: ...") header lines; reports made
# before there were run ids: "run not recorded (n)".
provenance_of() {
    local what=$1
    shift
    awk -v what="$what" '
    function none() { if (files && !found) count["not recorded"]++ }
    FNR == 1 { none(); files++; found = 0 }
    FNR <= 8 && $1 == "#" && $2 == what ":" && !found { count[$3]++; found = 1 }
    END {
        none()
        n = 0; for (k in count) keys[++n] = k
        for (i = 2; i <= n; i++) for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) { t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t }
        s = what (n > 1 ? "s " : " ")
        for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") keys[i] (n > 1 ? " (" count[keys[i]] ")" : "")
        print s
    }' "$@"
}

for dir in data/profiles/*/; do
    profiles=("$dir"ch[0-9][0-9]_*.txt)
    [ ${#profiles[@]} -gt 0 ] || continue
    devices=$(sed -n '1s/^# device: \([^,]*\),.*/\1/p' "${profiles[@]}" | sort -u)
    if [ "$(wc -l <<<"$devices")" -ne 1 ] || [ -z "$devices" ]; then
        echo "profile_summary: $dir holds reports of no one device (${devices:-none named}): not summarised" >&2
        exit 1
    fi
    printf '\n*Nsight Compute on the %s (`%s`, %d reports; %s; %s):*\n' "$devices" "${dir%/}" ${#profiles[@]} \
        "$(provenance_of commit "${profiles[@]}")" "$(provenance_of run "${profiles[@]}")"
    table "| profile | duration | registers/thread | occupancy theoretical / achieved | SM throughput | DRAM throughput | L1/shared throughput | local memory ld + st | warp instructions executed | FP64 instructions | FP64 per SM per cycle | FP32 FMA instructions | active threads per warp instruction |" \
        "Registers Per Thread" '
        /Duration/ && !dur { dur = val($0) " " unit($0) }
        /Registers Per Thread/ { regs = val($0) }
        /Theoretical Occupancy/ { theo = val($0) }
        /Achieved Occupancy/ { ach = val($0) }
        /Compute \(SM\) Throughput/ { sm = val($0) }
        /^ *DRAM Throughput/ { dram = val($0) }
        /L1\/TEX Cache Throughput/ { l1 = val($0) }
        /local_op_ld.sum/ { ld = val($0) " " unit($0) }
        /local_op_st.sum/ { st = val($0) " " unit($0) }
        /smsp__inst_executed.sum / { inst = val($0) }
        /op_dadd_pred_on|op_dmul_pred_on|op_dfma_pred_on/ { v = val($0); gsub(",", "", v); fp64 += v }
        /op_ffma_pred_on/ { ffma = val($0) }
        /^ *# SMs / { sms = val($0); gsub(",", "", sms) }
        /sm__cycles_elapsed.avg / { cycles = val($0); gsub(",", "", cycles) }
        /per_inst_executed.ratio/ { ratio = val($0) }
        # A sum as ncu writes a count, 34,951,252,739: printed with %s it
        # would be in the number format of the awk at hand: mawk writes 3.49513e+10.
        function commas(n,   s) { s = sprintf("%.0f", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9](,|$)/, ",&", s); return s }
        END { printf "| %s | %s | %s | %s%% / %s%% | %s%% | %s%% | %s%% | %s + %s | %s | %s | %s | %s | %s of 32 |\n", name, dur, regs,
              theo, ach, sm, dram, l1, ld, st, or_dash(inst), commas(fp64),
              (sms > 0 && cycles > 0) ? sprintf("%.2f", fp64 / (sms * cycles)) : "-", ffma, ratio }'

    # Shared-memory bank conflicts, for the kernels that have any.
    # The last column counts every kind of shared access, ldmatrix's among
    # them (the loads' column does not), where a report has it.
    table "| profile | shared-memory load bank conflicts | store bank conflicts | all shared accesses (ldmatrix too) |" "bank_conflicts_pipe_lsu_mem_shared_op_ld" '
        /bank_conflicts_pipe_lsu_mem_shared_op_ld/ { ld = val($0) }
        /bank_conflicts_pipe_lsu_mem_shared_op_st/ { st = val($0) }
        /bank_conflicts_pipe_lsu_mem_shared\.sum/ { all = val($0) }
        END { if (ld != "0" || st != "0" || (all != "" && all != "0")) printf "| %s | %s | %s | %s |\n", name, ld, st, or_dash(all) }'

    # Coalescing: 32-byte sectors fetched per global load request (a warp's
    # load instruction): 4 when a warp reads 32 adjacent ints, up to 32 when
    # every lane's address falls in a sector of its own.
    table "| profile | global load requests | sectors | sectors per request |" "requests_pipe_lsu_mem_global_op_ld" '
        function num(v) { gsub(",", "", v); return v + 0 }
        /requests_pipe_lsu_mem_global_op_ld/ { req = val($0) }
        /sectors_pipe_lsu_mem_global_op_ld/ { sec = val($0) }
        END { if (num(req) > 0) printf "| %s | %s | %s | %.2f |\n", name, req, sec, num(sec) / num(req) }'

    # What limits a compute-bound kernel: the share of its active cycles that
    # issued an instruction (of one per cycle per scheduler), and how busy each
    # pipe was (ncu's % of the pipe's peak). Reports made before these were
    # recorded have none and are left out.
    table "| profile | issue slots busy | achieved occupancy | FMA pipe | ALU pipe | XU pipe (rsqrt, sin, conversions) | FP64 pipe | LSU pipe | tensor pipe |" \
        "sm__inst_executed_pipe_fma" '
        /Issue Slots Busy/ { iss = val($0) "%" }
        /Achieved Occupancy/ { occ = val($0) "%" }
        /inst_executed_pipe_fma\./ { fma = val($0) "%" }
        /inst_executed_pipe_alu\./ { alu = val($0) "%" }
        /inst_executed_pipe_xu\./ { xu = val($0) "%" }
        /inst_executed_pipe_fp64\./ { fp64 = val($0) "%" }
        /inst_executed_pipe_lsu\./ { lsu = val($0) "%" }
        /pipe_tensor_op_hmma_cycles_active/ { tensor = val($0) "%" }
        END { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, or_dash(iss), or_dash(occ), or_dash(fma),
              or_dash(alu), or_dash(xu), or_dash(fp64), or_dash(lsu), or_dash(tensor) }'

    # The scheduler's view (the smallpt report's tables): warps per scheduler, and
    # cycles between two instructions of one warp with what they were waiting for.
    table "| profile | active warps / scheduler | eligible warps / scheduler | issued warps / scheduler | warp cycles per issued instruction | of which stalled: no instruction | wait | short scoreboard | long scoreboard | branch resolving | math pipe throttle |" \
        "Eligible Warps Per Scheduler" '
        /Active Warps Per Scheduler/ { act = val($0) }
        /Eligible Warps Per Scheduler/ { eli = val($0) }
        /Issued Warp Per Scheduler/ { iss = val($0) }
        /Warp Cycles Per Issued Instruction/ { cyc = val($0) }
        /issue_stalled_no_instruction_per/ { ni = val($0) }
        /issue_stalled_wait_per/ { wt = val($0) }
        /issue_stalled_short_scoreboard_per/ { ss = val($0) }
        /issue_stalled_long_scoreboard_per/ { ls = val($0) }
        /issue_stalled_branch_resolving_per/ { br = val($0) }
        /issue_stalled_math_pipe_throttle_per/ { mp = val($0) }
        END { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, act, eli, iss, cyc,
              or_dash(ni), or_dash(wt), or_dash(ss), or_dash(ls), or_dash(br), or_dash(mp) }'
done
