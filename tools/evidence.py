#!/usr/bin/env python3
"""The evidence make book summarises from Nsight Compute's reports (data/profiles/<machine>/*.txt) and
the results files (data/results/<machine>.csv), as Markdown for the book:

  best_ceiling CSV STAGE [CHAPTER]  the best ceiling row of the newest run: prints "VALUE RUN_ID"
  profile_summary                   ncu's own values, one set of tables per device
  decomposition                     each GPU stage's speedup over the one before, taken apart
  counted_flops                     FP32 operations counted, as a share of the device's FP32 ceiling
  model_check [--check]             the programs' work models against the counters
  roofline [GEN]                    the rooflines, from counters only (GEN: build/book, for the charts' data)

Run from the repository root: python3 tools/evidence.py NAME [ARGS...]; tools/book.py calls the
functions of the same names in-process. Each reads the results by column name, through tools/book.py's
reader (one schema: a column added, dropped or moved touches none of the others; a column a tool reads
that a file lacks is named, with the file). Python 3 standard library only.

The numbers are formatted as the awk programs these replaced formatted them (C's printf; awk reads a
field's leading number and compares fields as numbers only where both look like one), and computed in
the same order of operations, so the output is byte for byte what it was. Exit status: as each old
script's: 0; 1 refused (decomposition: a column missing; profile_summary: a folder of no one device;
model_check --check: a rate without its counter; roofline: a chart failed); 2 bad usage, or (best_ceiling)
an unreadable results file or one without a column read here.
"""

import fnmatch
import math
import os
import re
import shutil
import subprocess
import sys

from book import ColumnError, awk_str, lines_of, looks_numeric, num, read_csv, read_text, sorted_glob

PROFILES = "data/profiles"
RESULTS = "data/results"
RESIDUAL = 0.01  # decomposition: a row whose measured speedup is further than this from the product is approximate
TOLERANCE = 0.05  # model_check: within this the model holds
NUMBER = re.compile(r"[0-9.eE+-]+\Z")  # a value field the ceilings and median times take (awk's /^[0-9.eE+-]+$/)


class Refusal(Exception):
    """An error that ends a tool: its message (for stderr) and the exit status the old script gave."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------- reading the reports as awk read them

def fields(line):
    """awk's default field splitting: runs of blanks (space, tab, newline; not str.split's \\r or \\f)
    separate, leading and trailing ones dropped."""
    line = line.strip(" \t\n")
    return re.split(r"[ \t\n]+", line) if line else []


def field(parts, k):
    """awk's $k (1-based): "" past the end."""
    return parts[k - 1] if 1 <= k <= len(parts) else ""


def last(line):
    """The line's last field (awk's a[n]: the value of an ncu line)."""
    parts = fields(line)
    return parts[-1] if parts else ""


def unit(line):
    """The field before the last (awk's a[n - 1]: the unit of an ncu line)."""
    parts = fields(line)
    return parts[-2] if len(parts) >= 2 else ""


def count(s):
    """A count as ncu writes one, 34,951,252,739, as a number (awk: gsub(",", "", s); s + 0)."""
    return num(s.replace(",", ""))


def scaled(line, units, default):
    """The line's value times its unit's factor (UNITS: {unit: factor}; others DEFAULT)."""
    return count(last(line)) * units.get(unit(line), default)


SECONDS = {"ms": 1e-3, "us": 1e-6, "s": 1}  # a Duration line's unit, to seconds (ns: 1e-9)
BYTES = {"Tbyte": 1e12, "Gbyte": 1e9, "Mbyte": 1e6, "Kbyte": 1e3}


def div(a, b):
    """a / b as awk (mawk) divides: IEEE, so a zero counter gives inf or nan, never a traceback."""
    if b:
        return a / b
    return math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1, b)


def streams(out, err):
    """OUT and ERR, stdout and stderr where not given (looked up at the call: a caller may have replaced them)."""
    return out or sys.stdout, err or sys.stderr


def byte_order(s):
    """A sort key: strings in byte order, as awk's and sort's comparisons under LC_ALL=C."""
    return s.encode("utf-8", "surrogateescape")


def profile_dirs():
    """data/profiles/<machine>/, in byte order."""
    return sorted_glob(PROFILES, dirs=True)


def reports_in(folder):
    """The reports in FOLDER (the shell's glob ch[0-9][0-9]_*.txt), in byte order."""
    return [p for p in sorted_glob(folder) if fnmatch.fnmatchcase(os.path.basename(p), "ch[0-9][0-9]_*.txt")]


def profiled_devices():
    """Each profile folder that holds reports, in byte order: (folder, its reports, the device they name)."""
    for folder in profile_dirs():
        reports = reports_in(folder)
        if reports:
            yield folder, reports, device_of(reports)


def report_lines(path):
    return lines_of(read_text(path))


def report_name(path):
    """ch07_gpu-tiled, of data/profiles/<machine>/ch07_gpu-tiled.txt."""
    return os.path.basename(path)[: -len(".txt")]


_DEVICE = re.compile(r"# device: ([^,]*),")


def device_of(reports):
    """The device the reports name on their first line, "# device: NAME, ...": the first line of them
    all, as sed -n 1p reads the reports one after another ("" where it names none)."""
    for path in reports:
        text = read_text(path)
        if text:
            m = _DEVICE.match(text.split("\n", 1)[0])
            return m.group(1) if m else ""
    return ""


# ---------------------------------------------------------------- best_ceiling

