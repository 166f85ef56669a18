# shellcheck shell=bash
# columns.sh (sourced, not run): the one place a script learns where a column
# is. Scripts name the columns they read; the numbers come from here, so a
# column added, dropped or moved touches no script that reads the others.
#
# The results CSV (data/results/<machine>.csv; report.h writes it) names its
# columns in its first line, so they are looked up there, file by file (an
# older file may have fewer). `./chNN --list-stages` prints no header, so its
# columns are named below, once, in the order common/cli.c prints them
# (stage.h says what each holds).
#
#   csv_columns FILE NAME...  sets cols to awk options, -v c_NAME=K for each
#                             NAME, K its column's number in FILE's first line
#                             (comma-separated): awk -F, "${cols[@]}" '{ print $c_stage }',
#                             and -v n_columns=N, the header's count. NAME? may
#                             be missing: K is then 0, which the awk program
#                             tests first ($0 is the whole line).
#   stage_columns NAME...     cols likewise, for --list-stages' lines (tab-separated)
#   stage_fields NAME...      stdin's --list-stages lines cut to those columns,
#                             in that order, tab-separated (for read -r a b)
# Each fails (status 1), saying where it was called from, which file and
# which column, when a NAME is not there; cols is then empty.

# --list-stages' columns, in order (common/cli.c's print_stage_list).
stage_list=name,where,kernel,bench,tags,description
# The results' first ten columns: the whole header of the oldest files, and
# the header bench.sh writes where no program wrote one.
results_columns_10=chapter,stage,workload,threads,median_ms,value,unit,check,device,date
# The whole header the programs write now (common/report.h's REPORT_CSV_HEADER;
# tests/tools/csv_header_written_once.sh checks the two agree). A results file's
# header is the first ten of these or more, in this order (the course's older
# formats are its shorter prefixes): a column of anyone else's is no results file.
results_columns=$results_columns_10,commit,run_id,machine_id,sm_mhz_start,sm_mhz_end,power_w_start,power_w_end,temp_c_start,temp_c_end,runs,lo_ms,hi_ms

csv_columns() {
    local file=$1 header=
    shift
    # (a first line without a newline is still the header: read fails, header is set)
    if ! { [ -f "$file" ] && [ -r "$file" ] && { IFS= read -r header < "$file" || [ -n "$header" ]; }; }; then
        columns_say "$file: cannot read its header"; cols=() nums=(); return 1
    fi
    column_numbers "$file" "$header" "$@"
}

stage_columns() {
    column_numbers "the --list-stages table (tools/columns.sh)" "$stage_list" "$@"
}

stage_fields() {
    stage_columns "$@" || return 1
    awk -F'\t' -v OFS='\t' -v want="${nums[*]}" 'BEGIN { n = split(want, k, " ") }
        { s = $k[1]; for (i = 2; i <= n; i++) s = s OFS $k[i]; print s }'
}

# column_numbers WHAT HEADER NAME...: sets cols (awk's -v options: each
# NAME's number among HEADER's comma-separated names, then their count) and
# nums (the NAMEs' numbers alone).
column_numbers() {
    local what=$1 header=$2 name want k i
    local -a names
    IFS=, read -r -a names <<< "$header"
    shift 2
    cols=() nums=()
    for want; do
        name=${want%\?} k=0
        [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { columns_say "\"$name\" cannot be an awk variable's name"; cols=() nums=(); return 1; }
        for i in "${!names[@]}"; do
            [ "${names[i]}" = "$name" ] && { k=$((i + 1)); break; }
        done
        if [ $k -eq 0 ] && [ "$want" = "$name" ]; then
            columns_say "$what has no column \"$name\" (its columns: $header)"
            cols=() nums=()
            return 1
        fi
        cols+=(-v "c_$name=$k") nums+=("$k")
    done
    cols+=(-v "n_columns=${#names[@]}")
}

# columns_say MESSAGE: on stderr, after the file and line that called in
# (the first frame outside this file).
columns_say() {
    local i=1
    while [ $i -lt $((${#BASH_SOURCE[@]} - 1)) ] && [ "${BASH_SOURCE[i]}" = "${BASH_SOURCE[0]}" ]; do i=$((i + 1)); done
    echo "${BASH_SOURCE[i]:-$0}:${BASH_LINENO[i - 1]}: $1" >&2
}
