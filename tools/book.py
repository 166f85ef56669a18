#!/usr/bin/env python3
"""make book: regenerates every generated part of book.md, README.md and the evidence pages
(evidence/*.md: a chapter's raw evidence, linked from it) from data/.

  <!-- results:chNN --> ... <!-- end results:chNN -->   the headline machine's table (the results file measured
                                                         last that holds the chapter's rows; of one machine)
  <!-- results:chNN-others --> ...                     every other machine's table, for the evidence page
  <!-- results:chNN-full --> ...                       the headline table whole, where chNN_BOOK_WORKLOADS (the
                                                         registry) names the workloads the chapter's shows, or
                                                         chNN_BOOK_TRIPS the side-trips it leaves out
  <!-- generated:quality_chNN --> ...                  time to MSE < 52 per stage (rows in unit "MSE"; and
                                                         quality_chNN-others)
  <!-- results:summary --> ... <!-- end results:summary -->  first vs best stage per chapter, a table per machine
  <!-- generated:provenance --> ...                    each CSV file's machines, runs, commits, dates, chapters
  <!-- include:PATH --> ... <!-- end include:PATH -->   the file PATH, verbatim (missing or empty: an error)
  <!-- code:PATH:NAME --> ... <!-- end code:PATH:NAME -->  the definition of NAME in PATH (a function, kernel,
                                                         struct or macro), its comment above, fenced
  <!-- generated:NAME --> ... <!-- end generated:NAME -->  build/book/NAME.md (e.g. profile_summary;
                                                         toc: the contents, from book.md's headings)
and draws the charts into data/plots (gnuplot, SVG) when gnuplot is installed.

Every table's heading names the machine and the runs its rows come from, and a
row measured before its chapter's code last changed is marked stale: read from
the rows' provenance columns, never typed by hand. The book links every chart
that is in data/plots, drawn now or committed: the same committed data make the
same book.md and README.md on any machine (tests/tools/book_without_tools.sh:
without gnuplot and clang). Nothing between the markers is typed by hand: this
program overwrites it. Which chapters exist, which are raytracers and which
chart each wants come from the chapter registry (make -s print-registry); every
number comes from the CSV files, where a ceiling or a start-up time is a row of
its own with check "n/a".

Python 3 standard library only. Run from the repository root: python3 tools/book.py
(PPM2PNG=PROGRAM: PPMs in data/images become PNGs). Exit status: 0 written;
1 refused or failed (book.md and README.md left as they were: a malformed
line of a results file is named by file:line); 2 no registry, or an argument
other than --help (which prints this).

The numbers are formatted as the awk programs this replaced formatted them
(printf's %.1f, %.3g ..., and awk's "%.6g unless integral" for a bare number),
so the book is byte for byte what it was.
"""

import glob
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import traceback
import types

# tools/evidence.py and the chapters' hooks (chNN_BOOK_EXTRA) read their CSV files with this module's
# reader (from book import ...): one module, whether this file is run or imported, so all see the same
# functions and the same exceptions.
sys.modules.setdefault("book", sys.modules[__name__])

GEN = "build/book"  # relative: the charts' data files are named in the SVGs gnuplot writes
NO_DATA = "*(no data yet: run `make bench`, then `make book`)*"


class BookError(Exception):
    """A refusal or failure: its message (may be empty: already said) goes to stderr, then exit 1."""


# ---------------------------------------------------------------- reading files

def read_text(path):
    """A file's text as written: no newline translation, any bytes kept (surrogateescape)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read()


def write_text(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.write(text)


def lines_of(text):
    """The records of a text as awk and read see them: split at newlines, a last unterminated line kept."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


# The results' columns, by name, in the order the programs write them (common/report.h's
# REPORT_CSV_HEADER): where a file has no header line to read them from. A file's own header
# wins: its rows are read by the names in its first line, so a column added, dropped or moved
# touches nothing here that reads the others.
RESULT_COLUMNS = ("chapter,stage,workload,threads,median_ms,value,unit,check,device,date,commit,run_id,"
                  "machine_id,sm_mhz_start,sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end,"
                  "runs,lo_ms,hi_ms").split(",")


def column_index(header_line):
    """{name: field number (1-based)} of a results file's header line."""
    return {name: i + 1 for i, name in enumerate(header_line.split(","))} if header_line else {}


DEFAULT_INDEX = {name: i + 1 for i, name in enumerate(RESULT_COLUMNS)}


class Row:
    """One CSV line, split at every comma as awk -F, does (no quoting in these files), its fields
    read by column name (row["median_ms"]) through its file's header; a column the file lacks, or a
    field past the end of the line, is ""."""

    def __init__(self, line, index=None):
        self.line = line
        self.fields = line.split(",") if line != "" else []
        self.nf = len(self.fields)
        self.index = index if index is not None else DEFAULT_INDEX

    def __getitem__(self, name):
        i = self.index.get(name, 0)
        return self.fields[i - 1] if 1 <= i <= self.nf else ""

    def has(self, name):
        """1 if the line reaches that column (a row of ten fields has no provenance)."""
        return 1 <= self.index.get(name, 0) <= self.nf


class ColumnError(BookError):
    """A column a tool reads that its file lacks, or a file without a header (message: caller's file:line first)."""


def _called_from():
    """file:line of the call to the function that calls this: the tool that asked for the columns."""
    frame = traceback.extract_stack(limit=3)[0]
    return "%s:%d" % (frame.filename, frame.lineno)


def read_csv(path, need=()):
    """(header line, rows after it) of a results file. NEED: the columns the caller reads (NAME? may be
    missing: its fields read ""). Where NEED is given, a file that cannot be read, has no header, or
    whose header lacks one of them is a ColumnError naming the caller's file and line, the file and
    the column: never a field read from wherever it happens to be."""
    try:
        lines = lines_of(read_text(path))
    except OSError:
        if not need:
            raise
        lines = []
    if need and not lines:
        raise ColumnError("%s: %s: cannot read its header" % (_called_from(), path))
    index = column_index(lines[0]) if lines else {}
    for name in need:
        if name not in index and not name.endswith("?"):
            raise ColumnError('%s: %s has no column "%s" (its columns: %s)' % (_called_from(), path, name, lines[0]))
    return (lines[0] if lines else ""), [Row(line, index) for line in lines[1:]]


def all_rows(path):
    """Every line as a Row, the header too: the programs that did not skip it (a header never matches a chapter)."""
    lines = lines_of(read_text(path))
    index = column_index(lines[0]) if lines else {}
    return [Row(line, index) for line in lines]


def machine_of(csv):
    return os.path.basename(csv)[: -len(".csv")] if csv.endswith(".csv") else os.path.basename(csv)


def shell_glob(pattern):
    """The paths PATTERN matches, in byte order: as bash's glob with nullglob under LC_ALL=C (data/results/*/X:
    its * not matching a hidden name; sorted by the whole path, not by each folder's name)."""
    return sorted(glob.glob(pattern), key=lambda p: p.encode("utf-8", "surrogateescape"))


def machine_files(name):
    """(machine, path) of each data/results/<machine>/NAME that is a file (a make bench's extra output: ch07's
    timeline, ch11's scaling), in the shell's order (shell_glob)."""
    return [(os.path.basename(os.path.dirname(path)), path) for path in shell_glob("data/results/*/" + name)
            if os.path.isfile(path)]


def sorted_glob(folder, suffix="", dirs=False):
    """The entries of FOLDER ending in SUFFIX, in byte order (the shell's glob under LC_ALL=C), hidden ones left out."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for name in sorted(names, key=lambda n: n.encode("utf-8", "surrogateescape")):
        path = os.path.join(folder, name)
        if name.startswith(".") or not name.endswith(suffix):
            continue
        if dirs and not os.path.isdir(path):
            continue
        out.append(path)
    return out


# ---------------------------------------------------------------- numbers as awk writes them

# A number as strtod reads one (awk reads fields with it): decimal, hex, inf and nan too
# (ch10's double-precision stage is "inf dB" from its CPU reference).
_LEADING = re.compile(r"\s*[-+]?(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|inf(inity)?|nan)", re.IGNORECASE)


def num(s):
    """A field as a number the way awk reads one: its leading number, 0 if none."""
    if isinstance(s, (int, float)):
        return s
    m = _LEADING.match(s)
    if not m:
        return 0.0
    text = m.group(0).strip()
    return float(int(text, 16)) if "x" in text.lower() else float(text)


def looks_numeric(s):
    """A field awk compares as a number (a "strnum": a number and blanks around it, nothing else)."""
    m = _LEADING.match(s)
    return m is not None and s[m.end():].strip() == ""


def is_zero(s):
    """awk's $4 == 0: numeric only where the field looks like a number ("" and "max" are not 0)."""
    return looks_numeric(s) and num(s) == 0


def awk_str(x):
    """A computed number as awk prints it: integral as an integer, else %.6g (OFMT/CONVFMT)."""
    if x == x and abs(x) < 1e16 and x == int(x):  # (nan and inf are not integral)
        return "%d" % int(x)
    return "%.6g" % x


def ftime(ms):
    """A time in ms, with as many digits as mean something."""
    ms = num(ms)
    if ms >= 10000:
        return "%.1f s" % (ms / 1000)
    if ms >= 1000:
        return "%.2f s" % (ms / 1000)
    if ms >= 10:
        return "%.1f ms" % ms
    if ms >= 1:
        return "%.2f ms" % ms
    return "%.3f ms" % ms


def fval(v):
    """A rate: three significant digits, no exponent above 100."""
    v = num(v)
    return "%.0f" % v if v >= 100 else "%.1f" % v if v >= 10 else "%.3g" % v


def awk_cmp(a, b):
    """awk's comparison of two values, -1, 0 or 1 (awk_cmp(row["threads"], 1) == 0 is its $4 == 1): as
    numbers where each is a number or a field that looks like one, else as strings in byte order (the C
    locale), a number written as awk writes it."""
    if (not isinstance(a, str) or looks_numeric(a)) and (not isinstance(b, str) or looks_numeric(b)):
        x, y = num(a), num(b)
    else:
        x, y = ((v if isinstance(v, str) else awk_str(v)).encode("utf-8", "surrogateescape") for v in (a, b))
    return (x > y) - (x < y)


