#!/usr/bin/env bash
# make html's site opened in a real browser (headless Chromium): every page
# loads, every image is decoded (a missing file, or a chart Chromium cannot
# draw, has no natural width), every link to a page of the site reaches an
# element with its anchor, every other link of the site names a file that
# loads, and no page writes to the console (the pages have no scripts: any
# console line is an error). One Chromium run: a harness page in the site
# opens each page in turn in a frame (--allow-file-access-from-files lets it
# read them) and writes what it found into its own DOM, which --dump-dom prints;
# Chromium's console log (--enable-logging=stderr) catches the rest.
# The harness itself is first shown a site with a broken image, link and
# anchor, and a script error, and must report each of them.
set -u
browser() { command -v chromium || command -v chromium-browser || command -v google-chrome; }
if [ "${1:-}" = --can-run ]; then
    command -v pandoc > /dev/null || { echo "pandoc is not installed (apt-get install pandoc): no site to open"; exit 77; }
    browser > /dev/null || { echo "no headless browser (apt-get install chromium): the pages are not opened"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
root=$1
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
chrome=$(browser) || fail "no browser"

# harness_page SITE: SITE/_harness.html, which checks the pages named in it.
harness_page() {
    local pages
    pages=$(cd "$1" && find . -name '*.html' ! -name _harness.html | sed 's|^\./||' | sort | sed 's/.*/"&",/')
    cat > "$1/_harness.html" <<HTML
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>harness</title></head><body><pre id="out"></pre>
<script>
const pages = [${pages}];
const ids = {}, links = [], problems = [];
const frame = document.createElement("iframe");
document.body.appendChild(frame);
const site = new URL(".", location.href).href;
const say = (s) => { document.getElementById("out").textContent += s + "\n"; };
function exists(url) { // a file of the site: read it (file:// has no HEAD)
  try { const r = new XMLHttpRequest(); r.open("GET", url, false); r.send(); return r.responseText.length > 0 || r.status === 0; }
  catch (e) { return false; }
}
function inspect(page) {
  const d = frame.contentDocument;
  if (!d || !d.body || d.body.children.length === 0) { problems.push(page + ": did not load"); return; }
  ids[page] = new Set(Array.from(d.querySelectorAll("[id]"), (e) => e.id));
  for (const img of d.images)
    if (!img.complete || img.naturalWidth === 0) problems.push(page + ": broken image " + img.getAttribute("src"));
  for (const a of d.querySelectorAll("a[href]")) links.push([page, a.getAttribute("href"), a.href]);
}
function finish() {
  for (const [page, raw, url] of links) {
    if (!url.startsWith("file:")) continue; // another site: not followed
    const u = new URL(url), anchor = decodeURIComponent(u.hash.slice(1)); u.hash = "";
    const target = u.href.startsWith(site) ? decodeURIComponent(u.href.slice(site.length)) : null;
    if (target === null) { problems.push(page + ": link outside the site " + raw); continue; }
    if (target in ids) {
      if (anchor && !ids[target].has(anchor)) problems.push(page + ": link " + raw + ": no id " + anchor + " in " + target);
    } else if (!exists(u.href)) problems.push(page + ": broken link " + raw);
  }
  for (const p of problems) say("PROBLEM " + p);
  say("DONE " + Object.keys(ids).length + " pages, " + links.length + " links");
}
let i = 0;
function next() {
  if (i === pages.length) { finish(); return; }
  frame.onload = () => { inspect(pages[i]); i++; setTimeout(next, 0); };
  frame.src = pages[i];
}
next();
</script></body></html>
HTML
}

# open SITE: runs the harness; its report in SITE.out, the console in SITE.log.
open_site() {
    harness_page "$1"
    # (--virtual-time-budget: the DOM is printed once the page and its frames are idle)
    timeout 240 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$1.profile" \
        --allow-file-access-from-files --enable-logging=stderr --v=0 --virtual-time-budget=600000 \
        --dump-dom "file://$1/_harness.html" > "$1.dom" 2> "$1.log"
    sed -n 's/^.*<pre id="out">//; /^\(PROBLEM\|DONE\) /p' "$1.dom" > "$1.out"
    grep -q '^DONE ' "$1.out" || { tail -n 20 "$1.log"; fail "the harness did not finish on $1 (Chromium's log above)"; }
    # console lines, less the harness page's own (its report is the DOM)
    grep -F ':CONSOLE' "$1.log" | grep -v '_harness.html' > "$1.console"
}

# 1. The harness finds what it must: a made-up site with each fault once.
bad=$scratch/bad
mkdir -p "$bad/data" || exit 1
printf '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>' > "$bad/data/ok.svg"
cat > "$bad/a.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>a</title></head><body>
<h2 id="here">a</h2><img src="data/ok.svg" alt="ok"><img src="data/gone.png" alt="gone">
<a href="b.html#there">fine</a> <a href="b.html#nowhere">no anchor</a> <a href="c.html">no page</a>
<a href="data/ok.svg">a file</a> <a href="https://example.org/">elsewhere</a>
</body></html>
HTML
cat > "$bad/b.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>b</title></head><body>
<p id="there">b</p><script>no_such_function();</script></body></html>
HTML
open_site "$bad"
for want in 'PROBLEM a.html: broken image data/gone.png' 'PROBLEM a.html: link b.html#nowhere: no id nowhere in b.html' \
    'PROBLEM a.html: broken link c.html'; do
    grep -qxF "$want" "$bad.out" || fail "the harness missed '$want'; it said: $(cat "$bad.out")"
done
[ "$(grep -c '^PROBLEM' "$bad.out")" -eq 3 ] || fail "the harness reported more than the 3 faults: $(cat "$bad.out")"
grep -q 'no_such_function' "$bad.console" || fail "the page's script error is not in Chromium's console log"

# 2. The book's site, rendered once.
(cd "$root" && bash tools/html.sh "$scratch/site") > "$scratch/html.log" 2>&1 ||
    { cat "$scratch/html.log"; fail "make html failed (its output above)"; }
open_site "$scratch/site"
cat "$scratch/site.out"
[ -s "$scratch/site.console" ] && { cat "$scratch/site.console"; fail "pages wrote to the console (above)"; }
grep -q '^PROBLEM' "$scratch/site.out" && fail "broken images or links in the site (above)"
pages=$(find "$scratch/site" -name '*.html' ! -name _harness.html | wc -l)
grep -q "^DONE $pages pages" "$scratch/site.out" || fail "the browser opened fewer than the site's $pages pages"
echo "Chromium opened all $pages pages: every image drawn, every link and anchor found, no console message"
