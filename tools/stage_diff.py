#!/usr/bin/env python3
"""make diff A=chNN:STAGE B=chNN:STAGE: what the second stage changes from the first, as a unified diff.

Both stages must be of one chapter (across chapters, compare the chapters: make diff A=ch06 B=ch07).
The rows are read from the chapter's stage table (tools/show_stage.py's reader), the code from the
source as it is (tools/book.py's definition reader), by how the chapter builds its stages:

  (a) each stage its own function or kernel (ch06, ch12, ch07's launchers): the definitions the two
      rows name that differ, the function each row runs and the kernel of its .kernel column,
      diffed, each labelled with its file:line.
  (b) one body over flags or template arguments (ch05's `F & BIT` sets, ch07's and ch08's template
      arguments): the kernel and every template it instantiates, specialised for each stage (each
      `if (F & BIT)`, `if constexpr`, `switch (K)` kept or dropped by the stage's value, code after
      a return dropped), then diffed: only the lines the second stage adds or drops. Where a row
      picks a branch by a constant (ch03's RNG_*, ch11's EXCHANGE_*, ch05's SWEEP_*), the places
      the code tests it: "-" the first stage's, "+" the second's.
  (c) the same code built with other flags (ch02's -O levels, ch05's fast-math family through
      chapter.mk): said so, and the two flag sets diffed, one flag a line.

Prints nothing but the diff and its "=== " lines. Exit 0, or 2 for an unknown chapter or stage
(the stages are listed), a stage without a chapter, or two chapters.
Run as: tools/stage_diff.py ch05:loop ch05:float-only"""
import contextlib
import difflib
import glob
import io
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402  (definition_starts, definition_span, lines_of, read_text)
import show_stage  # noqa: E402  (source_files, find_row, named_in, definitions, flag_set, show_tests)

COMMON = ["common/", "common/gpu/", "common/nbody/"]


class Refused(Exception):
    pass


# ---------------------------------------------------------------- the chapter and its rows

def chapter_folder(ch):
    folders = glob.glob("chapters/%s_*/" % ch) if re.fullmatch(r"ch[0-9]+", ch) else []
    if len(folders) != 1:
        known = " ".join(sorted(os.path.basename(f.rstrip("/")).split("_")[0] for f in glob.glob("chapters/ch*_*/")))
        raise Refused("no chapter '%s' (chapters: %s)" % (ch, known))
    return folders[0]


ROW_START = re.compile(r'(?:\{\{|\b[A-Z][A-Z0-9_]*_ROW\()\s*"([^"]+)"')


def stage_names(folder):
    """The stage names of the chapter's table, in order (stages.h's rows, {{"name", ... or XX_ROW("name", ...)."""
    table = os.path.join(folder, "stages.h")
    files = [table] if os.path.exists(table) else show_stage.source_files(folder)
    names = []
    for path in files:
        for m in ROW_START.finditer(book.read_text(path)):
            if m.group(1) not in names:
                names.append(m.group(1))
    return names


class Stage:
    def __init__(self, ch, folder, name, local, others):
        self.ch, self.name, self.folder = ch, name, folder
        found = show_stage.find_row(local, name)
        if found is None or name not in stage_names(folder):
            raise Refused("%s has no stage '%s' (its stages: %s)" % (ch, name, " ".join(stage_names(folder))))
        self.path, self.first, self.row = found
        text = "\n".join(self.row)
        self.names = show_stage.named_in(self.row, name)
        m = re.search(r'\.kernel\s*=\s*"([^"]*)"', text)
        strings = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
        if m:
            kernel = m.group(1)
        else:  # a macro's row (ch12's GPU_ROW(name, what, kernel, fn)): the first other string naming code
            kernel = next((s for s in strings[1:] if re.fullmatch(r"[A-Za-z_]\w*(<.*>)?", s)), "")
        base, _, args = kernel.partition("<")
        km = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:<(.*)>)?", base.split("::")[-1].strip() + ("<" + args if args else ""))
        self.kernel, self.kernel_args = (km.group(1), km.group(2)) if km else ("", None)
        self.description = strings[1] if len(strings) > 1 else ""
        self.flag_sets = [n for n in self.names if show_stage.flag_set(local, n)]
        self.functions = [n for n in self.names if n != self.kernel and n not in self.flag_sets
                          and not re.fullmatch(r"[A-Z][A-Z0-9_]*", n)
                          and (show_stage.definitions(local, n) or show_stage.definitions(others, n)
                               or declared_function(folder, n))]
        self.constants = [n for n in self.names if re.fullmatch(r"[A-Z][A-Z0-9_]*", n) and n not in self.flag_sets
                          and tested(local, n)]

    def label(self):
        return "%s:%s" % (self.ch, self.name)