def fdiv(a, b):
    """a / b as awk (mawk) divides: IEEE, so a zero divisor gives inf, -inf or nan (printed as such), never an error."""
    a, b = float(num(a)), float(num(b))
    if b != 0:
        return a / b
    return float("nan") if a == 0 or a != a else math.copysign(float("inf"), a) * math.copysign(1.0, b)


def sort_n(lines):
    """sort -n: by the leading number (no exponent; none = 0), ties by the whole line in byte order."""
    def key(line):
        m = re.match(r"\s*(-?)(\d*)(\.\d*)?", line)
        digits = m.group(2) + (m.group(3) or "")
        value = float(digits) if digits not in ("", ".") else 0.0
        return (-value if m.group(1) else value, line.encode("utf-8", "surrogateescape"))
    return sorted(lines, key=key)


# ---------------------------------------------------------------- the results files, checked
# Every line of every results file is checked before anything is read from
# it, in one pass (time linear in the files): a malformed line is named by
# file and line, never met later as a traceback or a heading of a machine
# called "rows of ". A chapter named in the data must be one of the
# registry's: the name is data, never a program to run.

TEN_COLUMNS = "chapter,stage,workload,threads,median_ms,value,unit,check,device,date"
CONFLICT_MARKERS = ("<<<<<<<", "=======", ">>>>>>>", "|||||||")


def line_problem(line, columns, chapters, index=None):
    """Why one data line of a results file is malformed, or None. Its fields are found by the file's
    header (index: column_index of it; the course's order where None)."""
    at = index or DEFAULT_INDEX
    if "\0" in line:
        return "a NUL byte: not a results row (a file cut short or overwritten: take it again from git)"
    if line.startswith(CONFLICT_MARKERS):
        return "a merge-conflict marker (%s): resolve the conflict first" % line[:7]
    nf = len(line.split(","))
    in_order = all(at.get(name) == i + 1 for i, name in enumerate(TEN_COLUMNS.split(",")))
    if nf != columns and not (nf == 10 and in_order):
        return "%d fields, not the ten columns of %s or the header's %d: a row cut short or joined" % (nf, TEN_COLUMNS, columns)
    row = Row(line, at)
    fields = row.fields
    chapter = row["chapter"]
    if chapter not in chapters:
        return "'%s' is not a chapter of this course (make -s print-registry): not read" % chapter
    # the fields reach gnuplot's scripts, where a quote, a backtick or a ;
    # would be code: no row of the course's has one
    unsafe = [f for f in fields if UNSAFE_FIELD.search(f)]
    if unsafe:
        return "a field with a quote, backtick, backslash, $, ;, | or ! in it (%s): not a row the course writes" % unsafe[0][:40]
    if not NUMBER.match(row["median_ms"]) or not (NUMBER.match(row["value"]) or row["value"] == "n/a"):
        return "median_ms '%s' or value '%s' is not a number" % (row["median_ms"][:20], row["value"][:20])
    return None


UNSAFE_FIELD = re.compile(r"[\"'`\\$;|!]")
NUMBER = re.compile(r"-?([0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|inf|nan)$")  # (printf's %g spells them so)
SAFE_FILE = re.compile(r"[A-Za-z0-9._+-]+\.csv$")


def check_results(csvs, chapters):
    """Refuses (BookError) results files with a malformed line, naming each (the first 20) by file:line."""
    problems = []
    for csv in csvs:
        if not SAFE_FILE.match(os.path.basename(csv)):
            problems.append("%s: a results file's name is a machine's: A-Z a-z 0-9 . _ + - only (it names charts)" % csv)
            continue
        lines = lines_of(read_text(csv))
        header = lines[0] if lines else ""
        names = header.split(",")
        if not all(name in names for name in TEN_COLUMNS.split(",")):
            looks = ("it begins with a byte-order mark, which the programs never write" if header.startswith("\ufeff")
                     else "its lines end in CR LF (a Windows editor?): the programs end them in LF alone"
                     if header.endswith("\r") else "the header must name the columns %s (in any order)" % TEN_COLUMNS)
            problems.append("%s:1: not a results file's header: %s" % (csv, looks))
            continue
        columns = len(header.split(","))
        for number, line in enumerate(lines[1:], start=2):
            why = line_problem(line, columns, chapters, column_index(header))
            if why:
                problems.append("%s:%d: %s" % (csv, number, why))
    if problems:
        shown = problems[:20] + (["(and %d more)" % (len(problems) - 20)] if len(problems) > 20 else [])
        raise BookError("book: malformed results (book.md and README.md not written):\n" + "\n".join(shown))


# ---------------------------------------------------------------- the registry

def registry_from_make():
    """The chapter registry: make -s print-registry's NAME='value' lines, as a dict; OSError,
    CalledProcessError or ValueError where it cannot be read (tools/site.py reads it so too)."""
    out = subprocess.run(["make", "-s", "print-registry"], stdout=subprocess.PIPE, check=True,
                         encoding="utf-8", errors="surrogateescape").stdout
    registry = {}
    for word in shlex.split(out, comments=True):
        name, sep, value = word.partition("=")
        if not sep:
            raise ValueError(word)
        registry[name] = value
    return registry


def read_registry():
    """The chapter registry, or exit 2 saying it cannot be read."""
    try:
        return registry_from_make()
    except (OSError, subprocess.CalledProcessError, ValueError):
        print("book: cannot read the chapter registry", file=sys.stderr)
        sys.exit(2)


# ---------------------------------------------------------------- provenance of the rows
# A results row (data/results/<machine>.csv) of make bench carries, after its
# ten columns, the commit it was built from (-dirty: tracked files differed),
# the run id every row of one make bench shares, the machine id, and the GPU's
# clock, power and temperature at the stage's start and end. Older rows have
# the ten columns only: their provenance is not recorded.
#
# The book groups rows by machine: the machine id where it is recorded, and for
# the older rows the UTC day they were written (the only thing that tells them
# apart: a day may hold several runs, and two days one machine). Stale or not
# needs no git: make bench stamps each chapter's log with its code's
# fingerprint (tools/code_id.sh), and a chapter whose fingerprint now differs
# was measured on other code. The same files give the same book on any machine.

def recorded(row):
    return row.has("machine_id") and row["commit"] not in ("", "-") and row["run_id"] != "" and row["machine_id"] != ""


def machine_key(row):
    """The machine a row is grouped under: its id, or (not recorded) its UTC day."""
    return "machine id " + row["machine_id"] if recorded(row) else "provenance not recorded, rows of " + row["date"][:10]


_STAMP = re.compile(r"# run .* code ([0-9a-f]*) .*")


def fingerprint_then(log):
    """The code fingerprint make bench stamped on a chapter's log (its first line), or ""."""
    try:
        first = read_text(log).split("\n", 1)[0]
    except OSError:
        return ""
    m = _STAMP.match(first)
    return m.group(1) if m and m.end() == len(first) else ""


def stale_map(csvs, registry):
    """{(chapter, commit): (fresh|stale|unknown, why)} for every recorded row's chapter and commit."""
    states, now_of = {}, {}
    for csv in csvs:
        _, rows = read_csv(csv)
        pairs = sorted({row["chapter"] + " " + row["commit"] for row in rows if row.has("machine_id") and row["commit"] not in ("", "-")},
                       key=lambda s: s.encode("utf-8", "surrogateescape"))
        for pair in pairs:
            ch, commit = pair.split(" ", 1)
            folder = registry.get(ch + "_DIR", "") if re.fullmatch(r"[A-Za-z0-9_]+", ch) else ""
            log = (csv[:-4] if csv.endswith(".csv") else csv) + "/" + ch + ".txt"
            then = fingerprint_then(log)
            if folder == "":
                states[ch, commit] = ("unknown", "not a chapter of this course")
            elif then == "":
                states[ch, commit] = ("unknown", "its log %s records no code fingerprint" % log.removeprefix("data/results/"))
            else:
                if folder not in now_of:
                    run = subprocess.run(["tools/code_id.sh", folder], stdout=subprocess.PIPE,
                                         encoding="utf-8", errors="surrogateescape")
                    now_of[folder] = run.stdout.rstrip("\n") if run.returncode == 0 else None
                now = now_of[folder]
                if now is None:
                    states[ch, commit] = ("unknown", "its code cannot be fingerprinted here")
                elif now == then:
                    states[ch, commit] = ("fresh", "")
                else:
                    states[ch, commit] = ("stale", "measured on code %s, the code is now %s" % (then, now))
    return states


