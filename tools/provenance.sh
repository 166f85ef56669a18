# shellcheck shell=bash
# Sourced by tools/book.sh (not run alone): where each results row came from.
#
# A results row (data/results/<machine>.csv) of make bench carries, after its
# ten columns, the commit it was built from (-dirty: tracked files differed),
# the run id every row of one make bench shares, the machine id, and the GPU's
# clock, power and temperature at the stage's start and end. Older rows have
# the ten columns only: their provenance is not recorded.
#
# The book groups rows by machine: the machine id where it is recorded, and
# for the older rows the UTC day they were written (the only thing that tells
# them apart: a day may hold several runs, and two days one machine). It
#   - lists each results file's machines, runs, commits, dates, row counts and
#     chapters (prov_block: the book's and README's <!-- generated:provenance -->);
#   - heads every table with the machine and every run its rows come from, and
#     refuses a chapter table whose rows come from two machines (prov_awk);
#   - marks a row stale (†) when its chapter's code is no longer the code
#     it was measured on, and says "unknown" where its log records no code
#     fingerprint (prov_stale_map).
# Stale or not needs no git: make bench stamps each chapter's log with its
# code's fingerprint (tools/code_id.sh: the chapter's files and common/'s), and
# a chapter whose fingerprint now differs was measured on other code. The same
# files give the same book on any machine, with or without history.

# prov_stale_map CSV...: one line per (chapter, commit) of the recorded rows:
# chapter TAB commit TAB fresh|stale|unknown TAB the fingerprint then and now, or why unknown.
prov_stale_map() {
    local csv ch commit dirvar log then now
    for csv in "$@"; do
        awk -F, 'FNR > 1 && NF >= 13 && $11 != "" && $11 != "-" { print $1, $11 }' "$csv" | sort -u |
            while read -r ch commit; do
                dirvar=${ch}_DIR
                case $ch in *[!A-Za-z0-9_]*) dirvar=NO_SUCH_CHAPTER_DIR ;; esac # not a name: no chapter
                log=${csv%.csv}/$ch.txt
                then=$(sed -n '1s/^# run .* code \([0-9a-f]*\) .*/\1/p' "$log" 2> /dev/null)
                if [ -z "${!dirvar:-}" ]; then
                    printf '%s\t%s\tunknown\t%s\n' "$ch" "$commit" "not a chapter of this course"
                elif [ -z "$then" ]; then
                    printf '%s\t%s\tunknown\t%s\n' "$ch" "$commit" "its log ${log#data/results/} records no code fingerprint"
                elif ! now=$(tools/code_id.sh "${!dirvar}"); then
                    printf '%s\t%s\tunknown\t%s\n' "$ch" "$commit" "its code cannot be fingerprinted here"
                elif [ "$now" = "$then" ]; then
                    printf '%s\t%s\tfresh\t\n' "$ch" "$commit"
                else
                    printf '%s\t%s\tstale\t%s\n' "$ch" "$commit" "measured on code $then, the code is now $now"
                fi
            done
    done
}

