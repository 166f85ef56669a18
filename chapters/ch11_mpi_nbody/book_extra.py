"""ch11's part of `make book` (tools/book.py calls book_extra(csvs, gen)): from each machine's
ch11-scaling.csv (bench_extra.sh), the scaling table (each step split into wait, exchange and compute)
and the model:

  T(P) = n^2 / (P R) + (P - 1) / P * 16 n / B + (P - 1) a

R: one GPU's interactions per second, counted (P = 1, strong, compute); B: bytes a rank received per
second in the exchange, counted (P = 2, allgather-pinned: host staging through shared-memory MPI on
this host); beside it two links the model is told, not measured here: NVLink 4 (450 GB/s a direction
per GPU, one node of 8 at most) and InfiniBand NDR (400 Gb/s = 50 GB/s a direction per GPU); a: a
per-message latency, also told (5 us staged, 2 us for the others). Efficiency E = T(1) / (P T(P)); for
P = 8, 64, 1024 the smallest n with E >= 80%, and a chart of the model's ms per step against P at the
strong-scaling n, with the measured points. The scaling file's columns are read by name (tools/book.py's
read_csv).
"""

import math
import os

from book import awk_cmp, awk_str, fdiv, gnuplot, have_gnuplot, machine_files, num, read_csv, write_text

COLUMNS = ("kind", "stage", "ranks", "n", "on", "ms_per_step", "wait_ms", "exchange_ms", "compute_ms", "mb_per_step")
# the links told, not measured: name, B (bytes/s a direction), latency a (s); host staging's B is counted
TOLD = (("NVLink 4", "450e9", "2e-6"), ("InfiniBand NDR", "50e9", "2e-6"))

CHART = """set terminal svg size 900,480 font "sans,11" background rgb "white"
set colorsequence podo
set output "%(svg)s"
set title "ch11: ms per step at n = %(n)s against the number of GPUs (%(m)s): the model, and the measured points"
set xlabel "GPUs (ranks)"
set ylabel "ms per step (log scale)"
set logscale xy
set xrange [1:1024]
set grid
set key top right
R = %(R)s; B = %(B)s; n = %(n)s
T(P, BW, a) = 1e3 * (n * n / (P * R) + (P - 1) / P * 16 * n / BW + (P - 1) * a)
plot T(x, B, 5e-6) title sprintf("model, host staging (%%.1f GB/s, counted)", B / 1e9) lw 2, \\
     T(x, 450e9, 2e-6) title "model, NVLink 4 (450 GB/s, told)" lw 2, \\
     T(x, 50e9, 2e-6) title "model, InfiniBand NDR (50 GB/s, told)" lw 2, \\
     1e3 * n * n / (x * R) title "compute alone (perfect scaling)" dt 2 lc rgb "#888888", \\
     "%(points)s" using 1:2 title "measured: ring-overlap" with points pt 7 ps 1.2 lc rgb "black"
"""


def scaling_rows(rows):
    """The scaling table's rows: speedup and efficiency against the row of one rank of the same kind and stage."""
    out, base = [], {}
    for row in rows:
        key, ranks, t = (row["kind"], row["stage"]), row["ranks"], row["ms_per_step"]
        if awk_cmp(ranks, 1) == 0:
            base[key] = row["ms_per_step"]
        # strong: P T(P) against T(1); weak (n / P fixed): all-pairs work per rank grows as P, so
        # the ideal T(P) is P T(1) and the efficiency is P T(1) / T(P)
        sp = fdiv(base[key], t) if key in base and row["kind"] != "weak" else 0
        eff = (0 if key not in base else fdiv(num(ranks) * num(base[key]), t) if row["kind"] == "weak"
               else fdiv(base[key], num(ranks) * num(t)))
        out.append("| %s | %s | %d | %d | %s | %.3f | %.3f | %.3f | %.3f | %.3g | %s | %s |\n" % (
            row["kind"], row["stage"], num(ranks), num(row["n"]), row["on"], num(t), num(row["wait_ms"]),
            num(row["exchange_ms"]), num(row["compute_ms"]), num(row["mb_per_step"]),
            "%.2fx" % sp if sp else "-", "%.1f%%" % (100 * eff) if eff else "-"))
    return out


