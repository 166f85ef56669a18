#!/usr/bin/env bash
# make collect-grades DIR=folder: a class's result files (each student's
# `make grade GRADE_OUT=FILE STUDENT=ID`, see tools/grade.sh for the format),
# every regular file in DIR but hidden ones, as one table: a row per student,
# a column per exercise (pass, CPU part, part, not run, FAIL, no compile, or
# - where the file has no row for it), the GPU and date each graded on; then
# per exercise how many passed in full, passed what could run, failed, of how
# many students. Written to GRADES_OUT (default build/grades/): grades.md (Markdown,
# also printed), grades.csv (the verdicts spelled as grade writes them) and,
# where gnuplot is installed, grades.svg (a bar per exercise); each through a
# temp file and a rename.
# A file that is not a grade result (wrong header, a row of the wrong width,
# an unknown verdict, an exercise twice, two students in one file, a second
# file for a student already read, a NUL byte, an unclosed quote) is named on
# stderr with its line and why, and left out of the table.
# Exit status: 0 every file was taken in; 1 some were rejected (the table has
# the rest); 2 no DIR, or nothing to read, or an output (the chart too)
# cannot be written.
# Usage: collect_grades.sh DIR   (the environment: GRADES_OUT)
set -u
export LC_ALL=C # one order everywhere: which of two files for a student comes first, and the rows
dir=${1:-}
out=${GRADES_OUT:-build/grades}
header=student,commit,machine,gpu,date,exercise,verdict,messages
[ -n "$dir" ] || { echo "collect-grades: say which folder: make collect-grades DIR=folder" >&2; exit 2; }
[ -d "$dir" ] || { echo "collect-grades: DIR=$dir is not a folder" >&2; exit 2; }
mkdir -p -- "$out" || { echo "collect-grades: cannot make $out" >&2; exit 2; }
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
trap 'rm -rf "$work"; exit 130' INT TERM HUP