class Provenance:
    """What one table's heading and footnotes say of its rows: add() each row, mark() each shown row."""

    def __init__(self, states):
        self.states = states
        self.keys = []  # machines, in the order first seen
        self.seen = set()  # the same, to look up in constant time
        self.runs = []  # recorded runs, in the order first seen
        self.commit_of = {}
        self.day1 = self.day2 = ""
        self.noted = set()
        self.stale_note = self.unknown_note = ""

    def add(self, row):
        k = machine_key(row)
        if k not in self.seen:
            self.seen.add(k)
            self.keys.append(k)
        if recorded(row) and row["run_id"] not in self.commit_of:
            self.runs.append(row["run_id"])
            self.commit_of[row["run_id"]] = row["commit"]
        day = row["date"][:10]
        if self.day1 == "" or day < self.day1:
            self.day1 = day
        if day > self.day2:
            self.day2 = day

    def days(self):
        return self.day1 if self.day1 == self.day2 else self.day1 + " to " + self.day2

    def refuse_mixed(self, file, what):
        """Several machines under one heading: a chapter table compares its rows with its first."""
        if len(self.keys) < 2:
            return
        raise BookError(
            "book: %s: %s: rows of %d machines under one heading (%s); a chapter table compares its rows with its "
            "first, so it must come from one machine: make bench replaces a chapter's rows whole, so these were "
            "joined by hand (rerun make bench for the chapter on one machine, or give each machine its own results "
            "file)" % (file, what, len(self.keys), "; ".join(self.keys[:5]) + ("; ..." if len(self.keys) > 5 else "")))

    def ids(self):
        """'machine M, run R, commit C; run R2, commit C2', or 'provenance not recorded'."""
        if not self.runs:
            return "provenance not recorded"
        return self.keys[0] + "".join("%s run %s, commit %s" % ("," if i == 0 else ";", r, self.commit_of[r])
                                      for i, r in enumerate(self.runs))

    def mark(self, ch, row):
        """'' fresh or not recorded, ' †' stale, ' ‡' unknown; the footnotes collected."""
        if not recorded(row):
            return ""
        k = (ch, row["commit"])
        state, why = self.states.get(k, ("", ""))
        if state == "stale":
            if k not in self.noted:
                self.noted.add(k)
                self.stale_note += " %s at commit %s was %s;" % (ch, row["commit"], why)
            return " †"
        if state == "unknown":
            if k not in self.noted:
                self.noted.add(k)
                self.unknown_note += " commit %s: %s;" % (row["commit"], why)
            return " ‡"
        return ""

    def lesson_notes(self, ch):
        """notes(), as a lesson says them: what a mark means, the ids on the chapter's evidence page."""
        s = ""
        if self.stale_note:
            s += ("\n*† measured on an earlier version of this chapter's code (its folder or `common/` changed "
                  "since); the next bench replaces it ([which versions](evidence/%s.md)).*\n" % ch)
        if self.unknown_note:
            s += "\n*‡ whether it is stale is unknown ([why](evidence/%s.md)).*\n" % ch
        return s

    def notes(self):
        s = ""
        if self.stale_note:
            s += ("\n*† stale: measured on other code than the chapter's now (`tools/code_id.sh`: its folder, the "
                  "folders it uses and `common/`):%s.*\n" % self.stale_note.removesuffix(";"))
        if self.unknown_note:
            s += "\n*‡ stale or not: unknown (%s).*\n" % self.unknown_note.removesuffix(";")[1:]
        return s


def machine_groups(csv):
    """The rows of CSV split by machine (machine_key), in the order of their first row's time."""
    _, rows = read_csv(csv)
    first, members = {}, {}
    for row in rows:
        k = machine_key(row)
        if k not in first or row["date"] < first[k]:
            first[k] = row["date"]
        members.setdefault(k, []).append(row)
    return [members[k] for k in sorted(first, key=lambda k: (first[k], k))]


def provenance_block(csvs, states):
    """Markdown: per results file, one line per run (recorded) or per day (not recorded)."""
    out = ["Where each results file's rows come from, read from the rows themselves (`make book`): the machine id, "
           "the run id every row of one `make bench` shares, the commit it was built from (`-dirty`: with "
           "uncommitted changes), the first and last row's time (UTC), the rows, and the chapters.\n\n"]
    for csv in csvs:
        prov = Provenance(states)
        _, rows = read_csv(csv)
        runs, old = {}, False  # key -> {t1, t2, commit, count, chapters}
        for row in rows:
            k = (row["machine_id"], row["run_id"]) if recorded(row) else ("", row["date"][:10])
            run = runs.setdefault(k, {"t1": row["date"], "t2": row["date"], "commit": row["commit"] if recorded(row) else "",
                                      "count": 0, "chapters": {}})
            run["count"] += 1
            run["t1"] = min(run["t1"], row["date"])
            run["t2"] = max(run["t2"], row["date"])
            if row["chapter"] not in run["chapters"]:
                run["chapters"][row["chapter"]] = row["chapter"] + prov.mark(row["chapter"], row)
                if not recorded(row):
                    old = True
        minute = lambda t: t[:16] + "Z"
        out.append("**`%s`** (`%s`, %d rows):\n\n| machine id | run | commit | written (UTC) | rows | chapters |\n"
                   "|---|---|---|---|---:|---|\n" % (machine_of(csv), csv, len(rows)))
        # by first time, equal times in the order first seen (a stable sort: the
        # exchange sort this was took time quadratic in the runs)
        for (mid, run_or_day), run in sorted(runs.items(), key=lambda item: item[1]["t1"]):
            when = minute(run["t1"]) + (" to " + minute(run["t2"]) if run["t2"] != run["t1"] else "")
            chapters = ", ".join(sorted(run["chapters"].values()))
            if mid != "":
                out.append("| %s | %s | %s | %s | %d | %s |\n" % (mid, run_or_day, run["commit"], when, run["count"], chapters))
            else:
                out.append("| not recorded | not recorded | not recorded | %s | %d | %s |\n" % (when, run["count"], chapters))
        if old:
            out.append("\n*Provenance not recorded: rows written before `make bench` recorded it, grouped by their day "
                       "(UTC); their machine, run and commit are unknown (a day may hold several runs, two days one "
                       "machine), so whether they are stale is unknown.*\n")
        out.append(prov.notes() + "\n")
    return "".join(out)


# ---------------------------------------------------------------- what work each stage does
# A stage's row may be tagged work=LABEL (common/stage.h). A speedup compares
# rows of one work only; untagged rows do the chapter's first stage's work. The
# tags are read from the stage lists make bench keeps beside each machine's rows
# (data/results/<machine>/chNN-stages.tsv: the program's --list-stages at that
# run), never from the programs built here: a build may lack stages the data has
# (ch09 without clang has no *-clang stages), and the book must be the same from
# the same committed data on any machine. A chapter benched before bench kept
# its list falls back to the program built here, and says so.

_WORK = re.compile(r"(^| )work=[^ ]+")


def work_tags(machine, chapters):
    """{(chapter, stage): label} of the tagged stages in MACHINE's results (CHAPTERS: the registry's)."""
    _, rows = read_csv("data/results/%s.csv" % machine)
    tags = {}
    for ch in sorted({row["chapter"] for row in rows} & set(chapters)):  # check_results refused any other
        listing = "data/results/%s/%s-stages.tsv" % (machine, ch)
        if os.path.isfile(listing):
            stages = read_text(listing)
        elif os.access("./" + ch, os.X_OK):
            print("book: no %s (make bench keeps it): %s's work= tags taken from ./%s as built here" % (listing, ch, ch),
                  file=sys.stderr)
            run = subprocess.run(["./" + ch, "--list-stages"], stdout=subprocess.PIPE, encoding="utf-8",
                                 errors="surrogateescape")
            if run.returncode != 0:
                raise BookError("book: ./%s --list-stages failed" % ch)
            stages = run.stdout
        else:
            print("book: no %s (make bench keeps it) and ./%s is not built: %s's stages taken as untagged" % (listing, ch, ch),
                  file=sys.stderr)
            stages = ""
        for line in lines_of(stages):
            cols = line.split("\t")
            m = _WORK.search(cols[4] if len(cols) > 4 else "")
            if m:
                label = re.sub(r"^ ?work=", "", m.group(0))
                words = (ch + " " + cols[0] + " " + label).split()
                if len(words) >= 3:
                    tags[words[0], words[1]] = words[2]
    return tags


# ---------------------------------------------------------------- charts (gnuplot, SVG)

def have_gnuplot():
    """gnuplot is on PATH (without it the charts are not redrawn: the committed ones are linked as they are)."""
    return shutil.which("gnuplot") is not None


def gnuplot(script, what=""):
    """Draws one chart. One of the book's own (WHAT empty) that fails is left out (gnuplot says why), as the
    tables do not depend on it; a chapter's hook names its chart (WHAT: "the ch07 timeline"), and a failure
    of that is a BookError saying so."""
    run = subprocess.run(["gnuplot"], input=script, encoding="utf-8", errors="surrogateescape")
    if run.returncode != 0 and what:
        raise BookError("book: %s failed" % what)


def stages_of(rows, ch):
    """CHAPTER's stages in the order of the file, once each."""
    seen = []
    for row in rows:
        if row["chapter"] == ch and row["stage"] not in seen:
            seen.append(row["stage"])
    return [w for st in seen for w in st.split()]


def line_chart(out, rows, machine, ch, extra, points, title, xlabel, ylabel, logscale, key):
    """One line per stage of CH, its points (x, y strings) from POINTS(row, stage); EXTRA: one more plot item."""
    plot = ""
    for st in stages_of(rows, ch):
        dat = "%s/%s_%s_%s.dat" % (GEN, ch, machine, st)
        lines = sort_n([" ".join(p) for row in rows for p in [points(row, st)] if p is not None])
        write_text(dat, "".join(line + "\n" for line in lines))
        if not lines:
            continue
        plot += "%s\"%s\" using 1:2 with linespoints lw 2 title \"%s\"" % (", " if plot else "", dat, st)
    if not plot:
        return  # no stage of this kind on this machine
    if extra:
        plot += ", " + extra
    gnuplot('set terminal svg size 800,450 font "sans,11" background rgb "white"\nset colorsequence podo\nset output "%s"\nset title "%s"\n'
            'set xlabel "%s"\nset ylabel "%s"\nset logscale %s\nset grid\nset key %s\nplot %s\n'
            % (out, title, xlabel, ylabel, logscale, key, plot))


def bar_chart(out, title, ylabel, settings, plot):
    """One bar per stage, names slanted below."""
    gnuplot('set terminal svg size 900,450 font "sans,11" background rgb "white"\nset colorsequence podo\nset output "%s"\nset title "%s"\n'
            'set ylabel "%s"\nset style fill solid 0.8\nset boxwidth 0.7\nset xtics rotate by -40 left\n'
            'set grid ytics\n%s\nplot %s\n' % (out, title, ylabel, settings, plot))


def reference_lines(rows, ch, unit):
    """Plot items, one dashed line per reference row (check n/a) of CH in UNIT, at its value, named."""
    seen, items = set(), ""
    for row in rows:
        if row["chapter"] == ch and row["check"] == "n/a" and row["unit"] == unit and row["stage"] not in seen:
            seen.add(row["stage"])
            items += ', %s with lines dt 2 lw 2 title "%s (%s)"' % (row["value"], row["stage"], row["workload"])
    return items


