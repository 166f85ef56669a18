#!/usr/bin/env python3
"""make collect-grades DIR=folder: a class's grade results as one table.

Every regular file in DIR but hidden ones is read as one student's result
(`make grade GRADE_OUT=FILE STUDENT=ID`; tools/grade.sh gives the format).
The table has a row per student, a column per exercise (pass, CPU part, part,
not run, FAIL, no compile, or - where the file has no row for it), the
student's score, the GPU and date graded on and the answers' hash; then per
exercise how many passed in full, passed what could run, failed, of how many.

Scores: an exercise passed counts 1, a failed or missing one 0, and one whose
GPU part could not run where it was graded (CPU part, part, not run) counts
as PARTS says, the teacher's choice: none (0, the default), half (0.5) or full
(1). The table says which was used.

Written to GRADES_OUT (default mine/grades/), each through a temp file and a
rename, readable as the umask says:
  grades.md     the table in Markdown (also printed)
  grades.csv    the same with the verdicts spelled as grade writes them
  gradebook.csv student,score,max, then each exercise's points: what a
                learning-management system's gradebook imports
  gradescope/ID/results.json   Gradescope's autograder results, per student
  grades.svg    a bar per exercise, where gnuplot is installed (colours that
                read the same to colour-blind eyes)

A file that is not a grade result is named on stderr with its line and why,
and left out: a wrong header, a row of the wrong width, an unknown verdict,
an exercise twice, two students in one file, a second file for a student
already read, a student id outside the set grade allows, a NUL byte, bytes
that are not UTF-8, a quote in the middle of a field or never closed. Reading
is linear in the file's size whatever it holds.

Exit status: 0 every file was taken in; 1 some were rejected (the table has
the rest); 2 no DIR, nothing to read, a bad PARTS, or an output (the chart
too) cannot be written.
Usage: collect_grades.py DIR   (the environment: GRADES_OUT, PARTS)
"""
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

HEADER = "student,commit,machine,gpu,date,exercise,verdict,messages,answer"
HEADER_8 = "student,commit,machine,gpu,date,exercise,verdict,messages"
VERDICTS = {"passed": "pass", "cpu-part-only": "CPU part", "checks-partly-run": "part",
            "not-run": "not run", "failed": "FAIL", "does-not-compile": "no compile"}
PARTIAL = ("cpu-part-only", "checks-partly-run", "not-run")
PART_CREDIT = {"none": 0.0, "half": 0.5, "full": 1.0}
# tools/exercise_names.sh's student_id_ok allows the same set: no blank, no control or
# direction character, no formula; no id can equal a summary row's label,
# which all hold a blank
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}\Z")
EXERCISE = re.compile(r"[A-Za-z0-9_]+\Z")
# one CSV field at a position: quoted ("" inside, newlines kept) or bare
QUOTED = re.compile(r'"([^"]*(?:""[^"]*)*)"')
BARE = re.compile(r'[^,"\r\n]*')


class Malformed(Exception):
    def __init__(self, line, why):
        super().__init__(why)
        self.line = line


def records(text):
    """The CSV records of TEXT (RFC 4180) as (first line, fields), in one pass."""
    pos, line, end = 0, 1, len(text)
    while pos < end:
        start, fields = line, []
        while True:
            if text.startswith('"', pos):
                m = QUOTED.match(text, pos)
                if not m:
                    raise Malformed(start, "a quote is never closed")
                fields.append(m.group(1).replace('""', '"'))
                line += text.count("\n", pos, m.end())
            else:
                m = BARE.match(text, pos)
                fields.append(m.group(0))
            pos = m.end()
            if text.startswith(",", pos):
                pos += 1
                continue
            if text.startswith("\r\n", pos):
                pos += 2
            elif text.startswith("\n", pos):
                pos += 1
            elif pos < end:
                raise Malformed(start, "a quote in the middle of a field")
            line += 1
            break
        yield start, fields


def flat(s):
    return re.sub(r"[\t\r\n]", " ", s)


RESULT_LIMIT = 64 << 20  # bytes read of a hand-in at most


