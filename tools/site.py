#!/usr/bin/env python3
"""make site: the course as a static site, built by MkDocs with the Material theme
(Debian 12: apt-get install mkdocs mkdocs-material).

  python3 tools/site.py [OUT]     (default build/site; run from the repository's root)

The MkDocs project is generated from the committed sources into OUT-src/
(mkdocs.yml and docs/), then built by `mkdocs build --strict` into OUT/:

  index            README.md, the front page
  contents         book.md's title and contents
  SLUG             one page per "## " section of book.md (a chapter, the introduction, the
                   primer on the GPU, the appendix), SLUG its heading's anchor
  evidence/NAME    evidence/*.md, each a page of the Evidence section
  exercises/chNN   a chapter's exercise: the book's text of it, the files handed out
                   (exercises/chNN/), the test that grades it and its hints (tests/hints/),
                   folded: a hint is read when asked for
  profiles/chNN    every Nsight Compute report of the chapter (data/profiles/*/chNN_*), verbatim
  PATH             any other .md file a page links to (TEACHING.md ...); a page for each
                   text file a page links to or names in `code` (chapters/.../card.c.md:
                   the file highlighted, beside the raw file)

Links are rewritten for the site: #anchor and book.md#anchor to the page that holds the
anchor, a profile to its place on the profiles page, a source file to its page; every file
a page shows or links to (charts, images) is copied to its relative path. Every heading
keeps the anchor GitHub gives it (lower case, punctuation dropped, spaces as dashes, -1, -2
on repeats), so the book's links work unchanged. The Markdown is GitHub's; MkDocs reads
Python-Markdown, so what differs is translated first (nested lists at 4 spaces a level, a
blank line where GitHub lets a list, a table or a fence interrupt a paragraph, HTML comments
dropped): the text renders as written.

Python 3 standard library only (mkdocs runs as a program). Both folders are built beside
their final place and renamed into it: a failed build leaves the last site as it was.
Exit status: 0 built; 1 failed (mkdocs's complaint printed); 2 mkdocs or its theme missing,
or not run from the repository's root.
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from urllib.parse import unquote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402  (the registry, read as make book reads it)

INSTALL = "apt-get install mkdocs mkdocs-material (Debian/Ubuntu)"
TEXT_LIMIT = 256 * 1024  # a text file larger than this is linked raw, not shown on a page
SHOWN = (".png", ".svg", ".jpg", ".jpeg", ".gif", ".webp")  # what a browser draws
IMAGE = SHOWN + (".pdf", ".ppm")
LANGUAGE = {".c": "c", ".h": "c", ".cu": "cuda", ".cuh": "cuda", ".cpp": "cpp", ".hpp": "cpp",
            ".py": "python", ".sh": "bash", ".bash": "bash", ".mk": "make", ".json": "json",
            ".yml": "yaml", ".yaml": "yaml", ".cff": "yaml", ".s": "gas"}
FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
LIST_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( +|$)(.*)$")
HEADING = re.compile(r"^ {0,3}(#{1,6}) +(.*?)(?: +#+)? *$")
TABLE_RULE = re.compile(r"^ *\|? *:?-+:? *(\| *:?-+:? *)*\|? *$")
HTML_BLOCK = re.compile(r"^ {0,3}</?(table|div|details|p|pre|blockquote|ul|ol|dl|figure|hr)[ >/]", re.I)


class SiteError(Exception):
    """A failure: its message goes to stderr, then exit 1 (2 when .code says so)."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def read_text(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def write_text(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)