def chapter_chart(registry, csv, rows, ch):
    """The chart CH registers (chNN_CHART) for one results file, at the standard workload (its first row's)."""
    machine = machine_of(csv)
    kind, title, ylabel = (registry.get(ch + "_CHART" + s, "") for s in ("", "_TITLE", "_YLABEL"))
    out = "data/plots/%s_%s.svg" % (ch, machine)
    first = next((row for row in rows if row["chapter"] == ch and row["check"] != "n/a"), None)
    unit, wl = (first["unit"], first["workload"]) if first else ("", "")
    if kind in ("bar", "bar-log"):
        dat = "%s/%s_%s.dat" % (GEN, ch, machine)
        value = (lambda row: awk_str(num(row["median_ms"]) / 1000)) if kind == "bar" else (lambda row: row["value"])
        write_text(dat, "".join("%s %s\n" % (row["stage"], value(row)) for row in rows
                                if row["chapter"] == ch and row["workload"] == wl and row["check"] != "n/a"))
        settings = "unset key" if kind == "bar" else "set logscale y; set key left top"
        bar_chart(out, title, ylabel, settings, '"%s" using 0:2:xtic(1) with boxes lc rgb "#4477aa" title "stage"%s'
                  % (dat, reference_lines(rows, ch, unit)))
    elif kind == "lines-threads":
        line_chart(out, rows, machine, ch, "",
                   lambda row, st: (row["threads"], row["value"]) if row["chapter"] == ch and row["stage"] == st and row["workload"] == wl and row["check"] != "n/a" else None,
                   title, "threads", ylabel, "x 2", "left top")
    elif kind == "lines-quality":
        line_chart(out, rows, machine, ch, '52 with lines dt 2 lw 2 title "MSE 52 (the report\'s bar)"',
                   lambda row, st: (awk_str(num(row["median_ms"]) / 1000), row["value"])
                   if row["chapter"] == ch and row["stage"] == st and row["unit"] == "MSE" and row["workload"].startswith("1024x768x") else None,
                   title, "kernel time, s (log scale)", ylabel, "xy", "right top")
    elif kind == "lines-n":
        def n_and_value(row, st):  # the n of workload "n=N steps=S"
            if row["chapter"] != ch or row["stage"] != st or st.startswith("cpu-") or row["check"] == "n/a":
                return None
            parts = re.split("[= ]", row["workload"]) if row["workload"] else []
            return (parts[1] if len(parts) > 1 else "", row["value"])
        line_chart(out, rows, machine, ch, reference_lines(rows, ch, unit).removeprefix(", "), n_and_value,
                   title, "bodies n", ylabel, "xy", "right bottom")


THROUGH_SERIES = [("wall", "#228833", "CPU: wall time of the render"),
                  ("kernel", "#4477aa", "GPU: kernel time (events)"),
                  ("process", "#cc6677", "GPU: whole process, start-up included")]


def through_line_chart(registry, chapters, csv, rows):
    """The fastest stage of each raytracer chapter at the standard workload, one series per
    clock (CPU wall time, GPU kernel time, and the whole process of the fastest GPU stage), never mixed."""
    machine = machine_of(csv)
    ray = {c for c in chapters if registry.get(c + "_RAYTRACER", "") == "yes"}
    best, name = {}, {}
    for row in rows:
        if (row["chapter"] in ray and row["workload"] == "512x512x64spp" and row["unit"] == "Msamples/s" and row["stage"] != "bounding-box"
                and row["check"] == "ok"):
            k = (row["chapter"], "kernel" if is_zero(row["threads"]) else "wall")
            if k not in best or num(row["median_ms"]) < best[k]:
                best[k], name[k] = num(row["median_ms"]), row["stage"]
    lines = sorted(("%s-%s %s %s\\n%s" % (c, clock, awk_str(best[c, clock] / 1000), c, name[c, clock])
                    for c, clock in best), key=lambda s: s.encode("utf-8", "surrogateescape"))
    write_text("%s/through_%s.dat" % (GEN, machine), "".join(line + "\n" for line in lines))
    if not lines:
        return
    lines += ["%s-process %s %s\\nwhole-process" % (row["chapter"], awk_str(num(row["median_ms"]) / 1000), row["chapter"])
              for row in rows if row["stage"] == "process-fastest-stage-only"]
    write_text("%s/through_%s.dat" % (GEN, machine), "".join(line + "\n" for line in lines))
    plot, offset = "", 0
    for clock, colour, label in THROUGH_SERIES:
        dat = "%s/through_%s_%s.dat" % (GEN, clock, machine)
        mine = [line for line in lines if line.split() and line.split()[0].endswith("-" + clock)]
        write_text(dat, "".join(line + "\n" for line in mine))
        if not mine:
            continue
        plot += '%s"%s" using ($0 + %d):2:xtic(3) with boxes lc rgb "%s" title "%s"' % (
            ", " if plot else "", dat, offset, colour, label)
        offset += len(mine)
    gnuplot('set terminal svg size 900,450 font "sans,11" background rgb "white"\nset colorsequence podo\n'
            'set output "data/plots/through_line_%s.svg"\n'
            'set title "The card, 512x512 at 64 spp: fastest stage of each chapter, by clock"\n'
            'set bmargin 6\nset ylabel "seconds (log scale)"\nset logscale y\nset style fill solid 0.8\n'
            'set boxwidth 0.6\nset grid ytics\nset key top right\nplot %s\n' % (machine, plot))


def draw_charts(registry, chapters, csvs):
    """The charts, one per machine that has the data, drawn before the tables: the book links each
    chart that is in data/plots, drawn now or committed, so a machine without gnuplot writes the same book."""
    if not have_gnuplot():
        return "charts NOT redrawn: gnuplot is not installed (apt-get install gnuplot-nox)"
    for csv in csvs:
        rows = all_rows(csv)
        for ch in chapters:
            if registry.get(ch + "_CHART", "") and any(r["chapter"] == ch for r in rows):
                chapter_chart(registry, csv, rows, ch)
        through_line_chart(registry, chapters, csv, rows)
    return "charts redrawn"


def chart_link(ch, machine):
    """The chapter's chart on that machine, if it is in data/plots (drawn, or committed), as a Markdown image."""
    svg = "data/plots/%s_%s.svg" % (ch, machine)
    return "![%s chart, %s](%s)\n\n" % (ch, machine, svg) if os.path.isfile(svg) else ""


def through_line_links(csvs):
    """build/book/through_line.md: the through-line chart of each machine that has one."""
    out = ""
    for csv in csvs:
        m = machine_of(csv)
        if os.path.isfile("data/plots/through_line_%s.svg" % m):
            out += "*On `%s` (`%s`):*\n\n![through-line, %s](data/plots/through_line_%s.svg)\n\n" % (m, csv, m, m)
    return out


# ---------------------------------------------------------------- the tables

def is_quality(row):
    return row["unit"] in ("MSE", "relMSE")


def spread_columns(header):
    """The spread's column names, (runs, lo_ms, hi_ms), where a results file has them, or None for a
    file written before the spread was recorded."""
    names = header.fields if header else []
    return SPREAD_COLUMNS if all(n in names for n in SPREAD_COLUMNS) else None


SPREAD_COLUMNS = ("runs", "lo_ms", "hi_ms")


def fspread(row, at):
    """A row's spread, fastest-slowest of its timed runs and how many ("3.80-4.40 ms (20 runs)"), or "-"
    where it was not recorded (an older file, a reference row) or there was one run."""
    if not at or not NUMBER.match(row[at[0]]) or not NUMBER.match(row[at[1]]) or not NUMBER.match(row[at[2]]):
        return "-"
    runs = int(num(row[at[0]]))
    if runs < 2:
        return "-"
    lo, hi = ftime(row[at[1]]), ftime(row[at[2]])
    lo_n, lo_u = lo.split(" ")
    hi_n, hi_u = hi.split(" ")
    span = "%s-%s %s" % (lo_n, hi_n, hi_u) if lo_u == hi_u else "%s-%s" % (lo, hi)
    return "%s (%d runs)" % (span, runs)


def results_table(csv, rows, ch, work, states, spread_at=None, lesson=False):
    """CH's rows of one results file: headed by its machine and runs (one machine only: refused
    otherwise), stale rows marked, each speedup against the first row of the same workload, unit and work;
    the spread of each row's timed runs beside its median where the file records it. LESSON (the
    chapter's own table in book.md): headed by the device and the day only, its run, commit and code
    ids left to the evidence pages, which a lesson links."""
    prov, shown, devices = Provenance(states), [], []
    for row in rows:
        if row["chapter"] != ch:
            continue
        prov.add(row)
        if not is_quality(row):
            shown.append((row, prov.mark(ch, row)))
            if row["device"] not in devices:
                devices.append(row["device"])
    prov.refuse_mixed(csv, ch)
    spreads = [fspread(row, spread_at) for row, _ in shown]
    with_spread = any(x != "-" for x in spreads)
    head = ("*Measured on %s, %s%s (`%s`; where its rows come from: [the evidence](evidence/intro.md)).*\n\n"
            % ("; ".join(devices), prov.days(), "" if prov.runs else "; provenance not recorded", csv) if lesson else
            "*Measured on %s, %s; %s (`%s`).*\n\n" % ("; ".join(devices), prov.days(), prov.ids(), csv))
    out = [head,
           "| stage | workload | threads | time | spread | speedup | rate | check |\n|---|---|---:|---:|---:|---:|---:|---|\n"
           if with_spread else
           "| stage | workload | threads | time | speedup | rate | check |\n|---|---|---:|---:|---:|---:|---|\n"]
    base, others, w1 = {}, False, ""
    for i, (row, mark) in enumerate(shown):
        # a speedup compares rows of one workload, unit and work: against the first such row ("of LABEL"
        # where the work is not that of the first stage); references (check n/a: ceilings, start-up
        # times) have none; threads 0 = a GPU stage
        w = work.get((ch, row["stage"]), "")
        if i == 0:
            w1 = w
        key = (row["workload"], row["unit"], w)
        reference = row["check"] == "n/a"
        if not reference and key not in base:
            base[key] = num(row["median_ms"])
        speedup = "%.2fx%s" % (base[key] / num(row["median_ms"]), " of " + w if w != w1 else "") if not reference else "-"
        if w != w1 and not reference:
            others = True
        time = ftime(row["median_ms"]) + (" | " + spreads[i] if with_spread else "")
        out.append("| %s | %s | %s | %s | %s | %s %s | %s |\n" % (row["stage"] + mark, row["workload"], "GPU" if is_zero(row["threads"]) else row["threads"],
                                                                 time, speedup, fval(row["value"]), row["unit"], row["check"]))
    if others:
        out.append("\n*\"of LABEL\": that row does other work than the first stage (its row is tagged work=LABEL: "
                   "another precision or estimator, or less work), so its speedup is against the first row of its own "
                   "work; across works compare the rates.*\n")
    out.append((prov.lesson_notes(ch) if lesson else prov.notes()) + "\n")
    return "".join(out)