def declared_function(folder, name):
    """NAME declared (not defined) in the chapter's headers: a function another build makes (ch02's
    objcopy-renamed card_render_gcc_O1)."""
    return any(re.search(r"\b%s\b" % re.escape(name), book.read_text(p)) for p in show_stage.source_files(folder)
               if p.endswith(".h") and not p.endswith("stages.h")) or \
        re.search(r"\b(render_fn|[a-z_]+_fn)\b[^;]*\b%s\b" % re.escape(name),
                  book.read_text(os.path.join(folder, "stages.h")) if os.path.exists(os.path.join(folder, "stages.h")) else "")


def tested(files, name):
    return any(re.search(r"(==|!=|case)\s*%s\b" % name, line) for f in files for line in book.lines_of(book.read_text(f)))


# ---------------------------------------------------------------- constants: enums, #defines, flag sets

class Unknown(Exception):
    pass


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def c_eval(expr, env):
    """EXPR, a C integer constant expression over ENV's names, as an int; Unknown if it is not one."""
    e = re.sub(r"\(\s*(?:int|bool|unsigned|long|size_t)\s*\)", "", expr)
    if "?" in e or "->" in e or "." in re.sub(r"\d\.\d", "", e) or '"' in e or "[" in e:
        raise Unknown(expr)
    e = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", e)
    e = re.sub(r"\b0x([0-9a-fA-F]+)\b", lambda m: str(int(m.group(1), 16)), e)

    def name(m):
        n = m.group(0)
        if n in ("true", "false"):
            return "1" if n == "true" else "0"
        if n in env and env[n] is not None:
            return "(%d)" % env[n]
        raise Unknown(n)
    e = re.sub(r"[A-Za-z_]\w*", name, e)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e).replace("/", "//")
    if re.search(r"[^\d\s()+\-*/%<>=!&|^~andotr]", e):
        raise Unknown(expr)
    try:
        return int(eval(e, {"__builtins__": {}}, {}))  # only digits and operators are left
    except Exception:
        raise Unknown(expr)


def constants(files):
    """{name: value} of the enum constants and numeric #defines in FILES."""
    env = {}
    for path in files:
        text = strip_comments(book.read_text(path))
        for m in re.finditer(r"^\s*#define\s+([A-Za-z_]\w*)\s+(\(?-?[0-9][0-9xXa-fA-FuUlL]*\)?)\s*$", text, re.M):
            try:
                env.setdefault(m.group(1), c_eval(m.group(2), env))
            except Unknown:
                pass
        for m in re.finditer(r"\benum\b\s*\w*\s*\{([^{}]*)\}", text):
            value = -1
            for item in m.group(1).split(","):
                item = item.strip()
                im = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:=\s*(.+))?", item, re.S)
                if not im:
                    continue
                try:
                    value = c_eval(im.group(2), env) if im.group(2) else value + 1
                except Unknown:
                    value = None
                if value is None:
                    break
                env.setdefault(im.group(1), value)
    return env


def set_value(local, name, env, seen=()):
    """The value of a flag set X(NAME, a | b ...) (render.h's CH05_FLAG_SETS), its sets resolved."""
    found = show_stage.flag_set(local, name)
    if not found or name in seen:
        raise Unknown(name)
    m = re.search(r"X\(\s*%s\s*,\s*([^)]*)\)" % re.escape(name), found[2])
    expr = m.group(1)
    for other in set(re.findall(r"\bSET_\w+\b", expr)):
        env.setdefault(other, set_value(local, other, env, seen + (name,)))
    return c_eval(expr, env)