def awk_compare(a, b):
    """awk's comparison of two fields: -1, 0 or 1, as numbers where both look like one, else as strings
    (byte order)."""
    x, y = (num(a), num(b)) if looks_numeric(a) and looks_numeric(b) else (byte_order(a), byte_order(b))
    return (x > y) - (x < y)


def positive_count(v):
    """awk's `gsub(",", "", v); v > 0` of a field V (None: unset): a value that lost a comma became a
    string, compared with "0" as strings; one that did not stays a field, compared as awk compares one."""
    if v is None:
        return False
    if "," in v or not looks_numeric(v):
        return byte_order(v.replace(",", "")) > b"0"
    return num(v) > 0


def best_ceiling(csv, stage, chapter=""):
    """The value of a ceiling (ceiling-fp32-peak, ceiling-read-stream, ...) as the tools read it: the best
    (largest: GFLOP/s, GB/s) of the STAGE rows (of CHAPTER, when given) of the newest run in CSV, never
    the file's last such row. A run is the run_id column (make bench writes one id for all the rows of
    one invocation); the newest is the one whose rows' dates (the date column, UTC, ISO 8601) are latest,
    ties to the larger id. Rows without a run_id (a file of the older ten columns, or a row of ten in a
    longer one) count only in a file where no STAGE row has one: all of them are then one unknown run,
    "-". Rows whose check is FAIL are not ceilings. Returns (VALUE as written, RUN_ID), or None where
    there is no such row; Refusal (exit 2) for an unreadable CSV or one whose header lacks a column read."""
    if not os.access(csv, os.R_OK):
        raise Refusal("best_ceiling: %s: cannot read it" % csv, 2)
    try:
        _, rows = read_csv(csv, need=("chapter", "stage", "value", "check", "date", "run_id?"))
    except ColumnError as e:
        raise Refusal(str(e), 2)
    best, latest = {}, {}
    for row in rows:
        value = row["value"]
        if row["stage"] != stage or (chapter and row["chapter"] != chapter) or row["check"] == "FAIL" \
                or not NUMBER.match(value):
            continue
        run = row["run_id"] or "-"
        if run not in best or num(value) > num(best[run]):
            best[run] = value
        if run not in latest or awk_compare(row["date"], latest[run]) > 0:
            latest[run] = row["date"]
    newest = None
    for run in best:
        if run != "-" and (newest is None or awk_compare(latest[run], latest[newest]) > 0
                           or (awk_compare(latest[run], latest[newest]) == 0 and byte_order(run) > byte_order(newest))):
            newest = run
    if newest is None and "-" in best:
        newest = "-"
    return (best[newest], newest) if newest is not None else None


def ceiling_of(machine, stage, chapter, err):
    """(value, run) of the machine's best ceiling, ("", "") without one: a results file that cannot be
    read says so on ERR and counts as none, as the tables go on without the ceiling."""
    csv = "%s/%s.csv" % (RESULTS, machine)
    if not os.path.isfile(csv):
        return "", ""
    try:
        found = best_ceiling(csv, stage, chapter)
    except Refusal as e:
        print(e, file=err)
        return "", ""
    # (the old scripts read the pair with `read -r value run`: the run's blanks at its ends dropped)
    return (found[0], found[1].strip(" \t")) if found else ("", "")


# ---------------------------------------------------------------- profile_summary

def profile_row(name, lines):
    """The first table's row: duration, registers, occupancy, throughputs, local memory, instructions."""
    v = dict.fromkeys(("regs", "theo", "ach", "sm", "dram", "l1", "ld", "st", "inst", "ffma", "ratio"), "")
    dur, sms, cycles, fp64 = "", None, None, 0.0
    patterns = [(r"Registers Per Thread", "regs"), (r"Theoretical Occupancy", "theo"),
                (r"Achieved Occupancy", "ach"), (r"Compute \(SM\) Throughput", "sm"), (r"^ *DRAM Throughput", "dram"),
                (r"L1/TEX Cache Throughput", "l1"), (r"smsp__inst_executed.sum ", "inst"),
                (r"op_ffma_pred_on", "ffma"), (r"per_inst_executed.ratio", "ratio")]
    for line in lines:
        if "Duration" in line and not dur:
            dur = last(line) + " " + unit(line)
        for pattern, key in patterns:
            if re.search(pattern, line):
                v[key] = last(line)
        for pattern, key in ((r"local_op_ld.sum", "ld"), (r"local_op_st.sum", "st")):
            if re.search(pattern, line):
                v[key] = last(line) + " " + unit(line)
        if re.search(r"op_dadd_pred_on|op_dmul_pred_on|op_dfma_pred_on", line):
            fp64 += count(last(line))
        if re.match(r" *# SMs ", line):
            sms = last(line)
        if re.search(r"sm__cycles_elapsed.avg ", line):
            cycles = last(line)
    per_sm = "%.2f" % div(fp64, count(sms) * count(cycles)) if positive_count(sms) and positive_count(cycles) else "-"
    return ("| %s | %s | %s | %s%% / %s%% | %s%% | %s%% | %s%% | %s + %s | %s | %s | %s | %s | %s of 32 |\n"
            % (name, dur, v["regs"], v["theo"], v["ach"], v["sm"], v["dram"], v["l1"], v["ld"], v["st"],
               or_dash(v["inst"]), commas(fp64), per_sm, v["ffma"], v["ratio"]))


def or_dash(v):
    return v if v != "" else "-"


