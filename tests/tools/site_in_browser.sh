#!/usr/bin/env bash
# make site's pages opened in a real browser (headless Chromium, driven over its
# DevTools pipe by a small Python program below), the site served on 127.0.0.1
# as a reader's web server would (Material's search runs only over http). It
# builds the site into a scratch folder (tools/site.py), then checks:
#  - every page loads (its scripts off: the pages as built), with the sidebar,
#    and the contents beside it where it has headings;
#  - every image is decoded (a missing file, or a chart Chromium cannot draw,
#    has no natural width), and every chart of data/plots is shown;
#  - every link to a page of the site reaches an element with its anchor, every
#    other link of the site names a file the server has;
#  - no page shows its Markdown or HTML as text (**, ](, ```, {#, <!--, <td ...
#    outside code): the text renders as written;
#  - code is highlighted (Pygments' spans), and every code block of book.md is
#    on a page line for line; every exercise's hints are on its page, every
#    profile of data/profiles on a profiles page;
#  - search/search_index.json is there, not empty, and names only pages and
#    anchors that are there; typing a word into the front page's search box
#    lists pages, with the pages' scripts on and nothing on the console.
# The checker itself is first shown a made-up site with a broken image, link
# and anchor, Markdown left as text, a search entry for no page, a front page
# without a search box and a script error, and must report each of them.
set -u
browser() { command -v chromium || command -v chromium-browser || command -v google-chrome; }
# material: Debian's theme folder, or the theme as a Python package of mkdocs's own Python
material() {
    [ -d /usr/share/mkdocs/themes/material ] && return 0
    local py
    py=$(sed -n '1s/^#! *//p' "$(command -v mkdocs)")
    [ -n "$py" ] && $py -c 'import material' 2> /dev/null
}
if [ "${1:-}" = --can-run ]; then
    command -v mkdocs > /dev/null || { echo "mkdocs is not installed (apt-get install mkdocs mkdocs-material): no site to open"; exit 77; }
    material || { echo "the Material theme is not installed (apt-get install mkdocs-material): no site to open"; exit 77; }
    command -v python3 > /dev/null || { echo "no python3: tools/site.py and the browser's driver need it"; exit 77; }
    browser > /dev/null || { echo "no headless browser (apt-get install chromium): the pages are not opened"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
root=$(cd "$1" && pwd -P) || exit 1
scratch=$(mktemp -d) || exit 1
server=
trap '[ -n "$server" ] && kill "$server" 2> /dev/null; rm -rf "$scratch"' EXIT
chrome=$(browser) || fail "no browser"

# 1. The site, built into the scratch folder (the checkout's build/ is left alone).
start=$SECONDS
(cd "$root" && python3 tools/site.py "$scratch/site") > "$scratch/site.log" 2>&1 ||
    { cat "$scratch/site.log"; fail "tools/site.py failed (its output above)"; }
tail -n 1 "$scratch/site.log"
echo "built in $((SECONDS - start)) s"
site=$scratch/site

# 2. What the files say must be there: every hint, every profile.
hints=0
for f in "$root"/tests/hints/*.txt; do hints=$((hints + $(grep -c '^---$' "$f") + 1)); done
shown=$(cat "$site"/exercises/*.html | grep -o '<summary>Hint [0-9]* of' | wc -l)
[ "$shown" -eq "$hints" ] || fail "the exercises' pages show $shown hints; tests/hints/ has $hints"
for f in "$root"/data/profiles/*/*; do
    [ -f "$f" ] || continue
    machine=$(basename "$(dirname "$f")") name=$(basename "$f")
    ch=${name%%_*}
    anchor=$(printf '%s-%s' "$machine" "$name" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9_-]/-/g')
    grep -q "id=\"$anchor\"" "$site/profiles/$ch.html" 2> /dev/null ||
        fail "data/profiles/$machine/$name is not on profiles/$ch.html (no id $anchor)"
done

# Every code block of book.md is on a page as written, line for line.
python3 - "$root/book.md" "$site" <<'PY' || fail "book.md's code blocks are not on the site's pages as written (above)"
import glob, html, re, sys
book, site = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
blocks = re.findall(r"(?ms)^(`{3,})[^\n`]*\n(.*?)\n\1[ \t]*$", book)
shown = set()
for page in glob.glob(site + "/*.html"):
    for pre in re.findall(r"(?s)<pre[^>]*>(.*?)</pre>", open(page, encoding="utf-8").read()):
        shown.add(html.unescape(re.sub(r"<[^>]+>", "", pre)).strip("\n"))
# (Python-Markdown, as MkDocs runs it, writes a tab as spaces to the next column of 4)
missing = [code for _, code in blocks if code.strip("\n").expandtabs(4) not in shown]
for code in missing[:5]:
    print("not on any page as written:\n" + code[:300])
sys.exit(1 if missing or not blocks else 0)
PY

# 3. A made-up site with each fault once, for the checker.
bad=$scratch/bad
mkdir -p "$bad/search" || exit 1
printf '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>' > "$bad/ok.svg"
page() { # NAME BODY: a page shaped as Material's are: sidebar, contents, article
    printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s</title></head><body>
<nav class="md-nav md-nav--primary"><a href="a.html">a</a> <a href="b.html">b</a></nav>
<nav class="md-nav md-nav--secondary"><a href="#top">top</a></nav><article>%s</article></body></html>\n' "$1" "$2" > "$bad/$1.html"
}
page a '<h1 id="top">a</h1><h2 id="here">here</h2><img src="ok.svg" alt="ok"><img src="gone.png" alt="gone">
<a href="b.html#top">fine</a> <a href="b.html#nowhere">no anchor</a> <a href="c.html">no page</a>
<a href="ok.svg">a file</a> <a href="https://example.org/">elsewhere</a> <p>made **bold** here</p>
<div class="highlight"><pre><span class="k">int</span></pre></div><code>**in code: fine**</code>'
page b '<h1 id="top">b</h1><p>fine</p>'
page index '<h1 id="top">no search box</h1><script>no_such_function();</script>'
echo '{"docs":[{"location":"a.html","title":"a","text":""},{"location":"gone.html","title":"gone","text":""}]}' > "$bad/search/search_index.json"
charts=$(cd "$root" && printf '%s\n' data/plots/*.svg)

# 4. Served on a free port of 127.0.0.1, from the scratch folder (bad/ and site/ in it).
python3 -u -m http.server --bind 127.0.0.1 0 --directory "$scratch" > "$scratch/http.log" 2>&1 &
server=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/.* port \([0-9][0-9]*\).*/\1/p' "$scratch/http.log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$scratch/http.log"; fail "python3 -m http.server did not start"; }

# 5. The browser: the checker (JavaScript) evaluated in each site by the driver (Python).
cat > "$scratch/check.js" <<'JS'
// check(pages, charts): what a page of the site that has this script finds wrong in PAGES.
async function check(pages, charts) {
  const site = new URL(".", location.href).href;
  const problems = [], ids = {}, links = [], drawn = new Set();
  let highlighted = 0, images = 0, docs = 0;
  const marks = ["**", "](", "```", "{#", "<!--", "-->", "|---", "<td", "<img", "<br", "<sub", "<a "];
  const frame = document.createElement("iframe");
  frame.sandbox = "allow-same-origin"; // the pages as built: their scripts do not run
  document.body.appendChild(frame);
  for (const page of pages) {
    await new Promise((ok) => { frame.onload = ok; frame.src = page; });
    const d = frame.contentDocument, article = d && d.querySelector("article");
    if (!article) { problems.push(page + ": did not load, or has no article"); continue; }
    ids[page] = new Set(Array.from(d.querySelectorAll("[id]"), (e) => e.id));
    for (const img of d.images) {
      images++;
      if (!img.complete || img.naturalWidth === 0) problems.push(page + ": broken image " + img.getAttribute("src"));
      else drawn.add(img.src);
    }
    for (const a of d.querySelectorAll("a[href]")) links.push([page, a.getAttribute("href"), a.href]);
    if (!d.querySelector(".md-nav--primary a[href]")) problems.push(page + ": no sidebar");
    if (article.querySelector("h2") && !d.querySelector(".md-nav--secondary a[href]"))
      problems.push(page + ": headings, but no contents beside them");
    if (article.querySelector(".highlight span[class]")) highlighted++;
    const text = article.cloneNode(true);
    for (const e of text.querySelectorAll("pre, code, script, style")) e.remove();
    const t = text.textContent;
    for (const m of marks) {
      const at = t.indexOf(m);
      if (at >= 0) problems.push(page + ": shows " + m + " as text: " + JSON.stringify(t.slice(Math.max(0, at - 40), at + 40)));
    }
  }
  const known = {};
  async function exists(url) { // a file of the site: the server has it
    if (!(url in known)) known[url] = await fetch(url, { method: "HEAD" }).then((r) => r.ok, () => false);
    return known[url];
  }
  function resolve(url) { // [page of the site or null, anchor]
    const u = new URL(url), anchor = decodeURIComponent(u.hash.slice(1));
    u.hash = "";
    return [u.href.startsWith(site) ? decodeURIComponent(u.href.slice(site.length)) : null, anchor, u.href];
  }
  for (const [page, raw, url] of links) {
    if (new URL(url).origin !== location.origin) continue; // another site: not followed
    const [target, anchor, href] = resolve(url);
    if (target === null) problems.push(page + ": link outside the site " + raw);
    else if (target in ids) {
      if (anchor && !ids[target].has(anchor)) problems.push(page + ": link " + raw + ": no id " + anchor + " in " + target);
    } else if (!(await exists(href))) problems.push(page + ": broken link " + raw);
  }
  for (const chart of charts) if (!drawn.has(new URL(chart, site).href)) problems.push(chart + ": no page shows this chart");
  const index = await fetch(site + "search/search_index.json").then((r) => (r.ok ? r.json() : null), () => null);
  if (!index || !Array.isArray(index.docs) || index.docs.length === 0) problems.push("search/search_index.json: missing or empty");
  else for (const doc of index.docs) {
    docs++;
    const [target, anchor] = resolve(new URL(doc.location, site).href);
    if (!(target in ids)) problems.push("search/search_index.json: names " + doc.location + ", no page of the site");
    else if (anchor && !ids[target].has(anchor)) problems.push("search/search_index.json: names " + doc.location + ": no such id");
  }
  return { pages: Object.keys(ids).length, links: links.length, images, highlighted, docs, problems };
}
// search(word): the front page's search box (its scripts on), as a reader types WORD.
async function search(word) {
  const frame = document.createElement("iframe");
  document.body.appendChild(frame);
  await new Promise((ok) => { frame.onload = ok; frame.src = "index.html"; });
  const d = frame.contentDocument, input = d.querySelector('[data-md-component="search-query"]');
  if (!input) return { problem: "no search box on index.html" };
  for (let i = 0; i < 300; i++) { // the index is fetched and built in a worker: up to a minute
    input.focus();
    input.value = word;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new KeyboardEvent("keyup", { bubbles: true, key: word.slice(-1) }));
    const found = d.querySelectorAll(".md-search-result__item a[href]");
    if (found.length) {
      const first = found[0].href, ok = await fetch(first, { method: "HEAD" }).then((r) => r.ok, () => false);
      return ok ? { results: found.length, first } : { problem: "the first result of " + word + ", " + first + ", is not there" };
    }
    await new Promise((ok) => setTimeout(ok, 200));
  }
  return { problem: "searching " + word + " found nothing in a minute" };
}
JS
cat > "$scratch/drive.py" <<'PY'
"""Chromium over --remote-debugging-pipe (fd 3: its commands; fd 4: its answers, each JSON
ending in a NUL): opens each site's harness page, evaluates check.js's functions there and
prints one JSON report per site, with the console messages and errors seen meanwhile."""
import fcntl, json, os, select, subprocess, sys, time

chrome, port, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
jobs = json.loads(sys.argv[4])  # [[site folder, pages, charts, search word or ""], ...]
to_chrome, from_us = os.pipe()
from_chrome, to_us = os.pipe()
high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome, to_us)]  # out of the way of 3 and 4


