#!/usr/bin/env bash
# make bench: runs every chapter of the registry once, in one invocation, and
# records the rows in ROOT/results/<gpu>_<cpu>.csv (one file per machine). A
# chapter runs its standard workload, or the smaller one its registry entry
# gives (chNN_BENCH_ARGS: the rows' workload column names it), so that the whole
# bench of one commit fits a few minutes. Rows of chapters not run this time are
# kept, so `make bench CHAPTERS="ch03"` updates one chapter.
# make studies (STUDY=1): the long studies instead (chNN_STUDY scripts:
# full-size renders, MSE ladders, scaling curves), which can run in parts
# (CHAPTERS=...); their rows go into the same file under a run id of their own
# ("study-..."), and replace only the earlier studies' rows of their chapters.
# Provenance: every row carries the commit (-dirty when tracked files differ
# from it), one run id for the whole invocation and this machine's id (the
# programs read BENCH_COMMIT, BENCH_RUN_ID, BENCH_MACHINE_ID; report.h), and
# each chapter's logs start with the same line ("# run ... commit ... machine
# ... date ..."); ROOT/results/<machine>/run.txt says what the last run was
# and how long each chapter took.
# Each chapter's printed table goes to
# ROOT/results/<machine>/<chapter>.txt (its --list-stages, which make book reads
# the stages' work= tags from, to <chapter>-stages.tsv), each raytracer stage's image to
# ROOT/images/<machine>/<chapter>-<stage>.png (.ppm without libpng; `make book`
# converts it), and the difference images a chapter registers (chNN_DIFFS,
# |a - b| x 16) beside them, their numbers in ROOT/results/<machine>/image_diffs.txt.
# ROOT is mine/ (git-ignored: a student's or any user's own results, which
# never replace the course's, however alike the machine), or data/ (the
# course's committed results, what `make book` reads) only with COURSE_DATA=1,
# a maintainer's opt-in; any other COURSE_DATA is refused before anything runs.
# Then each stage whose row asks for further runs (./chNN --list-stages, the
# bench column: argument sets separated by ';') is run once per set, and the
# chapter's chNN_BENCH_EXTRA script, if any, runs with this script's variables
# and diff_pair at hand.
# Exit status 3 from a GPU chapter means "no GPU here": its GPU stages are
# skipped, which is not a failure of the bench.
# Nothing is written in place until the end: each chapter's rows, logs and
# images go to a scratch folder of its own first, so an interrupted bench leaves
# the committed files as they were, and a chapter that failed (its program, a
# difference image, a further run or its extra script) keeps its committed rows,
# logs and images: only the chapters that succeeded replace theirs. Each file
# goes in by a rename within its target's own file system: copied first to a
# temporary file beside the target (.NAME.bench-XXXXXX), compared with the
# new file and given its mode, renamed over the target only when every file
# of its chapter (and the CSV) is so copied. A copy that fails (mine/ a
# full disk of its own) leaves every old file as it was and fails the
# chapter, its rows not taken in (mv from $TMPDIR copied into the old file
# in place, and left it cut).
# Nothing of yours is replaced: a file the bench would replace must be a
# regular file (not a symbolic link: a rename replaces it, nothing is written
# through a link) that its owner may write (for root too, as the programs
# ask; nor another user's in a sticky folder), in a folder its owner may
# write (root too), and in mine/ (yours, in no git history) wholly of the
# kind the bench writes under its name, judged in the whole file, never its
# first line alone (kind_problem; an empty file holds nothing and may go):
#   a chapter's log (chNN.txt, .err, -runs.txt, an extra's .txt): its stamp,
#     which ends with a hash of the text below it ("body" and 16 hex digits
#     of its SHA-256), and exactly that text: a log with your notes added,
#     or cut, or edited is refused, and so is a log of an older bench (its
#     stamp has no hash; the program's own text is anything a program
#     prints, so nothing short of the hash could tell your notes from it);
#   the results CSV: the course's header, then rows of ten fields or the
#     header's count (as make book reads it); an extra's CSV: a header of two
#     fields or more, every line as many; a stage list (.tsv): --list-stages'
#     rows, six fields, the second cpu, gpu or all-gpus;
#   load.txt, bench-run.txt (studies-run.txt), image_diffs.txt: every line of
#     the form the bench writes there; an image: a whole PNG (signature, IHDR
#     first, IEND last) or a whole P6 PPM (its size what its header says).
#   Each is text where it is text (no NUL, no control character).
# The names known before any chapter runs (the CSV, the run's logs, each
# chapter's logs and stage images) and the folders they go in are checked
# first (exit 2, nothing run); the others when a chapter is taken in (a
# chapter with one refused is not taken in), and each file once more just
# before its rename. bench.sh --check makes only those first checks (exit 2
# on a refusal, 0 when all pass, nothing written): make bench runs it before
# make host-record's triad, which takes minutes.
set -u
# --help: the comment above, as the usage text; --check: the first checks alone (above).
check_only=
case ${1:-} in
-h | --help) sed -n '2,/^set -u$/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
--check) check_only=1 ;;
esac
requested=${CHAPTERS:-} # from `make bench CHAPTERS=...` (or the environment): a subset
case ${COURSE_DATA:-} in
'') root=mine ;;
1) root=data ;;
*) echo "bench: COURSE_DATA is 1 (write the course's committed data/) or empty (write mine/)" >&2; exit 2 ;;
esac
# The registry, checked: eval of empty text succeeds (a make that printed
# nothing), so its text must define what it always defines (CHAPTERS and MACHINE),
# not empty; the environment's own (make bench CHAPTERS=...) does not count.
registry=$(make -s print-registry) && grep -q "^CHAPTERS='." <<< "$registry" && grep -q "^MACHINE='." <<< "$registry" && eval "$registry" ||
    { echo "bench: the chapter registry did not load (make -s print-registry gave no CHAPTERS or MACHINE): run this from the course's root, through make" >&2; exit 2; }