# read_result FILE: FILE's rows as "student TAB exercise TAB verdict TAB gpu
# TAB date" on stdout, or one line "FILE: line N: why" on stderr and status 1.
# The CSV is RFC 4180 (quoted fields may hold commas, "" and newlines).
read_result() {
    if ! tr -d '\000' < "$1" | cmp -s - "$1"; then
        echo "$1: it has NUL bytes: not a grade result" >&2; return 1
    fi
    LC_ALL=C awk -v file="$1" -v header="$header" '
    function bad(why) {
        printf "%s: %s%s\n", file, start ? "line " start ": " : "", why > "/dev/stderr"; failed = 1; exit 1
    }
    # split_csv(REC): its fields into f[1..n]; returns n, or -1 for bad quoting
    function split_csv(rec,    i, c, v, inq, closed, n) {
        n = 0; v = ""; inq = 0; closed = 0
        for (i = 1; i <= length(rec); i++) {
            c = substr(rec, i, 1)
            if (inq) {
                if (c != "\"") v = v c
                else if (substr(rec, i + 1, 1) == "\"") { v = v "\""; i++ }
                else { inq = 0; closed = 1 }
            } else if (c == ",") { f[++n] = v; v = ""; closed = 0 }
            else if (closed) return -1
            else if (c == "\"" && v == "") inq = 1
            else if (c == "\"") return -1
            else v = v c
        }
        if (inq) return -1
        f[++n] = v
        return n
    }
    function flat(s) { gsub(/[\t\n\r]/, " ", s); return s }
    {
        sub(/\r$/, "")
        if (rec == "") { rec = $0; start = FNR } else rec = rec "\n" $0
        q = rec; if (gsub(/"/, "", q) % 2) next   # a quoted field goes on
        n = split_csv(rec); r = rec; rec = ""
        if (n < 0) bad("a quote in the middle of a field")
        if (++records == 1) {
            got = ""; for (i = 1; i <= n; i++) got = got (i > 1 ? "," : "") f[i]
            if (got != header) bad("its header is not \"" header "\": not a make grade result")
            next
        }
        if (n != 8) bad(n " fields, not 8")
        if (f[1] == "" || length(f[1]) > 64 || f[1] ~ /[[:cntrl:]]/) bad("the student id is empty, over 64 bytes or has control characters")
        if (student == "") student = f[1]
        else if (f[1] != student) bad("a second student (\"" flat(f[1]) "\" after \"" student "\")")
        if (f[6] !~ /^[A-Za-z0-9_]+$/) bad("exercise \"" flat(f[6]) "\" is not an exercise name")
        if (f[6] in seen) bad("exercise " f[6] " a second time")
        seen[f[6]] = 1
        if (f[7] !~ /^(passed|cpu-part-only|checks-partly-run|not-run|failed|does-not-compile)$/)
            bad("verdict \"" flat(f[7]) "\" is not one of make grade'"'"'s")
        rows[records] = f[1] "\t" f[6] "\t" f[7] "\t" flat(f[4]) "\t" flat(f[5])
    }
    END {
        if (failed) exit 1
        if (rec != "") bad("a quote is never closed")
        if (records == 0) { start = 0; bad("it is empty") }
        if (records == 1) { start = 1; bad("a header and no exercise") }
        for (i = 2; i <= records; i++) print rows[i]
    }' "$1"
}

rejected=0 taken=0
: > "$work/rows.tsv"
: > "$work/owners"
for file in "$dir"/*; do
    [ -f "$file" ] || continue
    if ! rows=$(read_result "$file"); then
        rejected=$((rejected + 1)); continue
    fi
    student=$(head -n 1 <<<"$rows" | cut -f1)
    other=$(awk -F'\t' -v s="$student" '$1 == s {print $2; exit}' "$work/owners")
    if [ -n "$other" ]; then
        echo "$file: a second file for student \"$student\" (the first: $other): left out" >&2
        rejected=$((rejected + 1)); continue
    fi
    printf '%s\t%s\n' "$student" "$file" >> "$work/owners"
    printf '%s\n' "$rows" >> "$work/rows.tsv"
    taken=$((taken + 1))
done
if [ "$taken" -eq 0 ]; then
    echo "collect-grades: no grade result in $dir ($rejected rejected)" >&2; exit 2
fi

# tables FORMAT: the table from rows.tsv, FORMAT md or csv.
tables() {
    LC_ALL=C awk -F'\t' -v format="$1" '
    function md(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/\|/, "\\|", s); return s }
    function csv(s) { if (s ~ /^[=+@-]/) s = "'"'"'" s; gsub(/"/, "\"\"", s); return "\"" s "\"" }
    function cell(s) { return format == "md" ? md(s) : csv(s) }
    function row(first, n, a,    line, i) {
        line = format == "md" ? "| " cell(first) : cell(first)
        for (i = 1; i <= n; i++) line = line (format == "md" ? " | " : ",") cell(a[i])
        print line (format == "md" ? " |" : "")
    }
    BEGIN { short["passed"] = "pass"; short["cpu-part-only"] = "CPU part"; short["checks-partly-run"] = "part"
            short["not-run"] = "not run"; short["failed"] = "FAIL"; short["does-not-compile"] = "no compile" }
    {
        if (!($1 in isst)) { isst[$1] = 1; st[++ns] = $1; gpu[$1] = $4; date[$1] = $5 }
        if (!($2 in isex)) { isex[$2] = 1; ex[++ne] = $2 }
        v[$1, $2] = $3
        if ($3 == "passed") full[$2]++
        else if ($3 == "cpu-part-only" || $3 == "checks-partly-run") part[$2]++
        else if ($3 == "failed" || $3 == "does-not-compile") bad[$2]++
    }
    END {
        for (i = 2; i <= ns; i++) for (j = i; j > 1 && st[j - 1] > st[j]; j--) { t = st[j]; st[j] = st[j - 1]; st[j - 1] = t }
        for (i = 2; i <= ne; i++) for (j = i; j > 1 && ex[j - 1] > ex[j]; j--) { t = ex[j]; ex[j] = ex[j - 1]; ex[j - 1] = t }
        for (i = 1; i <= ne; i++) a[i] = ex[i]
        a[ne + 1] = "gpu"; a[ne + 2] = "date"
        row("student", ne + 2, a)
        if (format == "md") { line = "|---"; for (i = 1; i <= ne + 2; i++) line = line "|---"; print line "|" }
        for (s = 1; s <= ns; s++) {
            for (i = 1; i <= ne; i++) {
                k = ""
                if ((st[s], ex[i]) in v) k = v[st[s], ex[i]]
                a[i] = k == "" ? (format == "md" ? "-" : "") : format == "md" ? short[k] : k
            }
            a[ne + 1] = gpu[st[s]]; a[ne + 2] = date[st[s]]
            row(st[s], ne + 2, a)
        }
        a[ne + 1] = ""; a[ne + 2] = ""
        for (i = 1; i <= ne; i++) a[i] = full[ex[i]] + 0
        row("passed", ne + 2, a)
        for (i = 1; i <= ne; i++) a[i] = part[ex[i]] + 0
        row("passed what could run (CPU part, part)", ne + 2, a)
        for (i = 1; i <= ne; i++) a[i] = bad[ex[i]] + 0
        row("failed (FAIL, no compile)", ne + 2, a)
        for (i = 1; i <= ne; i++) a[i] = ns
        row("of students", ne + 2, a)
    }' "$work/rows.tsv"
}

# counts: "exercise passed part failed other" per exercise, for the chart
# (other: not run here, or no row in the student's file).
counts() {
    awk -F'\t' '
    !($2 in n) { order[++ne] = $2 } { n[$2]++; s[$1] = 1 }
    $3 == "passed" { p[$2]++ } $3 == "cpu-part-only" || $3 == "checks-partly-run" { h[$2]++ }
    $3 == "failed" || $3 == "does-not-compile" { f[$2]++ }
    END { for (st in s) ns++
          for (i = 1; i <= ne; i++) { e = order[i]; print e, p[e] + 0, h[e] + 0, f[e] + 0, ns - p[e] - h[e] - f[e] } }' \
        "$work/rows.tsv" | sort
}

# put NAME: $work/NAME into $out/NAME by a rename in $out.
put() {
    local tmp
    tmp=$(mktemp -- "$out/.$1.XXXXXX.tmp") && cp -- "$work/$1" "$tmp" && mv -f -- "$tmp" "$out/$1" ||
        { rm -f -- "${tmp:-}"; echo "collect-grades: cannot write $out/$1" >&2; exit 2; }
}

tables md > "$work/grades.md" && tables csv > "$work/grades.csv" || exit 2
put grades.md
put grades.csv
cat "$work/grades.md"
echo
echo "collect-grades: $taken students' files taken in, $rejected rejected: $out/grades.md, $out/grades.csv"
if command -v gnuplot > /dev/null; then
    counts > "$work/counts.dat"
    gnuplot 2> "$work/gnuplot.err" <<GP
set terminal svg size 900,420 dynamic noenhanced font "sans,12"
set output "$work/grades.svg"
set title "Exercises: how many of $taken students passed"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set ylabel "students"
set yrange [0:*]
set ytics $(( taken <= 20 ? 1 : (taken + 9) / 10 ))
set key outside right top
plot "$work/counts.dat" using 2:xtic(1) title "passed" lc rgb "#2e7d32", \
     "" using 3 title "passed what could run" lc rgb "#9ccc65", \
     "" using 4 title "failed" lc rgb "#c62828", \
     "" using 5 title "not run, or no result" lc rgb "#bdbdbd"
GP
    if [ -s "$work/grades.svg" ]; then
        put grades.svg
        echo "collect-grades: the chart: $out/grades.svg"
    else
        echo "collect-grades: gnuplot drew no chart: $(head -n 3 "$work/gnuplot.err")" >&2; chart_failed=1
    fi
else
    echo "collect-grades: no chart: gnuplot is not installed (apt-get install gnuplot-nox)"
fi
[ -z "${chart_failed:-}" ] || exit 2
[ "$rejected" -eq 0 ] || exit 1
exit 0