# Awk functions for a table's heading, appended to book.sh's fmt_awk. Per
# row, prov_add(); at the end, prov_refuse_mixed(FILE, WHAT) then prov_ids().
# prov_load(PATH) reads prov_stale_map's lines: st[chapter, commit].
prov_awk='
function prov_load(path,   line, f) {
    while ((getline line < path) > 0) { split(line, f, "\t"); st[f[1], f[2]] = f[3]; stwhy[f[1], f[2]] = f[4] }
    close(path)
}
function prov_recorded() { return NF >= 13 && $11 != "" && $11 != "-" && $12 != "" && $13 != "" }
# the machine a row is grouped under: its id, or (not recorded) its UTC day
function prov_key() { return prov_recorded() ? "machine id " $13 : "provenance not recorded, rows of " substr($10, 1, 10) }
function prov_add(   k, day) {
    k = prov_key()
    if (!(k in pk)) { pk[k] = 1; pkey[++npk] = k }
    if (prov_recorded() && !($12 in pr)) { pr[$12] = 1; prun[++npr] = $12; pcommit[$12] = $11 }
    day = substr($10, 1, 10)
    if (pday1 == "" || day < pday1) pday1 = day
    if (day > pday2) pday2 = day
}
function prov_days() { return pday1 == pday2 ? pday1 : pday1 " to " pday2 }
# several machines under one heading: refused, naming the file, what and the machines
function prov_refuse_mixed(file, what,   i, s) {
    if (npk < 2) return
    for (i = 1; i <= npk; i++) s = s (i > 1 ? "; " : "") pkey[i]
    printf "book: %s: %s: rows of %d machines under one heading (%s); a chapter table compares its rows with its first, so it must come from one machine: make bench replaces a chapter'"'"'s rows whole, so these were joined by hand (rerun make bench for the chapter on one machine, or give each machine its own results file)\n", file, what, npk, s > "/dev/stderr"
    exit 3
}
# the heading'"'"'s ids: "machine M, run R, commit C; run R2, commit C2", or "provenance not recorded"
function prov_ids(   i, s) {
    if (npr == 0) return "provenance not recorded"
    s = pkey[1]
    for (i = 1; i <= npr; i++) s = s (i > 1 ? ";" : ",") " run " prun[i] ", commit " pcommit[prun[i]]
    return s
}
# the current row'"'"'s mark: "" fresh or not recorded, " †" stale, " ‡" unknown; the footnotes collected
function prov_mark(ch,   k) {
    if (!prov_recorded()) return ""
    k = ch SUBSEP $11
    if (st[k] == "stale") { if (!(k in noted)) { noted[k] = 1; stalenote = stalenote sprintf(" %s at commit %s was %s;", ch, $11, stwhy[k]) }; return " †" }
    if (st[k] == "unknown") { if (!(k in noted)) { noted[k] = 1; unknownnote = unknownnote sprintf(" commit %s: %s;", $11, stwhy[k]) }; return " ‡" }
    return ""
}
function prov_notes(   s) {
    if (stalenote != "") { sub(/;$/, "", stalenote); s = s sprintf("\n*† stale: measured on other code than the chapter'"'"'s now (`tools/code_id.sh`: its folder, the folders it uses and `common/`):%s.*\n", stalenote) }
    if (unknownnote != "") { sub(/;$/, "", unknownnote); s = s sprintf("\n*‡ stale or not: unknown (%s).*\n", substr(unknownnote, 2)) }
    return s
}
'

# prov_groups CSV OUTDIR: the rows of CSV split by machine (prov_key), each
# group with the header in OUTDIR/1.csv, 2.csv ... in the order of their first
# day; prints the group files' names.
prov_groups() {
    rm -rf "$2" && mkdir -p "$2" || return 1
    awk -F, -v dir="$2" "$prov_awk"'
    FNR == 1 { header = $0; next }
    { k = prov_key(); if (!(k in first) || $10 < first[k]) first[k] = $10; rows[k] = rows[k] $0 "\n" }
    END {
        for (k in first) order[++n] = k
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
            if (first[order[j]] < first[order[i]] || (first[order[j]] == first[order[i]] && order[j] < order[i])) { t = order[i]; order[i] = order[j]; order[j] = t }
        for (i = 1; i <= n; i++) { out = dir "/" i ".csv"; printf "%s\n%s", header, rows[order[i]] > out; close(out); print out }
    }' "$1"
}

# prov_block STALE_MAP CSV...: the provenance of every results file, as
# Markdown: per file, one line per run (recorded) or per day (not recorded).
prov_block() {
    local map=$1 f
    shift
    printf 'Where each results file'"'"'s rows come from, read from the rows themselves (`make book`): the machine id, the run id every row of one `make bench` shares, the commit it was built from (`-dirty`: with uncommitted changes), the first and last row'"'"'s time (UTC), the rows, and the chapters.\n\n'
    for f in "$@"; do
        awk -F, -v file="$f" -v map="$map" "$prov_awk"'
        BEGIN { prov_load(map); m = file; sub(/^.*\//, "", m); sub(/\.csv$/, "", m) }
        FNR == 1 { next }
        {
            nrows++
            k = prov_recorded() ? $13 SUBSEP $12 : "" SUBSEP substr($10, 1, 10)
            if (!(k in cnt)) { order[++n] = k; t1[k] = $10; t2[k] = $10; commit[k] = prov_recorded() ? $11 : "" }
            cnt[k]++
            if ($10 < t1[k]) t1[k] = $10
            if ($10 > t2[k]) t2[k] = $10
            if (!((k, $1) in hasch)) { hasch[k, $1] = 1; chl[k, ++nch[k]] = $1 prov_mark($1); if (!prov_recorded()) old = 1 }
        }
        function minute(t) { return substr(t, 1, 16) "Z" }
        function chapters(k,   a, b, t, s) { # the chapters of k, in order
            for (a = 1; a <= nch[k]; a++) for (b = a + 1; b <= nch[k]; b++) if (chl[k, b] < chl[k, a]) { t = chl[k, a]; chl[k, a] = chl[k, b]; chl[k, b] = t }
            for (a = 1; a <= nch[k]; a++) s = s (a > 1 ? ", " : "") chl[k, a]
            return s
        }
        END {
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (t1[order[j]] < t1[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
            printf "**`%s`** (`%s`, %d rows):\n\n| machine id | run | commit | written (UTC) | rows | chapters |\n|---|---|---|---|---:|---|\n", m, file, nrows
            for (i = 1; i <= n; i++) {
                k = order[i]; split(k, p, SUBSEP)
                when = minute(t1[k]) (t2[k] != t1[k] ? " to " minute(t2[k]) : "")
                if (p[1] != "") printf "| %s | %s | %s | %s | %d | %s |\n", p[1], p[2], commit[k], when, cnt[k], chapters(k)
                else printf "| not recorded | not recorded | not recorded | %s | %d | %s |\n", when, cnt[k], chapters(k)
            }
            if (old) printf "\n*Provenance not recorded: rows written before `make bench` recorded it, grouped by their day (UTC); their machine, run and commit are unknown (a day may hold several runs, two days one machine), so whether they are stale is unknown.*\n"
            printf "%s\n", prov_notes()
        }' "$f" || return 1
    done
}