chapters=${requested:-$CHAPTERS}
machine=$MACHINE
csv=$root/results/$machine.csv
logdir_final=$root/results/$machine
imgdir=$root/images/$machine
study=${STUDY:-}
# The provenance every row and log carries (report.h): this tree's commit,
# one id for this invocation, this machine's.
commit=$(tools/commit.sh)
# shellcheck source=tools/run_provenance.sh
. "$(dirname "$0")/run_provenance.sh"
# shellcheck source=tools/file_checks.bash
. "$(dirname "$0")/file_checks.bash"
# shellcheck source=tools/columns.sh
. "$(dirname "$0")/columns.sh"
run_id=$(provenance_new_run_id)
[ -z "$study" ] || run_id=study-$run_id
# 8 hex of a hash: of /etc/machine-id, or where that is empty (a VM, a
# container) of the host name, the GPUs' names and UUIDs and the CPU model
machine_id=$(tools/machine.sh --id)
export BENCH_COMMIT=$commit BENCH_RUN_ID=$run_id BENCH_MACHINE_ID=$machine_id
# stamp DIR LOG: the first line of a chapter's LOG; code is its code's fingerprint
# (tools/code_id.sh), which make book compares with the code's now (stale or
# not); body the first 16 hex digits of the SHA-256 of the LOG's text, which
# says later that the file holds the bench's text and nothing else (log_problem)
stamp() {
    echo "# run $run_id commit $commit machine $machine_id code $(tools/code_id.sh "$1") date $(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        "body $(sha256sum < "$2" | cut -c1-16)"
}
# BENCH_SMOKE=1 (make check-gpu): every chapter once at its small test size
# (chNN_SMALL, --repeat 1), without the further runs and extras, into
# build/bench-smoke/: the bench's path proven, the committed results untouched.
smoke=${BENCH_SMOKE:-}
if [ -n "$smoke" ]; then
    rm -rf build/bench-smoke
    csv=build/bench-smoke/$machine.csv
    logdir_final=build/bench-smoke/$machine
    imgdir=build/bench-smoke/images
fi
ext=${IMAGE_EXT:-ppm} # what the programs were built to write (--images picks the same)
imgdir_final=$imgdir
scratch=$(mktemp -d) || exit 1
staged=() # the temporary files beside the results (and their targets), until renamed in: stage_copy
trap 'unstage 0; rm -rf "$scratch"; exit 130' INT TERM HUP
# Each chapter writes into its own scratch folder ($new, $logdir, $imgdir, $diffs
# below); only a chapter that succeeded is taken into the results, at the end.
accepted=$scratch/accepted.csv
: > "$accepted"
mkdir -p "$scratch/logs" || exit 1
logdir=$scratch/logs
status=0

