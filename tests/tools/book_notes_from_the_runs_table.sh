#!/usr/bin/env bash
# make book's note references ({chNN/STAGE[threads=T]/note:WORDS # WORDS}, tools/book.py
# note_value) read a number from the row's note in the same run's table (chNN.txt beside
# the results file), on a made-up results file: the number is read; a table whose line
# is not that row's (another median: another run's table), a missing table, a pattern
# without its #, and a note that matches twice are errors naming the file, never a number.
# So too profile references ({profile:FILE/METRIC@NAME}, profile_value): a metric of a saved
# Nsight Compute report is read as ncu printed it; no machine named, no such metric, two
# kernels of two values, no such report: errors.
set -u
if [ "${1:-}" = --can-run ]; then
    command -v python3 > /dev/null || { echo "no python3: tools/book.py needs it"; exit 77; }
    exit 0
fi
. "$(dirname "$0")/lib.bash"
root=$1
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
data=$work/data
mkdir -p "$data/results/M" "$data/profiles/M"
cols=$(grep -o '^chapter,[a-z_,]*' "$root/tests/fixtures/book/GPU-F_CPU-F.csv" | head -n 1)
[ -n "$cols" ] || fail "the fixture's results header could not be read"
{
    echo "$cols"
    for row in "1 662.91" "16 1137.21"; do
        set -- $row
        awk -F, -v OFS=, -v t="$1" -v ms="$2" 'NR == 1 { for (i = 1; i <= NF; i++) v[$i] = "-"
            v["chapter"] = "ch03"; v["stage"] = "rng-local"; v["threads"] = t; v["median_ms"] = ms
            v["workload"] = "w"; v["value"] = "1"; v["unit"] = "Msamples/s"; v["check"] = "ok"
            for (i = 1; i <= NF; i++) $i = v[$i]; print }' <<<"$cols"
    done
} > "$data/results/M.csv" || fail "the made-up results file could not be written"
cat > "$data/results/M/ch03.txt" <<'TABLE'
stage                      threads    time (ms)           spread (ms)   speedup          value unit       check  note
rng-local                        1      662.910    647.278-728.385 x3     1.72x          1.582 Msamples/s ok     busy max/mean 1.00, 36 ctx sw, 2 x 3 and 4 x 5
rng-local                       16     1137.205    104.216-113.164 x3    10.29x          9.492 Msamples/s ok     busy max/mean 1.87, 834719 ctx sw
TABLE
cat > "$data/profiles/M/ch04_loop.txt" <<'REPORT'
  void render_kernel<0>(unsigned char *, int *, camera, int) (32, 32, 1)x(16, 16, 1), Context 1, Stream 7, Device 0, CC 9.0
    Achieved Occupancy                        %        30.33
    Avg. Active Threads Per Warp                                23.75
    smsp__inst_executed.sum                                                            inst  1,913,523,276
  void other_kernel(int) (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Avg. Active Threads Per Warp                                23.75
    Waves Per SM                                                1.94
    Waves Per SM                                                2.00
REPORT
# expect EXPR WANT: EXPR's text is WANT; or, WANT "error: WORDS", an error holding WORDS.
expect() {
    local said
    said=$(cd "$root" && python3 - "$data/results/M.csv" "$1" <<'PY'
import sys
sys.path.insert(0, "tools")
import book
try:
    print(book.number_text(sys.argv[2], [(sys.argv[1], book.all_rows(sys.argv[1]))]))
except ValueError as e:
    print("error: %s" % e)
PY
) || fail "$1: the reference did not run: $said"
    case $2 in
    "error: "*) [[ $said == "error: "*"${2#error: }"* ]] || fail "$1: want an error saying '${2#error: }', got $said" ;;
    *) [ "$said" = "$2" ] || fail "$1 gave $said, want $2" ;;
    esac
}
expect "{ch03/rng-local[threads=16]/note:busy max/mean #}|%.2f" 1.87
expect "{ch03/rng-local[threads=16]/note:# ctx sw}|count" 834,719
expect "{ch03/rng-local[threads=1]/note:# ctx sw}|count" 36
expect "{ch03/rng-local[threads=16]/note:busy max/mean}" "error: one #"
expect "{ch03/rng-local[threads=1]/note:# x #}" "error: one #"
expect "{ch03/rng-local[threads=1]/note:# y}" "error: not in the line"
expect "{ch03/rng-local[threads=1]/note:# x}" "error: 2 different numbers"
expect "{ch03/rng-local/note:# ctx sw}" "error: pick one"
expect "{profile:ch04_loop/Achieved Occupancy@M}|%.2f%%" 30.33%
expect "{profile:ch04_loop/Avg. Active Threads Per Warp@M}|%.2f" 23.75
expect "{profile:ch04_loop/smsp__inst_executed.sum@M}/1e9|%.2f" 1.91
expect "{profile:ch04_loop/Achieved Occupancy}" "error: name the machine"
expect "{profile:ch04_loop/Achieved@M}" "error: no such metric line"
expect "{profile:ch04_loop/Waves Per SM@M}" "error: 2 different values"
expect "{profile:ch05_loop/Waves Per SM@M}" "error: cannot be read"
expect "{profile:ch04_loop/Waves Per SM@Q}" "error: 0 machines"
# Another run's table (the same stage and threads, another median), then no table.
sed -i 's/^rng-local                       16     1137.205/rng-local                       16     1120.000/' "$data/results/M/ch03.txt"
expect "{ch03/rng-local[threads=16]/note:busy max/mean #}" "error: ch03.txt: not in the line of that row"
rm "$data/results/M/ch03.txt"
expect "{ch03/rng-local[threads=1]/note:# ctx sw}" "error: cannot be read"
echo "note and profile references: read from the row's own line of the run's table and from the report; another run's table, a bad pattern, two numbers, a missing metric or report: errors"
