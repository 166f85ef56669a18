#!/usr/bin/env bash
# make html without a browser: the site is rendered once into a scratch folder
# (tools/html.sh, which ends with its own check: every src and href of every
# page names a file of the site and an anchor there, every chart of data/plots
# is shown), and has a page per "## " section of book.md, a contents page that
# links each of them, the front page, and highlighted code. Then the check
# itself is shown a copy with a broken image, a broken link, a missing anchor
# and an unshown chart, and must name each one. Without pandoc, html.sh must
# say which package to install.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v pandoc > /dev/null || { echo "pandoc is not installed (apt-get install pandoc): make html cannot run"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
root=$1
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT
site=$scratch/site

# 1. Without pandoc: one clear line, nothing written.
mkdir -p "$scratch/bin" && ln -s "$(command -v bash)" "$scratch/bin/bash" || exit 1
for tool in dirname mktemp mkdir; do ln -s "$(command -v $tool)" "$scratch/bin/$tool"; done
(cd "$root" && PATH=$scratch/bin bash tools/html.sh "$scratch/none") > "$scratch/nopandoc.log" 2>&1 &&
    fail "html.sh succeeded without pandoc"
grep -q 'apt-get install pandoc' "$scratch/nopandoc.log" || fail "without pandoc html.sh said: $(cat "$scratch/nopandoc.log")"
[ -e "$scratch/none" ] && fail "without pandoc html.sh still made $scratch/none"

# 2. The site, rendered once.
(cd "$root" && bash tools/html.sh "$site") > "$scratch/html.log" 2>&1 ||
    { cat "$scratch/html.log"; fail "make html failed (its output above)"; }
sections=$(awk '/^```/ { f = !f } !f && /^## / && $0 != "## Contents"' "$root/book.md" | wc -l)
pages=0 # the book's section pages: not the front page, the contents, nor a page of another .md file (TEACHING.md)
for page in "$site"/*.html; do
    name=$(basename "$page" .html)
    [ "$name" = index ] || [ "$name" = contents ] || [ -f "$root/$name.md" ] || pages=$((pages + 1))
done
[ "$pages" -eq "$sections" ] || fail "$pages chapter pages for the $sections sections of book.md"
for page in "$site"/*.html; do
    case $page in */index.html | */contents.html) continue ;; esac
    [ -f "$root/$(basename "$page" .html).md" ] && continue # a page of another .md file: not in the book's contents
    grep -q "href=\"${page##*/}#" "$site/contents.html" || fail "the contents page does not link ${page##*/}"
done
grep -q 'class="sourceCode' "$site"/*.html > /dev/null || fail "no highlighted code block in the site"
[ -s "$site/index.html" ] || fail "no front page"
ls "$scratch"/.html.* > /dev/null 2>&1 && fail "html.sh left its temporary folder behind"

# 3. The check names what is broken.
cp -R "$site" "$scratch/bad" || exit 1
page=$(ls "$scratch"/bad/chapter-*.html | head -n 1)
sed -i '0,/<\/body>/s##<img src="data/plots/gone.svg"><a href="nowhere.html">x</a><a href="contents.html\#no-such-anchor">y</a></body>#' "$page"
chart=$(ls "$scratch"/bad/data/plots/*.svg | head -n 1)
rm "$chart"
(cd "$root" && bash tools/html.sh --check "$scratch/bad") > "$scratch/check.log" 2>&1 && fail "the check passed a broken site"
for want in "${page##*/}: data/plots/gone.svg: no such file" "${page##*/}: nowhere.html: no such file" \
    'no element with id "no-such-anchor" in contents.html' "${chart#"$scratch"/bad/}: no page shows this chart"; do
    grep -qF "$want" "$scratch/check.log" || fail "the check did not name '$want'; it said: $(cat "$scratch/check.log")"
done
echo "make html: $pages chapter pages, a contents page and a front page; every image, link and anchor resolves; every chart shown"