# ---------------------------------------------------------------- specialising a template's body

def split_top(expr, op):
    parts, depth, start, i = [], 0, 0, 0
    while i < len(expr):
        c = expr[i]
        depth += (c == "(") - (c == ")")
        if depth == 0 and expr.startswith(op, i):
            parts.append(expr[start:i])
            start = i + len(op)
            i += len(op)
            continue
        i += 1
    return parts + [expr[start:]]


def unwrap(expr):
    expr = expr.strip()
    while expr.startswith("(") and expr.endswith(")") and matching(expr, 0) == len(expr) - 1:
        expr = expr[1:-1].strip()
    return expr


def matching(text, i):
    """The index of the bracket closing the one at TEXT[i], or -1."""
    depth = 0
    for j in range(i, len(text)):
        depth += (text[j] == "(") - (text[j] == ")")
        if depth == 0:
            return j
    return -1


def truth(expr, env):
    """True, False, or None (decided at run time) for the condition EXPR under ENV."""
    expr = unwrap(expr)
    ors = split_top(expr, "||")
    if len(ors) > 1:
        vals = [truth(p, env) for p in ors]
        return True if True in vals else False if all(v is False for v in vals) else None
    ands = split_top(expr, "&&")
    if len(ands) > 1:
        vals = [truth(p, env) for p in ands]
        return False if False in vals else True if all(v is True for v in vals) else None
    try:
        return bool(c_eval(expr, env))
    except Unknown:
        return None


IF = re.compile(r"^(\s*)(\}\s*)?(else\s+)?if\s*(constexpr\s*)?\(")
ELSE = re.compile(r"^(\s*)\}?\s*else\b(?!\s+if)\s*(\{)?\s*$")


def statement_end(lines, i):
    """The last line of the statement starting at line I (its block, or the line ending in ';')."""
    depth, opened = 0, False
    for j in range(i, len(lines)):
        text = lines[j][1]
        if text.lstrip().startswith("#"):
            continue
        depth += text.count("{") - text.count("}")
        opened = opened or "{" in text
        if opened and depth <= 0:
            return j
        if not opened and text.rstrip().endswith(";") and depth <= 0:
            return j
    return len(lines) - 1


def dedent(lines, by):
    out = []
    for n, t in lines:
        out.append((n, t[by:] if t[:by].strip() == "" else t.lstrip() if not t.strip() else t))
    return out


def branch_body(lines, i, header_end, rest):
    """A branch's own lines, without its header and braces: (body, the index of its last line, whether
    its closing line also opens the next branch (`} else ...`))."""
    indent = len(lines[i][1]) - len(lines[i][1].lstrip())
    if rest.strip().startswith("{") or (rest.strip() == "" and header_end + 1 < len(lines)
                                        and lines[header_end + 1][1].strip() == "{"):
        j, depth, closed = header_end, 0, False
        start = header_end + 1 if "{" in rest else header_end + 2
        for j in range(header_end, len(lines)):
            text = lines[j][1] if j > header_end else rest
            if text.lstrip().startswith("#"):
                continue
            for c in strip_comments(text):  # the brace that closes the block, though the line opens another
                depth += (c == "{") - (c == "}")
                if c == "}" and depth == 0:
                    closed = True
                    break
            if closed:
                break
        closing = lines[j][1]
        chained = bool(re.match(r"\s*\}\s*else\b", closing))
        body = lines[start:j]
        return dedent(body, 4), j, chained
    if rest.strip():  # if (c) stmt; on one line
        return [(lines[i][0], " " * indent + rest.strip())], header_end, False
    last = statement_end(lines, header_end + 1)
    return dedent(lines[header_end + 1:last + 1], 4), last, False