def read_result(path):
    """PATH's rows as dicts, or Malformed / OSError."""
    with open(path, "rb") as f:
        data = f.read(RESULT_LIMIT + 1)  # a hand-in as large as memory would stop the whole class's table
    if len(data) > RESULT_LIMIT:
        raise Malformed(0, f"over {RESULT_LIMIT >> 20} MiB: not a grade result (make grade writes a few KB)")
    if b"\0" in data:
        raise Malformed(data.count(b"\n", 0, data.index(b"\0")) + 1, "a NUL byte: not a grade result")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Malformed(data.count(b"\n", 0, e.start) + 1, "bytes that are not UTF-8") from None
    rows, student, seen, width = [], None, set(), None
    for line, f in records(text):
        if width is None:
            got = ",".join(f)
            if got not in (HEADER, HEADER_8):
                raise Malformed(line, f'its header is not "{HEADER}": not a make grade result')
            width = len(f)
            continue
        if len(f) != width:
            raise Malformed(line, f"{len(f)} fields, not {width}")
        row = dict(zip(HEADER.split(","), f + [""] * (9 - width)))
        if not STUDENT_ID.match(row["student"]):
            raise Malformed(line, "the student id is not 1 to 64 of A-Z a-z 0-9 . _ @ + -, from a letter or digit")
        if student is None:
            student = row["student"]
        elif row["student"] != student:
            raise Malformed(line, f'a second student ("{row["student"]}" after "{student}")')
        if not EXERCISE.match(row["exercise"]):
            raise Malformed(line, f'exercise "{flat(row["exercise"])[:40]}" is not an exercise name')
        if row["exercise"] in seen:
            raise Malformed(line, f'exercise {row["exercise"]} a second time')
        seen.add(row["exercise"])
        if row["verdict"] not in VERDICTS:
            raise Malformed(line, f'verdict "{flat(row["verdict"])[:40]}" is not one of make grade\'s')
        rows.append(row)
    if width is None:
        raise Malformed(0, "it is empty")
    if not rows:
        raise Malformed(1, "a header and no exercise")
    return rows


def points(verdict, credit):
    return 1.0 if verdict == "passed" else credit if verdict in PARTIAL else 0.0


def number(x):
    return f"{x:g}"


class Class:
    """The students' rows, by student, and what the table shows of them."""

    def __init__(self, students, credit):
        self.students = students  # id -> {exercise: row}
        self.credit = credit
        self.ids = sorted(students)
        self.exercises = sorted({e for rows in students.values() for e in rows})

    def verdict(self, s, e):
        row = self.students[s].get(e)
        return row["verdict"] if row else ""

    def score(self, s):
        return sum(points(self.verdict(s, e), self.credit) for e in self.exercises)

    def first(self, s, key):
        rows = self.students[s]
        return rows[min(rows)][key]

    def answers(self, s):
        """16 hex of SHA-256 over the student's answer hashes (which files were
        graded: two students with one value handed in the same files)."""
        rows = self.students[s]
        if not any(r["answer"] for r in rows.values()):
            return ""
        joined = "".join(f"{e} {rows[e]['answer']}\n" for e in sorted(rows))
        return hashlib.sha256(joined.encode()).hexdigest()[:16]

    def count(self, e, verdicts):
        return sum(self.verdict(s, e) in verdicts for s in self.ids)

    def table(self):
        """The table's rows: the header, a row per student, the summary rows."""
        out = [["student"] + self.exercises + ["score", "gpu", "date", "answers"]]
        for s in self.ids:
            out.append([s] + [self.verdict(s, e) for e in self.exercises]
                       + [number(self.score(s)), self.first(s, "gpu"), self.first(s, "date"), self.answers(s)])
        tail = ["", "", "", ""]
        out.append(["all: passed"] + [str(self.count(e, ("passed",))) for e in self.exercises] + tail)
        out.append(["all: passed what could run (CPU part, part)"] + [str(self.count(e, PARTIAL[:2])) for e in self.exercises] + tail)
        out.append(["all: failed (FAIL, no compile)"] + [str(self.count(e, ("failed", "does-not-compile"))) for e in self.exercises] + tail)
        out.append(["all: of students"] + [str(len(self.ids)) for _ in self.exercises] + tail)
        return out


