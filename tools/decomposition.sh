#!/usr/bin/env bash
# The speedup of each GPU stage over the one before it, taken apart from the
# Nsight Compute reports in data/profiles/<machine>/ (make profiles), as
# Markdown tables for the book, one set per device. With TI the thread-level
# instructions executed, W the warp-level ones, A and E the SMs' active and
# elapsed cycles (averages over the SMs), the elapsed cycles are exactly
#     E = TI / (lanes x issue x share),   lanes = TI / W (active threads per
#     warp instruction), issue = W / A (warp instructions per active SM
#     cycle), share = A / E (of the elapsed cycles, those the SMs were busy),
# so the ratio of two stages' elapsed cycles is the product of four ratios:
# fewer instructions, fuller warps, faster issue, busier SMs. That product is
# exact for the two profiled launches, not for the speedup the bench measured:
# the SM clock may differ between the profile and the run (both are shown: ncu's
# SM Frequency of each launch), the counters come from replays, and a stage's
# time may be more than its profiled kernel. So each row also shows the
# speedup measured (the ratio of the two stages' median times in
# data/results/<machine>.csv, at the workload the profiles ran, which each
# report's own table names, or else the stage's first in the CSV) and the residual, measured / product - 1: where it
# is over RESIDUAL (1%) the row says "approximate". Beside them, the ratio of
# the two kernels' durations as ncu measured them. The stages' order is their
# first appearance in data/results/<machine>.csv; a stage is compared with the
# one before it at the same workload.
set -u
shopt -s nullglob
# shellcheck source=tools/columns.sh
. "$(dirname "${BASH_SOURCE[0]}")/columns.sh"
RESIDUAL=0.01
for dir in data/profiles/*/; do
    machine=$(basename "$dir")
    csv=data/results/$machine.csv
    [ -f "$csv" ] || continue
    csv_columns "$csv" chapter stage workload median_ms || exit 1
    device=$(sed -n '1s/^# device: \([^,]*\),.*/\1/p' "$dir"ch[0-9][0-9]_*.txt | sort -u | head -n1)
    printf '\n*Speedup over the stage before, taken apart (Nsight Compute on the %s, `%s`; measured: the median times in `%s`, at the workload the profiles ran). The four factors multiply to the elapsed-cycle ratio exactly; the residual is the measured speedup over that product, less 1, and a row whose residual is over %.0f%% says approximate (the SM clocks of the two launches are beside it).*\n\n' \
        "$device" "${dir%/}" "$csv" "$(awk -v r=$RESIDUAL 'BEGIN {print 100 * r}')"
    echo "| chapter | stage (after the one before) | measured speedup | time ratio (ncu durations) | elapsed-cycle ratio = | instructions | × lanes | × issue rate | × SM-active share | residual | SM clock, MHz (before, after) | moved most |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|"
    # One line per profiled stage, in the CSV's order:
    # chapter stage TI W A E duration_ns clock_MHz workload (the rest of the line)
    # (a report without the program's table: the stage's first workload in the CSV)
    awk -F, "${cols[@]}" 'NR > 1 && !seen[$c_chapter "_" $c_stage]++ {print $c_chapter "_" $c_stage "\t" $c_workload}' "$csv" | while IFS=$'\t' read -r key first_wl; do
        f=$dir$key.txt
        [ -f "$f" ] || continue
        awk -v key="$key" -v first_wl="$first_wl" '
        function num(s) { gsub(",", "", s); return s + 0 }
        function last(line) { n = split(line, a, " "); return num(a[n]) }
        /smsp__thread_inst_executed.sum / { ti = last($0) }
        /smsp__inst_executed.sum / { w = last($0) }
        /sm__cycles_active.avg / { act = last($0) }
        /sm__cycles_elapsed.avg / { el = last($0) }
        /^ *Duration/ && !dur { n = split($0, a, " "); u = a[n - 1]; dur = num(a[n]) * (u == "ms" ? 1e6 : u == "us" ? 1e3 : u == "s" ? 1e9 : 1) }
        /^ *SM Frequency/ && !clock { n = split($0, a, " "); u = tolower(a[n - 1]); clock = num(a[n]) * (u == "ghz" ? 1e3 : u == "khz" ? 1e-3 : u == "hz" ? 1e-6 : 1) }
        # the program'"'"'s own table, in the profiled run: "ch05  workload 512x512x64spp"
        $1 ~ /^ch[0-9]+$/ && $2 == "workload" && wl == "" { wl = $0; sub(/^ *ch[0-9]+ +workload +/, "", wl); sub(/ +$/, "", wl) }
        END { if (ti && w && act && el && dur) { split(key, k, "_")
              printf "%s %s %.0f %.0f %.2f %.2f %.0f %.0f %s\n", k[1], substr(key, length(k[1]) + 2), ti, w, act, el, dur,
                     clock, (wl != "" ? wl : first_wl != "" ? first_wl : "-") } }' "$f"
    done | awk "${cols[@]}" -v csv="$csv" -v limit=$RESIDUAL '
    BEGIN { # the first row of each chapter, stage and workload: its median time
        FS = ","
        while ((getline line < csv) > 0) {
            if (++nr == 1) continue
            split(line, c, ","); k = c[c_chapter] SUBSEP c[c_stage] SUBSEP c[c_workload]
            if (!(k in ms) && c[c_median_ms] ~ /^[0-9.eE+-]+$/ && c[c_median_ms] + 0 > 0) ms[k] = c[c_median_ms] + 0
        }
        close(csv); FS = " "
    }
    function fx(v) { return sprintf("%.2f", v) }
    function mag(v) { return v > 1 ? v : 1 / v }
    {
        ch = $1; st = $2; ti = $3; w = $4; a = $5; e = $6; d = $7; f = $8
        wl = $0; for (i = 1; i <= 8; i++) sub(/^[^ ]+ /, "", wl) # (mawk has no /{8}/)
        t = (ch SUBSEP st SUBSEP wl) in ms ? ms[ch SUBSEP st SUBSEP wl] : 0
        if (ch == prev_ch && wl == prev_wl) {
            f1 = pti / ti; f2 = (ti / w) / (pti / pw); f3 = (w / a) / (pw / pa); f4 = (a / e) / (pa / pe)
            product = f1 * f2 * f3 * f4
            best = "instructions"; bv = mag(f1)
            if (mag(f2) > bv) { best = "lanes"; bv = mag(f2) }
            if (mag(f3) > bv) { best = "issue rate"; bv = mag(f3) }
            if (mag(f4) > bv) { best = "SM-active share"; bv = mag(f4) }
            if (t > 0 && pt > 0) {
                measured = fx(pt / t); r = (pt / t) / product - 1
                residual = sprintf("%+.1f%%", 100 * r)
                if (r > limit || r < -limit) residual = "approximate: " residual
            } else {
                measured = "-"; residual = "no bench time at " wl
            }
            clocks = (pf > 0 && f > 0) ? sprintf("%.0f, %.0f", pf, f) : "-"
            printf "| %s | %s (after %s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", ch, st, pst, measured,
                   fx(pd / d), fx(pe / e), fx(f1), fx(f2), fx(f3), fx(f4), residual, clocks, best
        }
        prev_ch = ch; prev_wl = wl; pst = st; pti = ti; pw = w; pa = a; pe = e; pd = d; pf = f; pt = t
    }'
done