def commas(n):
    """A sum as ncu writes a count, 34,951,252,739 (with %s it would be in the awk's number format)."""
    s = "%.0f" % n
    while re.search(r"[0-9]{4}", s):
        s = re.sub(r"[0-9]{3}(,|\Z)", r",\g<0>", s, count=1)
    return s


def last_matches(lines, patterns):
    """{key: the last field of the last line matching its pattern} (PATTERNS: (regex, key, suffix))."""
    v = {key: "" for _, key, _ in patterns}
    for line in lines:
        for pattern, key, suffix in patterns:
            if re.search(pattern, line):
                v[key] = last(line) + suffix
    return v


def conflicts_row(name, lines):
    """Shared-memory bank conflicts, for the kernels that have any (the last column: every kind of shared
    access, ldmatrix's among them, where a report has it)."""
    v = last_matches(lines, [(r"bank_conflicts_pipe_lsu_mem_shared_op_ld", "ld", ""),
                             (r"bank_conflicts_pipe_lsu_mem_shared_op_st", "st", ""),
                             (r"bank_conflicts_pipe_lsu_mem_shared\.sum", "all", "")])
    if v["ld"] != "0" or v["st"] != "0" or v["all"] not in ("", "0"):
        return "| %s | %s | %s | %s |\n" % (name, v["ld"], v["st"], or_dash(v["all"]))
    return ""


def coalescing_row(name, lines):
    """32-byte sectors fetched per global load request: 4 when a warp reads 32 adjacent ints, up to 32."""
    v = last_matches(lines, [(r"requests_pipe_lsu_mem_global_op_ld", "req", ""),
                             (r"sectors_pipe_lsu_mem_global_op_ld", "sec", "")])
    if count(v["req"]) > 0:
        return "| %s | %s | %s | %.2f |\n" % (name, v["req"], v["sec"], count(v["sec"]) / count(v["req"]))
    return ""


def pipes_row(name, lines):
    """The share of active cycles that issued an instruction, and how busy each pipe was (% of its peak)."""
    keys = ("iss", "occ", "fma", "alu", "xu", "fp64", "lsu", "tensor")
    v = last_matches(lines, [(p, k, "%") for p, k in zip(
        (r"Issue Slots Busy", r"Achieved Occupancy", r"inst_executed_pipe_fma\.", r"inst_executed_pipe_alu\.",
         r"inst_executed_pipe_xu\.", r"inst_executed_pipe_fp64\.", r"inst_executed_pipe_lsu\.",
         r"pipe_tensor_op_hmma_cycles_active"), keys)])
    return "| %s |%s\n" % (name, "".join(" %s |" % or_dash(v[k]) for k in keys))


def scheduler_row(name, lines):
    """Warps per scheduler, and the cycles between two instructions of one warp with what they waited for."""
    keys = ("act", "eli", "iss", "cyc", "ni", "wt", "ss", "ls", "br", "mp")
    v = last_matches(lines, [(p, k, "") for p, k in zip(
        (r"Active Warps Per Scheduler", r"Eligible Warps Per Scheduler", r"Issued Warp Per Scheduler",
         r"Warp Cycles Per Issued Instruction", r"issue_stalled_no_instruction_per", r"issue_stalled_wait_per",
         r"issue_stalled_short_scoreboard_per", r"issue_stalled_long_scoreboard_per",
         r"issue_stalled_branch_resolving_per", r"issue_stalled_math_pipe_throttle_per"), keys)])
    cells = [v[k] for k in keys[:4]] + [or_dash(v[k]) for k in keys[4:]]
    return "| %s |%s\n" % (name, "".join(" %s |" % c for c in cells))


SUMMARY_TABLES = [  # (header, the text a report holds to have a row, its row)
    ("| profile | duration | registers/thread | occupancy theoretical / achieved | SM throughput | DRAM throughput "
     "| L1/shared throughput | local memory ld + st | warp instructions executed | FP64 instructions "
     "| FP64 per SM per cycle | FP32 FMA instructions | active threads per warp instruction |",
     "Registers Per Thread", profile_row),
    ("| profile | shared-memory load bank conflicts | store bank conflicts | all shared accesses (ldmatrix too) |",
     "bank_conflicts_pipe_lsu_mem_shared_op_ld", conflicts_row),
    ("| profile | global load requests | sectors | sectors per request |",
     "requests_pipe_lsu_mem_global_op_ld", coalescing_row),
    # reports made before the pipes were recorded have none and are left out
    ("| profile | issue slots busy | achieved occupancy | FMA pipe | ALU pipe | XU pipe (rsqrt, sin, conversions) "
     "| FP64 pipe | LSU pipe | tensor pipe |", "sm__inst_executed_pipe_fma", pipes_row),
    # the scheduler's view (the smallpt report's tables)
    ("| profile | active warps / scheduler | eligible warps / scheduler | issued warps / scheduler "
     "| warp cycles per issued instruction | of which stalled: no instruction | wait | short scoreboard "
     "| long scoreboard | branch resolving | math pipe throttle |", "Eligible Warps Per Scheduler", scheduler_row),
]


def summary_table(header, marker, row, reports):
    """A table of the reports that contain MARKER (none: no table), a row each."""
    text = ""
    for path in reports:
        body = read_text(path)
        if marker not in body:
            continue
        if not text:
            text = "\n%s\n|%s\n" % (header, "".join("---|" if i == 0 else "---:|" for i in range(header.count("|") - 1)))
        text += row(report_name(path), lines_of(body))
    return text