def quality_table(csv, rows, ch, states):
    """Quality per second (ch08's sweep, unit "MSE"): per stage, the first (lowest-spp) run whose
    MSE is below 52 (the smallpt report's bar), and the runs of the sweep."""
    prov = Provenance(states)
    order, mark, spps, ms, mse, rel = [], {}, {}, {}, {}, {}
    for row in rows:
        if row["chapter"] != ch:
            continue
        prov.add(row)
        if not (is_quality(row) and row["workload"].startswith("1024x768x")):
            continue
        s = row["stage"]
        if s not in mark:
            order.append(s)
            mark[s] = prov.mark(ch, row)
        spp = num(re.sub(r"spp$", "", row["workload"][len("1024x768x"):]))
        k = (s, spp)
        if k not in ms:  # (as it was: a relMSE row before its MSE row lists its spp twice)
            spps.setdefault(s, []).append(spp)
        if row["unit"] == "relMSE":
            rel[k] = row["value"]
        else:
            ms[k], mse[k] = row["median_ms"], row["value"]
    prov.refuse_mixed(csv, ch + " (quality)")
    out = ["*Time to MSE < 52 at 1024x768 (kernel time at the smallest spp measured below it: the sweep doubles, then "
           "bisects until its bracket is at most 1.25x wide; relative MSE of the unclamped linear radiance, mean of "
           "(a - ref)^2 / (ref^2 + 0.01), against a double render at 16384 spp, whose own noise it includes; %s; "
           "`%s`):*\n\n" % (prov.ids(), csv),
           "| stage | spp | kernel time | MSE | relative MSE, linear | sweep (spp: MSE) |\n|---|---:|---:|---:|---:|---|\n"]
    for s in order:
        sweep = sorted(spps[s])
        hit = next((spp for spp in sweep if num(mse.get((s, spp), 0)) < 52), None)
        listing = ", ".join("%s: %.0f" % (awk_str(spp), num(mse.get((s, spp), 0))) for spp in sweep)
        if len(sweep) < 2:
            continue
        if hit is not None:
            k = (s, hit)
            out.append("| %s | %d | %s | %.1f | %s | %s |\n" % (s + mark[s], int(hit), ftime(ms.get(k, 0)), num(mse.get(k, 0)),
                                                               "%.4f" % num(rel[k]) if k in rel else "-", listing))
        else:
            out.append("| %s | - | not reached | - | - | %s |\n" % (s + mark[s], listing))
    out.append(prov.notes() + "\n")
    return "".join(out)


def like_for_like(keys, cpu, gpu, gpu_rows):
    """{chapter: (chapter, workload, unit, work)} of its like-for-like pair: at its GPU workload (the
    one most of its GPU rows ran: the size the chapter fills the GPU with, not a point of a sweep), of
    the works with both a CPU and a GPU row there, the one with the fastest GPU row."""
    main_wl, pair = {}, {}
    for c, wl, _, _ in keys:
        if c not in main_wl or gpu_rows.get((c, wl), 0) > gpu_rows.get((c, main_wl[c]), 0):
            main_wl[c] = wl
    for k in keys:
        c, wl = k[0], k[1]
        if wl == main_wl[c] and k in cpu and k in gpu and (c not in pair or gpu[k][0] < gpu[pair[c]][0]):
            pair[c] = k
    return pair


def summary_table(csv, rows, work, states):
    """One machine's rows of CSV (machine_groups): per chapter the first and the fastest stage of the
    same work, and the like-for-like pair of its fastest CPU and GPU rows."""
    prov = Provenance(states)
    # the GPUs first (the device of every row with threads 0), so a row on
    # several GPUs (threads = the GPU count) is not taken for a CPU row
    gpus = {row["device"] for row in rows if is_zero(row["threads"])}
    chmark, first, best, order, devices, fails = {}, {}, {}, [], [], {}
    cpu, gpu, gpu_rows, keys = {}, {}, {}, []
    for row in rows:
        prov.add(row)
        c = row["chapter"]
        if c not in chmark:
            chmark[c] = prov.mark(c, row)
        if row["check"] == "n/a" or is_quality(row):
            continue
        # the fastest row of the workload, unit and work of the first row (not a smaller n of a sweep,
        # not a stage doing other work); and per (workload, unit, work) the fastest CPU row (on no
        # GPU) and the fastest GPU row, for the like-for-like pair
        w = work.get((c, row["stage"]), "")
        ms = num(row["median_ms"])
        if c not in first:
            order.append(c)
            first[c] = {"stage": row["stage"], "ms": ms, "unit": row["unit"], "wl": row["workload"], "work": w}
            best[c] = (row["stage"], ms)
        f = first[c]
        if row["unit"] == f["unit"] and row["workload"] == f["wl"] and w == f["work"] and ms < best[c][1]:
            best[c] = (row["stage"], ms)
        k = (c, row["workload"], row["unit"], w)
        if row["device"] in gpus:
            if k not in gpu or ms < gpu[k][0]:
                gpu[k] = (ms, row["stage"])
            gpu_rows[c, row["workload"]] = gpu_rows.get((c, row["workload"]), 0) + 1
        elif k not in cpu or ms < cpu[k][0]:
            cpu[k] = (ms, row["stage"])
        if k not in keys:
            keys.append(k)
        if row["device"] not in devices:
            devices.append(row["device"])
        if row["check"] == "FAIL":
            fails[c] = fails.get(c, 0) + 1
    pair = like_for_like(keys, cpu, gpu, gpu_rows)
    out = ["*%s, %s; %s (`%s`)*\n\n| chapter | workload | first stage | time | fastest stage, same work | time | "
           "speedup | GPU against CPU, like for like | checks |\n|---|---|---|---:|---|---:|---:|---|---|\n"
           % ("; ".join(devices), prov.days(), prov.ids(), csv)]
    for c in sorted(order):
        vs = "-"
        if c in pair:
            k = pair[c]
            vs = "%.1fx: %s against %s, %s%s" % (cpu[k][0] / gpu[k][0], gpu[k][1], cpu[k][1], k[1],
                                                 ", work " + k[3] if k[3] != "" else "")
        f = first[c]
        out.append("| %s | %s | %s | %s | %s | %s | %.1fx | %s | %s |\n" % (
            c + chmark[c], f["wl"], f["stage"], ftime(f["ms"]), best[c][0], ftime(best[c][1]), f["ms"] / best[c][1],
            vs, "%d FAIL" % fails[c] if fails.get(c) else "all ok"))
    out.append(prov.notes() + "\n")
    return "".join(out)


def write_headline_and_others(name, parts):
    """build/book/NAME.md, the first machine's table (the headline machine's, csvs newest first; or the
    first that has the chapter's rows), for the chapter; NAME-others.md, every other machine's, for its
    evidence page."""
    write_text("%s/%s.md" % (GEN, name), parts[0] if parts else "")
    others = "".join(parts[1:]) if len(parts) > 1 else "*No other machine's results file holds these rows.*\n"
    write_text("%s/%s-others.md" % (GEN, name), others)


def write_tables(registry, csvs, works, states):
    """build/book/results_chNN.md, quality_chNN.md and results_summary.md."""
    lines = {csv: all_rows(csv) for csv in csvs}  # the header too: grep "^chNN," saw it
    data = {csv: lines[csv][1:] for csv in csvs}
    everything = [row for csv in csvs for row in data[csv]]
    for ch in sorted({w for row in everything for w in row["chapter"].split()}):
        # chNN_BOOK_WORKLOADS (the registry; workloads separated by ";"): the chapter's table shows
        # those workloads' rows only (ch07's standard sizes, not its sweeps; ch10's not its math=
        # variants, which tables of their own show); its evidence page has them all (results:chNN-full)
        # chNN_BOOK_TRIPS (the registry; stage names): the side-trips, which the chapter's text lists in a
        # short table of its own after the ladder, stay out of its results table too
        shown = [w.strip() for w in registry.get(ch + "_BOOK_WORKLOADS", "").split(";") if w.strip()]
        trips = set(registry.get(ch + "_BOOK_TRIPS", "").split())
        unknown = trips - {r["stage"] for r in everything if r["chapter"] == ch}
        if unknown and any(r["chapter"] == ch for r in everything):  # (a results file of some stages only: a warning)
            print("book: warning: %s_BOOK_TRIPS names %s, which no results row of %s has (a stage renamed?)"
                  % (ch, ", ".join(sorted(unknown)), ch), file=sys.stderr)
        parts, full = [], ""
        for csv in csvs:
            if not any(r["chapter"] == ch for r in lines[csv]):
                continue
            kept = [r for r in data[csv] if not (r["chapter"] == ch and ((shown and r["workload"] not in shown) or r["stage"] in trips))]
            try:
                at = spread_columns(lines[csv][0] if lines[csv] else None)
                part = results_table(csv, kept, ch, works[csv], states, at, lesson=not parts)
                if not parts:
                    full = results_table(csv, data[csv], ch, works[csv], states, at)
            except BookError as e:
                raise BookError("%s\nbook: making the %s table from %s failed" % (e, ch, csv))
            # the chart under its machine's table (ch08's under its quality table)
            if registry.get(ch + "_CHART", "") != "lines-quality":
                part += chart_link(ch, machine_of(csv))
            parts.append(part)
        write_headline_and_others("results_" + ch, parts)
        write_text("%s/results_%s-full.md" % (GEN, ch), full)
    for ch in sorted({w for row in everything if row["unit"] == "MSE" for w in row["chapter"].split()}):
        parts = []
        for csv in csvs:
            if not any(r["chapter"] == ch and r["unit"] == "MSE" for r in lines[csv]):
                continue
            try:
                part = quality_table(csv, data[csv], ch, states)
            except BookError as e:
                raise BookError("%s\nbook: making the %s quality table from %s failed" % (e, ch, csv))
            if registry.get(ch + "_CHART", "") == "lines-quality":
                part += chart_link(ch, machine_of(csv))
            parts.append(part)
        write_headline_and_others("quality_" + ch, parts)
    out = ""
    for csv in csvs:
        for group in machine_groups(csv):
            out += summary_table(csv, group, works[csv], states)
    write_text("%s/results_summary.md" % GEN, out)


