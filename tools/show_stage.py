#!/usr/bin/env python3
"""make show CH=ch12 STAGE=gpu-double-buffer: one stage, from its row to its code, in one place.

Prints the stage's row (file:line in the chapter's folder), then the definition of everything the
row names that the course defines: the function the row runs, the kernel its third column names,
a macro or flag set. Where a row names a set of changes built from the stage before
(ch05's X(SET_INTRINSICS, SET_FLOAT_ONLY | INTRINSICS)), the changes it adds are shown where the
code tests them (`F & INTRINSICS`), each with the lines it guards: what the stage changes, not
the whole kernel. Definitions are read from the source as it is, by the same reader make book
uses for the book's code excerpts (tools/book.py), so what is shown cannot drift from the code.

Looks in the chapter's folder first, then in the other chapters and common/ (ch02 builds ch01's
card.c; ch07's GPU stages use common/nbody). Exit 2 for an unknown chapter or stage."""
import glob
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402  (definition_starts, definition_span, lines_of, read_text)

SOURCES = ("*.h", "*.c", "*.cu", "*.cuh", "*.cpp")
# Words of C and of the stage tables that name nothing worth showing.
SKIP = set("""int long float double char void const static unsigned sizeof struct enum return if else
for while do NULL true false STAGE_CPU STAGE_GPU""".split())
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
IDENT = re.compile(r"(?<![.\w])[A-Za-z_]\w*")


def source_files(folder):
    return sorted(f for pattern in SOURCES for f in glob.glob(os.path.join(folder, pattern)))


def find_row(files, stage):
    """(path, first line index, the row's lines): the stage table entry whose first string is STAGE."""
    quoted = '"%s"' % stage
    for path in files:
        lines = book.lines_of(book.read_text(path))
        for i, line in enumerate(lines):
            m = STRING.search(line)
            if not m or m.group(0) != quoted or line.rstrip().endswith(";"):
                continue
            depth, j = 0, i
            while j < len(lines):
                bare = STRING.sub('""', lines[j])
                depth += bare.count("(") + bare.count("{") - bare.count(")") - bare.count("}")
                if depth <= 0 and j > i or depth <= 0 and bare.rstrip().endswith((",", "}", ")")):
                    break
                j += 1
            return path, i, lines[i:j + 1]
    return None


def named_in(row_lines, stage):
    """The identifiers a row names, in order: outside its strings (not .field names), and a string
    that is one identifier, perhaps with template arguments (a kernel's name)."""
    text = "\n".join(row_lines)
    names = []
    for s in STRING.findall(text):
        m = re.fullmatch(r'"([A-Za-z_]\w*)(<.*>)?"', s)
        if m and s != '"%s"' % stage:
            names.append(m.group(1))
    names += IDENT.findall(STRING.sub('""', text))
    out = []
    for n in names:
        if n not in SKIP and n not in out:
            out.append(n)
    return out


def definitions(files, name):
    """[(path, first, last, lines)] of NAME's definitions in FILES."""
    found = []
    for path in files:
        lines = book.lines_of(book.read_text(path))
        for start in book.definition_starts(lines, name):
            try:
                first, last = book.definition_span(lines, start, name, path)
            except ValueError:
                continue
            found.append((path, first, last, lines))
    return found


def flag_set(files, name):
    """(path, line number, the set's own changes) of an X(NAME, ...) line of a flag-set list."""
    pattern = re.compile(r"X\(\s*%s\s*,\s*([^)]*)\)" % re.escape(name))
    for path in files:
        for i, line in enumerate(book.lines_of(book.read_text(path))):
            m = pattern.search(line)
            if m:
                terms = [t.strip() for t in m.group(1).split("|")]
                return path, i + 1, line.strip().rstrip("\\").rstrip(), [t for t in terms if not t.startswith("SET_") and t != "0"]
    return None