def child_fds():
    os.dup2(high[0], 3)
    os.dup2(high[1], 4)


proc = subprocess.Popen([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--remote-debugging-pipe", "--user-data-dir=" + scratch + "/profile", "about:blank"],
                        pass_fds=(3, 4), preexec_fn=child_fds, stdout=subprocess.DEVNULL,
                        stderr=open(scratch + "/chrome.log", "w"))
for fd in [to_chrome, to_us] + high:
    os.close(fd)
buf, events, next_id = b"", [], [0]


def receive(deadline):
    global buf
    while b"\0" not in buf:
        left = deadline - time.time()
        if left <= 0 or not select.select([from_chrome], [], [], left)[0]:
            raise TimeoutError("Chromium did not answer in time")
        chunk = os.read(from_chrome, 1 << 20)
        if not chunk:
            raise EOFError("Chromium closed its pipe (its log: chrome.log)")
        buf += chunk
    msg, _, buf = buf.partition(b"\0")
    return json.loads(msg)


def call(method, params=None, session=None, seconds=60):
    next_id[0] += 1
    msg = {"id": next_id[0], "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    os.write(from_us, json.dumps(msg).encode() + b"\0")
    deadline = time.time() + seconds
    while True:
        m = receive(deadline)
        if m.get("id") == next_id[0]:
            if "error" in m:
                raise RuntimeError("%s: %s" % (method, m["error"]))
            return m.get("result", {})
        events.append(m)


def wait_event(name, seconds=60):
    deadline = time.time() + seconds
    while True:
        for i, m in enumerate(events):
            if m.get("method") == name:
                return events.pop(i)
        events.append(receive(deadline))


def console():
    """The console messages and errors seen so far (errors of pages, failed loads)."""
    said = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.exceptionThrown":
            said.append("exception: " + p["exceptionDetails"].get("exception", {}).get("description", p["exceptionDetails"].get("text", "")))
        elif m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            said.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif m.get("method") == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning") \
                and "frame is sandboxed" not in p["entry"].get("text", ""):  # check.js's frame: scripts off, as it must
            said.append("%s: %s %s" % (p["entry"]["level"], p["entry"].get("text", ""), p["entry"].get("url", "")))
    events.clear()
    return said


try:
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        call(domain + ".enable", session=session)
    code = open(scratch + "/check.js").read()
    for folder, pages, charts, word in jobs:
        call("Page.navigate", {"url": "http://127.0.0.1:%s/%s/_harness.html" % (port, folder)}, session)
        wait_event("Page.loadEventFired")
        console()
        expr = "%s\n(async () => { const r = await check(%s, %s); r.search = %s; return r; })()" % (
            code, json.dumps(pages), json.dumps(charts), "await search(%s)" % json.dumps(word) if word else "null")
        res = call("Runtime.evaluate", {"expression": expr, "awaitPromise": True, "returnByValue": True}, session, 240)
        if "exceptionDetails" in res:
            raise RuntimeError("check.js: " + json.dumps(res["exceptionDetails"])[:600])
        report = res["result"]["value"]
        report["console"] = console()
        print(json.dumps({"site": folder, **report}))
    call("Browser.close", seconds=10)
finally:
    proc.kill()
    proc.wait()
PY
pages_of() { (cd "$1" && find . -name '*.html' ! -name _harness.html ! -name 404.html | sed 's|^\./||' | sort | python3 -c 'import json, sys; print(json.dumps(sys.stdin.read().split()))'); }
for d in "$bad" "$site"; do
    printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>harness</title></head><body></body></html>\n' > "$d/_harness.html"
done
jobs=$(python3 -c 'import json, sys; print(json.dumps([["bad", json.loads(sys.argv[1]), [], "x"], ["site", json.loads(sys.argv[2]), sys.argv[3].split(), "occupancy"]]))' \
    "$(pages_of "$bad")" "$(pages_of "$site")" "$charts")
start=$SECONDS
timeout 280 python3 "$scratch/drive.py" "$chrome" "$port" "$scratch" "$jobs" > "$scratch/reports" 2> "$scratch/drive.log" ||
    { tail -n 20 "$scratch/drive.log" "$scratch/chrome.log"; fail "the browser's driver failed (its log above)"; }
echo "Chromium took $((SECONDS - start)) s"

# 6. The verdicts: the checker finds each fault of the made-up site, and none in the site.
python3 - "$scratch/reports" <<'PY' || fail "see above"
import json, sys
reports = {r["site"]: r for r in map(json.loads, open(sys.argv[1]))}
bad, site = reports["bad"], reports["site"]
want = ["a.html: broken image gone.png", "a.html: link b.html#nowhere: no id nowhere in b.html",
        "a.html: broken link c.html", "search/search_index.json: names gone.html, no page of the site"]
missed = [w for w in want if w not in bad["problems"]]
marks = [p for p in bad["problems"] if p.startswith("a.html: shows ** as text")]
if missed or len(marks) != 1 or len(bad["problems"]) != len(want) + 1:
    print("the checker missed %s, or said more: %s" % (missed, bad["problems"]))
    sys.exit(1)
if (bad["search"] or {}).get("problem") != "no search box on index.html" or \
        not any("no_such_function" in c for c in bad["console"]):
    print("the checker missed the made-up front page's missing search box or its script error: %s %s"
          % (bad["search"], bad["console"]))
    sys.exit(1)
for p in site["problems"][:40]:
    print("PROBLEM " + p)
for c in site["console"][:20]:
    print("CONSOLE " + c)
s = site["search"] or {}
if s.get("problem"):
    print("PROBLEM " + s["problem"])
if site["highlighted"] == 0:
    print("PROBLEM no page has highlighted code")
if site["problems"] or site["console"] or s.get("problem") or site["highlighted"] == 0:
    sys.exit(1)
print("Chromium opened all %d pages: %d images drawn, %d links and their anchors found, every chart shown, "
      "code highlighted on %d pages, no Markdown shown as text; the search index's %d entries name pages "
      "and anchors that are there; searching \"occupancy\" lists %d pages; no console message"
      % (site["pages"], site["images"], site["links"], site["highlighted"], site["docs"], s["results"]))
PY
