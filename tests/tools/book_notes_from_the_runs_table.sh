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
mkdir -p "$work/data/results/M"
cols=$(grep -o '^chapter,[a-z_,]*' "$root/tests/fixtures/book/GPU-F_CPU-F.csv" | head -n 1)
[ -n "$cols" ] || fail "the fixture's results header could not be read"
python3 - "$cols" "$work/data/results/M.csv" <<'PY' || fail "the made-up results file could not be written"
import sys
cols = sys.argv[1].split(",")
rows = [dict(zip(cols, ["-"] * len(cols)), chapter="ch03", stage="rng-local", threads=t, median_ms=ms,
             workload="w", value="1", unit="Msamples/s", check="ok") for t, ms in (("1", "662.91"), ("16", "1137.21"))]
with open(sys.argv[2], "w") as f:
    f.write(",".join(cols) + "\n")
    for r in rows:
        f.write(",".join(r[c] for c in cols) + "\n")
PY
cat > "$work/data/results/M/ch03.txt" <<'TABLE'
stage                      threads    time (ms)           spread (ms)   speedup          value unit       check  note
rng-local                        1      662.910    647.278-728.385 x3     1.72x          1.582 Msamples/s ok     busy max/mean 1.00, 36 ctx sw, 2 x 3 and 4 x 5
rng-local                       16     1137.205    104.216-113.164 x3    10.29x          9.492 Msamples/s ok     busy max/mean 1.87, 834719 ctx sw
TABLE
said=$(cd "$root" && python3 - "$work/data/results/M.csv" <<'PY'
import sys
sys.path.insert(0, "tools")
import book
rows = [(sys.argv[1], book.all_rows(sys.argv[1]))]
def value(expr):
    try:
        return book.number_text(expr, rows)
    except ValueError as e:
        return "error: %s" % e
out = []
for expr, want in (("{ch03/rng-local[threads=16]/note:busy max/mean #}|%.2f", "1.87"),
                   ("{ch03/rng-local[threads=16]/note:# ctx sw}|count", "834,719"),
                   ("{ch03/rng-local[threads=1]/note:# ctx sw}|count", "36")):
    if value(expr) != want:
        out.append("%s gave %s, want %s" % (expr, value(expr), want))
for expr, why in (("{ch03/rng-local[threads=16]/note:busy max/mean}", "one #"),
                  ("{ch03/rng-local[threads=1]/note:# x #}", "one #"),
                  ("{ch03/rng-local[threads=1]/note:# y}", "not in the line"),
                  ("{ch03/rng-local[threads=1]/note:# x}", "2 different numbers"),
                  ("{ch03/rng-local/note:# ctx sw}", "pick one")):
    said = value(expr)
    if not said.startswith("error") or why not in said:
        out.append("%s: want an error saying '%s', got %s" % (expr, why, said))
print("\n".join(out))
PY
) || fail "the references did not run: $said"
[ -z "$said" ] || fail "$said"
# Another run's table (the same stage and threads, another median), then no table: refused, naming the file.
sed -i 's/^rng-local                       16     1137.205/rng-local                       16     1120.000/' "$work/data/results/M/ch03.txt"
said=$(cd "$root" && python3 - "$work/data/results/M.csv" <<'PY'
import os, sys
sys.path.insert(0, "tools")
import book
rows = [(sys.argv[1], book.all_rows(sys.argv[1]))]
out = []
for expr, why in (("{ch03/rng-local[threads=16]/note:busy max/mean #}", "ch03.txt: not in the line of that row"),
                  ("{ch03/rng-local[threads=1]/note:# ctx sw}", "cannot be read")):
    if why == "cannot be read":
        os.remove(sys.argv[1][:-len(".csv")] + "/ch03.txt")
    try:
        out.append("%s gave %s from another run's table" % (expr, book.number_text(expr, rows)))
    except ValueError as e:
        if why not in str(e):
            out.append("%s: want '%s', got %s" % (expr, why, e))
print("\n".join(out))
PY
) || fail "the second check did not run: $said"
[ -z "$said" ] || fail "$said"
mkdir -p "$work/data/profiles/M"
cat > "$work/data/profiles/M/ch04_loop.txt" <<'REPORT'
  void render_kernel<0>(unsigned char *, int *, camera, int) (32, 32, 1)x(16, 16, 1), Context 1, Stream 7, Device 0, CC 9.0
    Achieved Occupancy                        %        30.33
    Avg. Active Threads Per Warp                                23.75
    smsp__inst_executed.sum                                                            inst  1,913,523,276
  void other_kernel(int) (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Avg. Active Threads Per Warp                                23.75
    Waves Per SM                                                1.94
    Waves Per SM                                                2.00
REPORT
said=$(cd "$root" && python3 - "$work/data/results/M.csv" <<'PY'
import sys
sys.path.insert(0, "tools")
import book
rows = [(sys.argv[1], book.all_rows(sys.argv[1]))]
def value(expr):
    try:
        return book.number_text(expr, rows)
    except ValueError as e:
        return "error: %s" % e
out = []
for expr, want in (("{profile:ch04_loop/Achieved Occupancy@M}|%.2f%%", "30.33%"),
                   ("{profile:ch04_loop/Avg. Active Threads Per Warp@M}|%.2f", "23.75"),
                   ("{profile:ch04_loop/smsp__inst_executed.sum@M}/1e9|%.2f", "1.91")):
    if value(expr) != want:
        out.append("%s gave %s, want %s" % (expr, value(expr), want))
for expr, why in (("{profile:ch04_loop/Achieved Occupancy}", "name the machine"),
                  ("{profile:ch04_loop/Achieved@M}", "no such metric line"),
                  ("{profile:ch04_loop/Waves Per SM@M}", "2 different values"),
                  ("{profile:ch05_loop/Waves Per SM@M}", "cannot be read"),
                  ("{profile:ch04_loop/Waves Per SM@Q}", "0 machines")):
    said = value(expr)
    if not said.startswith("error") or why not in said:
        out.append("%s: want an error saying '%s', got %s" % (expr, why, said))
print("\n".join(out))
PY
) || fail "the profile references did not run: $said"
[ -z "$said" ] || fail "$said"
echo "note and profile references: read from the row's own line of the run's table; another run's table, a bad pattern, two numbers, a missing metric or report: errors"