def show_tests(files, bit, how=r"&"):
    """Each place the code tests the change BIT (`& BIT`; HOW: what may stand before it), with the
    statement it guards."""
    test = re.compile(r"(%s)\s*%s\b" % (how, re.escape(bit)))
    for path in files:
        lines = book.lines_of(book.read_text(path))
        for i, line in enumerate(lines):
            if not test.search(line) or line.lstrip().startswith(("/*", "*", "//")):
                continue
            last = i
            if "{" in line:  # a block: to its closing brace
                depth = 0
                for last in range(i, len(lines)):
                    depth += lines[last].count("{") - lines[last].count("}")
                    if depth <= 0:
                        break
            else:  # one statement: to the line that ends it
                while last + 1 < len(lines) and not lines[last].rstrip().endswith((";", "}")):
                    last += 1
                if last == i and last + 1 < len(lines):
                    last += 1
                    while last + 1 < len(lines) and not lines[last].rstrip().endswith((";", "}")):
                        last += 1
            print("%s:%d:" % (path, i + 1))
            print("\n".join(lines[i:last + 1]))
            print()


def listed_only(ch, stage, files):
    """A stage whose row a macro writes (ch09's, one per kernel and compiler): its line of
    ./chNN --list-stages, and the kernel that line names."""
    import subprocess
    try:
        table = subprocess.run(["./" + ch, "--list-stages"], capture_output=True, text=True).stdout
    except OSError:
        table = ""
    line = [row for row in table.splitlines() if row.split("\t")[0] == stage]
    if not line:
        hint = "" if table else " (or it is not built: make %s)" % ch
        print("show: %s has no stage '%s'%s (./%s --help lists them)" % (ch, stage, hint, ch), file=sys.stderr)
        return 2
    print("== the row (./%s --list-stages; a macro writes it)\n%s\n" % (ch, line[0]))
    kernel = re.sub(r"<.*", "", line[0].split("\t")[2]).split("::")[-1]
    for where, a, b, text in definitions(files, kernel) if kernel != "-" else []:
        print("== %s: %s:%d\n%s\n" % (kernel, where, a + 1, "\n".join(text[a:b + 1])))
    return 0


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head: stop quietly
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) != 3 or not argv[1] or not argv[2]:
        print("usage: make show CH=chNN STAGE=name (./chNN --help lists the stages)", file=sys.stderr)
        return 2
    ch, stage = argv[1], argv[2]
    folders = glob.glob("chapters/%s_*/" % ch) if re.fullmatch(r"ch[0-9]+", ch) else []
    if len(folders) != 1:
        print("show: '%s' is not a chapter (chapters/%s_*/)" % (ch, ch), file=sys.stderr)
        return 2
    local = source_files(folders[0])
    others = [f for d in sorted(glob.glob("chapters/*/")) + ["common/", "common/gpu/", "common/nbody/"]
              if d != folders[0] for f in source_files(d)]
    row = find_row(local, stage)
    if row is None:
        return listed_only(ch, stage, others + local)
    path, first, lines = row
    print("== the row: %s:%d" % (path, first + 1))
    print("\n".join(lines))
    print()
    for name in named_in(lines, stage):
        sets = flag_set(local, name)
        if sets:
            where, number, text, changes = sets
            print("== %s: %s:%d\n%s\n" % (name, where, number, text))
            for bit in changes:
                print("== where the code tests %s (the change this stage adds)" % bit)
                show_tests(local, bit)
            continue
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", name):  # a constant (an enum's, a macro's): where the code asks for it
            if any(re.search(r"(==|!=|case)\s*%s\b" % name, line) for f in local
                   for line in book.lines_of(book.read_text(f))):
                print("== where the code tests %s" % name)
                show_tests(local, name, how=r"==|!=|case")
            continue
        found = definitions(local, name) or definitions(others, name)
        for where, a, b, text in found:
            print("== %s: %s:%d" % (name, where, a + 1))
            print("\n".join(text[a:b + 1]))
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
