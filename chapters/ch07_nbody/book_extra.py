"""ch07's part of `make book` (tools/book.py calls book_extra(csvs, gen)): the output stages' timeline
(bench_extra.sh's ch07-timeline.csv, per machine) drawn with gnuplot as one bar per operation: the
compute stream, the copy stream and the host's reads, for gpu-output-pageable above gpu-output-overlap,
on one time axis each.

Then the issue-slot ceiling in the target's units, per profiled stage, for the chapter's limit argument
(issue_slots.sh, run as a program, says how it is computed).
"""

import os
import subprocess

from book import BookError, gnuplot, have_gnuplot, machine_files, num, read_csv, write_text

COLOURS = {"forces": 1, "integrate": 2, "snapshot": 3, "copy": 4, "read": 5}  # any other: 6

CHART = """set terminal svg size 900,360 font "sans,11" background rgb "white"
set colorsequence podo
set output "%(svg)s"
set title "ch07: 8 steps of 4096 bodies with each step's positions read by the host (%(m)s)"
set xlabel "time from the first step's start (ms; CUDA events on the GPU, the host's clock for its reads)"
set ytics ("overlap: host" 0, "overlap: copy stream" 1, "overlap: compute" 2, "pageable: host" 4, "pageable: compute" 6)
set yrange [-0.8:6.8]
set grid xtics
set style fill solid 0.85 noborder
set palette defined (1 "#4477aa", 2 "#66ccee", 3 "#228833", 4 "#ee6677", 5 "#aa3377", 6 "#bbbbbb")
set cbrange [1:6]
unset colorbox
set key off
set label 1 "blue: forces  light blue: integrate  green: snapshot  red: copy to the host  purple: the host reads" at graph 0.01, graph -0.22 font "sans,10"
set bmargin 5
plot "%(dat)s" using 1:2:3:4:5 with boxxyerror lc palette
"""


def book_extra(csvs, gen):
    out = []
    for m, tl in machine_files("ch07-timeline.csv"):
        svg = "data/plots/ch07_timeline_%s.svg" % m
        if have_gnuplot():
            _, rows = read_csv(tl, need=("stage", "lane", "what", "start_ms", "end_ms"))
            # one row per operation: x centre, y, half width, half height, colour
            dat = gen + "/ch07_timeline.dat"
            write_text(dat, "".join("%.5f %d %.5f 0.35 %d\n" % (
                (num(row["start_ms"]) + num(row["end_ms"])) / 2,
                (4 if row["stage"] == "gpu-output-pageable" else 0) + (2 - num(row["lane"])),
                (num(row["end_ms"]) - num(row["start_ms"])) / 2, COLOURS.get(row["what"], 6)) for row in rows))
            gnuplot(CHART % {"svg": svg, "m": m, "dat": dat}, "the ch07 timeline")
        out.append("*The output stages' timeline on `%s` (`%s`, from `make bench`):*\n\n" % (m, tl))
        # (linked only where the chart is: drawn here, or committed)
        if os.path.isfile(svg):
            out.append("![ch07 output timeline](%s)\n\n" % svg)
    write_text(gen + "/timeline_ch07.md", "".join(out))
    slots = os.path.join(os.path.dirname(__file__), "issue_slots.sh")
    with open(gen + "/issue_slots_ch07.md", "wb") as md:
        try:
            run = subprocess.run([slots], stdout=md)
        except OSError as e:  # (not found, not executable)
            raise BookError("book: %s failed: %s" % (slots, e.strerror))
    if run.returncode != 0:
        raise BookError("book: %s failed" % slots)
