"""ch10's part of `make book` (tools/book.py calls book_extra(csvs, gen)): the source text's table of
math configurations, measured.

Rows: the hand-written step, the unsimplified tree, the relaxed tree; columns: the arithmetic NVRTC
compiled them with (kernels.h's MATH_*). strict is each stage's own row, fast its -fast-math twin, the
rest `make bench`'s runs of the strict stages with --math (workload "WxH math=NAME"). Each cell: kernel
time, and the image's PSNR against the CPU's double-precision reference. The results' columns are
read by name (tools/book.py's read_csv).
"""

from book import ftime, is_zero, num, read_csv, write_text

COLUMNS = ("strict", "fma", "approx", "fma-approx", "fast")
ROWS = ("gpu-hand-written", "gpu-generated", "gpu-generated-relaxed")


def book_extra(csvs, gen):
    out = []
    for f in csvs:
        _, rows = read_csv(f, need=("chapter", "stage", "workload", "threads", "median_ms", "value", "unit"))
        if not any(row["chapter"] == "ch10" and "math=" in row["workload"] for row in rows):
            continue
        ms, db = {}, {}
        for row in rows:
            if row["chapter"] != "ch10" or not is_zero(row["threads"]) or row["unit"] not in ("Mrays/s", "dB vs CPU"):
                continue
            stage, math = row["stage"], "strict"
            parts = row["workload"].split(" math=")
            if len(parts) == 2:
                math = parts[1]
            if stage.endswith("-fast-math"):
                stage, math = stage[:-len("-fast-math")], "fast"
            if row["unit"] == "Mrays/s":
                ms[stage, math] = row["median_ms"]
            else:
                db[stage, math] = row["value"]
        out.append("*The source text's math configurations, measured: kernel time and PSNR against the CPU's "
                   "image (`%s`):*\n\n" % f)
        out.append("| step |" + "".join(" %s |" % c for c in COLUMNS) + "\n|---|" + "---:|" * len(COLUMNS) + "\n")
        for step in ROWS:
            cells = ["%s (%.1f dB)" % (ftime(ms[step, c]), num(db.get((step, c), ""))) if (step, c) in ms else "-"
                     for c in COLUMNS]
            out.append("| %s |" % step + "".join(" %s |" % cell for cell in cells) + "\n")
        out.append("\n")
    write_text(gen + "/math_ablation_ch10.md", "".join(out))