def specialise(lines, env):
    """LINES ([(line number, text)]) with every branch ENV decides kept or dropped."""
    out, i, dead_depth = [], 0, None
    depth = 0
    pp = 0
    while i < len(lines):
        n, text = lines[i]
        stripped = text.strip()
        if dead_depth is not None:  # after a return: up to the end of its block
            d = depth + text.count("{") - text.count("}")
            if d < dead_depth:
                dead_depth = None
            else:
                depth = d
                i += 1
                continue
        if stripped.startswith("#if"):
            pp += 1
        elif stripped.startswith("#endif"):
            pp -= 1
        m = IF.match(text)
        sm = re.match(r"^(\s*)switch\s*\((.*)\)\s*\{\s*$", text)
        if sm and truth(sm.group(2), env) is not None:
            value = c_eval(sm.group(2), env)
            last = statement_end(lines, i)
            out.append((n, text))
            out += pick_case(lines[i + 1:last], value, env)
            out.append(lines[last])
            i = last + 1
            continue
        if m and not m.group(2) and not m.group(3):
            chain = []  # [(truth, header lines, body, first, last)]
            j = i
            while True:
                hm = IF.match(lines[j][1])
                if hm:
                    open_at = lines[j][1].index("(", hm.end() - 1)
                    joined, k = lines[j][1], j
                    while matching(joined, open_at) < 0 and k + 1 < len(lines):
                        k += 1
                        joined += " " + lines[k][1].strip()
                    close = matching(joined, open_at)
                    cond, rest = joined[open_at + 1:close], strip_comments(joined[close + 1:])
                    value = truth(cond, env)
                else:  # else
                    em = re.match(r"^\s*\}?\s*else\b(.*)$", lines[j][1])
                    k, rest, value = j, em.group(1), True
                body, last, chained = branch_body(lines, j, k, rest)
                chain.append((value, j, k, body, last))
                if chained:
                    j = last
                    continue
                if last + 1 < len(lines) and re.match(r"^\s*else\b", lines[last + 1][1]):
                    j = last + 1
                    continue
                break
            end = chain[-1][4]
            decided = all(v is not None for v, *_ in chain) or chain[0][0] is not None
            if not decided or any(v is None for v, *_ in chain):
                # some branch is decided at run time: keep the chain as written, its bodies specialised
                kept = specialise_chain_kept(lines, chain, env)
                out += kept
            else:
                taken = next((c for c in chain if c[0]), None)
                if taken:
                    body = specialise(taken[3], env)
                    out += body
                    if pp == 0 and body and last_statement(body).startswith("return"):
                        dead_depth = depth
            i = end + 1
            # braces of the dropped or kept lines leave depth as it was before the chain
            continue
        chosen = ternary(lines, i, env)
        if chosen:
            out.append(chosen[0])
            i = chosen[1] + 1
            continue
        depth += text.count("{") - text.count("}")
        out.append((n, text))
        if pp == 0 and depth >= 1 and stripped.startswith("return") and stripped.endswith(";") and \
                out_is_unconditional(lines, i):
            dead_depth = depth
        i += 1
    return out


def ternary(lines, i, env):
    """A statement `x = COND ? A : B;` or `return COND ? A : B;` from line I whose COND ENV decides:
    ((line number, the statement with the branch taken), its last line index); else None."""
    joined, j = lines[i][1], i
    while not joined.rstrip().endswith(";") and j + 1 < len(lines) and j - i < 8:
        j += 1
        if lines[j][1].lstrip().startswith("#"):
            return None
        joined += " " + lines[j][1].strip()
    m = re.match(r"^(\s*(?:return\s+|[\w.\->\[\]* ]+?[^=!<>+\-*/%&|^]=(?!=)\s*))(.*);\s*$", joined)
    if not m or "?" not in m.group(2):
        return None
    rhs, depth, q, colon = m.group(2), 0, -1, -1
    for k, c in enumerate(rhs):
        depth += (c == "(") - (c == ")")
        if depth == 0 and c == "?" and q < 0:
            q = k
        elif depth == 0 and c == ":" and q >= 0 and rhs[k - 1] != ":" and rhs[k + 1:k + 2] != ":":
            colon = k
            break
    if q < 0 or colon < 0:
        return None
    value = truth(rhs[:q], env)
    if value is None:
        return None
    branch = re.sub(r"\s+", " ", rhs[q + 1:colon] if value else rhs[colon + 1:]).strip()
    return (lines[i][0], m.group(1) + branch + ";"), j