# ---------------------------------------------------------------- images and galleries

def convert_images():
    """PPMs from a bench without libpng become PNGs (then the PPM goes), where PPM2PNG names a converter.
    Only the bench's own files: data/ or data/images as a symbolic link, a folder under data/images that is one
    (to your photos, say), a PPM
    or a PNG that is one, is left alone, its files neither deleted nor replaced; the converter itself replaces
    only a PNG (tools/ppm2png: image.h's kind check), and a PPM it did not convert is kept."""
    converter = os.environ.get("PPM2PNG", "")
    if not converter:
        return
    for above in ("data", "data/images"):  # a link above the machines' folders leads elsewhere just the same
        if os.path.islink(above):
            print("book: %s is a symbolic link: no PPM under it is converted (a bench writes a folder)" % above,
                  file=sys.stderr)
            return
    for folder in sorted_glob("data/images", dirs=True):
        if os.path.islink(folder):
            print("book: %s is a symbolic link: its PPMs are not converted (a bench writes a folder)" % folder,
                  file=sys.stderr)
            continue
        for ppm in sorted_glob(folder, ".ppm"):
            png = ppm[: -len(".ppm")] + ".png"
            if os.path.islink(ppm) or not os.path.isfile(ppm) or os.path.islink(png):
                continue
            if subprocess.run([converter, ppm, png], stderr=subprocess.DEVNULL).returncode == 0:
                os.remove(ppm)


def cell(image, caption, width):
    return ('<td align="center"><a href="%s"><img src="%s" width="%s" alt="%s"></a><br><sub>%s</sub></td>\n'
            % (image, image, width, caption, caption))


def gallery(ch, csvs):
    """build/book/images_chNN.md: the stages of CH in the order of the CSV, from the machine with the
    most images of CH, of those the headline first (CSVS, newest first: the machine whose tables the
    chapter shows; the same code renders the same picture anywhere, so one machine is enough); then
    every difference image bench.sh made on any machine (data/results/<machine>/image_diffs.txt), with
    its numbers, once per distinct result."""
    out, best, most = [], "", 0
    folders = sorted_glob("data/images", dirs=True)
    for m in [machine_of(c) for c in csvs]:
        d = "data/images/" + m
        n = sum(1 for e in os.listdir(d) if e.startswith(ch + "-")) if d in folders else 0
        if n > most:
            most, best = n, m
    if best:
        d = "data/images/%s/" % best
        out.append("*Each stage as `make bench` rendered it on `%s` (click for full size):*\n\n<table><tr>\n" % best)
        n = 0
        for st in stages_of(all_rows("data/results/%s.csv" % best), ch):
            if not os.path.isfile("%s%s-%s.png" % (d, ch, st)):
                continue
            if n > 0 and n % 4 == 0:
                out.append("</tr><tr>\n")
            out.append(cell("%s%s-%s.png" % (d, ch, st), st, 160))
            n += 1
        out.append("</tr></table>\n\n")
    seen = set()
    for d in folders:
        m = os.path.basename(d)
        d += "/"
        diffs = "data/results/%s/image_diffs.txt" % m
        if not os.path.isfile(diffs):
            continue
        for line in read_text(diffs).split("\n")[:-1]:  # read: a last line without its newline is not read
            name, a, b, numbers = (line.split("|", 3) + ["", "", ""])[:4]
            if not name.startswith("diff-%s-" % ch) or not os.path.isfile(d + name + ".png"):
                continue
            cut = numbers.rfind(" (x16 in ")
            numbers = numbers[:cut] if cut >= 0 else numbers
            if (name, numbers) in seen:
                continue
            seen.add((name, numbers))
            out.append("*`%s` against `%s` on `%s`: %s. Right: |difference| x 16, black where equal.*\n\n<table><tr>\n"
                       % (b, a, m, numbers))
            out += [cell(d + a + ".png", a, 220), cell(d + b + ".png", b, 220),
                    cell(d + name + ".png", "difference x 16", 220), "</tr></table>\n\n"]
    return "".join(out)


# ---------------------------------------------------------------- the README's tables, from the registry

def chapters_table(registry, chapters):
    rows = ["| %s | `./%s` %s | %s |\n" % (ch.removeprefix("ch"), ch, registry.get(ch + "_TITLE", ""),
                                          registry.get(ch + "_SUMMARY", "")) for ch in chapters]
    return "| ch | program | what it shows |\n|----|---------|---------------|\n" + "".join(rows)


def exercises_table(registry, exercises):
    rows = ["| %s | %s | %s |\n" % (e, registry.get("ex_%s_WHAT" % e, ""), registry.get("ex_%s_ON" % e, ""))
            for e in exercises]
    return "| exercise | what you write | checked on |\n|---|---|---|\n" + "".join(rows)


# ---------------------------------------------------------------- the chapters' own sections, other tools

def chapter_extra(path, csvs, gen=GEN):
    """Runs one chapter's hook (chNN_BOOK_EXTRA: a Python file in the chapter's folder, book_extra.py): its
    function book_extra(csvs, gen), loaded from PATH and called here, in-process, with the results files
    (newest first) and the folder it writes gen/<name>.md into, for a <!-- generated:name --> section. A
    hook reads the results with read_csv, by column name, and formats its numbers with this module's
    functions (from book import ...). A BookError it raises (a ColumnError: a column it reads that a file
    lacks, its file and line named) ends the book, the hook named."""
    if not path.endswith(".py"):
        raise BookError("book: %s: a chapter's book hook is a Python file, book_extra.py, defining "
                        "book_extra(csvs, gen) (chNN_BOOK_EXTRA in its chapter.mk)" % path)
    # compiled from its source here, named by PATH as the registry gives it (a ColumnError's message names
    # the hook's file and line so), and no byte code written: tools/code_id.sh fingerprints every file of
    # the chapter's folder, and a __pycache__ there would make the chapter's rows look stale
    try:
        with open(path, "rb") as f:
            code = compile(f.read(), path, "exec")
    except FileNotFoundError:
        raise BookError("book: %s: no such file (a chapter's chNN_BOOK_EXTRA)" % path)
    module = types.ModuleType("book_extra_" + re.sub(r"[^A-Za-z0-9_]", "_", path))
    module.__file__ = path
    exec(code, module.__dict__)
    hook = getattr(module, "book_extra", None)
    if not callable(hook):
        raise BookError("book: %s defines no function book_extra(csvs, gen)" % path)
    try:
        hook(list(csvs), gen)
    except BookError as e:
        said = str(e)  # (a ColumnError's begins with the hook's file and line)
        said = said if said.startswith("book: ") or not said else "book: " + said
        raise BookError("%sbook: %s failed" % (said + "\n" if said else "", path))


def chapter_extras(registry, chapters, csvs):
    """Each chapter's own part of the book: its hook, chNN_BOOK_EXTRA (chapter_extra), where it names one."""
    for ch in chapters:
        path = registry.get(ch + "_BOOK_EXTRA", "")
        if path:
            chapter_extra(path, csvs)


def tool_sections():
    """The profiles' tables and the rooflines, the models checked (tools/evidence.py's output, by name)."""
    import evidence  # (here, not at the top: it imports its CSV reader from this module)

    def to_file(tool, name, **args):
        """Runs TOOL into build/book/NAME.md: its exit status (what it wrote before an error is kept)."""
        with open("%s/%s.md" % (GEN, name), "w", encoding="utf-8", errors="surrogateescape", newline="") as out:
            return tool(out=out, **args)

    to_file(evidence.profile_summary, "profile_summary")
    to_file(evidence.decomposition, "decomposition")
    to_file(evidence.counted_flops, "counted_flops")
    if to_file(evidence.model_check, "model_check", check=True) != 0:
        raise BookError("book: a profile lacks the counter its rate needs (tools/evidence.py model_check)")
    if to_file(evidence.roofline, "roofline", gen=GEN) != 0:
        raise BookError("book: the rooflines failed")


def host_records():
    """Each machine's host record (make host-record), named."""
    out = ""
    for folder in sorted_glob("data/results", dirs=True):
        path = folder + "/host.txt"
        if os.path.isfile(path):
            out += "*The host of `%s` (`%s`):*\n\n```\n%s```\n\n" % (os.path.basename(folder), path, read_text(path))
    return out


