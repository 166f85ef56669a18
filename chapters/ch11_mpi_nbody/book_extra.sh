#!/usr/bin/env bash
# ch11's part of `make book` (sourced by tools/book.py, with gen at hand):
# from each machine's ch11-scaling.csv (bench_extra.sh), the scaling table
# (each step split into wait, exchange and compute) and the model:
#   T(P) = n^2 / (P R) + (P - 1) / P * 16 n / B + (P - 1) a
# R: one GPU's interactions per second, counted (P = 1, strong, compute);
# B: bytes a rank received per second in the exchange, counted (P = 2,
#    allgather-pinned: host staging through shared-memory MPI on this host);
# beside it two links the model is told, not measured here: NVLink 4
# (450 GB/s a direction per GPU, one node of 8 at most) and InfiniBand NDR
# (400 Gb/s = 50 GB/s a direction per GPU); a: a per-message latency, also
# told (5 us staged, 2 us for the others). Efficiency E = T(1) / (P T(P)); for
# P = 8, 64, 1024 the smallest n with E >= 80%, and a chart of the model's
# ms per step against P at the strong-scaling n, with the measured points.
: > "$gen/scaling_ch11.md"
for sc in data/results/*/ch11-scaling.csv; do
    [ -f "$sc" ] || continue
    m=$(basename "$(dirname "$sc")")
    {
        echo "*Scaling on \`$m\` (\`$sc\`, from \`make bench\`; ms per step, each rank's host time split, the ranks' mean):*"
        echo
        echo "| kind | stage | ranks | n | on | ms per step | wait | exchange | compute | MB moved per step | speedup | efficiency |"
        echo "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"
        awk -F, 'NR > 1 {
            key = $1 SUBSEP $2
            if ($3 == 1) base[key] = $6
            # strong: P T(P) against T(1); weak (n / P fixed): all-pairs work per rank grows as P, so
            # the ideal T(P) is P T(1) and the efficiency is P T(1) / T(P)
            sp = (key in base) && $1 != "weak" ? base[key] / $6 : 0
            eff = !(key in base) ? 0 : $1 == "weak" ? $3 * base[key] / $6 : base[key] / ($3 * $6)
            printf "| %s | %s | %d | %d | %s | %.3f | %.3f | %.3f | %.3f | %.3g | %s | %s |\n", $1, $2, $3, $4, $5, $6,
                   $7, $8, $9, $10, sp ? sprintf("%.2fx", sp) : "-", eff ? sprintf("%.1f%%", 100 * eff) : "-"
        }' "$sc"
        echo
    } >> "$gen/scaling_ch11.md"
    # The model's inputs, counted: R from P = 1, B from P = 2 (GPU rows only).
    read -r R B n_strong < <(awk -F, 'NR > 1 && $1 == "strong" && $5 == "gpu" {
            if ($3 == 1 && $2 == "allgather-pinned") R = $4 * $4 / ($9 * 1e-3)
            if ($3 == 2 && $2 == "allgather-pinned") B = ($4 / 2 * 16) / ($8 * 1e-3)
            n = $4 }
        END { if (R > 0 && B > 0) print R, B, n }' "$sc")
    [ -n "${R:-}" ] || continue
    awk -v R="$R" -v B="$B" -v m="$m" 'BEGIN {
        split("staged:" B ":5e-6,NVLink 4:450e9:2e-6,InfiniBand NDR:50e9:2e-6", links, ",")
        printf "*The model on `%s`: R = %.3g interactions/s per GPU (P = 1, counted), B = %.2f GB/s host-staged (P = 2, counted); NVLink and InfiniBand told, not measured.*\n\n", m, R, B / 1e9
        printf "| link | B (GB/s a direction) | latency a (told) | smallest n for E >= 80%%: P = 8 | P = 64 | P = 1024 | n / P at 1024 |\n|---|---:|---:|---:|---:|---:|---:|\n"
        for (l = 1; l <= 3; l++) {
            split(links[l], f, ":")
            printf "| %s | %.1f | %.0f us", f[1], f[2] / 1e9, f[3] * 1e6
            for (k = 1; k <= 3; k++) {
                P = k == 1 ? 8 : k == 2 ? 64 : 1024
                a = 1 / (P * R); b = 4 * 16 * (P - 1) / (P * f[2]); c = 4 * (P - 1) * f[3]
                nmin = (b + sqrt(b * b + 4 * a * c)) / (2 * a)
                printf " | %.3g", nmin
            }
            printf " | %.3g |\n", nmin / 1024
        }
        printf "\n"
    }' >> "$gen/scaling_ch11.md"
    svg=data/plots/ch11_model_$m.svg
    if command -v gnuplot > /dev/null; then
        awk -F, -v n="$n_strong" 'NR > 1 && $1 == "strong" && $5 == "gpu" && $2 == "ring-overlap" { print $3, $6 }' "$sc" > "$gen/ch11_points.dat"
        gnuplot <<GP || { echo "book: the ch11 model chart failed" >&2; exit 1; }
set terminal svg size 900,480 font "sans,11" background rgb "white"
set colorsequence podo
set output "$svg"
set title "ch11: ms per step at n = $n_strong against the number of GPUs ($m): the model, and the measured points"
set xlabel "GPUs (ranks)"
set ylabel "ms per step (log scale)"
set logscale xy
set xrange [1:1024]
set grid
set key top right
R = $R; B = $B; n = $n_strong
T(P, BW, a) = 1e3 * (n * n / (P * R) + (P - 1) / P * 16 * n / BW + (P - 1) * a)
plot T(x, B, 5e-6) title sprintf("model, host staging (%.1f GB/s, counted)", B / 1e9) lw 2, \
     T(x, 450e9, 2e-6) title "model, NVLink 4 (450 GB/s, told)" lw 2, \
     T(x, 50e9, 2e-6) title "model, InfiniBand NDR (50 GB/s, told)" lw 2, \
     1e3 * n * n / (x * R) title "compute alone (perfect scaling)" dt 2 lc rgb "#888888", \
     "$gen/ch11_points.dat" using 1:2 title "measured: ring-overlap" with points pt 7 ps 1.2 lc rgb "black"
GP
    fi
    # linked wherever the chart is (committed), drawn or not here
    if [ -f "$svg" ]; then printf '![ch11 model](%s)\n\n' "$svg" >> "$gen/scaling_ch11.md"; fi
done