def drop_empty_ifs(lines):
    """LINES without a preprocessor conditional left empty (#ifdef ... #endif around nothing)."""
    out = []
    for n, t in lines:
        if t.strip().startswith("#endif") and out and out[-1][1].strip().startswith("#if"):
            out.pop()
            continue
        out.append((n, t))
    return out


def out_is_unconditional(lines, i):
    """Line I's return is a statement of its own (not the body of an if or loop on the line above)."""
    j = i - 1
    while j >= 0 and lines[j][1].strip().startswith("#"):
        j -= 1
    if j < 0:
        return True
    above = lines[j][1].rstrip()
    return above.endswith((";", "{", "}")) and not re.match(r"\s*(if|for|while|else)\b", above)


def last_statement(body):
    for _, t in reversed(body):
        if t.strip() and not t.strip().startswith(("#", "//", "/*", "*")):
            return t.strip()
    return ""


def specialise_chain_kept(lines, chain, env):
    """A chain of which some branch is decided at run time: the branches ENV rules out dropped (a
    first `else if` then written `if`), the rest kept as written."""
    out, wrote = [], False
    for idx, (value, j, k, body, last) in enumerate(chain):
        if value is False:
            continue
        header = lines[j:k + 1]
        if not wrote:
            h = [(header[0][0], re.sub(r"^(\s*)\}?\s*else\s+", r"\1", header[0][1]))] + header[1:]
        else:
            h = header
        if value is True and wrote:
            h = [(header[0][0], re.sub(r"if\s*(constexpr\s*)?\(.*$", "{", header[0][1]).rstrip().replace("else {", "else {"))]
        out += h if (wrote or value is None) else []
        sub = specialise(lines[k + 1:last], env) if lines[k][1].rstrip().endswith("{") else specialise(lines[k + 1:last + 1], env)
        if value is True and not wrote:
            out += dedent(sub, 0)
            return out
        out += sub
        if lines[last][1].strip().startswith("}") and lines[k][1].rstrip().endswith("{"):
            nxt = chain[idx + 1] if idx + 1 < len(chain) else None
            closing = lines[last][1]
            if nxt is None or all(c[0] is False for c in chain[idx + 1:]):
                closing = re.sub(r"\}.*$", "}", closing)
            out.append((lines[last][0], closing))
        wrote = True
        if value is True:
            break
    return out


def pick_case(lines, value, env):
    """The cases of a switch body that VALUE selects (a run of labels and what follows to the next
    run of labels after a return or break)."""
    groups, cur = [], None
    for n, t in lines:
        lm = re.match(r"^\s*(case\s+(.+?)|default)\s*:(?!:)(.*)$", t)
        if lm and (cur is None or cur[2]):
            cur = [[], [], False]
            groups.append(cur)
        if lm:
            cur[0].append(lm.group(2) if lm.group(2) else "default")
            rest = lm.group(3).strip()
            cur[1].append((n, t))
            if rest:
                cur[2] = rest.startswith(("return", "break")) or cur[2]
        elif cur is not None:
            cur[1].append((n, t))
            if t.strip().startswith(("return", "break")):
                cur[2] = True
    chosen = None
    for labels, body, _ in groups:
        for label in labels:
            try:
                if label != "default" and c_eval(label, env) == value:
                    chosen = body
            except Unknown:
                return lines
    if chosen is None:
        chosen = next((body for labels, body, _ in groups if "default" in labels), [])
    return chosen


# ---------------------------------------------------------------- a template and what it instantiates

def template_params(lines, first, last):
    """The names of the template parameters on the `template <...>` line of the definition at
    lines FIRST..LAST (its comment first), before its body opens."""
    for k in range(first, last + 1):
        m = re.match(r"\s*template\s*<(.*)>\s*$", lines[k])
        if m:
            return [re.sub(r"\s*=.*$", "", p).split()[-1] for p in split_top(m.group(1), ",") if p.strip()]
        if "{" in lines[k] and not lines[k].lstrip().startswith(("/*", "*", "//")):
            break
    return []


CALL = re.compile(r"\b([A-Za-z_]\w*)\s*<([^<>;(){}]*)>\s*\(")


