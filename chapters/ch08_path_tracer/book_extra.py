"""ch08's part of `make book` (tools/book.py calls book_extra(csvs, gen)): the smallpt report's steps
beside ch08's stages.

The smallpt report's own steps (data/reference/smallpt_report_steps.csv: its figures at 1024x768, its
machine) beside ch08's stages, as rates: its runs were at 1000 spp, ours at the bench's workload, so
times do not compare. The results' columns are read by name (tools/book.py's read_csv).
"""

import os
import re

from book import fdiv, ftime, fval, num, read_csv, read_text, write_text

REPORT = "data/reference/smallpt_report_steps.csv"
# the original as make smallpt-vs-port ran it on this machine (its first line: size, spp, whole-process ms)
ORIGINAL = re.compile(r"# smallpt-vs-port: ([0-9]*)x([0-9]*) at ([0-9]*) spp;.* ([0-9]*) ms")


def book_extra(csvs, gen):
    out = []
    for f in csvs:
        _, rows = read_csv(f, need=("chapter", "stage", "workload", "value", "unit"))
        ours = [row for row in rows if row["chapter"] == "ch08" and row["unit"] == "Msamples/s"]
        if not ours:
            continue
        svp, original = (f[:-len(".csv")] if f.endswith(".csv") else f) + "/smallpt-vs-port.txt", []
        if os.path.isfile(svp):
            m = ORIGINAL.fullmatch(read_text(svp).split("\n", 1)[0])
            original = " ".join(m.groups()).split() if m else []
        _, steps = read_csv(REPORT, need=("step", "time_s", "spp", "msamples_per_s", "source", "our_stage"))
        value, wl = {}, {}
        for row in ours:
            if row["stage"] not in value:
                value[row["stage"]], wl[row["stage"]] = row["value"], row["workload"]

        def mine(stage):
            return "%s (%s)" % (fval(value[stage]), wl[stage]) if stage in value else "-"

        out.append("*The smallpt report's figures (1024x768; its own machine unless said) beside ch08's stages "
                   "(`%s`):*\n\n" % f)
        out.append("| the report's step | where | its time | its Msamples/s | ch08 stage | Msamples/s |\n"
                   "|---|---|---:|---:|---|---:|\n")
        for step in steps:
            t, spp, rate, stage = step["time_s"], step["spp"], step["msamples_per_s"], step["our_stage"]
            r = rate if rate != "" else fdiv(1024 * 768 * num(spp), num(t) * 1e6) if t != "" and spp != "" else ""
            out.append("| %s | %s | %s | %s | %s | %s |\n" % (
                step["step"], step["source"], "%s at %s spp" % (ftime(num(t) * 1000), spp) if t != "" else "-",
                fval(r) if r != "" else "-", stage if stage != "" else "(the quality table)",
                mine(stage) if stage != "" else "-"))
        if len(original) == 4:
            width, height, samples, wall = (num(x) for x in original)
            out.append("| Beason's program, g++ -O3 -fopenmp, whole process | this machine (`%s`) | %s at %d spp "
                       "(%dx%d) | %s | cpu-threads | %s |\n" % (
                           svp, ftime(wall), samples, width, height,
                           fval(fdiv(width * height * samples, wall * 1e3)), mine("cpu-threads")))
        out.append("\n")
    write_text(gen + "/smallpt_report.md", "".join(out))