def provenance_of(what, reports):
    """"commit A" or "commits A (n), B (m)" from the reports' "# commit: ..." (or "# run: ...") lines in
    their first eight; reports made before there were run ids: "run not recorded (n)"."""
    counts = {}
    for path in reports:
        lines = report_lines(path)
        if not lines:
            continue  # (an empty file has no first line: awk never counted it)
        key = "not recorded"
        for line in lines[:8]:
            parts = fields(line)
            if field(parts, 1) == "#" and field(parts, 2) == what + ":":
                key = field(parts, 3)
                break
        counts[key] = counts.get(key, 0) + 1
    keys = sorted(counts, key=byte_order)
    many = len(keys) > 1
    return what + ("s " if many else " ") + ", ".join(k + (" (%d)" % counts[k] if many else "") for k in keys)


def profile_summary(out=None, err=None):
    """The Nsight Compute reports (make profile, make profiles) as Markdown tables, one set per machine,
    under a heading that names its device (the reports' first line): no device's numbers under another's.
    Values are ncu's own; a metric a report does not have shows as "-". Returns the exit status: 1 where
    a folder's reports name no device."""
    out, err = streams(out, err)
    for folder, reports, device in profiled_devices():
        if not device:
            print("profile_summary: %s/ holds reports of no one device (none named): not summarised" % folder,
                  file=err)
            return 1
        out.write("\n*Nsight Compute on the %s (`%s`, %d reports; %s; %s):*\n"
                  % (device, folder, len(reports), provenance_of("commit", reports), provenance_of("run", reports)))
        for header, marker, row in SUMMARY_TABLES:
            out.write(summary_table(header, marker, row, reports))
    return 0


# ---------------------------------------------------------------- decomposition

def decomposition_counters(key, first_wl, lines):
    """A profiled stage's line, "chapter stage TI W A E duration_ns clock_MHz workload", formatted as
    the old scripts passed it between their two awk programs (the second read the rounded numbers), or
    None where a counter is missing. The workload: the program's own table in the profiled run
    ("ch05  workload 512x512x64spp"), else the stage's first in the CSV."""
    ti = w = act = el = dur = clock = 0
    wl = ""
    for line in lines:
        if re.search(r"smsp__thread_inst_executed.sum ", line):
            ti = count(last(line))
        if re.search(r"smsp__inst_executed.sum ", line):
            w = count(last(line))
        if re.search(r"sm__cycles_active.avg ", line):
            act = count(last(line))
        if re.search(r"sm__cycles_elapsed.avg ", line):
            el = count(last(line))
        if not dur and re.match(r" *Duration", line):
            dur = scaled(line, {"ms": 1e6, "us": 1e3, "s": 1e9}, 1)
        if not clock and re.match(r" *SM Frequency", line):
            clock = count(last(line)) * {"ghz": 1e3, "khz": 1e-3, "hz": 1e-6}.get(unit(line).lower(), 1)
        parts = fields(line)
        if re.match(r"ch[0-9]+\Z", field(parts, 1)) and field(parts, 2) == "workload" and wl == "":
            wl = re.sub(r" +\Z", "", re.sub(r"^ *ch[0-9]+ +workload +", "", line, count=1), count=1)
    if not (ti and w and act and el and dur):
        return None
    ch, _, stage = key.partition("_")
    return "%s %s %.0f %.0f %.2f %.2f %.0f %.0f %s" % (ch, stage, ti, w, act, el, dur, clock,
                                                       wl if wl != "" else first_wl if first_wl != "" else "-")


def median_times(rows):
    """{(chapter, stage, workload): the first row's median time}, of the rows with one."""
    ms = {}
    for row in rows:
        k = (row["chapter"], row["stage"], row["workload"])
        t = row["median_ms"]
        if k not in ms and NUMBER.match(t) and num(t) > 0:
            ms[k] = num(t)
    return ms


def first_workloads(rows):
    """(chapter_stage, its first workload) of each stage, in the CSV's order."""
    seen = {}
    for row in rows:
        seen.setdefault(row["chapter"] + "_" + row["stage"], row["workload"].strip("\t"))
    return seen.items()


def two(v):
    return "%.2f" % v


def magnitude(v):
    return v if v > 1 else div(1, v)


def decomposition_row(prev, cur):
    """The table's row of stage CUR over PREV (each: chapter, stage, the counters, its bench time)."""
    f1 = div(prev["ti"], cur["ti"])
    f2 = div(div(cur["ti"], cur["w"]), div(prev["ti"], prev["w"]))
    f3 = div(div(cur["w"], cur["a"]), div(prev["w"], prev["a"]))
    f4 = div(div(cur["a"], cur["e"]), div(prev["a"], prev["e"]))
    product = f1 * f2 * f3 * f4
    moved = max(zip((f1, f2, f3, f4), ("instructions", "lanes", "issue rate", "SM-active share")),
                key=lambda f: magnitude(f[0]))[1]  # (max keeps the first of equals, as the old > did)
    if cur["t"] > 0 and prev["t"] > 0:
        measured = two(prev["t"] / cur["t"])
        r = div(prev["t"] / cur["t"], product) - 1
        residual = "%+.1f%%" % (100 * r)
        if r > RESIDUAL or r < -RESIDUAL:
            residual = "approximate: " + residual
    else:
        measured, residual = "-", "no bench time at " + cur["wl"]
    clocks = "%.0f, %.0f" % (prev["f"], cur["f"]) if prev["f"] > 0 and cur["f"] > 0 else "-"
    return ("| %s | %s (after %s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n"
            % (cur["ch"], cur["st"], prev["st"], measured, two(div(prev["d"], cur["d"])), two(div(prev["e"], cur["e"])),
               two(f1), two(f2), two(f3), two(f4), residual, clocks, moved))


