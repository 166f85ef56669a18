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

Written to GRADES_OUT (default mine/grades/), readable as the umask says:
  grades.md     the table in Markdown (also printed)
  grades.csv    the same with the verdicts spelled as grade writes them
  gradebook.csv student,score,max, then each exercise's points: what a
                learning-management system's gradebook imports
  gradescope/ID/results.json   Gradescope's autograder results, per student:
                the file a Gradescope autograder leaves as /autograder/
                results/results.json (score, max_score, a test per exercise)
  grades.svg    a bar per exercise, where gnuplot is installed (colours that
                read the same to colour-blind eyes)
  grades.sha256 the SHA-256 of each of the others but the chart, as
                sha256sum writes them (sha256sum -c grades.sha256 checks them):
                how the next collection knows its own files
The ids are written as they are, in every file (007 stays 007: a spreadsheet
must be told to read the student column as text; TEACHING.md says how).
A collection replaces the one before it as a whole, never a part of it: every
output is written into a fresh hidden folder in GRADES_OUT, then renamed into
place, gradescope/ as one folder; what the last collection wrote and this one
does not (a student no longer in DIR, a chart not drawn) goes, and a line says
so. Only the collection's own files are ever replaced or removed, each judged
whole: grades.md, the CSVs and each results.json must be exactly as the last
collection wrote them, their SHA-256 the one grades.sha256 records (notes
added, a mark changed, a column added: yours; a collection of an older
collect-grades has no grades.sha256: move it away once); the chart one whole
SVG picture (words after it: yours); grades.sha256 its own format. And each
must be one this user may replace: not a link, a regular file, its owner's
write bit set (for root too, whom the mode does not stop) and writable, not
another user's in a folder with the sticky bit (a shared GRADES_OUT, like
/tmp: only its owner may rename over it); gradescope/ and its students'
folders likewise, holding nothing but ID/results.json. Any of these stops it
before anything is read or written (exit 2, each named). A rename that fails
while the collection is put in place puts back the ones made: the last
collection whole, no work folder left (exit 2); Ctrl-C or SIGTERM meanwhile
waits for the few renames, before it the work folder goes. results/ and logs/
(make grade-class's) are not the collection's: they stay as they are.

A file that is not a grade result is named on stderr with its line and why,
and left out: a wrong header, a row of the wrong width, an exercise that is
not the course's (the registry's COURSE_EXERCISES, make -s print-registry;
where make cannot run, chapters/*/chapter.mk, which it is made from), an
unknown verdict, an exercise twice, two students in one file, two files for
one student (none of them counted, each named), a student id outside the set grade allows, a NUL
byte, bytes that are not UTF-8, a quote in the middle of a field or never
closed. Reading is linear in the file's size whatever it holds, and a file
has at most one row per exercise of the course.

Exit status: 0 every file was taken in; 1 some were rejected (the table has
the rest); 2 no DIR, nothing to read, a bad PARTS, the course's exercises
unknown, or an output (the chart too) cannot be written or may not be
replaced; 130, 143, 129 stopped by Ctrl-C, SIGTERM, SIGHUP.
collect_grades.py --check FILE...: whether each FILE is wholly a grade result
as read above (a regular file, not a link); names each that is not, with its
line and why, and exits 1 (tools/grade_class.sh asks before it removes the
last grading's results).
collect_grades.py --left-out FILE DIR: as above, and grades.md ends with
"Left out": each student of FILE (make grade-class's "ID<tab>REASON" lines
of the folders it left out or could not grade) with no row in the table, as
"- ID: not graded: REASON"; a folder whose name is not a student id (an
empty ID) only counted, named on grade-class's console.
collect_grades.py --check-out: whether GRADES_OUT's outputs may all be
replaced, as above; names each that may not and exits 2 (tools/grade_class.sh
asks before it grades anyone).
Usage: collect_grades.py DIR   (the environment: GRADES_OUT, PARTS)
"""
import glob
import grp
import hashlib
import json
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import xml.parsers.expat

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


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the checkout this tool is of
_course = None


def course_exercises():
    """The course's exercises, in the registry's order: make -s print-registry's
    COURSE_EXERCISES, read in this tool's checkout; where make cannot run
    (not installed), the registry's source: each chapters/*/chapter.mk's
    chNN_EXERCISES. () when neither names one."""
    global _course
    if _course is not None:
        return _course
    names = []
    try:
        run = subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT, "print-registry"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=300)
        for line in run.stdout.splitlines() if run.returncode == 0 else []:
            m = re.fullmatch(r"COURSE_EXERCISES='([A-Za-z0-9_ ]*)'", line)
            if m:
                names = m.group(1).split()
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
        pass
    if not names:
        for mk in sorted(glob.glob(os.path.join(ROOT, "chapters", "*", "chapter.mk"))):
            try:
                with open(mk, encoding="utf-8") as f:
                    for line in f:
                        m = re.match(r"(ch[0-9A-Za-z_]*)_EXERCISES\s*:?=([A-Za-z0-9_ \t]*)$", line.rstrip("\n"))
                        if m:
                            names += [e for e in m.group(2).split() if e not in names]
            except (OSError, UnicodeDecodeError):
                continue
    _course = tuple(names)
    return _course


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
    course = course_exercises()
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
        if row["exercise"] not in course:
            raise Malformed(line, f'exercise "{row["exercise"][:40]}" is not one of the course\'s ({" ".join(course)})')
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


def markdown(c, parts, left=()):
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
    named = [(s, why) for s, why in left if s and s not in c.students]
    unnamed = sum(not s for s, _ in left)
    if named or unnamed:
        lines += ["", "Left out (no row above: compare with the class list):", ""]
        lines += [f"- {md_cell(s)}: not graded: {md_cell(why)}" for s, why in named]
        if unnamed:
            lines.append(f"- {unnamed} folder{'s' if unnamed != 1 else ''} whose name is not a student id: "
                         f"not graded, named on make grade-class's console")
    return "\n".join(lines) + "\n"


def read_left_out(path):
    """make grade-class's notes of the students it left out: "ID<tab>REASON"
    lines, ID empty where the folder's name is not a student id; any other
    line, or an ID outside the set grade allows, counts as such a folder."""
    left = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            s, tab, why = line.rstrip("\n").partition("\t")
            if not tab or not STUDENT_ID.match(s):
                s = ""
            left.append((s, flat(why)[:300]))
    return left


def csv_text(rows):
    return "".join(",".join(csv_cell(x) for x in r) + "\n" for r in rows)


def gradebook(c):
    rows = [["student", "score", "max"] + c.exercises]
    for s in c.ids:
        rows.append([s, number(c.score(s)), str(len(c.exercises))]
                    + [number(points(c.verdict(s, e), c.credit)) for e in c.exercises])
    return csv_text(rows)


NO_GPU_PART = "(GPU part not run: no CUDA device)"


def gradescope(c, s):
    """Gradescope's results.json for student S."""
    tests = []
    for e in c.exercises:
        row = c.students[s].get(e)
        v = row["verdict"] if row else ""
        # the verdict, then why: the row's messages (make grade's reason and
        # the lines under it); a CPU part with none (a grade file of an older
        # make grade) says what a CPU part is
        why = row["messages"] if row and row["messages"] else NO_GPU_PART if v == "cpu-part-only" else ""
        tests.append({"name": e, "score": points(v, c.credit), "max_score": 1,
                      "status": "passed" if v == "passed" else "failed",
                      "output": (VERDICTS.get(v, "no result") + ("\n" + why if why else "")
                                 + (f"\nanswer {row['answer']}" if row and row["answer"] else ""))})
    return json.dumps({"score": c.score(s), "max_score": len(c.exercises), "tests": tests}, indent=1) + "\n"


GRADESCOPE = "gradescope"
# The collection's own files in GRADES_OUT. The text outputs are known by the
# SHA-256 the last collection recorded for each in MANIFEST (sha256sum's
# format: `sha256sum -c grades.sha256` checks them): one not recorded, or not
# as recorded (notes added, a mark changed, a column added), is not the
# collection's. The chart, drawn again from the table each time, must be
# one whole SVG picture.
TEXTS = ("grades.md", "grades.csv", "gradebook.csv")
CHART_FILE = "grades.svg"
MANIFEST = "grades.sha256"
TOP = TEXTS + (CHART_FILE,)
RESULTS_JSON = "results.json"
MANIFEST_STAMP = ("# collect-grades: the SHA-256 of each file it wrote here (sha256sum -c grades.sha256); "
                  "the next collection replaces only a file still as written")
MANIFEST_LINE = re.compile(r"([0-9a-f]{64})  (grades\.md|grades\.csv|gradebook\.csv|"
                           + GRADESCOPE + r"/([^/]+)/" + re.escape(RESULTS_JSON) + r")\Z")
OUTPUT_LIMIT = 64 << 20  # bytes of an output read to judge it, at most


def students_files(n):
    return "1 student's file" if n == 1 else f"{n} students' files"


def others_folder(d):
    """Why a grading may not be written in folder D: D or a folder above it
    that another user could write, now or later: one whose owner is neither
    this user nor root (whatever its mode: an owner may change it), one its
    group may write where the group holds another user, one anyone may write
    without the sticky bit, or one with an access list (ACL: it may grant
    anyone). They could replace the grades once written, or swap a folder
    while a class is graded (file_checks.bash's others_folder_problem says
    the same). Or None."""
    d, uid = os.path.realpath(d), os.geteuid()
    while True:
        st = os.stat(d)
        mode, sticky = st.st_mode, st.st_mode & stat.S_ISVTX
        if st.st_uid not in (uid, 0):
            return (f"GRADES_OUT: '{d}' belongs to {owner_name(st.st_uid)}, who could replace the grades "
                    f"written in it: give a folder of your own")
        if mode & stat.S_IWGRP and not sticky and group_has_others(st.st_gid, uid):
            return (f"GRADES_OUT: '{d}' may be written by its group, which holds other users "
                    f"(mode {mode & 0o7777:o}): give a folder of your own")
        if mode & stat.S_IWOTH and not sticky:
            return (f"GRADES_OUT: '{d}' may be written by anyone (mode {mode & 0o7777:o}, no sticky bit): "
                    f"give a folder of your own")
        if has_acl(d):
            return f"GRADES_OUT: '{d}' has an access list (ACL), which may let others write it: give a folder without one"
        if d == "/":
            return None
        d = os.path.dirname(d)


def group_has_others(gid, uid):
    """True if a user other than UID is in group GID (named in it, or it is their first group)."""
    try:
        named = set(grp.getgrgid(gid).gr_mem)
    except KeyError:
        named = set()
    return any(p.pw_uid != uid and (p.pw_gid == gid or p.pw_name in named) for p in pwd.getpwall())


def has_acl(d):
    """True if folder D has an access list beyond its mode (its own or the one its new files get)."""
    try:
        names = os.listxattr(d)
    except OSError:
        return False
    return "system.posix_acl_access" in names or "system.posix_acl_default" in names


def owner_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except (KeyError, OverflowError):
        return f"uid {uid}"


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def svg_problem(path):
    """Why PATH is not one whole SVG picture (XML, its root element svg, no
    entity declared, nothing after the root), or None. (An older gnuplot
    writes SVG 1.1's document type, which declares none: it is read, the DTD
    never fetched.)"""
    if os.path.getsize(path) > OUTPUT_LIMIT:
        return f"over {OUTPUT_LIMIT >> 20} MiB"
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    root = []

    def start(name, attrs):
        if not root:
            root.append(name.rsplit(" ", 1)[-1])

    def doctype(name, system_id, public_id, has_internal_subset):
        if has_internal_subset:
            raise Malformed(parser.CurrentLineNumber, "a document type with declarations of its own")

    def entity(*args):
        raise Malformed(parser.CurrentLineNumber, "an entity declared")
    parser.StartElementHandler = start
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    try:
        with open(path, "rb") as f:
            parser.ParseFile(f)
    except xml.parsers.expat.ExpatError as e:
        return f"line {e.lineno}: {xml.parsers.expat.errors.messages.get(e.code, 'not XML')}"
    except Malformed as e:
        return f"line {e.line}: {e}"
    if root != ["svg"]:
        return "its root element is not svg"
    return None


class Writer:
    """The collection's outputs, written into a fresh hidden folder in OUT
    (self.work), then put in place by renames (commit): a collection replaces
    the last one as a whole, and only files the collection wrote."""

    def __init__(self, out):
        self.out = out
        self.work = None
        self.recorded = {}  # the last collection's MANIFEST: path under OUT -> SHA-256
        self.written = {}   # this one's
        mask = os.umask(0)
        os.umask(mask)
        self.mode = 0o666 & ~mask

    def entry_problem(self, path, st, folder):
        """Why the entry PATH (lstat ST) may not be renamed or removed by this
        user, as the shell tools' replace_problem_common says: its owner's
        write bit clear (for root too, who may write whatever the mode), or no
        write permission; another user's in a folder with the sticky bit,
        where only its owner, the folder's or root may rename it. Or None."""
        kind = "a read-only folder" if folder else "read-only"
        if not st.st_mode & stat.S_IWUSR or (os.geteuid() != 0 and not os.access(path, os.W_OK)):
            return f"{path} is {kind} (mode {st.st_mode & 0o777:o}): not replaced"
        parent = os.path.dirname(path) or "."
        try:
            pst = os.stat(parent)
        except OSError as e:
            return f"{parent} cannot be read ({e.strerror}): not replaced"
        uid = os.geteuid()
        if pst.st_mode & stat.S_ISVTX and uid != 0 and st.st_uid != uid and pst.st_uid != uid:
            return (f"{path} belongs to {owner_name(st.st_uid)} in '{parent}', a folder with the sticky bit "
                    f"(like /tmp): only its owner may replace it: not replaced")
        return None

    def refusal(self, path, rel):
        """Why PATH (REL: its name under OUT; None for an earlier version's
        temp file, known by its name) may not be replaced or removed: a link,
        not a regular file, the entry's rules above, not a file the last
        collection wrote. Or None (an empty file holds nothing to keep)."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        except OSError as e:
            return f"{path} cannot be read ({e.strerror}): not replaced"
        if stat.S_ISLNK(st.st_mode):
            return f"{path} is a symbolic link: not replaced"
        if not stat.S_ISREG(st.st_mode):
            return f"{path} is not a regular file: not replaced"
        why = self.entry_problem(path, st, False)
        if why or rel is None or st.st_size == 0:
            return why
        try:
            if rel == CHART_FILE:
                why = svg_problem(path)
                return why and f"{path} is not a chart collect-grades drew (not one whole SVG picture: {why}): not replaced"
            if rel == MANIFEST:
                return self.manifest_problem(path)
            if rel not in self.recorded:
                return (f"{path} is not a file collect-grades wrote ({MANIFEST} does not record it: yours, or a "
                        f"collection of an older collect-grades: move it away once): not replaced")
            if sha256_of(path) != self.recorded[rel]:
                return (f"{path} is not a file collect-grades wrote (it is not as the last collection wrote it, "
                        f"its SHA-256 in {MANIFEST}: notes added, a value changed?): not replaced")
        except OSError as e:
            return f"{path} cannot be read ({e.strerror}): not replaced"
        return None

    def manifest_problem(self, path):
        """Why MANIFEST at PATH is not one this tool wrote (and self.recorded
        what it records), or None."""
        if os.path.getsize(path) > OUTPUT_LIMIT:
            return f"{path} is not a file collect-grades wrote (over {OUTPUT_LIMIT >> 20} MiB): not replaced"
        with open(path, "rb") as f:
            data = f.read()
        try:
            lines = data.decode("utf-8").split("\n")
        except UnicodeDecodeError:
            lines = [None]
        recorded, n = {}, 0
        for n, line in enumerate(lines, 1):
            if n == len(lines) and line == "":
                break
            m = MANIFEST_LINE.match(line) if line is not None and n > 1 else None
            ok = (line == MANIFEST_STAMP) if n == 1 else bool(m and (not m.group(3) or STUDENT_ID.match(m.group(3))))
            if not ok or (m and m.group(2) in recorded):
                return f"{path} is not a file collect-grades wrote (line {n}): not replaced"
            if m:
                recorded[m.group(2)] = m.group(1)
        if not data.endswith(b"\n"):
            return f"{path} is not a file collect-grades wrote (line {n} has no end): not replaced"
        self.recorded = recorded
        return None

    def folder_problem(self, folder):
        """Why FOLDER (gradescope/ or a student's in it) may not be moved or
        emptied, or None."""
        st = os.lstat(folder)
        if stat.S_ISLNK(st.st_mode):
            return f"{folder} is a symbolic link: not replaced"
        if not stat.S_ISDIR(st.st_mode):
            return f"{folder} is not a folder: not replaced"
        return self.entry_problem(folder, st, True)

    def gradescope_refusals(self, folder):
        """Why FOLDER (a gradescope/ folder) may not be replaced as a whole, and
        the students it holds: each entry must be a folder (not a link) named
        by a student id that holds only results.json as the last collection
        wrote it (and the hidden temp file an interrupted earlier version of
        this tool may have left)."""
        if not os.path.lexists(folder):
            return [], 0
        try:
            why = self.folder_problem(folder)
            if why:
                return [why], 0
            why, students = [], 0
            for name in sorted(os.listdir(folder)):
                sub = os.path.join(folder, name)
                if os.path.islink(sub) or not os.path.isdir(sub) or not STUDENT_ID.match(name):
                    why.append(f"{sub} is not a student's folder collect-grades wrote: gradescope/ not replaced")
                    continue
                students += 1
                w = self.folder_problem(sub)
                if w:
                    why.append(w)
                    continue
                for f in sorted(os.listdir(sub)):
                    path = os.path.join(sub, f)
                    if f == RESULTS_JSON:
                        w = self.refusal(path, f"{GRADESCOPE}/{name}/{RESULTS_JSON}")
                    elif f.startswith("." + RESULTS_JSON + ".") and f.endswith(".tmp"):
                        w = self.refusal(path, None)
                    else:
                        w = f"{path} is not a file collect-grades wrote: gradescope/ not replaced"
                    if w:
                        why.append(w)
        except OSError as e:
            return [f"{folder} cannot be read ({e.strerror}): not replaced"], 0
        return why, students

    def out_problem(self):
        """Why nothing may be written in OUT (the nearest folder that is, where
        it is not yet): not a folder, or its owner's write bit clear (for root
        too), or not writable. Or None."""
        d = self.out
        while not os.path.lexists(d):
            parent = os.path.dirname(d.rstrip("/")) or "."
            if parent == d:
                break
            d = parent
        if not os.path.isdir(d):
            return f"GRADES_OUT: '{d}' is not a folder: nothing written"
        st = os.stat(d)
        others = others_folder(d)
        if others:
            return others
        if not st.st_mode & stat.S_IWUSR or not os.access(d, os.W_OK | os.X_OK):
            return f"GRADES_OUT: '{d}' is read-only (mode {st.st_mode & 0o777:o}): nothing written in it"
        return None

    def refusals(self):
        """Why the outputs in OUT may not be replaced (nothing: they may), and
        how many students the last collection's gradescope/ holds. The
        manifest first: what it records judges the rest."""
        why = self.out_problem()
        if why:
            return [why], 0
        self.recorded = {}
        why = [w for w in [self.refusal(os.path.join(self.out, MANIFEST), MANIFEST)] if w]
        why += [w for name in TOP for w in [self.refusal(os.path.join(self.out, name), name)] if w]
        more, students = self.gradescope_refusals(os.path.join(self.out, GRADESCOPE))
        return why + more, students

    def begin(self):
        try:
            os.makedirs(self.out, exist_ok=True)
            self.work = tempfile.mkdtemp(prefix=".collect-grades.", dir=self.out)
        except OSError as e:
            print(f"collect-grades: cannot make a folder in {self.out}: {e.strerror}: nothing replaced", file=sys.stderr)
            sys.exit(2)

    def put(self, name, text):
        """NAME (a path under OUT) written into the work folder; its SHA-256
        recorded for the manifest (not the chart's, judged by its kind)."""
        path = os.path.join(self.work, name)
        data = text.encode("utf-8")
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "xb") as f:
                f.write(data)
            os.chmod(path, self.mode)
        except OSError as e:
            self.abandon(f"cannot write {path}: {e.strerror}")
        if name not in (CHART_FILE, MANIFEST):
            self.written[name] = hashlib.sha256(data).hexdigest()
        return os.path.join(self.out, name)

    def put_manifest(self):
        lines = [MANIFEST_STAMP] + [f"{h}  {name}" for name, h in sorted(self.written.items())]
        self.put(MANIFEST, "\n".join(lines) + "\n")

    def abandon(self, why):
        """Stops with WHY (exit 2); nothing in OUT was replaced, and the work
        folder, all of it this run's own, goes."""
        if self.work:
            shutil.rmtree(self.work, ignore_errors=True)
        print(f"collect-grades: {why}: nothing replaced in {self.out}", file=sys.stderr)
        sys.exit(2)

    def remove_ours(self, folder):
        """The last collection's gradescope/ (moved into the work folder),
        removed file by file, each checked again to be one this tool wrote;
        what is not stays there. Returns the paths kept."""
        kept = []
        for name in sorted(os.listdir(folder)):
            sub = os.path.join(folder, name)
            if os.path.islink(sub) or not os.path.isdir(sub):
                kept.append(sub)
                continue
            for f in sorted(os.listdir(sub)):
                path = os.path.join(sub, f)
                rel = f"{GRADESCOPE}/{name}/{f}" if f == RESULTS_JSON else None
                temp = rel is None and f.startswith(".") and f.endswith(".tmp")
                if not (rel or temp) or self.refusal(path, rel):
                    kept.append(path)
                else:
                    os.unlink(path)
            if not os.listdir(sub):
                os.rmdir(sub)
        if not os.listdir(folder):
            os.rmdir(folder)
        return kept

    def commit(self):
        """The work folder's outputs put in place of the last collection's, as
        one step: checked again first (a file made or changed while this one
        ran is kept, and nothing is replaced); then each of the last
        collection's outputs renamed into the work folder and the new one
        into its place, the manifest last. A rename that fails puts back
        every one made (exit 2, nothing replaced); Ctrl-C or SIGTERM waits
        for the end of this step. Then the last collection's files, checked
        once more, go. Returns the paths kept (made while this one ran)."""
        why, _ = self.refusals()
        if why:
            self.abandon("\ncollect-grades: ".join(why[:5]))
        signals = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
        held = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
        done = []
        try:
            try:
                for name in TOP + (GRADESCOPE, MANIFEST):
                    old, new, last = (os.path.join(d, n) for d, n in
                                      ((self.out, name), (self.work, name), (self.work, name + ".last")))
                    for src, dst in ((old, last), (new, old)):
                        if os.path.lexists(src):
                            os.rename(src, dst)
                            done.append((src, dst))
            except OSError as e:
                failed = f"{e.filename}: {e.strerror}"
                try:
                    for src, dst in reversed(done):
                        os.rename(dst, src)
                except OSError as e2:
                    print(f"collect-grades: putting the new collection in place failed ({failed}), and putting "
                          f"back the last one too ({e2.filename}: {e2.strerror}): the files not in {self.out} "
                          f"are in {self.work}", file=sys.stderr)
                    sys.exit(2)
                self.abandon(f"putting the new collection in place failed ({failed}); the last one put back")
            kept = []
            for name in TOP + (MANIFEST,):
                last = os.path.join(self.work, name + ".last")
                if os.path.lexists(last):
                    if self.refusal(last, name):
                        kept.append(last)
                    else:
                        os.unlink(last)
            aside = os.path.join(self.work, GRADESCOPE + ".last")
            if os.path.lexists(aside):
                kept += self.remove_ours(aside)
            if not kept:
                os.rmdir(self.work)
            return kept
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


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
    """grades.svg into the work folder: its final path, "" without gnuplot, None when gnuplot failed."""
    if not shutil.which("gnuplot"):
        return ""
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
            return None
        with open(svg, encoding="utf-8") as f:
            return writer.put("grades.svg", f.read())


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
        owner.setdefault(s, []).append(path)
        students[s] = {r["exercise"]: r for r in rows}
    # Two files for one student: none counted, each named (the first by name
    # would let any file take a classmate's place: aa.csv over hal's own).
    for s, paths in owner.items():
        if len(paths) > 1:
            for path in paths:
                print(f'{path}: one of {len(paths)} files for student "{s}" ({", ".join(paths)}): none counted '
                      f'(keep the one that is theirs)', file=sys.stderr)
            rejected += len(paths)
            del students[s]
    return students, rejected


def check(paths):
    """0 if every path is wholly a grade result; else 1, each other named."""
    bad = 0
    for path in paths:
        try:
            if os.path.islink(path) or not os.path.isfile(path):
                raise Malformed(0, "not a regular file")
            read_result(path)
        except Malformed as e:
            print(f"{path}: {'line %d: ' % e.line if e.line else ''}{e}")
            bad = 1
        except (OSError, MemoryError) as e:
            print(f"{path}: cannot read: {getattr(e, 'strerror', None) or 'out of memory'}")
            bad = 1
    return bad


class Stopped(BaseException):
    """SIGTERM or SIGHUP, raised where the program is (as SIGINT raises KeyboardInterrupt)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def stopped(signum, frame):
    raise Stopped(signum)


committed = False  # the new collection is in place (a stop after it replaced it all the same)


def check_out():
    """--check-out: 0 if GRADES_OUT's outputs may all be replaced; else 2, each
    that may not named (make grade-class asks before it grades anyone)."""
    refused, _ = Writer(os.environ.get("GRADES_OUT") or "mine/grades").refusals()
    for why in refused:
        print(why)
    return 2 if refused else 0


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) > 1 and argv[1] == "--check-out":
        return check_out()
    if not course_exercises():
        why = f"the course's exercises cannot be read (make -s print-registry in {ROOT}, or its chapters/*/chapter.mk)"
        for path in argv[2:] if len(argv) > 1 and argv[1] == "--check" else []:
            print(f"{path}: cannot be judged: {why}")  # (what grade-class reads, on stdout)
        print(f"collect-grades: {why}", file=sys.stderr)
        return 2
    if len(argv) > 1 and argv[1] == "--check":
        return check(argv[2:])
    left = []
    if len(argv) > 2 and argv[1] == "--left-out":  # (make grade-class's)
        try:
            left = read_left_out(argv[2])
        except OSError as e:
            print(f"collect-grades: cannot read {argv[2]}: {e.strerror}", file=sys.stderr)
            return 2
        argv = argv[:1] + argv[3:]
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
    writer = Writer(os.environ.get("GRADES_OUT") or "mine/grades")
    refused, last = writer.refusals()
    if refused:  # before anything is read or written: the teacher's files stay as they are
        print("collect-grades: " + "\ncollect-grades: ".join(refused[:5])
              + (f"\ncollect-grades: and {len(refused) - 5} more" if len(refused) > 5 else ""), file=sys.stderr)
        return 2
    students, rejected = collect(folder)
    if not students:
        print(f"collect-grades: no grade result in {folder} ({rejected} rejected)", file=sys.stderr)
        return 2
    c = Class(students, PART_CREDIT[parts])
    had = [name for name in TOP if os.path.lexists(os.path.join(writer.out, name))]
    gone = 0
    if last:
        gone = sum(sid not in c.students for sid in os.listdir(os.path.join(writer.out, GRADESCOPE)))
    md = markdown(c, parts, left)
    rows = c.table()
    writer.begin()
    try:
        writer.put("grades.md", md)
        writer.put("grades.csv", csv_text(rows))
        writer.put("gradebook.csv", gradebook(c))
        for s in c.ids:
            writer.put(os.path.join(GRADESCOPE, s, RESULTS_JSON), gradescope(c, s))
        svg = chart(c, writer)
        writer.put_manifest()
    except (KeyboardInterrupt, Stopped):  # (an error exits through abandon) nothing is in place yet: the work folder goes
        shutil.rmtree(writer.work, ignore_errors=True)
        raise
    kept = writer.commit()
    global committed
    committed = True
    if kept:
        print(f"collect-grades: kept {', '.join(kept[:3])}{' ...' if len(kept) > 3 else ''}: not the collection's own "
              f"(it appeared while collecting); in {writer.work}", file=sys.stderr)
    sys.stdout.write(md + "\n")
    out = writer.out
    print(f"collect-grades: {students_files(len(c.ids))} taken in, {rejected} rejected: {out}/grades.md, "
          f"{out}/grades.csv, {out}/gradebook.csv, {out}/{GRADESCOPE}/ ({out}/{MANIFEST}: what each is)")
    if svg:
        print("collect-grades: the chart: " + svg)
    elif svg == "":
        print("collect-grades: no chart: gnuplot is not installed (apt-get install gnuplot-nox)")
    if had or last:
        print(f"collect-grades: the last collection in {out} replaced as a whole, not mixed with this one"
              + (f": its gradescope/ held {last} student{'s' if last != 1 else ''}, {gone} not in this one"
                 if last else "")
              + ("; its chart removed (none drawn this time)" if CHART_FILE in had and not svg else ""))
    if svg is None:
        return 2
    return 1 if rejected else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, stopped)
    signal.signal(signal.SIGHUP, stopped)
    try:
        sys.exit(main(sys.argv))
    except KeyboardInterrupt:
        print(f"collect-grades: stopped (Ctrl-C): {'the collection was in place' if committed else 'nothing replaced'}",
              file=sys.stderr)
        sys.exit(130)
    except Stopped as e:
        print(f"collect-grades: stopped ({signal.Signals(e.signum).name}): "
              f"{'the collection was in place' if committed else 'nothing replaced'}", file=sys.stderr)
        sys.exit(128 + e.signum)
