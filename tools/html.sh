#!/usr/bin/env bash
# make html: the book as a site, with pandoc (Debian 12: apt-get install pandoc).
#   tools/html.sh [OUT]     (default build/html; run from the repository's root)
# Pages, in OUT/:
#   index.html      README.md, the front page
#   contents.html   book.md's title and contents
#   SLUG.html       one page per "## " section of book.md (a chapter, the
#                   introduction, the appendix), SLUG its heading's anchor
#   PATH.html       any other .md file of the repository a page links to
# Every "## " and "### " heading gets the anchor book.py's contents links use
# (GitHub's: lower case, punctuation dropped, spaces as dashes, -1, -2 on
# repeats across the whole book), so a link to #anchor is rewritten to the
# page that holds it. Files the pages link to or show (data/plots/*.svg,
# data/images/*/*.png, ...) are copied to the same relative path, so every
# relative link of the Markdown works unchanged. Code in fences that name a
# language is highlighted (pandoc's highlighter, CSS in each page).
# The site is built in a temporary folder beside OUT and renamed into place.
#   tools/html.sh --check SITE   only the check every make html ends with: every
#                               src and href of every page names a file of the site
#                               (and an anchor there), every chart in data/plots is
#                               shown; each one that is not is printed, exit 1
set -u
export LC_ALL=C # the same book on every machine: globs and sorts in byte order, whatever the locale
shopt -s nullglob