def contents(book):
    """The book's table of contents: a link to each chapter and part (##; a chapter's sections are
    many and alike: The floor, The ladder ...), outside code fences, with the anchors Markdown
    renderers give headings (lower case, punctuation dropped, spaces as dashes, -1, -2 ... on repeats
    of any heading)."""
    out, fence, seen = [], False, {}
    for line in lines_of(book):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence or not re.match(r"#+ ", line) or line == "## Contents":
            continue
        level = line.index(" ")
        title = line[level + 1:]
        slug = re.sub(r"[^a-z0-9 _-]", "", title.translate(_ASCII_LOWER)).replace(" ", "-")
        n = seen.get(slug, 0)  # (every heading counts towards a repeated anchor's number)
        seen[slug] = n + 1
        if level == 2:
            out.append("- [%s](#%s%s)\n" % (title, slug, "-%d" % n if n else ""))
    return "".join(out)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")  # the C locale's tolower


# ---------------------------------------------------------------- splicing into book.md and README.md

_MARKER = re.compile(r"<!-- (results|include|generated|code):[^ ]+ -->")


def has_text(path):
    """1: a line with a non-blank character; 0: none; -1: unreadable."""
    try:
        text = read_text(path)
    except OSError:
        return -1
    return 1 if re.search(r"[^ \t\r\n]", text) else 0


def definition_starts(lines, name):
    """The lines where a definition of NAME starts: a #define, a struct, union or enum, or a function
    whose declaration (its return type, attributes, template line) begins at the line's first column
    and whose name is followed by its parameters, on that line or a later one of the same declaration
    (a kernel's `__global__ void __launch_bounds__(...)` line, then its indented name). A call is
    inside a body, indented after a line that ends a statement, so it never matches."""
    macro = re.compile(r"(#define\s+%s\b|(struct|union|enum)\s+%s\b)" % (re.escape(name), re.escape(name)))
    call = re.compile(r"(^|[^A-Za-z0-9_.>])%s\s*\(" % re.escape(name))
    comment = ("/*", "*", "//", "#")
    found = []
    for i, line in enumerate(lines):
        if macro.match(line) and not line.rstrip().endswith(";"):
            found.append(i)
            continue
        if not call.search(line) or line.rstrip().endswith(";"):
            continue
        j = i  # back to the first line of this declaration
        while j > 0 and lines[j - 1].strip() and not re.search(r"[;{}]\s*$", lines[j - 1]) and \
                not lines[j - 1].lstrip().startswith(comment):
            j -= 1
        if re.match(r"[A-Za-z_]", lines[j]):
            found.append(j)
    return found


def definition_span(lines, start, name, path):
    """(first, last): the lines of the definition that starts at line START (definition_starts), its
    body or macro continuation included, and the comment and template line just above it."""
    first = last = start
    if lines[first].startswith("#define"):
        while lines[last].endswith("\\") and last + 1 < len(lines):
            last += 1
    else:
        depth, opened = 0, False
        while last < len(lines):
            depth += lines[last].count("{") - lines[last].count("}")
            opened = opened or "{" in lines[last]
            if opened and depth <= 0:
                break
            last += 1
        if not opened or last == len(lines):
            raise ValueError("the body of '%s' in %s does not close" % (name, path))
    while first > 0 and re.match(r"\s*(template\b|/\*|\*|//)", lines[first - 1]):
        first -= 1
    return first, last


def code_excerpt(path, name):
    """The definition of NAME in the source file PATH (a function or kernel, a struct or a macro; see
    definition_starts), with the comment just above it, as a fenced block and a link to the file: the
    book shows the code as it is, so it cannot drift from it."""
    lines = lines_of(read_text(path))
    found = definition_starts(lines, name)
    if len(found) != 1:
        raise ValueError("%d definitions of '%s' in %s (want one)" % (len(found), name, path))
    first, last = definition_span(lines, found[0], name, path)
    # (a CUDA header the course names .h, as gpu_interaction.h: CUDA C++ by what it holds)
    cuda = path.endswith((".cu", ".cuh")) or re.search(r"__(device|global)__|\btemplate\s*<", "\n".join(lines))
    lang = "cpp" if cuda else "c"
    return "```%s\n%s\n```\n\n*`%s` in [`%s`](%s)*\n" % (lang, "\n".join(lines[first:last + 1]), name, path, path)


_LINK = re.compile(r'(\]\(|src="|href=")(?![a-z]+:|#|/)')


def relative_to(doc, line):
    """A generated line's links (written from the repository's root: data/plots/...) as seen from DOC's
    folder."""
    up = "../" * len(os.path.dirname(doc).split("/"))
    return _LINK.sub(lambda m: m.group(1) + up, line)


def splice(doc):
    """DOC's text with the generated text between its markers. An include of a file that is missing or
    has no text is an error (DOC:LINE): the book would print nothing, or a stale placeholder, where it
    promises evidence."""
    out, end_mark = [], None
    for number, line in enumerate(lines_of(read_text(doc)), 1):
        m = _MARKER.search(line)
        if m:
            out.append(line)
            kind, name = (m.group(0)[5:-4].split(":", 1) + [""])[:2]
            if kind == "code":  # a definition from the source, written into GEN first
                path = "%s/code/%s.md" % (GEN, re.sub(r"[^A-Za-z0-9_.-]", "_", name))
                try:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    write_text(path, code_excerpt(*name.rsplit(":", 1)) if ":" in name else "")
                except (OSError, ValueError) as e:
                    raise BookError("book: %s:%d: <!-- code:%s -->: %s\nbook: %s not written (the error above)"
                                    % (doc, number, name, e, doc))
            else:
                path = {"results": "%s/results_%s.md" % (GEN, name), "generated": "%s/%s.md" % (GEN, name)}.get(kind, name)
            fence = re.search(r"\.(txt|log|err)$", path) is not None  # plain text (a report, a log): a code block
            text = has_text(path)
            if kind in ("include", "code") and text != 1:
                raise BookError("book: %s:%d: <!-- include:%s -->: %s, so the book would show nothing there (remove "
                                "the include, or make the file)\nbook: %s not written (the error above)"
                                % (doc, number, path, "no such file" if text < 0 else "the file is empty", doc))
            if text == 1:
                body = lines_of(read_text(path))
                if not fence and os.path.dirname(doc):  # a page in a folder (evidence/): its links lead up
                    body = [relative_to(doc, line) for line in body]
                out += (["```"] if fence else []) + body + (["```"] if fence else [])
            else:
                out.append(NO_DATA)
            end_mark = "<!-- end %s:%s -->" % (kind, name)
        elif end_mark is not None and end_mark in line:
            end_mark = None
            out.append(line)
        elif end_mark is None:
            out.append(line)
    return "".join(line + "\n" for line in out)


# ---------------------------------------------------------------- numbers in prose

# <!-- n:EXPR -->TEXT<!-- /n -->, inside a line of prose: TEXT is EXPR's value, written by make book.
# EXPR is arithmetic (+ - * / and brackets, numbers) over references {chNN/STAGE/FIELD}, FIELD one
# of ms (the median time), value (the rate) or threads, then an optional |FORMAT: a %-format
# (%.1f, %.0f%%), or "time" (as the tables write a time), "rate" (as they write a rate; the
# default) or "count" (a whole number with thousands commas). A reference takes the headline
# machine's row (the first results file holding the stage); {chNN/STAGE/FIELD@NAME} the results
# file whose name holds NAME (H100); [k=v,...] after STAGE picks among rows by workload, threads or
# unit ({ch12/ceiling-cpu-fma[threads=16]/value}). A reference that matches no row, or rows of two
# values, is an error naming the file and line.
# FIELD note:PATTERN reads a number from the row's note in the same run's table (chNN.txt beside
# the results file, the program's own output): PATTERN is the note's words with # where the
# number stands ({ch03/rng-local[threads=16]/note:busy max/mean #}, {.../note:# ctx sw}). The
# table's line must be that row's (its stage, its threads, its median time), so a table from
# another run is an error, not a number.
# {profile:FILE/METRIC@NAME}: METRIC's value in a saved Nsight Compute report (make profile's
# data/profiles/<machine>/FILE.txt, the machine the one whose name holds NAME: always named, as
# the prose names it), as ncu printed it: "METRIC  [unit]  value". Every kernel of the report
# that has the metric must give one value.
_NUMBER_MARK = re.compile(r"<!-- n:(.*?) -->(.*?)<!-- /n -->")
_REFERENCE = re.compile(r"\{(ch[0-9]+)/([A-Za-z0-9_.+-]+)(?:\[([^\]]*)\])?/(ms|value|threads|note:[^}@]+)"
                        r"(?:@([A-Za-z0-9_.-]+))?\}")
_FIELD = {"workload": "workload", "threads": "threads", "ms": "median_ms", "value": "value", "unit": "unit"}


def reference_value(m, csv_rows):
    ch, stage, where, field, machine = m.groups()
    wanted = {}
    for pair in (where or "").split(","):
        if pair:
            key, _, val = pair.partition("=")
            if key not in ("workload", "threads", "unit"):
                raise ValueError("%s: [%s] picks by workload, threads or unit" % (m.group(0), key))
            wanted[_FIELD[key]] = val
    for csv, rows in csv_rows:
        if machine and machine.lower() not in machine_of(csv).lower():
            continue
        found = [r for r in rows if r["chapter"] == ch and r["stage"] == stage and all(r[k] == v for k, v in wanted.items())]
        if found and field.startswith("note:"):
            return note_value(m.group(0), field[5:], csv, found)
        if found:
            values = {r[_FIELD[field]] for r in found}
            if len(values) > 1:
                raise ValueError("%s: %d rows in %s of %d values (pick one: [workload=...], [threads=...])"
                                 % (m.group(0), len(found), csv, len(values)))
            return num(values.pop())
    raise ValueError("%s: no such row in %s" % (m.group(0), "any results file" if not machine else
                                                 "a results file named like '%s'" % machine))