def md_cell(s):
    s = flat(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
    return s


def csv_cell(s):
    if s[:1] in ("=", "+", "-", "@"):
        s = "'" + s  # a spreadsheet would run it as a formula
    return '"' + s.replace('"', '""') + '"'


def markdown(c, parts):
    rows = c.table()
    n = len(c.exercises)
    lines = []
    for i, r in enumerate(rows):
        if 0 < i <= len(c.ids):
            r = r[:1] + [VERDICTS.get(v, "-") for v in r[1:n + 1]] + r[n + 1:]
        lines.append("| " + " | ".join(md_cell(x) for x in r) + " |")
        if i == 0:
            lines.append("|---" * len(r) + "|")
    lines.append("")
    lines.append(f"Score: 1 an exercise passed; its GPU part not run (CPU part, part, not run) "
                 f"{number(c.credit)} (PARTS={parts}); of {n}.")
    return "\n".join(lines) + "\n"


def csv_text(rows):
    return "".join(",".join(csv_cell(x) for x in r) + "\n" for r in rows)


def gradebook(c):
    rows = [["student", "score", "max"] + c.exercises]
    for s in c.ids:
        rows.append([s, number(c.score(s)), str(len(c.exercises))]
                    + [number(points(c.verdict(s, e), c.credit)) for e in c.exercises])
    return csv_text(rows)


def gradescope(c, s):
    """Gradescope's results.json for student S."""
    tests = []
    for e in c.exercises:
        row = c.students[s].get(e)
        v = row["verdict"] if row else ""
        tests.append({"name": e, "score": points(v, c.credit), "max_score": 1,
                      "status": "passed" if v == "passed" else "failed",
                      "output": (VERDICTS.get(v, "no result") + ("\n" + row["messages"] if row and row["messages"] else "")
                                 + (f"\nanswer {row['answer']}" if row and row["answer"] else ""))})
    return json.dumps({"score": c.score(s), "max_score": len(c.exercises), "tests": tests}, indent=1) + "\n"


class Writer:
    """Files put into OUT by a temp file and a rename, with the umask's mode."""

    def __init__(self, out):
        self.out = out
        mask = os.umask(0)
        os.umask(mask)
        self.mode = 0o666 & ~mask

    def refusal(self, name, first):
        """Why NAME may not be replaced (a link, not a regular file, no write
        bit for anyone, not a file this tool writes: its text does not start
        with FIRST), or None."""
        path = os.path.join(self.out, name)
        if os.path.islink(path):
            return f"{path} is a symbolic link: not replaced"
        if not os.path.lexists(path):
            return None
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return f"{path} is not a regular file: not replaced"
        if not st.st_mode & 0o222:
            return f"{path} is read-only (mode {st.st_mode & 0o777:o}): not replaced"
        try:
            with open(path, "rb") as f:
                head = f.read(len(first))
        except OSError as e:
            return f"{path} cannot be read ({e.strerror}): not replaced"
        if st.st_size and head != first.encode():
            return f"{path} is not a file collect-grades wrote (it does not start {first!r}): not replaced"
        return None

    def put(self, name, text):
        path = os.path.join(self.out, name)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(name) + ".", suffix=".tmp",
                                       dir=os.path.dirname(path))
        except OSError as e:
            sys.exit(f"collect-grades: cannot write {path}: {e.strerror}")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, self.mode)
            os.replace(tmp, path)
        except OSError as e:
            os.unlink(tmp)
            sys.exit(f"collect-grades: cannot write {path}: {e.strerror}")
        return path


# Okabe and Ito's palette: told apart with any of the common colour blindnesses
CHART = """set terminal svg size 900,420 dynamic noenhanced font "sans,12"
set output "{svg}"
set title "Exercises: how many of {n} students passed"
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border -1
set boxwidth 0.7
set ylabel "students"
set yrange [0:*]
set ytics {step}
set key outside right top
plot "{dat}" using 2:xtic(1) title "passed" lc rgb "#0072B2", \\
     "" using 3 title "passed what could run" lc rgb "#56B4E9", \\
     "" using 4 title "failed" lc rgb "#D55E00", \\
     "" using 5 title "not run, or no result" lc rgb "#BBBBBB"
"""