def instances(root, root_args, env, files, stage_bind=None):
    """[(key, path, first line, specialised lines, binding text)] of ROOT specialised by ROOT_ARGS (or
    STAGE_BIND: its first parameter bound to a flag set's value) and of every template it instantiates
    with arguments that derive from them, each once."""
    out, todo, seen = [], [(root, root_args, "<root>", {})], set()
    while todo:
        name, args, key, caller = todo.pop(0)
        if (name, key) in seen:
            continue
        seen.add((name, key))
        found = show_stage.definitions(files, name)
        if not found:
            continue
        path, first, last, lines = found[0]
        params = template_params(lines, first, last)
        bind = dict(env)
        shown = []
        values = split_top(args, ",") if args else []
        if key == "<root>" and stage_bind is not None and params:
            values = [str(stage_bind)] + values[1:]
        for p, v in zip(params, values):
            try:
                bind[p] = c_eval(v.strip(), dict(env, **caller))
                shown.append("%s = %d" % (p, bind[p]))
            except Unknown:
                bind[p] = None
                shown.append("%s = %s" % (p, v.strip()))
        body = drop_empty_ifs(specialise([(i + 1, lines[i]) for i in range(first, last + 1)], bind))
        out.append(((name, key), path, first + 1, body, ", ".join(shown)))
        text = "\n".join(t for _, t in body)
        for m in CALL.finditer(text):
            callee, cargs = m.group(1), m.group(2)
            if callee in ("static_cast", "reinterpret_cast", "const_cast", "template") or callee == name and cargs == args:
                continue
            if not re.search(r"\b(%s)\b" % "|".join(map(re.escape, [p for p in params if bind.get(p) is not None]) or ["$^"]), cargs):
                continue  # arguments that do not depend on the stage: the same code in both
            todo.append((callee, cargs, cargs, {p: bind[p] for p in params}))
    return out


# ---------------------------------------------------------------- printing

def hunks(a_lines, b_lines, label_a, label_b):
    """A unified diff of two [(file line, text)] lists, each hunk numbered by its first file line."""
    ta, tb = [t for _, t in a_lines], [t for _, t in b_lines]
    out = []
    for line in difflib.unified_diff(ta, tb, label_a, label_b, lineterm="", n=3):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
        if m:
            ia, ca, ib, cb = int(m.group(1)), int(m.group(2) or 1), int(m.group(3)), int(m.group(4) or 1)
            fa = a_lines[ia - 1][0] if ca and ia - 1 < len(a_lines) else 0
            fb = b_lines[ib - 1][0] if cb and ib - 1 < len(b_lines) else 0
            line = "@@ -%d,%d +%d,%d @@" % (fa, ca, fb, cb)
        out.append(line)
    return out


def definition_lines(files, name):
    found = show_stage.definitions(files, name)
    if not found:
        return None
    path, first, last, lines = found[0]
    return path, first + 1, [(first + 1 + i, lines[first + i]) for i in range(last - first + 1)]


def body_of(lines):
    """A definition's body: its lines from the one that opens it (the name, return type and the
    parameters' layout apart)."""
    texts = [t for _, t in lines]
    start = next((i for i, t in enumerate(texts) if "{" in t), 0)
    return [t.strip() for t in texts[start:]]


def make_vars():
    """{variable: [definitions]} of the Makefile and the chapters' chapter.mk, for flags' text."""
    defs = {}
    for path in ["Makefile"] + sorted(glob.glob("chapters/*/chapter.mk")):
        if not os.path.exists(path):
            continue
        for line in book.lines_of(book.read_text(path)):
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?::|\?|\+)?=\s*(.*)$", line)
            if m:
                defs.setdefault(m.group(1), []).append(m.group(2).strip())
    return defs


def expand(text, defs, depth=0):
    """TEXT with its $(VAR)s expanded by their last definition (the default branch of an ifeq: nvcc's)."""
    if depth > 8:
        return text
    return re.sub(r"\$\((\w+)\)", lambda m: expand(defs.get(m.group(1), [""])[-1], defs, depth + 1), text).strip()