def note_value(ref, pattern, csv, rows):
    """The number at # in PATTERN, in the note of ROWS' one row, read from its table in the run's
    output (chNN.txt in the folder beside CSV); ValueError naming the file and why when it is not there."""
    if len(rows) != 1:
        raise ValueError("%s: %d rows in %s (pick one: [workload=...], [threads=...])" % (ref, len(rows), csv))
    if pattern.count("#") != 1:
        raise ValueError("%s: note:PATTERN wants one # where the number stands" % ref)
    row = rows[0]
    log = os.path.join(csv[:-len(".csv")], row["chapter"] + ".txt")
    try:
        lines = read_text(log).split("\n")
    except OSError as e:
        raise ValueError("%s: the run's table %s cannot be read (%s)" % (ref, log, e.strerror))
    before, _, after = pattern.partition("#")
    number = re.compile(re.escape(before) + r"([0-9][0-9,]*(?:\.[0-9]+)?)" + re.escape(after) + r"(?![0-9A-Za-z])")
    found = set()
    for line in lines:
        words = line.split()
        if len(words) < 3 or words[0] != row["stage"] or (row["threads"] != "-" and row["threads"] not in words[1:2]):
            continue
        times = [w for w in words[1:4] if re.fullmatch(r"[0-9]+\.[0-9]+", w)]
        # (the table writes 3 decimals, the CSV 6 significant digits: either rounding may differ)
        if not any(abs(float(t) - num(row["median_ms"])) <= 0.0005 + 5e-6 * abs(float(t)) for t in times):
            continue  # another workload's line, or another run's
        found.update(x.group(1) for x in number.finditer(line))
    if len(found) != 1:
        raise ValueError("%s: %s in %s: %s" % (ref, "'%s'" % pattern, log,
                         "not in the line of that row (its stage, threads and median %s ms)" % row["median_ms"]
                         if not found else "%d different numbers" % len(found)))
    return float(found.pop().replace(",", ""))


_PROFILE_REFERENCE = re.compile(r"\{profile:([A-Za-z0-9_.+-]+)/([^{}@]+?)(?:@([A-Za-z0-9_.-]+))?\}")


def profile_value(m, csv_rows):
    """The number {profile:FILE/METRIC@NAME} names; ValueError naming the report and why otherwise."""
    name, metric, machine = m.group(1), m.group(2).strip(), m.group(3)
    if not machine:
        raise ValueError("%s: name the machine (@H100, @H200): the prose says whose profile it quotes" % m.group(0))
    folders = sorted({os.path.join(os.path.dirname(os.path.dirname(csv)), "profiles", machine_of(csv))
                      for csv, _ in csv_rows if machine.lower() in machine_of(csv).lower()})
    if len(folders) != 1:
        raise ValueError("%s: %d machines named like '%s' have results" % (m.group(0), len(folders), machine))
    report = os.path.join(folders[0], name + ".txt")
    try:
        text = read_text(report)
    except OSError as e:
        raise ValueError("%s: the report %s cannot be read (%s)" % (m.group(0), report, e.strerror))
    line = re.compile(r"\s*" + re.escape(metric) + r"\s+(?:\S+\s+)?([0-9][0-9,]*(?:\.[0-9]+)?)\s*$")
    values = {x.group(1) for x in map(line.fullmatch, text.split("\n")) if x}
    if len(values) != 1:
        raise ValueError("%s: '%s' in %s: %s" % (m.group(0), metric, report, "%d different values (%s)" % (
            len(values), ", ".join(sorted(values))) if values else "no such metric line"))
    return float(values.pop().replace(",", ""))


def number_text(expr, csv_rows):
    expr, _, form = expr.replace("\\|", "|").partition("|")  # \| in a table row: its cell's |
    expr = _PROFILE_REFERENCE.sub(lambda m: repr(profile_value(m, csv_rows)), expr)
    arithmetic = _REFERENCE.sub(lambda m: repr(reference_value(m, csv_rows)), expr)
    if not re.fullmatch(r"[0-9eE.+\-*/() ]+", arithmetic):
        raise ValueError("'%s' is not arithmetic over {chNN/STAGE/FIELD} references" % expr.strip())
    try:
        x = eval(arithmetic, {"__builtins__": {}}, {})  # digits, + - * / and brackets only (checked above)
    except (SyntaxError, ZeroDivisionError) as e:
        raise ValueError("'%s': %s" % (expr.strip(), e))
    form = form.strip() or "rate"
    if form == "time":
        return ftime(x)
    if form == "count":
        return "{:,}".format(int(round(x)))
    if form == "rate":
        return fval(x)
    try:
        return form % x
    except (TypeError, ValueError):
        raise ValueError("'%s' is not a format for one number" % form)


def marker_layout_problem(line):
    """Why a line's number markers would not render as written on GitHub (or pandoc), or None. A line
    that starts with "<!--" starts an HTML block, which ends the paragraph and shows the line's
    Markdown as it is; in a table row an unescaped | inside a marker splits the cell."""
    if re.match(r" {0,3}<!-- n:", line):
        return "a line starts with a number marker: GitHub reads it as HTML and breaks the paragraph there " \
               "(join it to the line before, or begin the line with a word)"
    if line.startswith("|"):
        for m in _NUMBER_MARK.finditer(line):
            if re.search(r"(?<!\\)\|", m.group(1)):
                return "a table row's number marker holds a bare | (%s): it splits the cell; write \\| there" % m.group(1)
    return None


def fill_numbers(doc, text, csv_rows):
    """TEXT with every <!-- n:... --> marker's number written from the rows (csv_rows: (csv, rows),
    headline first)."""
    out, fence = [], False
    for number, line in enumerate(lines_of(text), 1):
        fence = fence != line.lstrip().startswith("```")
        problem = marker_layout_problem(line) if not fence else None
        if problem:
            raise BookError("book: %s:%d: %s\nbook: %s not written (the error above)" % (doc, number, problem, doc))

        def fill(m):
            try:
                return "<!-- n:%s -->%s<!-- /n -->" % (m.group(1), number_text(m.group(1), csv_rows))
            except ValueError as e:
                raise BookError("book: %s:%d: %s\nbook: %s not written (the error above)" % (doc, number, e, doc))
        out.append(_NUMBER_MARK.sub(fill, line) if "<!-- n:" in line else line)
    return "".join(line + "\n" for line in out)


def write_documents(docs, csvs):
    """Every document is made before any is replaced: an error leaves them all as they were. Each is
    written to a temporary file beside it (its mode kept), then renamed over it."""
    csv_rows = [(csv, read_csv(csv)[1]) for csv in csvs]
    texts = [(doc, fill_numbers(doc, splice(doc), csv_rows)) for doc in docs]
    temps = []
    try:
        for doc, text in texts:
            fd, tmp = tempfile.mkstemp(prefix=os.path.basename(doc) + ".", dir=os.path.dirname(doc) or ".")
            temps.append((tmp, doc))
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(text)
            os.chmod(tmp, os.stat(doc).st_mode & 0o7777)
        for tmp, doc in temps:
            os.replace(tmp, doc)
    except OSError as e:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.remove(tmp)
        raise BookError("book: writing %s failed: %s" % (" and ".join(docs), e))


def newest_first(csvs):
    """The results files, the one with the latest row first (its date column; ties in byte order): the
    machine measured last is the headline, whose table every chapter shows first. Read from the rows, not
    typed into a list."""
    def latest(csv):
        _, rows = read_csv(csv)
        return max((row["date"] for row in rows if row.has("date")), default="")
    return sorted(sorted(csvs), key=latest, reverse=True)


# ---------------------------------------------------------------- the whole

def make_book():
    os.environ["LC_ALL"] = "C"  # the tools run here sort and glob in byte order, whatever the locale
    registry = read_registry()
    # Every chapter of the course, those this machine cannot build too (ch11 without an MPI):
    # the book is made from the committed data, not from the build.
    chapters = registry.get("COURSE_CHAPTERS", "").split()
    exercises = registry.get("COURSE_EXERCISES", "").split()
    if "CHAPTERS" in os.environ:  # (as make exports it to the tools run below)
        os.environ["CHAPTERS"] = registry.get("COURSE_CHAPTERS", "")
    os.makedirs(GEN, exist_ok=True)
    os.makedirs("data/plots", exist_ok=True)
    csvs = sorted_glob("data/results", ".csv")
    csvs = newest_first([c for c in csvs if os.path.isfile(c)])

    check_results(csvs, set(chapters))
    states = stale_map(csvs, registry)
    write_text(GEN + "/provenance.md", provenance_block(csvs, states))
    works = {csv: work_tags(machine_of(csv), chapters) for csv in csvs}
    charts = draw_charts(registry, chapters, csvs)
    write_text(GEN + "/through_line.md", through_line_links(csvs))
    write_tables(registry, csvs, works, states)
    convert_images()
    for ch in chapters:
        if registry.get(ch + "_RAYTRACER", "") == "yes":
            write_text("%s/images_%s.md" % (GEN, ch), gallery(ch, csvs))
    write_text(GEN + "/chapters.md", chapters_table(registry, chapters))
    write_text(GEN + "/exercises.md", exercises_table(registry, exercises))
    chapter_extras(registry, chapters, csvs)
    tool_sections()
    write_text(GEN + "/host_record.md", host_records())
    write_text(GEN + "/toc.md", contents(read_text("book.md")) if os.path.isfile("book.md") else "")
    write_documents([doc for doc in ["book.md", "README.md"] + sorted_glob("evidence", ".md") if os.path.isfile(doc)],
                    csvs)
    print("book: tables and includes regenerated from %d results file(s); %s" % (len(csvs), charts))


def main():
    if sys.argv[1:] in (["--help"], ["-h"]):
        print(__doc__.strip())
        return 0
    if sys.argv[1:]:
        print("book: unexpected argument '%s' (usage: make book, or python3 tools/book.py [--help])" % sys.argv[1],
              file=sys.stderr)
        return 2
    if sys.version_info < (3, 9):
        print("book: tools/book.py needs Python 3.9 or later (this is %s)" % sys.version.split()[0], file=sys.stderr)
        return 1
    try:
        make_book()
    except BookError as e:
        if str(e):
            print(e, file=sys.stderr)
        return 1
    except OSError as e:  # a file that cannot be read or written: its name and why
        print("book: %s (book.md and README.md not written)" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