def parse_stage(line, ms):
    """The fields of a decomposition_counters line, read back as the old second awk program read them."""
    parts = fields(line)
    wl = line
    for _ in range(8):
        wl = re.sub(r"^[^ ]+ ", "", wl, count=1)
    s = {k: field(parts, i + 1) for i, k in enumerate(("ch", "st"))}
    s.update({k: num(field(parts, i + 3)) for i, k in enumerate(("ti", "w", "a", "e", "d", "f"))})
    s["wl"] = wl
    s["t"] = ms.get((s["ch"], s["st"], wl), 0)
    return s


def decomposition(out=None, err=None):
    """The speedup of each GPU stage over the one before it, taken apart from the Nsight Compute reports,
    as Markdown tables, one set per device. With TI the thread-level instructions executed, W the
    warp-level ones, A and E the SMs' active and elapsed cycles (averages over the SMs), the elapsed
    cycles are exactly E = TI / (lanes x issue x share), lanes = TI / W, issue = W / A, share = A / E,
    so the ratio of two stages' elapsed cycles is the product of four ratios: fewer instructions, fuller
    warps, faster issue, busier SMs. That product is exact for the two profiled launches, not for the
    speedup the bench measured (the SM clocks may differ: both are shown; the counters come from
    replays; a stage's time may be more than its kernel). So each row also shows the speedup measured
    (the ratio of the two stages' median times in data/results/<machine>.csv at the workload the
    profiles ran) and the residual, measured / product - 1: over RESIDUAL the row says "approximate".
    Beside them, the ratio of the two kernels' durations as ncu measured them. The stages' order is
    their first appearance in the CSV; a stage is compared with the one before it at the same workload.
    Returns the exit status: 1 where a results file lacks a column read here."""
    out, err = streams(out, err)
    for folder in profile_dirs():
        csv = "%s/%s.csv" % (RESULTS, os.path.basename(folder))
        if not os.path.isfile(csv):
            continue
        try:
            _, rows = read_csv(csv, need=("chapter", "stage", "workload", "median_ms"))
        except ColumnError as e:
            print(e, file=err)
            return 1
        out.write("\n*Speedup over the stage before, taken apart (Nsight Compute on the %s, `%s`; measured: the "
                  "median times in `%s`, at the workload the profiles ran). The four factors multiply to the "
                  "elapsed-cycle ratio exactly; the residual is the measured speedup over that product, less 1, "
                  "and a row whose residual is over %.0f%% says approximate (the SM clocks of the two launches "
                  "are beside it).*\n\n" % (device_of(reports_in(folder)), folder, csv, num(awk_str(100 * RESIDUAL))))
        out.write("| chapter | stage (after the one before) | measured speedup | time ratio (ncu durations) "
                  "| elapsed-cycle ratio = | instructions | × lanes | × issue rate | × SM-active share | residual "
                  "| SM clock, MHz (before, after) | moved most |\n")
        out.write("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n")
        ms, prev = median_times(rows), None
        for key, first_wl in first_workloads(rows):
            path = "%s/%s.txt" % (folder, key)
            if not os.path.isfile(path):
                continue
            line = decomposition_counters(key, first_wl, report_lines(path))
            if line is None:
                continue
            cur = parse_stage(line, ms)
            if prev is not None and cur["ch"] == prev["ch"] and cur["wl"] == prev["wl"]:
                out.write(decomposition_row(prev, cur))
            prev = cur
    return 0


# ---------------------------------------------------------------- counted_flops

def fp32_counts(lines):
    """(FADD, FMUL, FFMA, how many of the three lines, the kernel's duration in s) of a report."""
    fadd = fmul = ffma = dur = 0
    have = 0
    for line in lines:
        if re.search(r"op_fadd_pred_on.sum", line):
            fadd, have = count(last(line)), have + 1
        if re.search(r"op_fmul_pred_on.sum", line):
            fmul, have = count(last(line)), have + 1
        if re.search(r"op_ffma_pred_on.sum", line):
            ffma, have = count(last(line)), have + 1
        if not dur and re.match(r" *Duration", line):
            dur = scaled(line, SECONDS, 1e-9)
    return fadd, fmul, ffma, have, dur