def build_flags(folder, path, defs):
    """The extra flags chapter.mk gives the object built from PATH: (text, its expansion), or None."""
    stem = os.path.splitext(os.path.basename(path))[0]
    for var, values in defs.items():
        m = re.match(r"^([A-Z0-9]+)_FLAGS_(\w+)$", var)
        if m and stem.endswith("_" + m.group(2)) and var.startswith(os.path.basename(folder.rstrip("/"))[:4].upper()):
            return "%s := %s" % (var, values[-1]), expand(values[-1], defs)
    return None


def flags_diff(out, label_a, label_b, fa, fb, why):
    out.append("=== %s" % why)
    a = [(0, f) for f in fa.split()]
    b = [(0, f) for f in fb.split()]
    for line in difflib.unified_diff([t for _, t in a], [t for _, t in b], label_a, label_b, lineterm="", n=len(a) + len(b)):
        if line.startswith("@@"):
            line = "@@ -1,%d +1,%d @@" % (len(a), len(b))
        out.append(line)


def compare(a, b, local, others):
    out = []
    files = local + others
    env = constants(files)
    defs = make_vars()
    # (a) and (c): the functions the rows run
    for fa, fb in zip(a.functions, b.functions):
        if fa == fb:
            continue
        da, db = definition_lines(local, fa) or definition_lines(others, fa), \
            definition_lines(local, fb) or definition_lines(others, fb)
        if da and db and da[0] != db[0] and body_of(da[2]) == body_of(db[2]):
            ga, gb = build_flags(a.folder, da[0], defs), build_flags(b.folder, db[0], defs)
            text_a = ga[1] if ga else ""
            text_b = gb[1] if gb else ""
            why = "%s and %s are the same code built with other flags: %s (%s) and %s (%s), by %schapter.mk" % (
                a.label(), b.label(), da[0], ga[0] if ga else "no extra flags", db[0], gb[0] if gb else "no extra flags",
                a.folder)
            flags_diff(out, "%s build flags (%s)" % (a.label(), os.path.basename(da[0])),
                       "%s build flags (%s)" % (b.label(), os.path.basename(db[0])), text_a, text_b, why)
            continue
        if not da and not db and built_from_descriptions(a.folder):
            why = ("%s and %s are the same source built with other flags: %schapter.mk builds it once per row "
                   "with the row's description as the command" % (a.label(), b.label(), a.folder))
            flags_diff(out, "%s build (%s)" % (a.label(), a.description), "%s build (%s)" % (b.label(), b.description),
                       a.description, b.description, why)
            continue
        if not da or not db:
            out.append("=== %s: no definition of %s found in the sources" % (a.label() if not da else b.label(),
                                                                          fa if not da else fb))
            continue
        out += hunks(da[2], db[2], "%s:%d (%s, %s)" % (da[0], da[1], fa, a.label()),
                     "%s:%d (%s, %s)" % (db[0], db[1], fb, b.label()))
    # the kernels: (a) two definitions, (b) one template specialised per stage
    va = set_of(a, local, env)
    vb = set_of(b, local, env)
    decided = ""  # the original text of the templates specialised
    if a.kernel and b.kernel and a.kernel != b.kernel:
        da, db = definition_lines(files, a.kernel), definition_lines(files, b.kernel)
        if da and db:
            out += hunks(da[2], db[2], "%s:%d (%s, %s)" % (da[0], da[1], a.kernel, a.label()),
                         "%s:%d (%s, %s)" % (db[0], db[1], b.kernel, b.label()))
    elif a.kernel and a.kernel == b.kernel and (a.kernel_args != b.kernel_args or va != vb):
        text, more = specialised_diff(a, b, va, vb, env, local + others)
        out += more
        decided = text
    elif not a.kernel and not b.kernel and va != vb:
        out.append("=== %s and %s: flag sets %s and %s, but no kernel in their rows" % (a.label(), b.label(), va, vb))
    # (b) constants the rows choose, where the code tests them (but those a specialisation decided)
    for name in [c for c in a.constants if c not in b.constants and not re.search(r"\b%s\b" % c, decided)]:
        out += constant_sites(local, name, a, removed=True)
    for name in [c for c in b.constants if c not in a.constants and not re.search(r"\b%s\b" % c, decided)]:
        out += constant_sites(local, name, b, removed=False)
    return out