# replace_problem FILE: why the bench may not replace FILE (nothing: it may).
replace_problem() {
    local f=$1 why
    why=$(replace_problem_common "$f")
    if [ -n "$why" ]; then echo "$why"; return; fi
    [ -e "$f" ] && [ "$root" = mine ] && [ -s "$f" ] || return 0 # data/ is the course's, in git; an empty file holds nothing
    [ -r "$f" ] || { echo "cannot be read to check it is the bench's"; return; }
    why=$(kind_problem "$f") || echo "holds something else (not a file make bench writes under that name: $why)"
}
# kind_problem FILE: fails, saying why, unless FILE (in mine/, not empty) is
# wholly of the kind the bench writes under its name (the top of this file).
kind_problem() {
    local f=$1 name=${1##*/} first
    case $name in
    *.png) png_problem "$f"; return ;;
    *.ppm) ppm_problem "$f"; return ;;
    *.txt | *.err)
        case $name in load.txt | *-run.txt | image_diffs.txt) ;; *) log_problem "$f"; return ;; esac ;;
    *.csv | *.tsv) ;;
    *) echo "no file of the bench's has that name"; return 1 ;;
    esac
    ! not_text "$f" || { echo "it holds bytes that are not text"; return 1; }
    IFS= read -r first < "$f"
    case $name in
    "$machine.csv") # as make book reads it: the course's header, then rows of ten fields or the header's
        [[ "$first," == "$results_columns_10,"* && "$results_columns," == "$first,"* ]] ||
            { echo "its first line is not the results' header (the course's columns, in order: a column of your own would be lost)"; return 1; }
        lines_problem "$f" -F, 'NF != 10 && NF != fields { print "line " NR " has " NF " fields, not 10 or the header'"'"'s " fields; exit 1 }' ;;
    *.csv) # a chapter's extra table: a header of two fields or more, every line as many
        lines_problem "$f" -F, 'NR == 1 && NF < 2 { print "its first line is no header"; exit 1 }
            NF != fields { print "line " NR " has " NF " fields, its header " fields; exit 1 }' ;;
    *.tsv) # a --list-stages: name, where (cpu, gpu, all-gpus), kernel, runs, tags, description
        stage_columns name where || return 1
        lines_problem "$f" -F'\t' 'NF != n_columns || $c_name !~ /^[A-Za-z0-9][A-Za-z0-9._+-]*$/ || $c_where !~ /^(cpu|gpu|all-gpus)$/ {
            print "line " NR " is not a stage'"'"'s row (name, where, kernel, runs, tags, description)"; exit 1 }' "${cols[@]}" ;;
    load.txt)
        lines_problem "$f" '' 'NR == 1 && !/^load average at start: / || NR > 1 && !/^[A-Za-z0-9_]+: steal / {
            print "line " NR " is not the load at the start or a chapter'"'"'s steal time"; exit 1 }' ;;
    *-run.txt)
        lines_problem "$f" '' '!/^[a-z0-9_]+:( |$)/ { print "line " NR " is not a \"name: value\" line"; exit 1 }' ;;
    image_diffs.txt)
        lines_problem "$f" '' '!/^[^|]+\|[^|]+\|[^|]+\|./ { print "line " NR " is not \"name|a|b|numbers\""; exit 1 }' ;;
    esac
}
# lines_problem FILE FS PROGRAM [AWK OPTION...]: FILE's lines through awk's
# PROGRAM (fields is the first line's field count; the options, such as a
# column's -v, come before it), which prints why and exits 1 at a bad one.
lines_problem() {
    LC_ALL=C awk ${2:+"$2"} "${@:4}" "NR == 1 { fields = NF } $3" "$1"
}
# log_problem LOG: a chapter's log as the bench writes it: its stamp (the run,
# commit, machine, code, date, and the body's hash: 16 hex digits of the
# SHA-256 of what follows the stamp), then exactly that text. A log of yours,
# a log with your notes added or cut, or one stamped by an older bench (no
# hash: whether it holds only the bench's text cannot be told) is refused.
log_problem() {
    local first want
    IFS= read -r first < "$1"
    [[ $first == "# run "* ]] || { echo "its first line is not a bench's stamp (# run ...)"; return 1; }
    [[ $first =~ \ body\ ([0-9a-f]{16})$ ]] ||
        { echo "its stamp has no hash of its text (an older bench's log: move it away, or delete it)"; return 1; }
    want=$(tail -n +2 -- "$1" | sha256sum | cut -c1-16)
    [ "${BASH_REMATCH[1]}" = "$want" ] || { echo "its text is not what the bench wrote (its hash differs): changed since"; return 1; }
}
# png_problem FILE: a whole PNG: the signature and an IHDR chunk first, an
# IEND chunk last (as the programs judge it, image.c's png_problem).
png_problem() {
    local size
    size=$(stat -c %s -- "$1")
    [ "$(head -c 16 -- "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a0000000d49484452 ] ||
        { echo "no PNG signature and IHDR chunk at its start"; return 1; }
    [ "$size" -ge 45 ] && [ "$(tail -c 12 -- "$1" | od -An -tx1 | tr -d ' \n')" = 0000000049454e44ae426082 ] ||
        { echo "no IEND chunk at its end: something follows the picture, or it is cut short"; return 1; }
}
# ppm_problem FILE: a whole binary PPM as the programs write it: P6, width,
# height, maxval, one blank, then exactly width x height x 3 samples (of two
# bytes past maxval 255), nothing after. (The bench writes no P3 and no comments.)
ppm_problem() {
    local head size w h max LC_ALL=C # (bytes: the header's length is counted in them)
    size=$(stat -c %s -- "$1")
    head=$(head -c 64 -- "$1" | tr '\000' '\001') # (bash holds no NUL; the header has none)
    if [[ $head =~ ^(P6[[:space:]]+([0-9]{1,9})[[:space:]]+([0-9]{1,9})[[:space:]]+([0-9]{1,5})[[:space:]]) ]]; then
        w=$((10#${BASH_REMATCH[2]})) h=$((10#${BASH_REMATCH[3]})) max=$((10#${BASH_REMATCH[4]}))
        if [ "$max" -ge 1 ] && [ "$max" -le 65535 ] &&
            [ "$size" -eq $((${#BASH_REMATCH[1]} + w * h * 3 * (max > 255 ? 2 : 1))) ]; then return 0; fi
        echo "its size is not what its header's width and height need"; return 1
    fi
    echo "it does not start with a P6 header"; return 1
}
# refuse_any FILE...: says on stderr why each FILE that may not be replaced
# may not; fails if any may not.
refuse_any() {
    local f why bad=0
    for f in "$@"; do
        why=$(replace_problem "$f")
        [ -z "$why" ] || { echo "bench: $f $why: not replaced (move it away and run again)" >&2; bad=1; }
    done
    return $bad
}
# stage_copy FILE TARGET: FILE's bytes and mode in a temporary file beside
# TARGET (.NAME.bench-XXXXXX, in TARGET's own folder, so on its file system),
# copied, compared with FILE, and listed in staged: commit_staged renames it
# over TARGET later, a rename within one file system (mv from the scratch
# folder in $TMPDIR, another file system, copied into the old file in place:
# a full disk left it cut). Fails, saying why, where the copy is not whole (a
# full disk) or TARGET may not be replaced (checked again now): TARGET is
# then as it was, and unstage removes the temporary file.
stage_copy() {
    local tmp
    tmp=$(mktemp -- "$(dirname -- "$2")/.${2##*/}.bench-XXXXXX" 2> /dev/null) ||
        { echo "bench: $2: no file could be made beside it (a full disk?): not replaced" >&2; return 1; }
    staged+=("$tmp" "$2")
    if ! { cp -- "$1" "$tmp" && cmp -s -- "$1" "$tmp" && chmod --reference="$1" -- "$tmp"; } 2> /dev/null; then
        echo "bench: $2: the copy of the new file beside it failed (a full disk?): not replaced, the old one kept" >&2
        return 1
    fi
    refuse_any "$2"
}
# unstage FROM: removes the temporary files staged from index FROM of staged on.
unstage() {
    local i
    for ((i = $1; i < ${#staged[@]}; i += 2)); do rm -f -- "${staged[i]}"; done
    staged=("${staged[@]:0:$1}")
}
# commit_staged: each staged file renamed over its target (each target checked
# once more just before); the list emptied.
commit_staged() {
    local i
    for ((i = 0; i < ${#staged[@]}; i += 2)); do
        refuse_any "${staged[i + 1]}" && mv -f -T -- "${staged[i]}" "${staged[i + 1]}" ||
            { rm -f -- "${staged[i]}"; status=1; }
    done
    staged=()
}
# take FILE FOLDER: FILE into FOLDER at once (stage_copy, which checks the
# target last, then the rename).
take() {
    local mark=${#staged[@]}
    if stage_copy "$1" "$2/${1##*/}" && mv -f -T -- "${staged[mark]}" "$2/${1##*/}"; then
        staged=("${staged[@]:0:mark}")
    else
        unstage "$mark"; status=1
    fi
}
# takeable CH: whether every file CH's run made may replace the file of its
# name in the results (said on stderr where not): CH is taken in whole or not at all.
takeable() {
    local f dests=("$logdir_final/$1-runs.txt")
    for f in "$scratch/$1/images"/*; do [ -e "$f" ] && dests+=("$imgdir_final/${f##*/}"); done
    for f in "$scratch/$1/logs"/*; do [ -e "$f" ] && dests+=("$logdir_final/${f##*/}"); done
    refuse_any "${dests[@]}"
}

# The machine should be idle: a busy one makes every number slower and noisier.
load=$(cut -d' ' -f1 /proc/loadavg)
cores=$(nproc)
if [ -z "$check_only" ] && awk -v l="$load" -v c="$cores" 'BEGIN {exit !(l > c / 2)}'; then
    echo "bench: WARNING: load average $load on $cores cores at the start: this machine is busy, and the numbers will show it"
fi
echo "load average at start: $load on $cores cores ($(date -u +%Y-%m-%dT%H:%M:%SZ))" > "$scratch/load.txt"
# cpu_ticks: this machine's CPU time so far (/proc/stat's first line, in
# ticks): "steal total". Steal is time a virtual CPU was ready to run and its
# hypervisor ran something else: a share of it while a chapter ran says the
# host was shared then (a sibling hyperthread's work does not show in it).
cpu_ticks() {
    awk '/^cpu / { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat 2>/dev/null
}
# steal_line CH BEFORE AFTER: the line load.txt keeps for a chapter.
steal_line() {
    echo "$2 $3" | awk -v ch="$1" '{ d = $4 - $2
        if (NF < 4 || d <= 0) printf "%s: steal time not readable (/proc/stat)\n", ch
        else printf "%s: steal %.1f%% of the CPUs'"'"' time while it ran (/proc/stat)\n", ch, 100 * ($3 - $1) / d }'
}

# diff_pair A B NAME: the difference image of two stage images (names without
# extension) as $imgdir/NAME, and one line "NAME|A|B|numbers" in $diffs.
diff_pair() {
    local a b line
    a=$(ls "$imgdir/$1".p[np][gm] 2>/dev/null | head -n1)
    b=$(ls "$imgdir/$2".p[np][gm] 2>/dev/null | head -n1)
    [ -n "$a" ] && [ -n "$b" ] || { echo "bench: no images for $1 / $2"; return; }
    grep -v "^$3|" "$diffs" > "$diffs.tmp" 2>/dev/null; mv "$diffs.tmp" "$diffs"
    if line=$("${IMAGE_DIFF:-build/image_diff}" "$a" "$b" "$imgdir/$3.$ext"); then
        echo "$3|$1|$2|$line" >> "$diffs"
        echo "bench: $3: $line"
    else
        echo "bench: image_diff $a $b failed"; status=1
    fi
}

# stage_runs CH: the further runs the rows of ./CH ask for, rows to $new, and
# their tables to CH-runs.txt beside CH.txt (the notes: shares, errors, what
# the CSV has no column for), each after the command that printed it.
stage_runs() {
    local name bench set sets
    while IFS=$'\t' read -r name bench; do
        [ "$bench" = - ] && continue
        IFS=';' read -ra sets <<<"$bench"
        for set in "${sets[@]}"; do
            echo "# ./$1 --stage $name $set" >> "$logdir/$1-runs.txt"
            # shellcheck disable=SC2086 # a set is words
            "./$1" --stage "$name" $set --quiet --csv "$new" >> "$logdir/$1-runs.txt" ||
                { echo "bench: $1 --stage $name $set failed"; status=1; }
        done
    done < <("./$1" --list-stages | stage_fields name bench)
}

# study_chapter CH: its long study (chNN_STUDY) into $scratch/CH/, as bench_chapter.
study_chapter() {
    local ch=$1 status=0 script=${1}_STUDY
    new=$scratch/$ch/rows.csv logdir=$scratch/$ch/logs imgdir=$scratch/$ch/images diffs=$scratch/$ch/image_diffs.txt
    mkdir -p "$logdir" "$imgdir" || return 1
    : > "$diffs"
    # shellcheck disable=SC1090 # the chapter's own script, named by the registry
    source "${!script}"
    return $status
}

# bench_chapter CH: runs it into $scratch/CH/; returns non-zero if anything failed.
bench_chapter() {
    local ch=$1 status=0 rc size=() out=() small args ray pairs list p a b name extra
    new=$scratch/$ch/rows.csv logdir=$scratch/$ch/logs imgdir=$scratch/$ch/images diffs=$scratch/$ch/image_diffs.txt
    mkdir -p "$logdir" "$imgdir" || return 1
    : > "$diffs"
    # the stages as this build has them, kept beside its rows: make book reads
    # their work= tags from here, not from whatever build the book is made with
    "./$ch" --list-stages > "$logdir/$ch-stages.tsv" || { echo "bench: ./$ch --list-stages failed"; return 1; }
    ray=${ch}_RAYTRACER
    [ "${!ray}" = yes ] && out=(--images "$imgdir" --out "$scratch/$ch.ppm")
    small=${ch}_SMALL args=${ch}_BENCH_ARGS
    # shellcheck disable=SC2206 # the registry's arguments are words
    if [ -n "$smoke" ]; then size=(${!small} --repeat 1); else size=(${!args}); fi
    "./$ch" "${size[@]}" --csv "$new" --quiet "${out[@]}" > "$logdir/$ch.txt" 2> "$logdir/$ch.err"
    rc=$?
    cat "$logdir/$ch.txt" "$logdir/$ch.err"
    case $rc in
    0) ;;
    3) echo "bench: $ch: no CUDA device here, GPU stages not run"; return 0 ;;
    *) echo "bench: $ch reported a failure (exit $rc)"; return 1 ;;
    esac
    pairs=${ch}_DIFFS
    IFS=';' read -ra list <<<"${!pairs}"
    for p in "${list[@]}"; do
        read -r a b name <<<"$p"
        [ -n "$a" ] && diff_pair "$a" "$b" "$name"
    done
    [ -n "$smoke" ] && return $status
    stage_runs "$ch"
    extra=${ch}_BENCH_EXTRA
    # shellcheck disable=SC1090 # the chapter's own script, named by the registry
    [ -n "${!extra}" ] && source "${!extra}"
    return $status
}

what=bench
if [ -n "$study" ]; then
    what=studies
    studied=
    for ch in $chapters; do
        script=${ch}_STUDY
        [ -n "${!script:-}" ] && studied="$studied $ch"
    done
    chapters=${studied# }
fi
# The files this run will replace that are known before it runs, checked
# before any chapter runs: the CSV, the run's own logs, and each chapter's
# logs and (a raytracer's) stage and difference images.
known=("$csv" "$logdir_final/load.txt" "$logdir_final/$what-run.txt" "$logdir_final/image_diffs.txt")
for ch in $chapters; do
    [ -z "$study" ] || break
    dir=${ch}_DIR ray=${ch}_RAYTRACER pairs=${ch}_DIFFS
    [ -n "${!dir:-}" ] && [ -x "./$ch" ] || continue
    known+=("$logdir_final/$ch.txt" "$logdir_final/$ch.err" "$logdir_final/$ch-stages.tsv" "$logdir_final/$ch-runs.txt")
    [ "${!ray}" = yes ] || continue
    while IFS=$'\t' read -r name; do
        known+=("$imgdir_final/$ch-$name.png" "$imgdir_final/$ch-$name.ppm")
    done < <("./$ch" --list-stages | stage_fields name)
    IFS=';' read -ra list <<<"${!pairs}"
    for p in "${list[@]}"; do
        read -r _ _ name <<<"$p"
        [ -z "$name" ] || known+=("$imgdir_final/$name.$ext")
    done
done
refuse_any "${known[@]}" || { rm -rf "$scratch"; exit 2; }
# and the folders they go in (or, not there yet, the one mkdir -p makes them
# in): a folder its owner made read-only is not written, by root either
for d in "${csv%/*}" "$logdir_final" "$imgdir_final"; do
    why=$(folder_problem "$d")
    [ -z "$why" ] || { echo "bench: cannot write the results in $d/: $why (make it writable, or move it away)" >&2; rm -rf "$scratch"; exit 2; }
done
[ -z "$check_only" ] || { rm -rf "$scratch"; exit 0; }

echo "$what: $machine ($cores cores), run $run_id, commit $commit: ${chapters:-no chapter has a study}"
ok_chapters= csv_header=
declare -A code_dir=()
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
timings=
for ch in $chapters; do
    dir=${ch}_DIR
    [ -n "${!dir:-}" ] || { echo "$what: $ch is not a chapter (make print-chapters)"; status=1; continue; }
    [ -x "./$ch" ] || { echo "$what: ./$ch is not built (make $ch)"; status=1; continue; }
    echo "$what: $ch ..."
    code_dir[$ch]=${!dir}
    t0=$SECONDS ticks0=$(cpu_ticks)
    runner=bench_chapter
    [ -z "$study" ] || runner=study_chapter
    if ! "$runner" "$ch"; then
        echo "$what: $ch failed: its committed rows, logs and images are kept as they were"; status=1
    elif ! takeable "$ch"; then
        echo "$what: $ch ran, but would replace what is not the bench's (said above): its rows, logs and images are kept as they were"
        status=1
    else
        ok_chapters="$ok_chapters $ch"
    fi
    steal_line "$ch" "$ticks0" "$(cpu_ticks)" >> "$scratch/load.txt"
    timings="$timings${ch}_s: $((SECONDS - t0))"$'\n'
    echo "$what: $ch took $((SECONDS - t0)) s (all so far: $SECONDS s)"
done

# Take in the chapters that succeeded: each file is first copied beside the
# file it replaces (stage_copy), then all are renamed in together at the end
# (commit_staged). A chapter one of whose files cannot be copied whole (a
# full disk) or may not replace its target is not taken in: its files and
# rows as they were. Where the run's own files (the CSV, image_diffs.txt)
# cannot be, nothing is taken in.
mkdir -p "$imgdir_final" "$logdir_final" || exit 1
take "$scratch/load.txt" "$logdir_final"
taken=
drop=() # an older run's further runs, which a chapter taken in no longer asks for
for ch in $ok_chapters; do
    mark=${#staged[@]} ok=1
    for f in "$scratch/$ch/logs"/*; do
        [ -e "$f" ] || continue
        case $f in # the logs a reader sees (the book includes them) start with the run they come from
        *.txt | *.err)
            { stamp "${code_dir[$ch]}" "$f" && cat "$f"; } > "$f.stamped" && mv -f "$f.stamped" "$f" ||
                { echo "bench: $ch: its log ${f##*/} could not be stamped (a full disk in $scratch?)" >&2; ok=; break; } ;;
        esac
    done
    for f in "$scratch/$ch/images"/*; do
        [ -n "$ok" ] || break
        [ ! -e "$f" ] || stage_copy "$f" "$imgdir_final/${f##*/}" || ok=
    done
    for f in "$scratch/$ch/logs"/*; do
        [ -n "$ok" ] || break
        [ ! -e "$f" ] || stage_copy "$f" "$logdir_final/${f##*/}" || ok=
    done
    if [ -n "$ok" ] && [ ! -e "$scratch/$ch/logs/$ch-runs.txt" ]; then
        refuse_any "$logdir_final/$ch-runs.txt" && drop+=("$logdir_final/$ch-runs.txt") || ok=
    fi
    # the rows, less the header a program wrote (a script may have appended rows to a file without one)
    new=$scratch/$ch/rows.csv
    if [ -n "$ok" ] && [ -f "$new" ]; then
        awk '!/^chapter,stage,/' "$new" >> "$accepted" || ok=
    fi
    if [ -z "$ok" ]; then
        unstage "$mark"; status=1
        echo "$what: $ch could not be taken in (said above): its rows, logs and images are kept as they were"
        continue
    fi
    taken="$taken $ch"
    [ -n "$csv_header" ] || [ ! -s "$new" ] || csv_header=$(grep -m 1 '^chapter,stage,' "$new")
done
# their rows replace their old rows (image_diffs.txt's lines likewise)
# (nothing_taken WHY: none of them is, after all)
nothing_taken() {
    echo "bench: $1: no chapter taken in, every file as it was" >&2
    unstage 0; drop=(); taken=; status=1
}
merged=$scratch/image_diffs.txt old=$logdir_final/image_diffs.txt diffs_taken=
for ch in $taken; do
    [ -s "$scratch/$ch/image_diffs.txt" ] || continue
    if [ -z "$diffs_taken" ]; then # the old lines first (a copy that fails is no file of no lines)
        diffs_taken=1
        if [ -f "$old" ]; then cp -- "$old" "$merged" || diffs_taken=failed; else : > "$merged" || diffs_taken=failed; fi
    fi
    [ "$diffs_taken" = 1 ] || break
    awk -F'|' 'NR == FNR {drop[$1] = 1; next} !($1 in drop)' "$scratch/$ch/image_diffs.txt" "$merged" > "$merged.new" &&
        cat "$scratch/$ch/image_diffs.txt" >> "$merged.new" && mv -f "$merged.new" "$merged" || diffs_taken=failed
done
case $diffs_taken in
failed) nothing_taken "the difference lines could not be merged (a full disk in $scratch?)" ;;
1) stage_copy "$merged" "$old" || nothing_taken "$old could not be replaced" ;;
esac
# The header is the programs' own (report.h), as they wrote it this run; an
# earlier file's rows of other chapters are kept as they are (older rows may
# lack the provenance columns: make book says so). A study replaces only the
# earlier studies' rows of its chapters, a bench only the rest.
[ -n "$csv_header" ] || csv_header=$(head -n 1 "$csv" 2>/dev/null)
[ -n "$csv_header" ] || csv_header=$results_columns_10
# (the earlier file's chapter and run_id columns, by name: an empty file has none)
if [ -n "$taken" ] && [ -s "$csv" ] && [ -f "$csv" ] && ! csv_columns "$csv" chapter 'run_id?'; then
    nothing_taken "$csv: its columns cannot be read by name (said above)"
fi
if [ -n "$taken" ]; then
    {
        echo "$csv_header"
        if [ -f "$csv" ] && [ -s "$csv" ]; then
            # an earlier row kept under a header with more columns (the spread's, added later) gets "-"
            # in each: not recorded, and every row as long as the header (make book reads no other)
            awk -F, "${cols[@]}" -v ran=" $taken " -v study="$study" -v width="$(awk -F, '{ print NF; exit }' <<< "$csv_header")" 'NR > 1 {
                ours = index(ran, " " $c_chapter " ") > 0
                was_study = c_run_id && $c_run_id ~ /^study-/
                if (!ours || (study != "") != was_study) {
                    line = $0
                    for (k = NF; k < width; k++)
                        line = line ",-"
                    print line
                } }' "$csv"
        fi
        cat "$accepted"
    } > "$scratch/all.csv" && stage_copy "$scratch/all.csv" "$csv" || nothing_taken "$csv could not be replaced"
fi
commit_staged
for f in "${drop[@]}"; do refuse_any "$f" && rm -f -- "$f" || status=1; done
ok_chapters=$taken
if [ -z "$smoke" ]; then
    { echo "run_id: $run_id"; echo "what: $what"; echo "commit: $commit"; echo "machine: $machine"
      echo "machine_id: $machine_id"; echo "started: $started"; echo "finished: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
      echo "wall_s: $SECONDS"; echo "chapters:$ok_chapters"; printf '%s' "$timings"; } > "$scratch/$what-run.txt" &&
        take "$scratch/$what-run.txt" "$logdir_final"
fi
rm -rf "$scratch"
if [ -n "$ok_chapters" ]; then
    echo "$what: wrote $csv (new rows of:$ok_chapters) in $SECONDS s"
else
    echo "$what: no chapter taken in: $csv as it was ($SECONDS s)"
fi
[ "$root" != mine ] || [ -n "$smoke" ] ||
    echo "bench: your results are in $root/ (git-ignored); the course's data/, which make book reads, is untouched"
exit $status
