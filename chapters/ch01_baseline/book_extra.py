"""ch01's part of `make book` (tools/book.py calls book_extra(csvs, gen)): the source article's steps
beside the course's stages.

The source article's own steps (data/reference/article_steps.csv: its figures, its machine, its
clocks) beside this course's corresponding stage, per results file that has them, at the standard
workload. Threads "max": the stage's row with the most threads (a stage without such a row names no
thread count). The results' columns are read by name (tools/book.py's read_csv).
"""

from book import awk_cmp, ftime, is_zero, read_csv, write_text

ARTICLE = "data/reference/article_steps.csv"


def book_extra(csvs, gen):
    out = []
    for f in csvs:
        _, rows = read_csv(f, need=("chapter", "stage", "workload", "threads", "median_ms", "unit"))
        chapters = {row["chapter"] for row in rows}
        if "ch05" not in chapters or "ch01" not in chapters:
            continue
        _, steps = read_csv(ARTICLE, need=("step", "article_ms", "article_clock", "chapter", "stage", "threads"))
        maxthr, ms, clock = {}, {}, {}
        for row in rows:
            if row["workload"] != "512x512x64spp" and not row["stage"].startswith("process"):
                continue
            key = (row["chapter"], row["stage"])
            threads = row["threads"]
            if key not in maxthr or awk_cmp(threads, maxthr[key]) > 0:
                maxthr[key] = threads
            ms[key, threads] = row["median_ms"]
            clock[key] = (("whole process (wall)" if row["unit"] == "ms" else "kernel (events)") if is_zero(threads)
                          else "wall time of the render")
        out.append("*The article (its Ryzen 5 2600 and GTX 1050 Ti) and this course (`%s`):*\n\n" % f)
        out.append("| the article's step | its time | its clock | this course's stage | time | clock |\n"
                   "|---|---:|---|---|---:|---|\n")
        for step in steps:
            key = (step["chapter"], step["stage"])
            most = step["threads"] == "max"
            t = maxthr.get(key, "") if most else step["threads"]
            ours = ftime(ms[key, t]) if (key, t) in ms else "-"
            out.append("| %s | %s | %s | %s %s%s | %s | %s |\n" % (
                step["step"], ftime(step["article_ms"]), step["article_clock"], step["chapter"], step["stage"],
                " (%s threads)" % t if most and t != "" else "", ours, clock.get(key, "-")))
        out.append("\n")
    write_text(gen + "/article_steps.md", "".join(out))