def built_from_descriptions(folder):
    mk = os.path.join(folder, "chapter.mk")
    return os.path.exists(mk) and re.search(r"stages\.h", book.read_text(mk)) is not None


def set_of(stage, local, env):
    for name in stage.flag_sets:
        try:
            return name, set_value(local, name, env)
        except Unknown:
            return name, None
    return None


def specialised_diff(a, b, va, vb, env, files):
    out = []
    ia = instances(a.kernel, a.kernel_args, env, files, stage_bind=va[1] if va else None)
    ib = instances(b.kernel, b.kernel_args, env, files, stage_bind=vb[1] if vb else None)
    how_a = "%s<%s>" % (a.kernel, ia[0][4]) if ia else a.kernel
    how_b = "%s<%s>" % (b.kernel, ib[0][4]) if ib else b.kernel
    if va:
        how_a += " (%s)" % va[0]
    if vb:
        how_b += " (%s)" % vb[0]
    out.append("=== one template, specialised per stage: %s %s -> %s %s" % (a.label(), how_a, b.label(), how_b))
    by_b = {k: x for k, *x in ib}
    keys = [k for k, *_ in ia] + [k for k, *_ in ib if k not in {k2 for k2, *_ in ia}]
    by_a = {k: x for k, *x in ia}
    for key in keys:
        xa, xb = by_a.get(key), by_b.get(key)
        name = key[0] + ("" if key[1] == "<root>" else "<%s>" % key[1])
        la = "%s:%d (%s<%s>, %s)" % (xa[0], xa[1], key[0], xa[3], a.label()) if xa else "/dev/null"
        lb = "%s:%d (%s<%s>, %s)" % (xb[0], xb[1], key[0], xb[3], b.label()) if xb else "/dev/null"
        out += hunks(xa[2] if xa else [], xb[2] if xb else [], la, lb)
        del name
    originals = "\n".join(book.read_text(p) and "\n".join(book.lines_of(book.read_text(p))[f - 1:f - 1 + 200])
                          for _, p, f, _, _ in ia + ib)
    return originals, out


def constant_sites(local, name, stage, removed):
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        show_stage.show_tests(local, name, how=r"==|!=|case")
    out = []
    for block in captured.getvalue().split("\n\n"):
        lines = block.split("\n")
        m = re.match(r"^(.*):(\d+):$", lines[0]) if lines else None
        if not m:
            continue
        start = int(m.group(2))
        body = [(start + i, t) for i, t in enumerate(lines[1:])]
        label = "%s:%d (where the code tests %s, %s)" % (m.group(1), start, name, stage.label())
        out += hunks(body, [], label, "/dev/null") if removed else hunks([], body, "/dev/null", label)
    return out


def parse(arg):
    if ":" not in arg:
        raise Refused("'%s' names no stage: give chNN:STAGE for both (or chNN for both, a chapters' diff)" % arg)
    ch, stage = arg.split(":", 1)
    if not stage:
        raise Refused("'%s' names no stage after the ':' (chNN:STAGE)" % arg)
    return ch, stage


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) != 3:
        print("usage: make diff A=chNN:STAGE B=chNN:STAGE   (e.g. make diff A=ch05:loop B=ch05:float-only)",
              file=sys.stderr)
        return 2
    try:
        (ca, sa), (cb, sb) = parse(argv[1]), parse(argv[2])
        fa, fb = chapter_folder(ca), chapter_folder(cb)
        if ca != cb:
            raise Refused("%s:%s and %s:%s are stages of two chapters: a stage diff is within one chapter "
                          "(compare the chapters: make diff A=%s B=%s)" % (ca, sa, cb, sb, ca, cb))
        local = show_stage.source_files(fa)
        others = [f for d in sorted(glob.glob("chapters/*/")) + COMMON if d != fa for f in show_stage.source_files(d)]
        a, b = Stage(ca, fa, sa, local, others), Stage(cb, fb, sb, local, others)
    except Refused as e:
        print("make diff: %s" % e, file=sys.stderr)
        return 2
    out = compare(a, b, local, others)
    if not out:
        out = ["=== %s and %s run the same code: their rows differ only in fields no code here tests" % (a.label(), b.label())]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