def model_inputs(rows):
    """(R, B, n) as awk printed them (%.6g unless integral; n as written), from the GPU rows of the strong
    sweep: R from P = 1, B from P = 2, n the last row's; None where either is not counted."""
    R = B = 0
    n = ""
    for row in rows:
        if row["kind"] != "strong" or row["on"] != "gpu":
            continue
        if awk_cmp(row["ranks"], 1) == 0 and row["stage"] == "allgather-pinned":
            R = fdiv(num(row["n"]) * num(row["n"]), num(row["compute_ms"]) * 1e-3)
        if awk_cmp(row["ranks"], 2) == 0 and row["stage"] == "allgather-pinned":
            B = fdiv(num(row["n"]) / 2 * 16, num(row["exchange_ms"]) * 1e-3)
        n = row["n"]
    return (awk_str(R), awk_str(B), n) if R > 0 and B > 0 else None


def model_table(m, R, B):
    out = ["*The model on `%s`: R = %.3g interactions/s per GPU (P = 1, counted), B = %.2f GB/s host-staged "
           "(P = 2, counted); NVLink and InfiniBand told, not measured.*\n\n" % (m, num(R), num(B) / 1e9),
           "| link | B (GB/s a direction) | latency a (told) | smallest n for E >= 80%: P = 8 | P = 64 | P = 1024 "
           "| n / P at 1024 |\n|---|---:|---:|---:|---:|---:|---:|\n"]
    for link, bw, latency in (("staged", B, "5e-6"),) + TOLD:
        bw, latency = num(bw), num(latency)
        out.append("| %s | %.1f | %.0f us" % (link, bw / 1e9, latency * 1e6))
        for P in (8, 64, 1024):
            a = 1 / (P * num(R))
            b = 4 * 16 * (P - 1) / (P * bw)
            c = 4 * (P - 1) * latency
            nmin = (b + math.sqrt(b * b + 4 * a * c)) / (2 * a)
            out.append(" | %.3g" % nmin)
        out.append(" | %.3g |\n" % (nmin / 1024))
    return out + ["\n"]


def book_extra(csvs, gen):
    out = []
    for m, sc in machine_files("ch11-scaling.csv"):
        _, rows = read_csv(sc, need=COLUMNS)
        out.append("*Scaling on `%s` (`%s`, from `make bench`; ms per step, each rank's host time split, the "
                   "ranks' mean):*\n\n" % (m, sc))
        out.append("| kind | stage | ranks | n | on | ms per step | wait | exchange | compute | MB moved per step "
                   "| speedup | efficiency |\n|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
        out += scaling_rows(rows) + ["\n"]
        # The model's inputs, counted: R from P = 1, B from P = 2 (GPU rows only).
        inputs = model_inputs(rows)
        if inputs is None:
            continue
        R, B, n = inputs
        out += model_table(m, R, B)
        svg = "data/plots/ch11_model_%s.svg" % m
        if have_gnuplot():
            points = gen + "/ch11_points.dat"
            write_text(points, "".join("%s %s\n" % (row["ranks"], row["ms_per_step"]) for row in rows if (
                row["kind"], row["on"], row["stage"]) == ("strong", "gpu", "ring-overlap")))
            gnuplot(CHART % {"svg": svg, "m": m, "n": n, "R": R, "B": B, "points": points}, "the ch11 model chart")
        # linked wherever the chart is (committed), drawn or not here
        if os.path.isfile(svg):
            out.append("![ch11 model](%s)\n\n" % svg)
    write_text(gen + "/scaling_ch11.md", "".join(out))
