#!/usr/bin/env bash
# make site reads GitHub's Markdown (book.md, README.md, evidence/) and MkDocs
# renders Python-Markdown: tools/site.py's python_markdown() translates what
# differs. Here a page of each construct the two read differently, translated
# and built by mkdocs --strict with the site's own mkdocs.yml, must come out as
# GitHub shows it: a list straight after a paragraph, lists nested 2 and 3
# spaces in with a fence inside, a numbered list from 3, a table straight after
# a paragraph, make book's markers (a "|" inside one in a table cell too)
# dropped, a comment inside code kept, a fence straight after a paragraph,
# headings with GitHub's anchors (-1 on a repeat), ~~struck~~ text and a bare
# address as a link. No browser: the HTML is read as mkdocs wrote it.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v mkdocs > /dev/null || { echo "mkdocs is not installed (apt-get install mkdocs mkdocs-material)"; exit 77; }
    py=$(sed -n '1s/^#! *//p' "$(command -v mkdocs)")
    [ -d /usr/share/mkdocs/themes/material ] || { [ -n "$py" ] && $py -c 'import material' 2> /dev/null; } ||
        { echo "the Material theme is not installed (apt-get install mkdocs-material)"; exit 77; }
    command -v python3 > /dev/null || { echo "no python3: tools/site.py needs it"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
root=$(cd "$1" && pwd -P) || exit 1
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/project/docs" || exit 1
cat > "$scratch/page.md" <<'MD'
# Constructs

## Chapter 01: the baseline

A paragraph, then a list with no blank line:
- first
- second

Nested as GitHub nests them:

- outer
  - inner one
  - inner two
- outer again

1. step one
   continued, three spaces in
   ```c
   int fenced_in_a_list;
   ```
   - a bullet under step one
2. step two

A paragraph, then:

3. three
4. four

A paragraph, then a table with no blank line:
| stage | time |
|---|---:|
| loop | <!-- n:{ch05/loop/ms}|time -->5.26 ms<!-- /n --> |

Measured <!-- n:{ch01/baseline/ms}|time -->4.20 s<!-- /n --> in all.
<!-- results:ch01 -->
Kept: `<!-- not a marker, code -->`.
A paragraph, then a fence:
```c
int after_a_paragraph;
```

### Exercise

### Exercise

~~struck~~ and https://example.org/ as a link.
MD
(cd "$root" && python3 - "$scratch" <<'PY') || fail "tools/site.py's translation failed"
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("site_tool", "tools/site.py")
site = importlib.util.module_from_spec(spec)
spec.loader.exec_module(site)
scratch = sys.argv[1]
lines = open(scratch + "/page.md", encoding="utf-8").read().split("\n")
with open(scratch + "/project/docs/index.md", "w", encoding="utf-8") as f:
    f.write("\n".join(site.python_markdown(lines, site.Slugs())))
with open(scratch + "/project/docs/site.css", "w") as f:
    f.write(site.SITE_CSS)
with open(scratch + "/project/mkdocs.yml", "w") as f:
    f.write(site.mkdocs_yml("constructs", [("Home", "index.md")]))
PY
mkdocs build --strict -f "$scratch/project/mkdocs.yml" --site-dir "$scratch/site" > "$scratch/mkdocs.log" 2>&1 ||
    { cat "$scratch/mkdocs.log"; fail "mkdocs build --strict failed on the translated page"; }
python3 - "$scratch/site/index.html" <<'PY' || fail "tools/site.py's translation to Python-Markdown (above)"
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
html = page[page.index("<article"):page.index("</article>")]
flat = re.sub(r"\s+", " ", re.sub(r'<a class="headerlink"[^>]*>.*?</a>', "", html))
want = {
    "a list straight after a paragraph": r"<p>A paragraph, then a list with no blank line:</p> <ul> <li>first</li> <li>second</li> </ul>",
    "a list nested 2 spaces in": r"<li>outer ?<ul> <li>inner one</li> <li>inner two</li> </ul> </li> <li>outer again</li>",
    "a fence and a list in an item 3 spaces in": r"<li>step one continued, three spaces in <div class=\"highlight\"><pre>(?:(?!</pre>).)*fenced_in_a_list(?:(?!</pre>).)*</pre></div> ?<ul> <li>a bullet under step one</li> </ul> </li> <li>step two</li> </ol>",
    "a numbered list from 3": r"<ol start=\"3\"> <li>three</li>",
    "a table straight after a paragraph, its cell's marker (with a |) dropped": r"<p>A paragraph, then a table with no blank line:</p> <table> <thead> <tr> <th>stage</th> <th (?:align=\"right\"|style=\"text-align: right;\")>time</th> </tr> </thead> <tbody> <tr> <td>loop</td> <td (?:align=\"right\"|style=\"text-align: right;\")>5.26 ms</td>",
    "a marker in prose dropped": r"<p>Measured 4.20 s in all.</p>",
    "a comment in code kept": r"<p>Kept: <code>&lt;!-- not a marker, code --&gt;</code>.",
    "a fence straight after a paragraph": r"A paragraph, then a fence:</p> <div class=\"highlight\"><pre>(?:(?!</pre>).)*after_a_paragraph",
    "GitHub's anchors": r"<h1 id=\"constructs\">Constructs</h1> <h2 id=\"chapter-01-the-baseline\">Chapter 01: the baseline</h2>",
    "GitHub's -1 on a repeated heading": r"<h3 id=\"exercise\">Exercise</h3> <h3 id=\"exercise-1\">Exercise</h3>",
    "struck text and a bare address": r"<del>struck</del> and <a href=\"https://example.org/\">https://example.org/</a> as a link",
}
bad = [what for what, pattern in want.items() if not re.search(pattern, flat)]
for what in bad:
    print("not rendered as GitHub renders it: " + what)
for mark in ("<!--", "-->", "**", "```", "{#"):
    text = re.sub(r"<code>.*?</code>", "", flat)
    if mark in re.sub(r"<[^>]+>", "", text).replace("&lt;", "<").replace("&gt;", ">"):
        bad.append(mark)
        print("shown as text: " + mark)
if bad:
    print("the page as mkdocs wrote it:\n" + flat[:3000])
    sys.exit(1)
print("%d constructs of GitHub's Markdown rendered by mkdocs as GitHub renders them" % len(want))
PY