def github_slug(title):
    """The anchor GitHub gives a heading: its text (code marks and link targets dropped)
    in lower case, punctuation removed, each space a dash."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
    text = re.sub(r"<[^>]+>", "", text).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


class Slugs:
    """GitHub's anchors of one file's headings, in order: a repeat gets -1, -2 ..."""

    def __init__(self):
        self.seen = {}

    def next(self, title):
        slug = github_slug(title)
        n = self.seen.get(slug, 0)
        self.seen[slug] = n + 1
        return slug + ("-%d" % n if n else "")


def fence_close(line, marker):
    """Whether LINE closes a fence opened by MARKER (the same character, at least as many)."""
    m = FENCE.match(line)
    return bool(m) and m.group(2)[0] == marker[0] and len(m.group(2)) >= len(marker) and not m.group(3).strip()


def outside_fences(lines):
    """Each line with whether it is inside a fenced code block (its fence lines count as inside)."""
    marker = None
    for line in lines:
        if marker:
            yield line, True
            if fence_close(line, marker):
                marker = None
            continue
        m = FENCE.match(line)
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            marker = m.group(2)
            yield line, True
            continue
        yield line, False


# ---------------------------------------------------------------- GitHub's Markdown, for Python-Markdown

def drop_comments(lines):
    """HTML comments (make book's markers) dropped, outside code. A line that held only a
    comment is a block to GitHub, which ends the paragraph before it: it becomes blank."""
    out, block = [], []

    def flush():
        if not block:
            return
        text = "".join(piece if code else re.sub(r"<!--.*?-->", "", piece, flags=re.S)
                       for code, piece in code_spans("\n".join(block)))
        out.extend(line if line.strip() else "" for line in text.split("\n"))
        block.clear()

    for line, in_code in outside_fences(lines):
        if in_code or not line.strip():
            flush()
            out.append(line)
        else:
            block.append(line)
    flush()
    return out


def shift(line, by):
    """LINE moved right BY spaces (left, where BY is negative, as far as it has spaces)."""
    if by >= 0:
        return " " * by + line if line else line
    return line[min(-by, len(line) - len(line.lstrip(" "))):]


def reindent_lists(lines):
    """GitHub nests an item under the one above when it starts where that item's text
    starts (2 spaces in after "- ", 3 after "1. "); Python-Markdown wants 4 spaces a
    level. Every line of a list is re-indented to 4 a level, its fences and their code
    moved with it; lines outside lists are left as they are."""
    out, stack, fence, blank = [], [], None, True  # stack: (GitHub's text column, ours)
    block_is_list = False  # whether the block (lines since a blank one) began with an item
    for line in lines:
        if fence:
            out.append(shift(line, fence[1]))
            if fence_close(line, fence[0]):
                fence = None
            continue
        if not line.strip():
            out.append("")
            blank = True
            continue
        indent = len(line) - len(line.lstrip(" "))
        item, opener = LIST_ITEM.match(line), FENCE.match(line)
        if blank:
            block_is_list = bool(item)
        ends_list = stack and indent < stack[0][0] and (blank or opener or HEADING.match(line))
        if ends_list:
            stack = []
        if item and indent < (stack[-1][0] if stack else 0) + 4:
            if stack and not blank and not block_is_list:
                out.append("")  # Python-Markdown starts an item only where a block starts
            block_is_list = block_is_list or not stack  # a new list: add_blank_lines puts a blank before it
            while stack and indent < stack[-1][0]:
                stack.pop()
            gap = len(item.group(3))
            text_col = indent + len(item.group(2)) + (gap if 0 < gap <= 4 and item.group(4) else 1)
            out.append(" " * (4 * len(stack)) + item.group(2) + " " + item.group(4))
            stack.append((text_col, 4 * (len(stack) + 1)))
        elif stack:
            while blank and len(stack) > 1 and indent < stack[-1][0]:
                stack.pop()
            theirs, ours = stack[-1]
            out.append(shift(line, ours - theirs) if indent >= theirs else " " * ours + line.lstrip(" "))
            if opener:
                fence = (opener.group(2), ours - theirs if indent >= theirs else ours - indent)
        else:
            out.append(line)
            if opener:
                fence = (opener.group(2), 0)
        blank = False
    return out


def starts_block(lines, i):
    """Whether line I starts a block that may interrupt a paragraph on GitHub."""
    line = lines[i]
    item = LIST_ITEM.match(line)
    if item and not item.group(1) and item.group(4) and item.group(2)[:-1] in ("", "1"):
        return True
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    return bool(HEADING.match(line) or FENCE.match(line) or HTML_BLOCK.match(line) or line.startswith(">")
                or ("|" in line and TABLE_RULE.match(nxt) and "-" in nxt))


def paragraph_line(line):
    """Whether LINE, at the top level, is the text of a paragraph (what a block interrupts)."""
    return bool(line.strip()) and not line.startswith(" ") and not LIST_ITEM.match(line) \
        and not HEADING.match(line) and not line.startswith("|")


def add_blank_lines(lines):
    """A blank line wherever GitHub lets a heading, list, table, fence or HTML block
    interrupt a paragraph, and after a fence or heading: Python-Markdown needs them."""
    out, marker = [], None
    for i, line in enumerate(lines):
        if marker:
            out.append(line)
            if fence_close(line, marker):
                marker = None
                if i + 1 < len(lines) and lines[i + 1].strip() and not line.startswith(" "):
                    out.append("")
            continue
        if out and paragraph_line(out[-1]) and starts_block(lines, i) and not out[-1].startswith("<"):
            out.append("")
        out.append(line)
        opener = FENCE.match(line)
        if opener:
            marker = opener.group(2)
        elif HEADING.match(line) and not line.startswith(" ") and i + 1 < len(lines) and lines[i + 1].strip():
            out.append("")
    return out


def python_markdown(lines, slugs, shift_levels=0):
    """GitHub's Markdown LINES in Python-Markdown's dialect, which MkDocs reads: comments
    dropped, lists re-indented, blank lines where GitHub needs none, and each heading
    SHIFT_LEVELS higher with the anchor GitHub gives it (SLUGS: the file's so far) made
    explicit ({#id}, read by attr_list)."""
    out = []
    for line, in_code in outside_fences(add_blank_lines(reindent_lists(drop_comments(lines)))):
        m = None if in_code else HEADING.match(line)
        if m:
            line = "%s %s {#%s}" % ("#" * max(1, len(m.group(1)) - shift_levels), m.group(2), slugs.next(m.group(2)))
        out.append(line)
    return out


def code_spans(text):
    """TEXT as (is_code, piece) pieces: GitHub's code spans (a run of backticks up to the
    next run as long) apart from the rest."""
    pieces, at = [], 0
    for m in re.finditer(r"`+", text):
        if m.start() < at:
            continue
        close = re.compile(r"(?<!`)" + m.group() + r"(?!`)").search(text, m.end())
        if not close:
            continue
        pieces.append((False, text[at:m.start()]))
        pieces.append((True, text[m.start():close.end()]))
        at = close.end()
    pieces.append((False, text[at:]))
    return pieces


# ---------------------------------------------------------------- the site

class Site:
    def __init__(self, root, docs):
        self.root, self.docs = root, docs
        self.registry = read_registry()
        self.copies = set()       # repository files copied into the site as they are
        self.sources = set()      # text files shown on a page of their own (PATH.md)
        self.more = []            # .md files pages link to, still to render
        self.pages_md = {}        # repository .md file -> its page
        self.anchors = {}         # book.md's anchor -> the page (slug) that holds it
        self.profiles = {}        # data/profiles/M/F -> (page, anchor)
        self.exercise_dirs = {}   # exercises/DIR -> its page
        self.files = repository_files()

    # ------------------------------------------------ where a link points

    def place(self, full, frag):
        """The page or file of the site that repository path FULL (and anchor FRAG) is, or
        None (a link to nothing: left as written, for mkdocs --strict to name)."""
        if full == "book.md":
            if not frag:
                return "contents.md", ""
            return (self.anchors[frag] + ".md", frag) if frag in self.anchors else None
        if full in self.pages_md:
            return self.pages_md[full], frag
        path = os.path.join(self.root, full)
        if full.rstrip("/") in self.exercise_dirs:
            return self.exercise_dirs[full.rstrip("/")], frag
        if full in self.profiles:
            return self.profiles[full]
        if not os.path.isfile(path) or (self.files is not None and full not in self.files):
            return None  # no such file, or a build's output (./ch01, build/...): not the course's
        if full.endswith(".md"):
            self.pages_md[full] = full
            self.more.append(full)
            return full, frag
        self.copies.add(full)
        if not full.lower().endswith(IMAGE) and is_text(path):
            self.sources.add(full)
            return site_path(full) + ".md", frag
        return site_path(full), frag

    def target(self, link, src, page):
        """LINK, as written in repository file SRC, made a link from docs page PAGE."""
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", link) or link.startswith("//"):
            return link  # another site, mail
        path, _, frag = link.partition("#")
        full = src if not path else os.path.normpath(os.path.join(os.path.dirname(src), unquote(path)))
        if full.startswith(".."):
            return link
        where = self.place(full, frag)
        if where is None:
            return link
        dest, frag = where
        rel = os.path.relpath(dest, os.path.dirname(page) or ".")
        return rel + ("#" + frag if frag else "")

    def path_link(self, code, page):
        """A link for a code span that names a file or an exercise's folder of the
        repository (`chapters/ch01_baseline/card.c`), or None."""
        inner = code.strip("`").strip()
        if not re.fullmatch(r"\.?[\w+-][\w.+-]*(/[\w.+-]+)+/?", inner):
            return None  # not a path of the repository (./ch01 is a command)
        full = os.path.normpath(inner)
        if not (os.path.isfile(full) or full in self.exercise_dirs):
            return None
        if os.path.isfile(full) and not full.lower().endswith(SHOWN) and not is_text(full):
            return None  # a binary file (a .ppm): nothing a browser shows
        where = self.place(full, "")
        return where and os.path.relpath(where[0], os.path.dirname(page) or ".")

    def inline(self, text, src, page, headings):
        """TEXT's links rewritten for the site, and its code spans that name a file linked to
        the file's page (not in headings, not where the span is a link's text already)."""
        pieces = code_spans(text)
        out = []
        for k, (is_code, piece) in enumerate(pieces):
            if not is_code:
                piece = re.sub(r"\]\(\s*(<[^>]*>|[^\s)]+)((?:\s+\"[^\"]*\")?\s*\))",
                               lambda m: "](" + self.target(m.group(1).strip("<>"), src, page) + m.group(2), piece)
                piece = re.sub(r"\b(href|src)=\"([^\"]*)\"",
                               lambda m: '%s="%s"' % (m.group(1), self.target(m.group(2), src, page)), piece)
                out.append(piece)
                continue
            before = pieces[k - 1][1] if k else ""
            after = pieces[k + 1][1] if k + 1 < len(pieces) else ""
            in_link = before.endswith("[") and after.startswith("](")
            link = None if headings or in_link or "\n" in piece else self.path_link(piece, page)
            out.append("[%s](%s)" % (piece, link) if link else piece)
        return "".join(out)

    def convert(self, lines, src, page, shift_levels=0, slugs=None):
        """Markdown LINES of repository file SRC as page PAGE: Python-Markdown's dialect
        (python_markdown), links rewritten for the site."""
        out, block = [], []

        def flush():
            if block:
                out.extend(self.inline("\n".join(block), src, page, False).split("\n"))
                block.clear()

        for line, in_code in outside_fences(python_markdown(lines, slugs or Slugs(), shift_levels)):
            heading = not in_code and HEADING.match(line)
            if in_code or not line.strip() or heading:
                flush()
                out.append(self.inline(line, src, page, True) if heading else line)
            else:
                block.append(line)
        flush()
        return out

    # ------------------------------------------------ the pages

    def book(self):
        """book.md: the contents page and one page per "## " section; returns the sections
        as (slug, title) in order, and each section's lines in self.sections."""
        lines = read_text("book.md").split("\n")
        slugs, sections, self.sections, self.exercise_anchor = Slugs(), [], {}, {}
        page, preamble = None, []
        for line, in_code in outside_fences(lines):
            m = None if in_code else HEADING.match(line)
            if m:
                slug = slugs.next(m.group(2))
                if len(m.group(1)) == 2 and m.group(2) != "Contents":
                    page = slug
                    sections.append((slug, m.group(2)))
                    self.sections[slug] = []
                self.anchors[slug] = page or "contents"
                if page and len(m.group(1)) == 3 and m.group(2) == "Exercise":
                    self.exercise_anchor[page] = slug
            (self.sections[page] if page else preamble).append(line)
        if not sections:
            raise SiteError("site: book.md has no \"## \" section to make a page of")
        # One counter for all the pages, converted in order: each heading gets the anchor
        # GitHub gives it in the whole of book.md, the one self.anchors has for it.
        slugs = Slugs()
        self.write("contents.md", "The book", self.convert(preamble, "book.md", "contents.md", 0, slugs))
        for slug, title in sections:
            self.write(slug + ".md", title, self.convert(self.sections[slug], "book.md", slug + ".md", 1, slugs))
        return sections

    def markdown_page(self, src, page, title=None):
        """A Markdown file of the repository as a page, its links rewritten."""
        self.write(page, title or first_heading(src) or src, self.convert(read_text(src).split("\n"), src, page))

    def exercise(self, folder, chapter_slug):
        """exercises/FOLDER's page: the book's text of the exercise, each exercise graded from
        the folder (its test, where it runs, its hints, folded) and the files handed out."""
        page = "exercises/%s.md" % folder
        names = [e for e in self.registry.get("EXERCISES", "").split() if self.exercise_folder(e) == folder]
        out = []
        if chapter_slug:
            text, keep = [], False
            for line, in_code in outside_fences(self.sections[chapter_slug]):
                m = None if in_code else HEADING.match(line)
                if m:
                    keep = len(m.group(1)) == 3 and m.group(2) == "Exercise"
                    continue
                if keep:
                    text.append(line)
            title = dict(self.titles).get(chapter_slug, chapter_slug)
            out += ["From [%s](../%s.md#%s):" % (title, chapter_slug, self.exercise_anchor.get(chapter_slug, "")), ""]
            out += self.convert(text, "book.md", page)
        for name in names:
            out += self.exercise_part(name, page)
        out += ["", "## The files handed out {#the-files}", "",
                "As they are in this checkout's `exercises/%s/` (the stub, or your answer so far)." % folder]
        for path in sorted_files("exercises/" + folder):
            where = self.place(path, "")
            if not where or not is_text(path):
                continue  # a build's output, or no text
            out += ["", "### %s" % path, "", "[Raw file](%s) · [its page](%s)" % (
                os.path.relpath(site_path(path), "exercises"), os.path.relpath(where[0], "exercises")), ""]
            out += fenced(read_text(path), language_of(path))
        self.write(page, "%s: the exercise" % chapter_title(folder), out, True)
        return page

    def exercise_part(self, name, page):
        """One exercise's grading and hints, for its folder's page."""
        reg = self.registry
        out = ["", "## make grade EX=%s {#%s}" % (name, name), ""]
        if reg.get("ex_%s_WHAT" % name):
            out += ["What it asks: %s." % reg["ex_%s_WHAT" % name], ""]
        if reg.get("ex_%s_ON" % name):
            out += ["Where it is checked: %s." % reg["ex_%s_ON" % name], ""]
        tests = [t for t in ("tests/test_ex_%s.c" % name, "tests/test_ex_%s.cu" % name) if os.path.isfile(t)]
        for t in tests:
            where = self.place(t, "")
            out += ["Its test: " + ("[`%s`](%s)." % (t, os.path.relpath(where[0], "exercises")) if where else "`%s`." % t), ""]
        hints_file = "tests/hints/%s.txt" % name
        if not os.path.isfile(hints_file):
            return out + ["No hints for this exercise (no `%s`)." % hints_file]
        hints = re.split(r"(?m)^---$\n?", read_text(hints_file).rstrip("\n"))
        out += ["### Hints {#%s-hints}" % name, "",
                "`make hint EX=%s` gives these one at a time, from where to look to nearly the code: "
                "open one only when the one before is not enough." % name, ""]
        for k, hint in enumerate(hints, 1):
            out += hint_html(hint, k, len(hints)) + [""]
        return out

    def exercise_folder(self, name):
        return self.registry.get("ex_%s_DIR" % name) or name

    def profile_pages(self):
        """profiles/chNN.md for each chapter with a report in data/profiles/*/: every
        report of that chapter, verbatim, under its machine. Returns the pages in order."""
        by_chapter = {}
        for machine in sorted_dirs("data/profiles"):
            for path in sorted_files("data/profiles/" + machine):
                m = re.match(r"(ch\d\d)_", os.path.basename(path))
                if m and is_text(path) and (self.files is None or path in self.files):  # not a .ncu-rep
                    by_chapter.setdefault(m.group(1), []).append((machine, path))
        pages = []
        for ch, reports in sorted(by_chapter.items()):
            page = "profiles/%s.md" % ch
            for machine, path in reports:
                self.profiles[path] = (page, anchor_of(path))
            pages.append((ch, page, reports))
        return pages

    def profile_page(self, ch, page, reports):
        out = ["Every Nsight Compute report of %s's GPU stages, as `make profile` saved it in "
               "`data/profiles/<machine>/`, the first lines naming the device, the commit and the command. "
               "The tables that sum them up: [the profiles' evidence page](../evidence/profiles.md)." % ch]
        machine_seen = None
        for machine, path in reports:
            if machine != machine_seen:
                out += ["", "## %s {#%s}" % (machine, machine.lower()), ""]
                machine_seen = machine
            self.copies.add(path)
            out += ["### %s {#%s}" % (os.path.basename(path), anchor_of(path)), "",
                    "[Raw file](%s)" % os.path.relpath(path, "profiles"), ""]
            out += fenced(read_text(path), "text") + [""]
        self.write(page, "%s: the profiles" % chapter_title(ch), out, True)

    def source_page(self, path):
        """PATH.md: the text file PATH, highlighted, beside the raw file."""
        name = os.path.basename(path)
        if os.path.getsize(path) > TEXT_LIMIT:
            text = ["%s is %d KB: [the raw file](%s)." % (path, os.path.getsize(path) // 1024, name)]
        else:
            text = ["[Raw file](%s), `%s` in the repository." % (name, path), ""]
            text += fenced(read_text(path), language_of(path))
        self.write(site_path(path) + ".md", path, text, True)

    def listings(self):
        """The pages that show a file verbatim (source files, profiles), as built."""
        pages = [site_path(p) + ".md" for p in self.sources] + [p for p, _ in self.profiles.values()]
        return set(p[:-3] + ".html" for p in pages)

    def write(self, page, title, lines, heading=False):
        """PAGE with TITLE (the sidebar may call it something shorter), and as its first
        heading where HEADING (a generated page: the others have their own)."""
        if heading:
            lines = ["# %s" % title, ""] + lines
        body = "\n".join(lines).rstrip("\n") + "\n"
        write_text(os.path.join(self.docs, page), "---\ntitle: %s\n---\n\n%s" % (json.dumps(title), body))

    # ------------------------------------------------ all of it

    def generate(self):
        """Every page and file of the site into self.docs; returns the navigation."""
        self.pages_md.update({"README.md": "index.md", "book.md": "contents.md"})
        # the introduction's evidence first, then the chapters', then the rest (the profiles)
        evidence = sorted((f for f in os.listdir("evidence") if f.endswith(".md")) if os.path.isdir("evidence") else [],
                          key=lambda f: (f != "intro.md", not re.match(r"ch\d", f), f))
        for f in evidence:
            self.pages_md["evidence/" + f] = "evidence/" + f
        folders = []
        for name in self.registry.get("EXERCISES", "").split():
            folder = self.exercise_folder(name)
            if folder not in folders and os.path.isdir("exercises/" + folder):
                folders.append(folder)
                self.exercise_dirs["exercises/" + folder] = "exercises/%s.md" % folder
        profiles = self.profile_pages()

        self.titles = self.book()
        chapter_slug = {}
        for slug, title in self.titles:
            m = re.match(r"Chapter (\d+):", title)
            if m:
                chapter_slug["ch" + m.group(1)] = slug
        if os.path.isfile("README.md"):
            self.markdown_page("README.md", "index.md")
        else:
            shutil.copy(os.path.join(self.docs, "contents.md"), os.path.join(self.docs, "index.md"))
        for f in evidence:
            self.markdown_page("evidence/" + f, "evidence/" + f)
        exercise_nav = [(chapter_title(f), self.exercise(f, chapter_slug.get(f))) for f in folders]
        for ch, page, reports in profiles:
            self.profile_page(ch, page, reports)
        done = set()
        while self.more:  # a page may link another .md file, which may link more
            src = self.more.pop(0)
            if src not in done:
                done.add(src)
                self.markdown_page(src, src)
        for path in sorted(self.sources):
            self.source_page(path)
        for path in sorted(self.copies):
            dest = os.path.join(self.docs, site_path(path))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copyfile(path, dest)
        return self.navigation(evidence, exercise_nav, profiles, sorted(done))

    def navigation(self, evidence, exercise_nav, profiles, more):
        """The sidebar: the front page, the book, then each section of generated pages."""
        def evidence_title(f):
            return {"intro.md": "Introduction", "profiles.md": "Profiles and rooflines"}.get(
                f, chapter_title(f[:-3]) if re.match(r"ch\d\d\.md$", f) else f[:-3])
        nav = [("Home", "index.md"),
               ("The book", [("Contents", "contents.md")] + [(t, s + ".md") for s, t in self.titles])]
        if exercise_nav:
            nav.append(("Exercises", exercise_nav))
        if evidence:
            nav.append(("Evidence", [(evidence_title(f), "evidence/" + f) for f in evidence]))
        if profiles:
            nav.append(("Profiles", [(chapter_title(ch), page) for ch, page, _ in profiles]))
        about = [f for f in more if not f.startswith("data/")]  # data/asm/*.md: parts of evidence pages
        if about:
            nav.append(("About the course", [(first_heading(f) or f, f) for f in about]))
        return nav


# ---------------------------------------------------------------- small helpers

def read_registry():
    """The chapter registry (tools/book.py reads it: make -s print-registry), as a dict."""
    try:
        return book.registry_from_make()
    except (OSError, subprocess.CalledProcessError, ValueError):
        raise SiteError("site: cannot read the chapter registry (make -s print-registry): run it from the "
                        "course's root, through make site", 2)


def repository_files():
    """The files of the course (git's: committed, or new and not ignored), or None where this
    is no git checkout (then every file is)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(os.fsdecode(f) for f in out.split(b"\0") if f)


def site_path(path):
    """Where repository file PATH is in the site: MkDocs leaves out names that start with a
    dot (.ci/run), so such a name starts with "_" instead."""
    return re.sub(r"(^|/)\.", r"\1_", path)


def is_text(path):
    with open(path, "rb") as f:
        head = f.read(8192)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start > len(head) - 4 and b"\0" not in head  # cut inside a character at the end
    return b"\0" not in head


def language_of(path):
    name = os.path.basename(path)
    if name in ("Makefile", "GNUmakefile"):
        return "make"
    return LANGUAGE.get(os.path.splitext(name)[1], "text")


def fenced(text, language):
    """TEXT as a fenced code block, its fence longer than any run of backticks in it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language] + text.rstrip("\n").split("\n") + [fence]


def hint_html(hint, k, total):
    """Hint K of TOTAL as a folded block. Hints are plain text for the terminal (make hint
    prints them): prose becomes paragraphs, indented lines (commands, lists) stay as written."""
    parts, prose, code = [], [], []

    def flush():
        if prose:
            parts.append("<p>%s</p>" % html.escape(" ".join(prose)))
            prose.clear()
        if code:
            parts.append("<pre><code>%s</code></pre>" % html.escape("\n".join(code)))
            code.clear()

    for line in hint.strip("\n").split("\n"):
        if line.startswith("    ") or line.startswith("\t"):
            if prose:
                flush()
            code.append(line[4:] if line.startswith("    ") else line[1:])
        elif not line.strip():
            flush()
        else:
            if code:
                flush()
            prose.append(line.strip())
    flush()
    label = ("where to look", "the idea", "nearly the code")[k - 1] if total == 3 else "hint %d" % k
    return ['<details class="tip"><summary>Hint %d of %d: %s</summary>%s</details>' % (k, total, label, "".join(parts))]


def anchor_of(path):
    """A report's anchor on its profiles page: its machine and file name."""
    machine, name = path.split("/")[-2:]
    return re.sub(r"[^a-z0-9_-]", "-", (machine + "-" + name).lower())


def chapter_title(name):
    m = re.fullmatch(r"ch(\d\d)\w*", name)
    return "Chapter %s" % m.group(1) if m else name


def first_heading(path):
    for line, fenced_line in outside_fences(read_text(path).split("\n")):
        m = None if fenced_line else HEADING.match(line)
        if m:
            return m.group(2)
    return None


def sorted_files(folder):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f))) \
        if os.path.isdir(folder) else []


def sorted_dirs(folder):
    return sorted(f for f in os.listdir(folder) if os.path.isdir(os.path.join(folder, f))) \
        if os.path.isdir(folder) else []


def yaml_nav(nav, depth=1):
    """The navigation as YAML (each title a JSON string, which YAML reads as written)."""
    out = []
    for title, item in nav:
        if isinstance(item, list):
            out.append("%s- %s:" % ("  " * depth, json.dumps(title)))
            out += yaml_nav(item, depth + 1)
        else:
            out.append("%s- %s: %s" % ("  " * depth, json.dumps(title), json.dumps(item)))
    return out


def mkdocs_yml(title, nav):
    """The MkDocs configuration: Material, its sidebar, search, per-page contents, code
    highlighted by Pygments, and no fonts or scripts fetched from other sites."""
    return "\n".join([
        "# Generated by tools/site.py (make site): edit that, not this.",
        "site_name: %s" % json.dumps(title),
        "docs_dir: docs",
        "use_directory_urls: false  # pages as NAME.html: the site opens from the disk too",
        "theme:",
        "  name: material",
        "  font: false  # the system's fonts: nothing fetched from Google",
        "  features: [navigation.sections, navigation.top, navigation.tracking, search.highlight, search.suggest]",
        "  palette: {scheme: default, primary: indigo, accent: indigo}",
        "plugins: [search]",
        "extra_css: [site.css]",
        "markdown_extensions:",
        "  - toc: {permalink: true, toc_depth: 3}",
        "  - attr_list",
        "  - tables",
        "  - sane_lists  # a numbered list starts at its first number, and - and 1. lists do not merge",
        "  - admonition",
        "  - pymdownx.details",
        "  - pymdownx.highlight",
        "  - pymdownx.superfences",
        "  - pymdownx.magiclink  # bare addresses are links, as on GitHub",
        "  - pymdownx.tilde: {subscript: false}  # ~~struck~~, as on GitHub",
        "nav:",
    ] + yaml_nav(nav)) + "\n"


SITE_CSS = """\
/* make site (tools/site.py): what the Material theme leaves to the page. */
/* Prose at about 72 characters a line (the theme's column holds 86); tables and code keep the column. */
.md-typeset > p, .md-typeset > ul, .md-typeset > ol, .md-typeset > blockquote, .md-typeset > details { max-width: 36em; }
.md-typeset img { max-width: 100%; height: auto; }
.md-typeset table:not([class]) { font-size: 0.68rem; }
.md-typeset details.tip > summary { font-weight: 600; }
"""


# ---------------------------------------------------------------- building

def check_tools():
    if not shutil.which("mkdocs"):
        raise SiteError("site: mkdocs is not installed: %s, then make site" % INSTALL, 2)


def run_mkdocs(project, site_dir):
    """mkdocs build --strict of PROJECT into SITE_DIR; returns its warnings (none: strict)."""
    start = time.time()
    proc = subprocess.run(["mkdocs", "build", "--strict", "--clean", "-f", os.path.join(project, "mkdocs.yml"),
                           "--site-dir", site_dir], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          encoding="utf-8", errors="replace")
    said = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout)  # mkdocs colours its levels
    if "Unrecognised theme name" in said or "Unrecognized theme" in said:
        raise SiteError("site: the Material theme is not installed: apt-get install mkdocs-material, then make site", 2)
    if "Failed to load extension" in said and "pymdownx" in said:
        raise SiteError("site: pymdownx is not installed: apt-get install python3-pymdownx, then make site", 2)
    warnings = [l for l in said.split("\n") if l.startswith(("WARNING", "ERROR"))]
    if proc.returncode != 0:
        raise SiteError("site: mkdocs build --strict failed (site not installed):\n" +
                        "\n".join(warnings or said.strip().split("\n")[-20:]))
    return warnings, time.time() - start


def trim_search_index(index, listings):
    """The search index with the pages that show a file verbatim (LISTINGS) by their titles
    and headings only: their text (code, Nsight Compute's tables) would be most of the
    index, which every page fetches and indexes again in the reader's browser."""
    with open(index, encoding="utf-8") as f:
        data = json.load(f)
    for doc in data.get("docs", []):
        if doc.get("location", "").split("#")[0] in listings:
            doc["text"] = ""
    with open(index + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"))
    os.replace(index + ".tmp", index)


def replace(tmp, final):
    """TMP renamed to FINAL; the old FINAL goes only once the new one is in hand."""
    old = final + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.lexists(final):
        os.rename(final, old)
    os.rename(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(__doc__.rstrip())
        return 0
    if len(argv) > 2:
        raise SiteError("usage: python3 tools/site.py [OUT]   (make site)", 2)
    out = argv[1].rstrip("/") if len(argv) > 1 else "build/site"
    if not os.path.isfile("book.md"):
        raise SiteError("site: no book.md here: run it from the repository's root (make site)", 2)
    check_tools()
    out = os.path.abspath(out)
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    src_tmp = tempfile.mkdtemp(prefix=".site-src.", dir=parent)
    site_tmp = tempfile.mkdtemp(prefix=".site.", dir=parent)
    try:
        site = Site(os.getcwd(), os.path.join(src_tmp, "docs"))
        nav = site.generate()
        write_text(os.path.join(src_tmp, "docs", "site.css"), SITE_CSS)
        title = re.sub(r"^# ", "", read_text("book.md").split("\n", 1)[0]) or "The course"
        write_text(os.path.join(src_tmp, "mkdocs.yml"), mkdocs_yml(title, nav))
        warnings, seconds = run_mkdocs(src_tmp, site_tmp)
        index = os.path.join(site_tmp, "search", "search_index.json")
        if not os.path.isfile(index) or os.path.getsize(index) == 0:
            raise SiteError("site: mkdocs wrote no search index (search/search_index.json): is its search plugin there?")
        trim_search_index(index, site.listings())
        os.chmod(site_tmp, 0o755)
        os.chmod(src_tmp, 0o755)
        replace(src_tmp, out + "-src")
        replace(site_tmp, out)
    finally:
        shutil.rmtree(src_tmp, ignore_errors=True)
        shutil.rmtree(site_tmp, ignore_errors=True)
    pages = sum(f.endswith(".html") for _, _, files in os.walk(out) for f in files)
    rel = os.path.relpath(out)
    rel = out if rel.startswith("..") else rel
    for w in warnings:
        print(w)
    print("site: %d pages in %s/ in %.0f s of mkdocs (open %s/index.html; the MkDocs project: %s-src/)"
          % (pages, rel, seconds, rel, rel))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except SiteError as e:
        print(str(e), file=sys.stderr)
        sys.exit(e.code)
    except KeyboardInterrupt:
        sys.exit(130)
