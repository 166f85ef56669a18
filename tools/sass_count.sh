#!/usr/bin/env bash
# tools/sass_count.sh - per kernel of compiled objects, how many of its
# machine-code (SASS) instructions match each of some patterns, as a Markdown
# table: one row per kernel, in the order cuobjdump lists them, one column per
# pattern. Static counts: instructions in the code, not instructions executed.
# Used by make ch05-sass (FP64 instructions) and make ch07-sass (MUFU, FSETP);
# tests/tools/sass_count.sh runs it on a canned listing.
#
# The listing is `CUOBJDUMP -sass OBJECT`: a line "Function : NAME" opens a
# kernel, and each instruction is one line "/*ADDR*/ OPCODE operands ;"
# (indented, ADDR in hex). A pattern is an awk ERE matched against the whole
# instruction line, so "." counts every instruction, "MUFU" every MUFU.
set -u

usage() {
    cat <<'EOF'
usage: tools/sass_count.sh [--object-column] [--demangle] [--kernel-title TEXT] CUOBJDUMP TITLE=ERE... -- OBJECT...
  CUOBJDUMP          the cuobjdump to run (as: CUOBJDUMP -sass OBJECT)
  TITLE=ERE          a column: TITLE its header, counting the instruction lines that match ERE
                     (an awk extended regular expression; "." matches every instruction)
  OBJECT             an object or binary with device code; its kernels are the table's rows
  --object-column    a first column "object": the object's file name
  --demangle         each kernel's name through c++filt (where present), in backticks
  --kernel-title T   the kernel column's header (default: kernel)
EOF
}

# bad MESSAGE: a wrong command line: what is wrong, the usage, exit 2.
bad() {
    echo "sass_count.sh: $*" >&2
    usage >&2
    exit 2
}

# die MESSAGE: a failure while counting: what failed, exit 1 (no table).
die() {
    echo "sass_count.sh: $*" >&2
    exit 1
}

object_column=0 demangle=0 kernel_title=kernel
while [ $# -gt 0 ]; do
    case $1 in
    --object-column) object_column=1 ;;
    --demangle) demangle=1 ;;
    --kernel-title)
        [ $# -ge 2 ] || bad "--kernel-title needs a TEXT"
        kernel_title=$2
        shift ;;
    --help) usage; exit 0 ;;
    --) bad "no CUOBJDUMP before --" ;;
    -*) bad "unknown option $1" ;;
    *) break ;;
    esac
    shift
done
[ $# -ge 1 ] || bad "no CUOBJDUMP command"
dump=$1
shift
titles=() eres=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
    ?*=?*)
        case ${1%%=*} in *'|'*) bad "column '$1': a TITLE with '|' would break the table" ;; esac
        titles+=("${1%%=*}") eres+=("${1#*=}") ;;
    *) bad "column '$1' is not TITLE=ERE (both non-empty)" ;;
    esac
    shift
done
[ ${#titles[@]} -ge 1 ] || bad "no TITLE=ERE column"
[ $# -ge 1 ] || bad "no -- before the objects"
shift
[ $# -ge 1 ] || bad "no OBJECT after --"

# One line per kernel of a listing (stdin): its name, then its count for each
# ERE (SASS_COUNT_ERES, one a line: passed through the environment so awk
# does not read the backslashes of "F2F\.F64" as string escapes). Exit 3 if
# the listing has no kernel: a failed or empty dump must not pass for one.
count_kernels() {
    SASS_COUNT_ERES=$(printf '%s\n' "${eres[@]}") awk '
    BEGIN { n = split(ENVIRON["SASS_COUNT_ERES"], ere, "\n") }
    function emit(   i, line) {
        line = name
        for (i = 1; i <= n; i++)
            line = line "\t" count[i]
        print line
    }
    /Function :/ {
        if (name != "") emit()
        name = $3
        for (i = 1; i <= n; i++) count[i] = 0
        next
    }
    name != "" && /^ +\/\*[0-9a-f]+\*\// {
        for (i = 1; i <= n; i++) if ($0 ~ ere[i]) count[i]++
    }
    END { if (name == "") exit 3; emit() }'
}

# The table's row for one kernel line of count_kernels (tab-separated).
table_row() {
    local object=$1 name counts row=''
    IFS=$'\t' read -r name counts <<< "$2"
    if [ "$demangle" = 1 ]; then
        name="\`$(c++filt "$name" 2>/dev/null || echo "$name")\`"
    fi
    [ "$object_column" = 1 ] && row="| $object "
    echo "$row| $name | ${counts//$'\t'/ | } |"
}

header() {
    local head='' rule='' t
    [ "$object_column" = 1 ] && head="| object " rule="|---"
    head+="| $kernel_title |" rule+="|---|"
    for t in "${titles[@]}"; do
        head+=" $t |" rule+="---:|"
    done
    printf '%s\n%s\n' "$head" "$rule"
}

# The table is printed whole once every object is counted: a failure
# leaves no partial table to pass for a result.
listing=$(mktemp) || die "cannot make a temporary file"
trap 'rm -f "$listing" "$listing.rows" "$listing.table"' EXIT
header > "$listing.table"
for obj in "$@"; do
    "$dump" -sass "$obj" > "$listing" || die "$dump -sass $obj failed (exit status $?)"
    count_kernels < "$listing" > "$listing.rows"
    status=$?
    [ $status -eq 3 ] && die "$obj: no kernel in its listing (no line 'Function : NAME' from $dump -sass)"
    [ $status -eq 0 ] || die "$obj: awk failed (exit status $status): is every ERE valid? ${eres[*]}"
    while IFS= read -r line; do
        table_row "$(basename "$obj")" "$line"
    done < "$listing.rows" >> "$listing.table"
done
cat "$listing.table"