def counted_flops(out=None, err=None):
    """FP32 work as Nsight Compute counts it, per profiled GPU stage, one table per device: FADD + FMUL +
    2 x FFMA thread-level instructions executed, over the kernel's duration in the same report, and that
    rate as a share of the device's FP32 ceiling (the best ceiling-fp32-peak row of the newest run in
    data/results/<machine>.csv, measured by ch07 on that device: best_ceiling; "-" without one).
    Counted operations, not a model of the algorithm: what the compiled code did. Returns 0."""
    out, err = streams(out, err)
    for folder, reports, device in profiled_devices():
        peak, run = ceiling_of(os.path.basename(folder), "ceiling-fp32-peak", "", err)
        out.write("\n*FP32 operations counted by Nsight Compute on the %s (`%s`; ceiling %s GFLOP/s, the best "
                  "ch07 ceiling row of %s):*\n\n" % (device, folder, peak or "-",
                                                    "its results" if (run or "-") == "-" else "run " + run))
        out.write("| profile | FADD | FMUL | FFMA | FP32 operations (FADD + FMUL + 2 FFMA) | kernel time "
                  "| GFLOP/s counted | of the FP32 ceiling |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
        for path in reports:
            fadd, fmul, ffma, have, dur = fp32_counts(report_lines(path))
            if have < 3 or not dur:
                continue
            ops = fadd + fmul + 2 * ffma
            g = ops / dur * 1e-9
            share = "%.1f%%" % (100 * g / num(peak)) if num(peak or "0") > 0 else "-"
            out.write("| %s | %.3g | %.3g | %.3g | %.4g | %.3g ms | %.0f | %s |\n"
                      % (report_name(path), fadd, fmul, ffma, ops, dur * 1e3, g, share))
    return 0


# ---------------------------------------------------------------- model_check

def model_row(name, lines):
    """The report's row of the model check, None where it has nothing to check, or "MISSING" where its
    rate has no counter."""
    stage = re.sub(r"^ch[0-9]+_", "", name, count=1)
    fp32, nf, dram, nd, tensor = 0, 0, 0, 0, 0
    row = None  # (unit, model)
    for line in lines:
        if re.search(r"op_fadd_pred_on.sum", line) or re.search(r"op_fmul_pred_on.sum", line):
            fp32, nf = fp32 + count(last(line)), nf + 1
        if re.search(r"op_ffma_pred_on.sum", line):
            fp32, nf = fp32 + 2 * count(last(line)), nf + 1
        if re.search(r"dram__bytes_read.sum", line):
            dram, nd = scaled(line, BYTES, 1), nd + 1
        if re.search(r"pipe_tensor_op_hmma_cycles_active", line):
            tensor = count(last(line))
        parts = fields(line)
        if row is None and field(parts, 1) == stage:
            row = program_row(parts)
    if row is None:
        return None
    unit_, model = row
    if unit_ == "GFLOP/s" and tensor > 1:
        return None  # multiply-adds on the tensor cores: no FP32 counter counts them
    if unit_ == "GB/s" and nd:
        counted, what = dram, "DRAM bytes read"
    elif unit_ == "GFLOP/s" and nf == 3:
        counted, what = fp32, "FP32 operations"
    else:
        return "MISSING"
    r = div(counted, model)
    verdict = ("the model holds" if 1 - TOLERANCE <= r <= 1 + TOLERANCE
               else "more than the model: read the counter" if r > 1 else "less than the model: read the counter")
    return "| %s | %s | %.4g | %.4g | %.2f | %s |\n" % (name, what, model, counted, r, verdict)


def program_row(parts):
    """(unit, the model's work: rate x time) of the program's own row, "stage threads time spread (1 or 2
    fields) speedup value unit check", or None where it is not one in GB/s or GFLOP/s."""
    found = None
    for k in range(6, 9):
        if field(parts, k) in ("GB/s", "GFLOP/s") and field(parts, k + 1) in ("ok", "FAIL"):
            found = (field(parts, k), num(field(parts, 3)) * 1e-3 * num(field(parts, k - 1)) * 1e9)
    return found


def model_check(check=False, out=None, err=None):
    """The programs' work models against the counters, per device. A program prints a rate from a model
    of its work: ch06 the bytes of its input (GB/s), ch07 20 flops per interaction (GFLOP/s). Each profile
    holds the program's own row from the profiled run, so the model's work is that row's rate times its
    time; the counter is what Nsight Compute counted in the same run: DRAM bytes read for GB/s, FP32
    operations (FADD + FMUL + 2 FFMA) for GFLOP/s. No list of chapters: every profiled stage whose row is
    in GB/s or GFLOP/s is checked. Within TOLERANCE the model holds; outside it the row says so, and the
    counted figure is the one the book reads. A GFLOP/s row whose kernel kept the tensor pipe busy (over
    1%) is left out: no FP32 counter counts tensor-core instructions. Returns the exit status: with
    CHECK, 1 where a report in one of the two units lacks its counter (a table that silently skipped it
    would pass)."""
    out, err = streams(out, err)
    missing = False
    for folder, reports, device in profiled_devices():
        table = ""
        for path in reports:
            line = model_row(report_name(path), report_lines(path))
            if line == "MISSING":
                print("model_check: %s has a rate but not its counter" % report_name(path), file=err)
                missing = True
            elif line:
                table += line
        if not table:
            continue
        out.write("\n*The programs' work models against Nsight Compute's counts on the %s (`%s`): the model is the "
                  "row's rate times its time in the profiled run; within %.0f%% it holds.*\n\n"
                  % (device, folder, num(awk_str(100 * TOLERANCE))))
        out.write("| profile | counted | model | counted | counted / model | verdict |\n|---|---|---:|---:|---:|---|\n")
        out.write(table)
    return 1 if check and missing else 0


# ---------------------------------------------------------------- roofline

def roofline_counts(lines):
    """The counters a roofline point needs, summed as the old script summed them."""
    c = dict.fromkeys(("fp32", "fp64", "dram", "warp_inst", "sms", "clock", "dur"), 0)
    have = haved = 0
    for line in lines:
        if re.search(r"op_fadd_pred_on.sum", line) or re.search(r"op_fmul_pred_on.sum", line):
            c["fp32"], have = c["fp32"] + count(last(line)), have + 1
        if re.search(r"op_ffma_pred_on.sum", line):
            c["fp32"], have = c["fp32"] + 2 * count(last(line)), have + 1
        if re.search(r"op_dadd_pred_on.sum", line) or re.search(r"op_dmul_pred_on.sum", line):
            c["fp64"] += count(last(line))
        if re.search(r"op_dfma_pred_on.sum", line):
            c["fp64"] += 2 * count(last(line))
        if re.search(r"dram__bytes_read.sum", line) or re.search(r"dram__bytes_write.sum", line):
            c["dram"], haved = c["dram"] + scaled(line, BYTES, 1), haved + 1
        if re.search(r"smsp__inst_executed.sum ", line):
            c["warp_inst"] = count(last(line))
        if re.match(r" *# SMs ", line):
            c["sms"] = count(last(line))
        if re.match(r" *SM Frequency", line):
            c["clock"] = scaled(line, {"Ghz": 1e9, "Mhz": 1e6}, 1)
        if not c["dur"] and re.match(r" *Duration", line):
            c["dur"] = scaled(line, SECONDS, 1e-9)
    return c if have >= 3 and haved >= 2 and c["dur"] and c["dram"] > 0 else None


def roofline_row(name, c, peak, bw):
    """(the table's row, the chart's point "x y name" or None) of one report's counters."""
    fp32, fp64, dram = c["fp32"], c["fp64"], c["dram"]
    ai, g, gbs = fp32 / dram, fp32 / c["dur"] * 1e-9, dram / c["dur"] * 1e-9
    if fp32 == 0 and fp64 == 0:  # integer work (ch06): only the memory roof applies
        return ("| %s | 0 | 0 | %.3g | - | - | %.0f | - | %.0f GB/s | %.1f%% | memory (no floating point) |\n"
                % (name, dram, gbs, bw, div(100 * gbs, bw))), None
    roof = ai * bw if ai * bw < peak else peak
    bound = "FP64: not on this roof" if fp64 > fp32 else "memory" if ai * bw < peak else "arithmetic"
    issue = (div(fp32, c["warp_inst"]) * 4 * c["sms"] * c["clock"] * 1e-9
             if c["warp_inst"] > 0 and c["sms"] > 0 and c["clock"] > 0 else 0)
    if 0 < issue < roof and fp64 <= fp32:
        roof, bound = issue, "issue slots"
    on_roof = fp64 <= fp32
    row = ("| %s | %.3g | %.3g | %.3g | %.3g | %.0f | %.0f | %s | %s | %s | %s |\n"
           % (name, fp32, fp64, dram, ai, g, gbs, "%.0f" % issue if issue > 0 else "-",
              "%.0f" % roof if on_roof else "-", "%.1f%%" % div(100 * g, roof) if on_roof else "-", bound))
    point = "%g %g %s\n" % (ai, g, re.sub(r"^ch[0-9]+_", "", name, count=1)) if on_roof and fp32 > 0 else None
    return row, point


ROOFLINE_HEADER = ("\n| %s profile | FP32 operations | FP64 operations | DRAM bytes | FP32 ops per byte | GFLOP/s counted "
                   "| DRAM GB/s counted | issue-slot ceiling, GFLOP/s | the roof there | of the roof "
                   "| the roof there set by |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")


def roofline_chart(ch, machine, device, ceilings, dat, points, out):
    """Draws data/plots/roofline_<chapter>_<machine>.svg from DAT, which holds POINTS (gnuplot's output to
    OUT); Refusal where gnuplot fails."""
    (peak, _), (bw, _) = ceilings
    points = lines_of(points)
    names = "".join(field(fields(p), 3) + " " for p in points)
    xmax = 1000
    for p in points:
        if num(field(fields(p), 1)) * 10 > xmax:
            xmax = num(field(fields(p), 1)) * 10
    script = ROOFLINE_PLOT % {"svg": "data/plots/roofline_%s_%s.svg" % (ch, machine), "ch": ch, "device": device,
                              "peak": peak, "bw": bw, "xmax": awk_str(xmax), "names": names, "dat": dat}
    run = subprocess.run(["gnuplot"], input=script, encoding="utf-8", errors="surrogateescape",
                         stdout=subprocess.PIPE)
    out.write(run.stdout)
    if run.returncode != 0:
        raise Refusal("roofline: the %s chart failed" % ch)


# (as the old script's here-document fed it: bash joined the plot command's continuation line, "\\" newline)
ROOFLINE_PLOT = '''set terminal svg size 1000,520 font "sans,11" background rgb "white"
# the Okabe-Ito colours: told apart with any colour vision
set colorsequence podo
set output "%(svg)s"
set title "%(ch)s: roofline on the %(device)s (counted FP32 operations and DRAM bytes; ceilings measured on it)"
set xlabel "FP32 operations per DRAM byte (log scale)"
set ylabel "GFLOP/s counted (log scale)"
set logscale xy
set grid
peak = %(peak)s; bw = %(bw)s
roof(x) = x * bw < peak ? x * bw : peak
set xrange [0.01:%(xmax)s]
set yrange [1:peak * 2]
set key outside right top font "sans,9"
names = "%(names)s"
plot roof(x) title sprintf("roof: DRAM %%.0f GB/s, FP32 %%.0f GFLOP/s", bw, peak) lw 2 lc rgb "#444444",      for [i=1:words(names)] "%(dat)s" every ::(i-1)::(i-1) using 1:2 title word(names, i) with points pt 7 ps 1.2
'''


def run_words(run):
    """", run RUN_ID", or nothing for rows older than run ids ("-")."""
    return "" if (run or "-") == "-" else ", run " + run


def chapter_roofline(ch, reports, machine, device, ceilings, gen, out):
    """One chapter's table of points, its chart's data in GEN and, where gnuplot is, its chart; the link
    to the chart wherever it is (committed), so the book does not depend on this machine's tools."""
    (peak, _), (bw, _) = ceilings
    dat = "%s/roofline_%s_%s.dat" % (gen, ch, machine)
    out.write(ROOFLINE_HEADER % ch)
    points = ""
    for path in reports:
        c = roofline_counts(report_lines(path))
        if c is not None:
            row, point = roofline_row(report_name(path), c, num(peak), num(bw))
            out.write(row)
            points += point or ""
    try:
        with open(dat, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(points)
    except OSError as e:
        raise Refusal("roofline: %s: cannot write it (%s)" % (dat, e.strerror))
    svg = "data/plots/roofline_%s_%s.svg" % (ch, machine)
    if points and shutil.which("gnuplot"):
        roofline_chart(ch, machine, device, ceilings, dat, points, out)
    if points and os.path.isfile(svg):
        out.write("\n![%s roofline](%s)\n" % (ch, svg))


def roofline(gen="build/book", out=None, err=None):
    """The roofline of each profiled chapter, per device, from counters only: a profiled stage is a point
    at x = FP32 operations per DRAM byte (FADD + FMUL + 2 FFMA over dram__bytes_read + dram__bytes_write)
    and y = those operations over the kernel's duration. The roof: the device's DRAM read ceiling (ch06's
    ceiling-read-stream row) and its FP32 ceiling (ch07's ceiling-fp32-peak row), both measured on that
    device (the best row of each one's newest run: best_ceiling); a machine without both gets no
    roofline. A stage whose FP64 operations outnumber its FP32 ones is listed but not drawn: this roof is
    FP32's. A third ceiling is the kernel's own, issue slots: a scheduler issues one warp instruction a
    cycle, so a kernel whose warp instructions carry k FP32 operations can reach at most k x 4 schedulers
    x SMs x the SM clock; where that is lower, it is the roof there (instruction-bound). Writes the
    charts' data to GEN and draws data/plots/roofline_<chapter>_<machine>.svg where gnuplot is. Returns
    the exit status: 1 where a chart failed."""
    out, err = streams(out, err)
    try:
        for folder in profile_dirs():
            machine = os.path.basename(folder)
            ceilings = (ceiling_of(machine, "ceiling-fp32-peak", "", err),
                        ceiling_of(machine, "ceiling-read-stream", "ch06", err))
            reports = reports_in(folder)
            if not reports:
                continue
            device = device_of(reports)
            (peak, peak_run), (bw, bw_run) = ceilings
            if not peak or not bw:
                out.write("\n*No roofline for `%s`: its results lack the FP32 or the DRAM read ceiling.*\n" % machine)
                continue
            out.write("\n*Rooflines on the %s (`%s`): FP32 ceiling %.0f GFLOP/s (ch07%s), DRAM read ceiling %.0f GB/s "
                      "(ch06%s), both measured on it, each the best row of its run; ridge at %.1f FP32 operations "
                      "per byte.*\n" % (device, folder, num(peak), run_words(peak_run), num(bw), run_words(bw_run),
                                        num(awk_str(div(num(peak), num(bw))))))
            # the chapters profiled on this device, from the reports' names (no list of chapters here)
            for ch in sorted({os.path.basename(p).split("_")[0] for p in reports}, key=byte_order):
                rows = [p for p in reports if os.path.basename(p).startswith(ch + "_")]
                chapter_roofline(ch, rows, machine, device, ceilings, gen, out)
    except Refusal as e:
        print(e, file=err)
        return e.status
    return 0


# ---------------------------------------------------------------- the command line

USAGE = ("usage: evidence.py best_ceiling CSV STAGE [CHAPTER] | profile_summary | decomposition | counted_flops"
         " | model_check [--check] | roofline [GEN]   (--help: what each prints)")


def cli_best_ceiling(args):
    """best_ceiling CSV STAGE [CHAPTER]: prints "VALUE RUN_ID", nothing where there is no such row."""
    if len(args) < 2 or not args[0] or not args[1]:
        print("usage: evidence.py best_ceiling CSV STAGE [CHAPTER]", file=sys.stderr)
        return 2
    try:
        found = best_ceiling(args[0], args[1], args[2] if len(args) > 2 else "")
    except Refusal as e:
        print(e, file=sys.stderr)
        return e.status
    if found:
        print("%s %s" % found)
    return 0


def main(argv):
    """python3 tools/evidence.py NAME [ARGS...]: the tool NAME's output on stdout, its exit status."""
    name, args = (argv[0], argv[1:]) if argv else ("", [])
    tools = {"best_ceiling": lambda: cli_best_ceiling(args),
             "profile_summary": profile_summary, "decomposition": decomposition, "counted_flops": counted_flops,
             "model_check": lambda: model_check(check=args[:1] == ["--check"]),
             "roofline": lambda: roofline(args[0] if args and args[0] else "build/book")}
    if name in ("--help", "-h"):
        print(__doc__.strip())
        return 0
    if name not in tools:
        print(USAGE, file=sys.stderr)
        return 2
    return tools[name]()


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8", errors="surrogateescape")
    sys.exit(main(sys.argv[1:]))