# check_site DIR: prints "html: PAGE: LINK: what is wrong" for each src or href
# of DIR's pages that does not resolve (no such file in DIR; no element with
# that id in the page it names), and each chart of data/plots no page shows.
# Links to other sites (http:, mailto:, //host) are not followed.
check_site() {
    local dir=$1 list bad svg
    list=$(mktemp) && bad=$(mktemp) || return 1
    (cd "$dir" && find . -name '*.html' | sed 's|^\./||' | sort | while read -r page; do
        grep -o -E '(^|[[:space:]])id="[^"]*"' "$page" | sed -E "s|^[[:space:]]*id=\"|I\t$page\t|; s|\"\$||"
        grep -o -E '(^|[[:space:]])(src|href)="[^"]*"' "$page" | sed -E "s#^[[:space:]]*(src|href)=\"#L\t$page\t#; s#\"\$##"
    done) > "$list"
    # each link as the file it names (relative to DIR) and its anchor
    awk -F'\t' -v OFS='\t' '
    function normal(path,   n, p, out, i, k) {
        n = split(path, p, "/"); k = 0
        for (i = 1; i <= n; i++) {
            if (p[i] == "" || p[i] == ".") continue
            if (p[i] == "..") { if (k == 0) return "../"; k--; continue }
            out[++k] = p[i]
        }
        path = ""; for (i = 1; i <= k; i++) path = path (i > 1 ? "/" : "") out[i]
        return path
    }
    $1 == "L" {
        link = $3; gsub(/&amp;/, "\\&", link)
        if (link ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/ || link ~ /^\/\//) next
        at = index(link, "#"); frag = at ? substr(link, at + 1) : ""; path = at ? substr(link, 1, at - 1) : link
        dir = $2; if (!sub(/\/[^\/]*$/, "", dir)) dir = ""
        file = path == "" ? $2 : normal((dir == "" ? "" : dir "/") path)
        print $2, $3, file, frag
    }' "$list" > "$list.links"
    # the files that are not there
    cut -f3 "$list.links" | sort -u | while read -r file; do
        [ -f "$dir/$file" ] || echo "$file"
    done > "$list.missing"
    awk -F'\t' '
    FILENAME == ARGV[1] { missing[$1] = 1; next }
    FILENAME == ARGV[2] { if ($1 == "I") id[$2, $3] = 1; next }
    $3 in missing { print "html: " $1 ": " $2 ": no such file in the site"; next }
    $4 != "" && $3 ~ /\.html$/ && !(($3, $4) in id) { print "html: " $1 ": " $2 ": no element with id \"" $4 "\" in " $3 }
    ' "$list.missing" "$list" "$list.links" > "$bad"
    # every chart is shown
    for svg in data/plots/*.svg; do
        [ -f "$dir/$svg" ] || echo "html: $svg: no page shows this chart (book.md does not link it)" >> "$bad"
    done
    cat "$bad"
    [ ! -s "$bad" ]
    local rc=$?
    rm -f "$list" "$list.links" "$list.missing" "$bad"
    return $rc
}
if [ "${1:-}" = --check ]; then
    [ -d "${2:-}" ] || { echo "html: --check SITE: no folder ${2:-} (usage: tools/html.sh --check build/html)" >&2; exit 2; }
    check_site "$2"
    exit
fi

out=${1:-build/html}
command -v pandoc > /dev/null ||
    { echo "html: pandoc is not installed: apt-get install pandoc (Debian/Ubuntu), then make html" >&2; exit 2; }
[ -f book.md ] || { echo "html: no book.md here: run it from the repository's root (make html)" >&2; exit 2; }
root=$(pwd -P)
mkdir -p "$(dirname "$out")" || exit 1
tmp=$(mktemp -d "$(dirname "$out")/.html.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
work=$tmp/.work # sources and lists, removed before the rename
mkdir -p "$work/src" || exit 1

# 1. book.md's pages and anchors: pages.tsv (page, title, in order) and
#    anchors.tsv (anchor, page). The part before the first section (the title,
#    "## Contents") is the contents page.
awk -v pages="$work/pages.tsv" -v anchors="$work/anchors.tsv" '
/^```/ { fence = !fence; next }
fence || !/^###? / { next }
{
    level = index($0, " ") - 1
    title = substr($0, level + 2)
    if (level == 2 && title == "Contents") next
    slug = tolower(title); gsub(/[^a-z0-9 _-]/, "", slug); gsub(/ /, "-", slug)
    n = seen[slug]++
    id = slug (n ? "-" n : "")
    if (level == 2) { page = id; print page "\t" title > pages }
    print id "\t" (page == "" ? "contents" : page) > anchors
}' book.md || exit 1
[ -s "$work/pages.tsv" ] || { echo "html: book.md has no \"## \" section to make a page of" >&2; exit 1; }

# rewrite SOURCE PAGE: SOURCE's Markdown with each heading's anchor made
# explicit (book.md only) and its links rewritten for the site: #anchor and
# book.md#anchor to the page that holds the anchor, book.md to contents.html,
# README.md to index.html, another .md file to its .html (listed in
# $work/more.txt, to be rendered too). PAGE: book.md's page to print (all
# pages of book.md are split from one read), or "" for the whole file.
rewrite() {
    awk -v want="$2" -v src="$1" -v anchors="$work/anchors.tsv" -v more="$work/more.txt" '
    BEGIN {
        while ((getline line < anchors) > 0) { split(line, f, "\t"); where[f[1]] = f[2] }
        close(anchors)
        book = src == "book.md"; page = book ? "contents" : ""
        dir = src; if (!sub(/\/[^\/]*$/, "", dir)) dir = ""
        up = ""; n = split(dir, parts, "/"); for (i = 1; i <= n; i++) if (parts[i] != "") up = up "../"
    }
    # normal(PATH): PATH relative to the root, "." and "x/.." removed ("" if it leaves the root)
    function normal(path,   n, p, out, i, k) {
        n = split(path, p, "/"); k = 0
        for (i = 1; i <= n; i++) {
            if (p[i] == "" || p[i] == ".") continue
            if (p[i] == "..") { if (k == 0) return ""; k--; continue }
            out[++k] = p[i]
        }
        path = ""; for (i = 1; i <= k; i++) path = path (i > 1 ? "/" : "") out[i]
        return path
    }
    # target(LINK): where LINK points in the site
    function target(link,   frag, path, at, full) {
        if (link ~ /^[a-z]+:/ || link ~ /^\/\//) return link # another site, mail
        at = index(link, "#"); frag = at ? substr(link, at + 1) : ""; path = at ? substr(link, 1, at - 1) : link
        if (path == "") full = book ? "book.md" : ""
        else full = normal((dir == "" ? "" : dir "/") path)
        if (full == "book.md") {
            if (frag == "") return up "contents.html"
            if (!(frag in where)) return link # left as it was: the check that follows names it
            return (book && where[frag] == page ? "" : up where[frag] ".html") "#" frag
        }
        if (full == "README.md") return up "index.html" (frag == "" ? "" : "#" frag)
        if (path ~ /\.md$/) { print full >> more; sub(/\.md$/, ".html", path); return path (frag == "" ? "" : "#" frag) }
        return link
    }
    function links(s, open, shut,   out, at, end, link) {
        out = ""
        while ((at = index(s, open)) > 0) {
            out = out substr(s, 1, at - 1) open; s = substr(s, at + length(open))
            end = index(s, shut); if (!end) break
            link = substr(s, 1, end - 1)
            if (link !~ /[ \t]/) link = target(link)
            out = out link; s = substr(s, end)
        }
        return out s
    }
    /^```/ { fence = !fence }
    !fence && book && /^###? / {
        level = index($0, " ") - 1; title = substr($0, level + 2)
        if (!(level == 2 && title == "Contents")) {
            slug = tolower(title); gsub(/[^a-z0-9 _-]/, "", slug); gsub(/ /, "-", slug)
            n = seen[slug]++; id = slug (n ? "-" n : "")
            if (level == 2) page = id
            $0 = $0 " {#" id "}"
        }
    }
    want != "" && page != want { next }
    !fence { $0 = links(links($0, "](", ")"), "href=\"", "\"") }
    { print }' "$1"
}

# nav PREV NEXT: the bar above and below a page (each argument "page<TAB>title" or "").
nav() {
    local p=${1%%$'\t'*} pt=${1#*$'\t'} n=${2%%$'\t'*} nt=${2#*$'\t'}
    printf '<nav class="pages"><a href="index.html">Home</a> · <a href="contents.html">Contents</a>'
    [ -n "$1" ] && printf ' · <a href="%s.html">← %s</a>' "$p" "$(html_text "$pt")"
    [ -n "$2" ] && printf ' · <a href="%s.html">%s →</a>' "$n" "$(html_text "$nt")"
    printf '</nav>\n'
}
html_text() { local s=${1//&/&amp;}; s=${s//</&lt;}; printf '%s' "${s//>/&gt;}"; }

cat > "$work/head.html" <<'CSS'
<style>
body { max-width: 72em; }
nav.pages { margin: 1em 0; padding: 0.4em 0; border-top: 1px solid #ccc; border-bottom: 1px solid #ccc; }
table { display: block; overflow-x: auto; font-size: 90%; }
img { max-width: 100%; height: auto; }
pre { overflow-x: auto; }
pre code { white-space: pre; }
</style>
CSS

# render SOURCE.md OUT.html TITLE: pandoc, GitHub's Markdown with explicit anchors.
render() {
    mkdir -p "$(dirname "$2")" &&
        pandoc -f gfm+attributes -t html5 --standalone --wrap=none --highlight-style=pygments \
            --metadata pagetitle="$3" --include-in-header="$work/head.html" -o "$2" "$1" ||
        { echo "html: pandoc failed on $1 (from $4)" >&2; exit 1; }
}

# 2. The pages of book.md, each between two navigation bars.
: > "$work/more.txt"
mapfile -t pages < "$work/pages.tsv"
title=$(sed -n '1s/^# //p' book.md)
{
    nav "" "${pages[0]}"
    echo
    rewrite book.md contents || exit 1
    echo
    nav "" "${pages[0]}"
} > "$work/src/contents.md"
render "$work/src/contents.md" "$tmp/contents.html" "${title:-Contents}" book.md
for i in "${!pages[@]}"; do
    page=${pages[$i]%%$'\t'*} prev="" next=""
    [ "$i" -gt 0 ] && prev=${pages[$((i - 1))]}
    [ $((i + 1)) -lt ${#pages[@]} ] && next=${pages[$((i + 1))]}
    {
        nav "$prev" "$next"
        echo
        rewrite book.md "$page" || exit 1
        echo
        nav "$prev" "$next"
    } > "$work/src/$page.md"
    render "$work/src/$page.md" "$tmp/$page.html" "${pages[$i]#*$'\t'}" book.md
done

# 3. The front page (README.md), then every other .md file a page links to.
if [ -f README.md ]; then
    { nav "" "contents	Contents"; echo; rewrite README.md "" || exit 1; } > "$work/src/index.md"
    render "$work/src/index.md" "$tmp/index.html" "$(sed -n '1s/^# //p' README.md)" README.md
else
    cp "$tmp/contents.html" "$tmp/index.html" || exit 1
fi
# Rendering a page may list more .md files (TEACHING.md links CONTRIBUTING.md):
# again, until a pass finds none new.
done_md=" book.md README.md "
while :; do
    new=0
    while read -r md; do
        case $done_md in *" $md "*) continue ;; esac
        done_md="$done_md$md " new=1
        [ -f "$md" ] || continue # a link to nothing: the check names it
        rewrite "$md" "" > "$work/src/more.md" || exit 1
        render "$work/src/more.md" "$tmp/${md%.md}.html" "$md" "$md"
    done < <(sort -u "$work/more.txt")
    [ "$new" = 1 ] || break
done

# 4. The files the pages show or link to (charts, images, anything else in
#    the repository), copied to the same relative path.
rm -rf "$work"
find "$tmp" -name '*.html' | while read -r html; do
    dir=${html%/*}; rel=${dir#"$tmp"}; rel=${rel#/}
    grep -o -E '(src|href)="[^"#]+' "$html" | sed -E 's/^(src|href)="//' | sort -u | while read -r link; do
        case $link in *:* | //*) continue ;; esac
        dest=$(realpath -m "$dir/$link") file=$(realpath -m "$root/${rel:+$rel/}$link")
        case $file in "$root"/*) ;; *) continue ;; esac # outside the repository: left broken, and named by the check
        [ -e "$dest" ] || [ ! -f "$file" ] || { mkdir -p "${dest%/*}" && cp "$file" "$dest"; } ||
            { echo "html: cannot copy $file into the site" >&2; exit 1; }
    done || exit 1
done || exit 1

# 6. Checked (check_site above), then into place: the old site goes only once
#    the new one is complete and sound.
check_site "$tmp" || { echo "html: the site has the broken links above: not installed in $out" >&2; exit 1; }
chmod 755 "$tmp" || exit 1
rm -rf "$out.old"
[ ! -e "$out" ] || mv "$out" "$out.old" || exit 1
mv "$tmp" "$out" || exit 1
rm -rf "$out.old"
echo "html: $(find "$out" -name '*.html' | wc -l) pages in $out/ (open $out/index.html)"