def chart(c, writer):
    """grades.svg, or why not; False when gnuplot failed."""
    if not shutil.which("gnuplot"):
        print("collect-grades: no chart: gnuplot is not installed (apt-get install gnuplot-nox)")
        return True
    with tempfile.TemporaryDirectory() as work:
        dat, svg = os.path.join(work, "counts.dat"), os.path.join(work, "grades.svg")
        with open(dat, "w") as f:
            for e in c.exercises:
                p, h = c.count(e, ("passed",)), c.count(e, PARTIAL[:2])
                b = c.count(e, ("failed", "does-not-compile"))
                f.write(f"{e} {p} {h} {b} {len(c.ids) - p - h - b}\n")
        n = len(c.ids)
        script = CHART.format(svg=svg, dat=dat, n=n, step=1 if n <= 20 else (n + 9) // 10)
        run = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if run.returncode != 0 or not os.path.getsize(svg) if os.path.exists(svg) else True:
            print("collect-grades: gnuplot drew no chart: " + " ".join(run.stderr.splitlines()[:3]), file=sys.stderr)
            return False
        with open(svg, encoding="utf-8") as f:
            print("collect-grades: the chart: " + writer.put("grades.svg", f.read()))
    return True


def collect(folder):
    """The students' results in FOLDER, and how many files were rejected."""
    students, owner, rejected = {}, {}, 0
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.startswith("."):
            continue
        if os.path.islink(path):  # (a link may lead anywhere: /proc/kmsg never ends)
            print(f"{path}: a symbolic link: left out (give the file itself)", file=sys.stderr)
            rejected += 1
            continue
        if not os.path.isfile(path):
            continue
        try:
            rows = read_result(path)
        except Malformed as e:
            print(f"{path}: {'line %d: ' % e.line if e.line else ''}{e}", file=sys.stderr)
            rejected += 1
            continue
        except OSError as e:
            print(f"{path}: cannot read: {e.strerror}", file=sys.stderr)
            rejected += 1
            continue
        except MemoryError:
            print(f"{path}: too large to read in this much memory: left out", file=sys.stderr)
            rejected += 1
            continue
        s = rows[0]["student"]
        if s in owner:
            print(f'{path}: a second file for student "{s}" (the first: {owner[s]}): left out', file=sys.stderr)
            rejected += 1
            continue
        owner[s] = path
        students[s] = {r["exercise"]: r for r in rows}
    return students, rejected


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    folder = argv[1] if len(argv) > 1 else ""
    if not folder:
        print("collect-grades: say which folder: make collect-grades DIR=folder", file=sys.stderr)
        return 2
    if not os.path.isdir(folder):
        print(f"collect-grades: DIR={folder} is not a folder", file=sys.stderr)
        return 2
    parts = os.environ.get("PARTS") or "none"
    if parts not in PART_CREDIT:
        print(f"collect-grades: PARTS={parts}: say none, half or full (what a GPU part not run counts)", file=sys.stderr)
        return 2
    students, rejected = collect(folder)
    if not students:
        print(f"collect-grades: no grade result in {folder} ({rejected} rejected)", file=sys.stderr)
        return 2
    c = Class(students, PART_CREDIT[parts])
    writer = Writer(os.environ.get("GRADES_OUT") or "mine/grades")
    outputs = [("grades.md", "| student |"), ("grades.csv", '"student",'), ("gradebook.csv", '"student","score"'),
               ("grades.svg", "<?xml")] + [(os.path.join("gradescope", s, "results.json"), "{") for s in c.ids]
    refused = [why for name, first in outputs for why in [writer.refusal(name, first)] if why]
    if refused:  # before anything is written: the teacher's files stay as they are
        print("collect-grades: " + "\ncollect-grades: ".join(refused[:5]), file=sys.stderr)
        return 2
    md = markdown(c, parts)
    rows = c.table()
    for i in range(1, len(c.ids) + 1):
        rows[i] = [rows[i][0]] + rows[i][1:]
    writer.put("grades.md", md)
    writer.put("grades.csv", csv_text(rows))
    writer.put("gradebook.csv", gradebook(c))
    for s in c.ids:
        writer.put(os.path.join("gradescope", s, "results.json"), gradescope(c, s))
    sys.stdout.write(md + "\n")
    out = writer.out
    print(f"collect-grades: {len(c.ids)} students' files taken in, {rejected} rejected: {out}/grades.md, "
          f"{out}/grades.csv, {out}/gradebook.csv, {out}/gradescope/")
    if not chart(c, writer):
        return 2
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
