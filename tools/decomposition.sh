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
# fewer instructions, fuller warps, faster issue, busier SMs. Beside it, the
# ratio of the two kernels' durations as ncu measured them (the clocks may
# differ between the two runs, and the counters come from replays). A stage
# whose time is several kernels is shown by its profiled kernel alone. The
# stages' order is their first appearance in data/results/<machine>.csv; a
# stage is compared with the one before it at the same workload.
set -u
shopt -s nullglob
for dir in data/profiles/*/; do
    machine=$(basename "$dir")
    csv=data/results/$machine.csv
    [ -f "$csv" ] || continue
    device=$(sed -n '1s/^# device: \([^,]*\),.*/\1/p' "$dir"ch[0-9][0-9]_*.txt | sort -u | head -n1)
    printf '\n*Speedup over the stage before, taken apart (Nsight Compute on the %s, `%s`):*\n\n' "$device" "${dir%/}"
    echo "| chapter | stage (after the one before) | time ratio (ncu durations) | elapsed-cycle ratio = | instructions | × lanes | × issue rate | × SM-active share | moved most |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
    # One line per profiled stage, in the CSV's order: chapter stage TI W A E duration_ns
    awk -F, 'NR > 1 && !seen[$1 "_" $2]++ {w = $3; gsub(/ /, "_", w); print $1 "_" $2, w}' "$csv" | while read -r key workload; do
        f=$dir$key.txt
        [ -f "$f" ] || continue
        awk -v key="$key" -v wl="$workload" '
        function num(s) { gsub(",", "", s); return s + 0 }
        function last(line) { n = split(line, a, " "); return num(a[n]) }
        /smsp__thread_inst_executed.sum / { ti = last($0) }
        /smsp__inst_executed.sum / { w = last($0) }
        /sm__cycles_active.avg / { act = last($0) }
        /sm__cycles_elapsed.avg / { el = last($0) }
        /^ *Duration/ && !dur { n = split($0, a, " "); u = a[n - 1]; dur = num(a[n]) * (u == "ms" ? 1e6 : u == "us" ? 1e3 : u == "s" ? 1e9 : 1) }
        END { if (ti && w && act && el && dur) { split(key, k, "_"); print k[1], substr(key, length(k[1]) + 2), ti, w, act, el, dur, wl } }' "$f"
    done | awk '
    function fx(v) { return sprintf("%.2f", v) }
    {
        ch = $1; st = $2; ti = $3; w = $4; a = $5; e = $6; d = $7; wl = $8
        if (ch == prev_ch && wl == prev_wl) {
            f1 = pti / ti; f2 = (ti / w) / (pti / pw); f3 = (w / a) / (pw / pa); f4 = (a / e) / (pa / pe)
            best = "instructions"; bv = f1 > 1 ? f1 : 1 / f1
            if ((f2 > 1 ? f2 : 1 / f2) > bv) { best = "lanes"; bv = f2 > 1 ? f2 : 1 / f2 }
            if ((f3 > 1 ? f3 : 1 / f3) > bv) { best = "issue rate"; bv = f3 > 1 ? f3 : 1 / f3 }
            if ((f4 > 1 ? f4 : 1 / f4) > bv) { best = "SM-active share"; bv = f4 > 1 ? f4 : 1 / f4 }
            printf "| %s | %s (after %s) | %s | %s | %s | %s | %s | %s | %s |\n", ch, st, pst, fx(pd / d), fx(pe / e),
                   fx(f1), fx(f2), fx(f3), fx(f4), best
        }
        prev_ch = ch; prev_wl = wl; pst = st; pti = ti; pw = w; pa = a; pe = e; pd = d
    }'
done
