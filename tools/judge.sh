# shellcheck shell=bash
# Sourced by grade.sh and run_tests.sh: grades one answer folder the way a
# teacher can sign (tests/harness.h, "the probe and the judge", says why).
#
# judge_run EXERCISE FOLDER: grades the answer in FOLDER (its files named as
# in exercises/STUBS, e.g. solutions/ch01 or a student's exercises/ch01) and
# sets what verdict_run sets (out, status, verdict, result, why), plus
#   stage    where it ended: lay | rules | compile | run
#   notes    the judge's harness-note lines (shown under a PASS)
#   answer_hash  16 hex digits of SHA-256 over the files graded (their names
#            and contents, as laid in step 1), empty where none were laid:
#            which answer the verdict is for
# Steps, each in a private folder W (so gradings at once never share a file),
# the answer laid in a second one, A, that nothing writes after step 1: every
# compile of the answer (the rules', the probe's, the judge's own) sees the
# same files around it, whatever the steps before it left in W (an answer
# that tested for the trace, __has_include("../../trace"), would otherwise
# show the judge's compile other code than the probe ran):
#  1. lay: only the exercise's own files (the manifest's names: no header of
#     the student's can shadow the test's), regular files of at most 1 MiB;
#     a file the stub hands out as given ("do not change this file") is
#     taken from the stub, never from the student;
#  2. rules (answer_rules): each file compiled alone includes nothing but its
#     own folder's files, the system's, common/ and chapters/ (not tests/ or
#     solutions/); defines no global symbol the stub does not; has no
#     constructor, destructor or init-array entry the stub has not; pulls no
#     file in through the assembler; a CUDA file preprocesses the same for the
#     host and the device (no #ifdef __CUDA_ARCH__, no NV_IF_TARGET); defines
#     or undefines no macro the stub does not (a header's macros reach the
#     test's code), adds no pragma but unroll, no _Pragma, #line, asm or
#     attribute that places, renames or un-checks code (section, alias,
#     no_sanitize, optimize...: __attribute__ or [[ ]]); gives no macro of the
#     stub's another body, and makes no pragma through a macro; adds no
#     condition (#if, #ifdef...) the stub has not, reads no predefined macro
#     that tells where it is compiled (__INCLUDE_LEVEL__, __FILE__...),
#     includes no system header but the maths' and memory's, names nothing
#     of the loader's (_DYNAMIC, environ, __builtin_frame_address...); calls
#     no function of the C or C++ library the stub does not but the maths
#     and memcpy/memset, and nothing else but the course's own code (every
#     static and inline function kept, so a header's helpers are read too);
#     a header defines or declares no static function or variable of the
#     test's own (harness_shell, a driver's counters); the text rules hold
#     for a file that compiles only inside its test;
#  3. compile: the probe, the test built with the answer (W/ex_E_probe),
#     which takes from the system's libraries nothing the judge does not
#     (but the maths and printing) and links in no global the judge lacks;
#  4. run: the probe in tools/sandbox.c (it writes the trace, W/trace), then
#     the judge, the test built against the stub as handed out
#     (BUILD/tests/ex_E_stub, shared and built under a lock), on the trace,
#     through tools/verdict.sh's channel. The verdict is the judge's. The
#     machine code the judge grades is the probe's own (the probe build keeps
#     its assembly, objects and PTX in W), and what the judge compiles of the
#     answer itself it compiles in the sandbox (harness.h's harness_shell).
# judge_prepare EXERCISE...: builds what gradings share (the sandbox, the
# stubs' judges), under a lock, once before the first judge_run.
# JUDGE_KEEP=1 keeps W (its path is printed) to look at.
. "$(dirname "${BASH_SOURCE[0]}")/verdict.sh"

# The makes below are the grader's own, not the caller's (a make -j16 would
# hand them a jobserver they cannot reach, and a warning for it)
unset MAKEFLAGS MFLAGS MAKELEVEL
judge_build=${BUILD:-build}
judge_sandbox=$judge_build/sandbox
judge_tmp=${TMPDIR:-/tmp}
[[ $judge_tmp == /* ]] && [ -d "$judge_tmp" ] && [ -w "$judge_tmp" ] || judge_tmp=/tmp
# Every grading's folder W lies in one folder, hidden from every run of an
# answer but its own grading's (another student's answer is never readable).
judge_root=$judge_tmp/course-judge-$(id -u)

judge_make() { make --no-print-directory -s "$@"; }

# The registry (ex_E_DIR, ex_E_INCLUDE), read once.
judge_registry() {
    [ -z "${judge_registry_read:-}" ] || return 0
    local text
    text=$(make -s --no-print-directory print-registry) && [ -n "$text" ] ||
        { echo "judge: make print-registry gave nothing: the registry cannot be read" >&2; exit 2; }
    eval "$text"
    judge_registry_read=1
    judge_nvcc=$(judge_make print-nvcc) judge_arch=$(judge_make print-cuda-arch) judge_cc=${CC:-gcc}
    # the compilers' own header folders, wherever they are installed (/opt/gcc...)
    mapfile -t judge_system_dirs < <({ echo | "$judge_cc" -x c -E -v - 2>&1; echo | c++ -x c++ -E -v - 2>&1; } |
        sed -n '/^#include <...> search starts here:/,/^End of search list/s/^ //p' | xargs -r realpath -m -- 2>/dev/null)
}

judge_prepare() {
    judge_registry
    local targets=("$judge_sandbox") e
    for e in "$@"; do targets+=("$judge_build/tests/ex_${e}_stub"); done
    mkdir -p "$judge_build" || exit 1
    # one preparation at a time: two gradings must not link one file at once
    flock "$judge_build/.judge.lock" make --no-print-directory -s BUILD="$judge_build" judges JUDGE_TARGETS="${targets[*]}" ||
        { echo "judge: the stubs' judges do not build: the course's checkout is broken, not the answer" >&2; exit 2; }
    "$judge_sandbox" --check ||
        echo "judge: this kernel has no Landlock (Linux 5.13 or newer has it): answers run without the sandbox's write and process rules" >&2
}

# The manifest's file names of exercise E's folder.
judge_files() {
    local dir=${1}
    sed -n "s|^[0-9a-f]* exercises/$dir/||p" exercises/STUBS
}

# What the test's build defines that a file compiled alone has not.
judge_context=(-O2 -DEX_DIR='"x"' -DPROJECT_DIR='"x"' -DNVCC='"x"' -DCC_NAME='"x"' -DCUDA_ARCH='"x"' -Itests
    -include tests/harness.h)

judge_fail() { # stage why [lines]
    stage=$1 verdict=fail why=$2 out=${3:-} result='' status=1
}

# answer_lay E FROM TO: the manifest's files from FROM into TO.
answer_lay() {
    local f n given
    mkdir -p "$3" || return 1
    while read -r f; do
        if [ -L "$2/$f" ] || { [ -e "$2/$f" ] && [ ! -f "$2/$f" ]; }; then
            judge_fail lay "your $f is not a plain file (a link, a folder...): give the file itself"; return 1
        elif [ ! -e "$2/$f" ]; then
            judge_fail lay "your folder has no $f (make reset EX=$1 brings back the stub)"; return 1
        fi
        n=$(stat -c %s -- "$2/$f")
        [ "$n" -le 1048576 ] || { judge_fail lay "your $f is $n bytes: at most 1 MiB"; return 1; }
        # a file handed out as given ("do not change this file") is the stub's, whatever is in your folder
        given=$judge_build/committed-stubs/$(judge_dir "$1")/$f
        if head -n 3 -- "$given" 2>/dev/null | grep -qi 'do not change this file\|(given; do not change)'; then
            cp -- "$given" "$3/$f" || return 1
        else
            cp -- "$2/$f" "$3/$f" || return 1
        fi
    done < <(judge_files "$(judge_dir "$1")")
}

judge_dir() { local v="ex_${1}_DIR"; echo "${!v:-$1}"; }

# answer_compile KIND FILE OBJECT INCLUDES...: FILE compiled alone (c or cuda).
answer_compile() {
    local kind=$1 file=$2 obj=$3
    shift 3
    if [ "$kind" = cuda ]; then
        judge_confined "$judge_nvcc" -arch="$judge_arch" -std=c++17 -c -x cu "$@" "$file" -o "$obj"
    else
        judge_confined "$judge_cc" -std=c11 -D_POSIX_C_SOURCE=200809L -c -x c "$@" "$file" -o "$obj"
    fi
}

# The global symbols an object defines, and its start-up and exit tables' sizes.
answer_symbols() { nm -g --defined-only -- "$1" | awk '{print $NF}' | LC_ALL=C sort -u; }
answer_tables() {
    readelf -S -W -- "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
        awk '$1 ~ /^\.(init_array|fini_array|preinit_array|ctors|dtors|init|fini)(\..*)?$/ || $2 ~ /^(INIT_ARRAY|FINI_ARRAY|PREINIT_ARRAY)$/ {print $1, $2, $5}' |
        LC_ALL=C sort
}

# answer_pass KIND FILE PASS OUT INCLUDES...: FILE preprocessed alone, as
# the C compiler does it, or for CUDA as nvcc's own command for that pass
# (host or device, read from nvcc --dryrun) does it; OUT.lines gets the lines
# that come from FILE itself, OUT.includes every file it included (-H).
answer_pass() {
    local kind=$1 file=$2 pass=$3 o=$4 cmd
    shift 4
    if [ "$kind" = c ]; then
        cmd="$(printf '%q ' "$judge_cc" -std=c11 -D_POSIX_C_SOURCE=200809L -x c "$@")"
    else
        # nvcc names its input last on the line and its output after -o: both dropped, ours given below
        cmd=$("$judge_nvcc" -arch="$judge_arch" -std=c++17 --dryrun -c -x cu "$@" answer.cu -o /dev/null 2>&1 |
            sed -n 's/^#\$ //p' | grep -e ' -E ' | grep -v -e 'cudafe\|cicc' |
            if [ "$pass" = device ]; then grep -e '-D__CUDA_ARCH__='; else grep -v -e '-D__CUDA_ARCH__='; fi |
            head -n 1 | sed -E 's/ -o "?[^ "]*"? *$//; s/ "?answer[.]cu"?( |$)/ /')
        [ -n "$cmd" ] || { : > "$o.lines"; : > "$o.includes"; return 1; }
    fi
    eval "judge_confined $cmd -H -E $(printf '%q' "$file")" 2> "$o.stderr" |
        awk -v f="$(basename "$file")" '/^# [0-9]+ "/ { split($0, a, "\""); n = split(a[2], p, "/"); cur = p[n]; next }
            cur == f && NF { print }' > "$o.lines"
    sed -n 's/^\.\.* //p' "$o.stderr" > "$o.includes"
}

# answer_outside FILE DIR: the files listed in FILE that are not DIR's, the
# system's, the CUDA Toolkit's, common/'s or chapters/'s.
answer_outside() {
    local dep root cuda ok d
    root=$(pwd -P) cuda=$(realpath -m "$(dirname "$judge_nvcc")/..")
    while IFS= read -r dep; do
        dep=$(realpath -m -- "$dep")
        case $dep in
        "$2"/* | /usr/* | "$cuda"/* | "$root"/common/* | "$root"/chapters/*) continue ;;
        esac
        ok=
        for d in "${judge_system_dirs[@]}"; do [[ $dep == "$d"/* ]] && ok=1 && break; done
        [ -n "$ok" ] || echo "$dep"
    done < "$1" | LC_ALL=C sort -u
}

# answer_rules E W A: the rules of step 2 for every file laid in A; 1 with why set.
answer_rules() {
    local e=$1 w=$2 dir lang f kind stub bad here inc=() word forced=() alone
    dir=$(judge_dir "$e")
    here=$(cd "$3/answer/$dir" && pwd -P)
    lang=c
    [ -f "tests/test_ex_$e.cu" ] && lang=cuda
    local v="ex_${e}_INCLUDE"
    for word in ${!v:-}; do # only its -I folders: a forced -include is the test's own
        case $word in -I*) inc+=("$word") ;; esac
    done
    inc=(-I"$here" -Icommon "${inc[@]}")
    mkdir -p "$w/rules" || return 1
    while read -r f; do
        case $f in
        *.c) kind=c ;;
        *.cu | *.cuh) kind=cuda ;;
        *) kind=$lang ;;
        esac
        stub=$judge_build/committed-stubs/$dir/$f
        if grep -qi 'incbin' -- "$here/$f"; then
            judge_fail rules "your $f pulls a file in through the assembler (.incbin): an answer may not"; return 1
        fi
        answer_pass "$kind" "$here/$f" host "$w/rules/host" "${inc[@]}"
        [ "$kind" = c ] || answer_pass cuda "$here/$f" device "$w/rules/device" "${inc[@]}"
        cat "$w/rules/host.includes" "$w/rules/device.includes" > "$w/rules/all.includes" 2>/dev/null
        bad=$(answer_outside "$w/rules/all.includes" "$here" | head -n 3)
        if [ -n "$bad" ]; then
            judge_fail rules "your $f includes a file from outside its folder, the system, common/ and chapters/: $(tr '\n' ' ' <<<"$bad")(an answer may not use the tests' or the solutions' files)"
            return 1
        fi
        # the text the stub holds says which directives and words the file may
        # use: read before any compile, so a file that compiles only inside
        # its test (ch11's ring_step.h) is held to them too
        answer_pass "$kind" "$stub" host "$w/rules/stub-text" "${inc[@]}"
        answer_text_rules "$f" "$here/$f" "$stub" "$w/rules/host.lines" "$w/rules/stub-text.lines" || return 1
        # the stub compiled the same way says what the file may define (a
        # file that is not compiled that way, the stub's neither, skips the
        # checks that read an object: the text's below still hold)
        alone=
        if answer_compile "$kind" "$stub" "$w/rules/stub.o" "${inc[@]}" >/dev/null 2>&1; then
            answer_object_rules "$kind" "$f" "$here/$f" "$stub" "$w" "${inc[@]}" || return 1
            alone=1
        fi
        answer_context_rules "$kind" "$f" "$here/$f" "$w" "${inc[@]}" || return 1
        answer_reach_rules "$f" "$here/$f" "$stub" "$w/rules/host.lines" "$w/rules/stub-text.lines" || return 1
        # what the probe's build must hold of it: these lines, or, where the
        # exercise forces a header of the test's into every build of it
        # (ch03's atomics), the lines with that header in
        mkdir -p "$w/rules/own" || return 1
        if [[ " ${!v:-} " == *" -include "* ]]; then
            read -r -a forced <<< "${!v}"
            answer_pass "$kind" "$here/$f" host "$w/rules/forced" "${inc[@]}" "${forced[@]}"
            cp "$w/rules/forced.lines" "$w/rules/own/$f.lines" || return 1
        else
            cp "$w/rules/host.lines" "$w/rules/own/$f.lines" || return 1
        fi
        cp "$w/rules/stub-text.lines" "$w/rules/own/$f.stub-lines" || return 1
        answer_test_names_rule "$e" "$f" "$w" "$alone" || return 1
    done < <(judge_files "$dir")
}

# answer_object_rules KIND NAME FILE STUB W INCLUDES...: the rules that read
# the file's object beside the stub's (W/rules/stub.o): it compiles alone,
# defines no global symbol, start-up entry or macro named like the
# exercise's own that the stub does not, and calls nothing outside the
# program the stub does not (but the C library's maths and memory copies).
answer_object_rules() {
    local kind=$1 f=$2 file=$3 stub=$4 w=$5 bad
    shift 5
    if ! answer_compile "$kind" "$file" "$w/rules/answer.o" "$@" > "$w/rules/log" 2>&1; then
        if grep -q 'Permission denied' "$w/rules/log"; then
            judge_fail rules "your $f includes a file an answer may not read (the solutions', the wrong answers', git's or a build's):" "$(grep -m 3 'Permission denied' "$w/rules/log")"
        else
            judge_fail compile "your $f does not compile on its own:" "$(grep -E 'error' "$w/rules/log" | head -n 10)"
        fi
        return 1
    fi
    bad=$(LC_ALL=C comm -23 <(answer_symbols "$w/rules/answer.o") <(answer_symbols "$w/rules/stub.o") | head -n 5)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f defines $(tr '\n' ' ' <<<"$bad")for other files to use: an answer may define only the exercise's own functions (make a helper static)"
        return 1
    fi
    if [ "$(answer_tables "$w/rules/answer.o")" != "$(answer_tables "$w/rules/stub.o")" ] ||
        nm -- "$w/rules/answer.o" | awk '$(NF-1) == "i"' | grep -q .; then
        judge_fail rules "your $f has code that runs before main() or after it (a constructor, a destructor, a global object, an ifunc resolver): an answer may not"
        return 1
    fi
    bad=$(LC_ALL=C comm -12 <(answer_macro_names "$file") <(answer_all_names "$w/rules/stub.o") | head -n 3)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f defines a macro named like the exercise's own $(tr '\n' ' ' <<<"$bad")(a #define that renames what the test calls): an answer may not"
        return 1
    fi
    # every function kept, the unused static and inline ones too: a header's
    # helpers are compiled only where the test calls them, and what they
    # call must be seen here
    local keep
    read -r -a keep <<< "$(answer_keep_flags "$kind")"
    answer_compile "$kind" "$file" "$w/rules/answer-all.o" "$@" "${keep[@]}" > /dev/null 2>&1 &&
        answer_compile "$kind" "$stub" "$w/rules/stub-all.o" "$@" "${keep[@]}" > /dev/null 2>&1 ||
        { judge_fail compile "your $f does not compile with every function kept (-fkeep-static-functions)"; return 1; }
    answer_system_functions > "$w/rules/system-functions" ||
        { judge_fail rules "the grader cannot read the C library's functions (nm -D libc.so.6)"; return 1; }
    bad=$(LC_ALL=C comm -23 <(answer_calls "$w/rules/answer-all.o") <(answer_calls "$w/rules/stub-all.o") |
        LC_ALL=C comm -12 - "$w/rules/system-functions" | grep -Ev "$answer_calls_allowed" | head -n 5)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f calls $(tr '\n' ' ' <<<"$bad")which the stub does not: an answer computes; it may call the C library's maths and memcpy/memset, no input, output or system call"
        return 1
    fi
    # and nothing else outside it but the course's own functions: not
    # Check's, not the loader's, not another library's
    [ -s "$w/rules/course-names" ] || answer_course_names > "$w/rules/course-names"
    bad=$(LC_ALL=C comm -23 <(answer_needs "$w/rules/answer-all.o") <(answer_needs "$w/rules/stub-all.o") |
        grep -Ev "$answer_calls_allowed" | grep -vx '_GLOBAL_OFFSET_TABLE_' | LC_ALL=C comm -23 - "$w/rules/course-names" | head -n 5)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f uses $(tr '\n' ' ' <<<"$bad")which is neither the C library's maths nor the course's own (common/, chapters/): an answer computes with what the stub's comments hand it"
        return 1
    fi
}
# answer_course_names: every name the course's own code (common/,
# chapters/) writes, sorted: what an answer may use from outside itself
# (the C library's functions are refused before, by name).
answer_course_names() {
    find common chapters -type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \) -print0 |
        xargs -0 -r grep -ohE '[A-Za-z_][A-Za-z0-9_]*' | LC_ALL=C sort -u
}
# answer_needs OBJECT: the plain names (demangled, arguments dropped) of
# what OBJECT uses and does not define, sorted.
answer_needs() {
    nm -C -u -- "$1" | sed -E 's/^ *U //; s/@.*//; s/\(.*//; s/.*:://; s/<.*//' | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | LC_ALL=C sort -u
}

# answer_context_rules KIND NAME FILE W INCLUDES...: the file's text the same
# for the host and the device, inside the test and under other flags.
answer_context_rules() {
    local kind=$1 f=$2 file=$3 w=$4
    shift 4
    if [ "$kind" = cuda ] && ! cmp -s "$w/rules/host.lines" "$w/rules/device.lines"; then
        judge_fail rules "your $f compiles other code for the GPU than for the CPU (#ifdef __CUDA_ARCH__, NV_IF_TARGET, ...): the exercise grades one function, the same on both"
        return 1
    fi
    # the same text in the test's own context (optimised, the test's
    # macros and harness defined): the code these rules read is the code
    # the test runs, not one kept for when it is looked at alone
    answer_pass "$kind" "$file" host "$w/rules/context" "$@" "${judge_context[@]}"
    if ! cmp -s "$w/rules/host.lines" "$w/rules/context.lines"; then
        judge_fail rules "your $f compiles other code inside the test than on its own (#ifdef __OPTIMIZE__, on a macro of the test's or the harness's, ...): an answer is one text, whoever compiles it"
        return 1
    fi
    # and under the flags the graders' own builds add (threads, a
    # sanitizer, fast math, GNU C, a macro of a grader's), each of which
    # defines a macro of its own
    if [ "$kind" = c ]; then
        answer_pass c "$file" host "$w/rules/flags" "$@" -O2 -g -pthread -fsanitize=thread -ffast-math \
            -std=gnu11 -fPIC -DEX_CH11_ANSWER_ONLY
        if ! cmp -s "$w/rules/host.lines" "$w/rules/flags.lines"; then
            judge_fail rules "your $f compiles other code under other compiler flags (#ifdef _REENTRANT, __SANITIZE_THREAD__, __FAST_MATH__, ...): an answer is one text, whatever flags build it"
            return 1
        fi
    fi
}

# answer_text_rules NAME FILE STUB LINES STUB_LINES: what the file's text may
# hold that the stub's does not. No #define or #undef of a name the stub
# does not define: a header's macros reach the test's own code after it is
# included (a test function renamed, its message builder silenced). No
# #pragma but a loop's unrolling, no _Pragma, no #line (it would move the
# answer's lines out of the file the rules read). And in the code it
# compiles to (LINES, the preprocessor's output: macros expanded), no asm
# (a system call needs no library function) and no attribute that places
# or renames code (section, alias, ifunc, constructor...).
answer_text_rules() {
    local f=$1 file=$2 stub=$3 lines=$4 stub_lines=$5 bad
    bad=$(LC_ALL=C comm -23 <(answer_directive_names "$file") <(answer_directive_names "$stub") | head -n 3)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f defines or undefines a macro the stub does not: $(tr '\n' ' ' <<<"$bad")(a macro reaches the test's code after your file: write a function, or a static const)"
        return 1
    fi
    bad=$(answer_directives "$file" | grep -Ev '^pragma( (GCC|clang))? (unroll|nounroll)([ (]|$)|^pragma once$' |
        LC_ALL=C sort -u | LC_ALL=C comm -23 - <(answer_directives "$stub" | LC_ALL=C sort -u) |
        grep -E '^(pragma|line|[0-9])' | head -n 2)
    if [ -n "$bad" ] || { grep -q '_Pragma' -- "$file" && ! grep -q '_Pragma' -- "$stub"; }; then
        judge_fail rules "your $f has a directive an answer may not use: $(tr '\n' ' ' <<<"${bad:-_Pragma}")(#pragma unroll is the one pragma an answer may add; no #line)"
        return 1
    fi
    for bad in asm __asm __asm__; do
        if answer_has_word "$lines" "$bad" && ! answer_has_word "$stub_lines" "$bad"; then
            judge_fail rules "your $f has inline assembly ($bad): an answer is C or CUDA the compiler reads"
            return 1
        fi
    done
    bad=$(LC_ALL=C comm -23 <(answer_attribute_words "$lines") <(answer_attribute_words "$stub_lines") | head -n 1)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f has an attribute that places, renames or un-checks code ($bad): an answer may not"
        return 1
    fi
    # the preprocessor's own output: a pragma a macro made (a stub's macro
    # given a body, _Pr ## agma pasted) is a pragma too
    bad=$(grep -E '^[ \t]*#[ \t]*pragma' -- "$lines" | sed 's/^[ \t]*#[ \t]*//; s/[ \t][ \t]*/ /g' |
        grep -Ev '^pragma( (GCC|clang))? (unroll|nounroll)([ (]|$)|^pragma once$' | LC_ALL=C sort -u |
        LC_ALL=C comm -23 - <(grep -E '^[ \t]*#[ \t]*pragma' -- "$stub_lines" | sed 's/^[ \t]*#[ \t]*//; s/[ \t][ \t]*/ /g' | LC_ALL=C sort -u) | head -n 1)
    if [ -n "$bad" ] || { answer_has_word "$lines" _Pragma && ! answer_has_word "$stub_lines" _Pragma; }; then
        judge_fail rules "your $f makes a pragma through a macro (${bad:-_Pragma}): #pragma unroll is the one pragma an answer may add"
        return 1
    fi
    # a macro the stub defines keeps the stub's body (a guard given a body would paste code into the test)
    bad=$(LC_ALL=C comm -23 <(answer_directives "$file" | grep -E '^define ' | LC_ALL=C sort -u) \
        <(answer_directives "$stub" | grep -E '^define ' | LC_ALL=C sort -u) | head -n 1)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f changes a macro the stub defines (#$bad): keep the stub's #define lines as they are"
        return 1
    fi
}

# answer_reach_rules NAME FILE STUB LINES STUB_LINES: what the file may not
# reach for that the stub does not (read after the rules above, so an answer
# that breaks one of them hears of that one first).
answer_reach_rules() {
    local f=$1 file=$2 stub=$3 lines=$4 stub_lines=$5 bad
    # no condition the stub does not have: a branch only one compiler, one
    # include depth or one set of flags takes is code the rules never read
    bad=$(LC_ALL=C comm -23 <(answer_directives "$file" | grep -E '^(if|ifdef|ifndef|elif|elifdef|elifndef)( |$)' | LC_ALL=C sort -u) \
        <(answer_directives "$stub" | grep -E '^(if|ifdef|ifndef|elif|elifdef|elifndef)( |$)' | LC_ALL=C sort -u) | head -n 1)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f adds a condition the stub does not have (#$bad): an answer is one text, the same code whoever compiles it, at any include depth, with any flags"
        return 1
    fi
    bad=$(LC_ALL=C comm -23 <(answer_context_words "$file") <(answer_context_words "$stub") | head -n 1)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f reads where or how it is compiled ($bad): an answer is the same code wherever it is included"
        return 1
    fi
    bad=$(LC_ALL=C comm -23 <(answer_directives "$file" | sed -n 's/^include *<\([^>]*\)>.*/\1/p' | LC_ALL=C sort -u) \
        <({ answer_directives "$stub" | sed -n 's/^include *<\([^>]*\)>.*/\1/p'; printf '%s\n' $answer_headers_allowed; } | LC_ALL=C sort -u) | head -n 3)
    if [ -n "$bad" ]; then
        judge_fail rules "your $f includes a system header the stub does not: $(tr '\n' ' ' <<<"$bad")(an answer may add only the maths and memory headers: $answer_headers_allowed)"
        return 1
    fi
    for bad in $answer_linker_words; do
        if answer_has_word "$lines" "$bad" && ! answer_has_word "$stub_lines" "$bad"; then
            judge_fail rules "your $f names $bad, the program's own loader or start-up data: an answer computes"
            return 1
        fi
    done
}

# answer_attribute_words LINES: the words inside LINES' attributes
# (__attribute__((...)), __attribute((...)), [[...]]: each read to its own
# closing parenthesis or brackets, a word written __word__ read as word)
# that place, rename, alias or un-check code, or change how it is
# compiled, sorted: section, alias, weakref, ifunc, constructor...,
# no_sanitize..., optimize, target, noipa...
answer_attribute_words() {
    perl -0777 -ne 'my $p = qr/(\((?:[^()]++|(?-1))*\))/;
        print "$1\n" while /__attribute(?:__)?\s*$p/g;
        print "$1\n" while /\[\s*\[(.*?)\]\s*\]/gs;' -- "$1" |
        grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sed -E 's/^__(.+)__$/\1/' |
        grep -xE 'section|alias|weak|weakref|ifunc|symver|constructor|destructor|init_priority|visibility|externally_visible|no_reorder|no_sanitize[a-z_]*|no_address_safety_analysis|disable_sanitizer_instrumentation|no_instrument_function|no_profile_instrument_function|no_stack_protector|optimize|target|target_clones|target_version|noipa|used|retain|naked|patchable_function_entry|cleanup|tls_model' |
        LC_ALL=C sort -u
}

# answer_test_names_rule E NAME W ALONE: a header of the answer (it is included
# into the test's own code; ALONE non-empty where it compiled on its own, its
# object in W/rules/answer-all.o) names nothing the test keeps to itself, no static
# function or variable of tests/harness.h or of the exercise's test files
# that the stub does not name: no harness_shell, no counter of the test's
# (a declaration of one compiles alone and joins the test's in its build).
answer_test_names_rule() {
    local e=$1 f=$2 w=$3 alone=$4 bad
    case $f in *.c) return 0 ;; esac # its own file: the test's statics are out of its reach
    [ -s "$w/rules/test-statics" ] || answer_test_statics "$e" > "$w/rules/test-statics" || return 1
    if [ -n "$alone" ]; then
        # compiled alone: the names its object defines or takes from
        # elsewhere (a declaration of the test's, a tentative definition); a
        # local variable is neither, whatever its name
        bad=$(LC_ALL=C comm -23 <(answer_object_names "$w/rules/answer-all.o") <(answer_object_names "$w/rules/stub-all.o") |
            LC_ALL=C comm -12 - "$w/rules/test-statics" | head -n 3)
    else # (a file that compiles only inside its test: every word of it)
        bad=$(LC_ALL=C comm -23 <(answer_identifiers "$w/rules/own/$f.lines") <(answer_identifiers "$w/rules/own/$f.stub-lines") |
            LC_ALL=C comm -12 - "$w/rules/test-statics" | head -n 3)
    fi
    if [ -n "$bad" ]; then
        judge_fail rules "your $f names $(tr '\n' ' ' <<<"$bad")which the test keeps to itself (its harness or its checks): an answer uses only what the stub's comments hand it (rename a helper that shares the name)"
        return 1
    fi
}
# The system headers any answer may include (the stub's too): maths,
# fixed-width integers, the compiler's vector intrinsics, memory copies.
answer_headers_allowed='math.h stdint.h stddef.h stdbool.h float.h limits.h string.h immintrin.h x86intrin.h stdatomic.h cuda_runtime.h cuda_fp16.h cuda_bf16.h mma.h'
# Names of the loader's and the start-up's own, and the builtins that walk
# the stack: from them an answer could find any library function without
# naming it.
answer_linker_words='_DYNAMIC _GLOBAL_OFFSET_TABLE_ __ehdr_start __executable_start _r_debug r_debug link_map environ __environ _environ _end _edata _etext __bss_start __dso_handle __data_start data_start __init_array_start __fini_array_start __libc_start_main __libc_stack_end __builtin_frame_address __builtin_return_address __builtin_extract_return_addr __builtin_apply __builtin_apply_args __builtin_longjmp __builtin_setjmp'
# answer_context_words FILE: the predefined macros in FILE's text (comments
# gone) that tell where or how it is compiled, sorted.
answer_context_words() {
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' -- "$1" | "$judge_cc" -fpreprocessed -dD -E -P -x c - 2>/dev/null |
        grep -oE '\b(__INCLUDE_LEVEL__|__BASE_FILE__|__FILE_NAME__|__FILE__|__LINE__|__COUNTER__|__TIMESTAMP__|__DATE__|__TIME__|__has_include|__has_include_next)\b' |
        LC_ALL=C sort -u
}
# answer_object_names OBJECT: the plain names OBJECT defines or needs, sorted.
answer_object_names() { { answer_all_names "$1"; answer_needs "$1"; } | LC_ALL=C sort -u; }
# answer_identifiers LINES: every identifier in LINES, sorted.
answer_identifiers() { grep -oE '[A-Za-z_][A-Za-z0-9_]*' -- "$1" | LC_ALL=C sort -u; }
# answer_test_statics E: the names tests/harness.h and exercise E's test
# files (tests/test_ex_E.*, tests/ex_DIR_*, not a header the exercise forces
# into the answer's build) define static at file scope, sorted.
answer_test_statics() {
    local e=$1 dir v forced files=() t
    dir=$(judge_dir "$e")
    v="ex_${e}_INCLUDE"
    forced=" ${!v:-} "
    for t in tests/harness.h tests/test_ex_"$e".* tests/ex_"$dir"_* tests/ex_"$e"_*; do
        [ -f "$t" ] && [[ $forced != *" $t "* ]] && [[ " ${files[*]} " != *" $t "* ]] && files+=("$t")
    done
    awk '
        /^START_TEST *\(/ { # what harness.h makes of a test: its statics
            t = $0; sub(/^START_TEST *\( */, "", t); sub(/[ )].*/, "", t)
            print t; print t "_body"; print t "_fn"; print t "_ttest"; next
        }
        { line = $0; while (sub(/^__attribute__ *\(\([^)]*\)+ */, "", line)) {} }
        line ~ /^static[ \t]/ {
            sub(/\/[\/*].*/, "", line)
            if (match(line, /^[^=({;]*[A-Za-z_0-9][ \t]*\(/)) {   # a function: the name before its (
                line = substr(line, 1, RLENGTH); sub(/[ \t]*\($/, "", line); n = split(line, w, /[^A-Za-z_0-9]+/); print w[n]; next
            }
            # variables: initialisers, strings and sizes dropped, then each declarator'"'"'s last word
            gsub(/"[^"]*"/, "", line); gsub(/\{[^}]*\}/, "", line); sub(/;.*/, "", line); gsub(/\[[^]]*\]/, "", line); gsub(/=[^,]*/, "", line)
            n = split(line, part, ","); for (i = 1; i <= n; i++) { m = split(part[i], w, /[^A-Za-z_0-9]+/); while (m > 0 && w[m] == "") m--; if (m) print w[m] }
        }' "${files[@]}" | grep -E '^[A-Za-z_]' | grep -vxE 'static|inline|const|void|int|char|long|float|double|unsigned|struct|__attribute__' | LC_ALL=C sort -u
}

# answer_directives FILE: each preprocessing directive FILE itself holds
# (comments gone, lines spliced, the # and spaces around it dropped), one
# a line: "define X 1", "pragma unroll", "line 7", "1 \"x.c\"" ...
answer_directives() {
    local spliced
    spliced=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' -- "$1")
    # a GNU line marker ("# 3 \"x.c\"") is taken as one by the reading below: seen first, as "line"
    grep -qE '^[ \t]*#[ \t]*[0-9]' <<<"$spliced" && echo "line (a line marker)"
    "$judge_cc" -fpreprocessed -dD -E -P -x c - <<<"$spliced" 2>/dev/null |
        sed -n 's/^[ \t]*#[ \t]*\(.*[^ \t]\)[ \t]*$/\1/p' | sed 's/[ \t][ \t]*/ /g'
}
# answer_directive_names FILE: the names FILE #defines or #undefs, sorted.
answer_directive_names() {
    answer_directives "$1" | sed -n 's/^\(define\|undef\) \([A-Za-z_][A-Za-z0-9_]*\).*/\2/p' | LC_ALL=C sort -u
}
# answer_has_word LINES WORD: WORD as a token in the preprocessed LINES.
answer_has_word() { grep -qE "(^|[^A-Za-z0-9_])$2([^A-Za-z0-9_]|$)" -- "$1"; }
# answer_calls OBJECT: the functions OBJECT calls that it does not define.
answer_calls() { nm -u -- "$1" | awk '{print $NF}' | sed 's/@.*//' | LC_ALL=C sort -u; }
# answer_system_functions: every function the C and C++ libraries export
# (what an answer's new call may not be, but for the maths below; a call
# of the course's own, a chapter's function, is the exercise's business).
answer_system_functions() {
    local lib
    for lib in libc.so.6 libstdc++.so.6 libgcc_s.so.1; do
        lib=$("$judge_cc" -print-file-name="$lib")
        [ ! -f "$lib" ] || nm -D --defined-only -- "$lib" | awk '{print $NF}' | sed 's/@.*//'
    done | LC_ALL=C sort -u | grep .
}
# The calls an answer may add: the C library's maths (float and double),
# memory copies, the stack protector's and the compiler's own helpers.
answer_calls_allowed='^(_?_?(sqrt|cbrt|hypot|pow|exp|exp2|expm1|log|log2|log10|log1p|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|fabs|floor|ceil|trunc|round|lround|rint|lrint|nearbyint|fmod|remainder|fma|fmin|fmax|copysign|frexp|ldexp|modf|erf|erfc|sincos)[fl]?(_finite)?|mem(cpy|set|move|cmp)|__mem(cpy|set|move)_chk|__stack_chk_fail|__muldc3|__mulsc3|__divdc3|__divsc3|__popcount[sd]i2|__clz[sd]i2|__ctz[sd]i2)$'
# The flags that keep every function of a file in its object (nvcc hands
# them to the host compiler).
answer_keep_flags() { if [ "$1" = cuda ]; then echo -Xcompiler -fkeep-static-functions,-fkeep-inline-functions; else echo -fkeep-static-functions -fkeep-inline-functions; fi; }

# answer_macro_names FILE: the names FILE itself #defines (its lines
# spliced, its comments gone: the compiler's own reading, with -fpreprocessed
# no file is included), sorted.
answer_macro_names() {
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' -- "$1" | "$judge_cc" -fpreprocessed -dD -E -P -x c - 2>/dev/null |
        sed -n 's/^[ \t]*#[ \t]*define[ \t]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' | LC_ALL=C sort -u
}
# answer_all_names OBJECT: every function and object OBJECT defines, global or
# not, by its plain name (C++ and CUDA names demangled, arguments dropped).
answer_all_names() {
    nm -C --defined-only -- "$1" | cut -d' ' -f3- | sed 's/(.*//; s/.*:://; s/<.*//' | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' |
        LC_ALL=C sort -u
}

# answer_in_probe E W: every file of the probe's build that the answer's
# files went into (gcc's -save-temps .i, nvcc's -keep .ii: the host's and the
# device's) holds each of them as the rules read it alone (W/rules/own/),
# line for line: no code the rules never saw reached the probe (a branch on
# a macro only the test's build defines, -pthread's _REENTRANT, ...).
answer_in_probe() {
    local e=$1 w=$2 dir f i
    dir=$(judge_dir "$e")
    for i in "$w"/ex_"$e"_probe-*.i "$w"/ex_"$e"_probe.keep/*.ii; do
        [ -f "$i" ] || continue
        while read -r f; do
            awk -v want="/answer/$dir/$f" '
                /^# [0-9]+ "/ { split($0, a, "\""); n = length(a[2]); inside = n >= length(want) && substr(a[2], n - length(want) + 1) == want; next }
                inside && NF { print }' "$i" > "$w/rules/in-probe"
            [ -s "$w/rules/in-probe" ] || continue
            if ! cmp -s "$w/rules/in-probe" "$w/rules/own/$f.lines"; then
                judge_fail rules "your $f compiles other code in the test's build ($(basename "$i")) than on its own (#ifdef on a macro only that build defines, ...): an answer is one text, whoever compiles it"
                return 1
            fi
        done < <(judge_files "$dir")
    done
}

# answer_link_rules W PROBE JUDGE: the probe (the test with the answer)
# takes from the system's libraries no function the judge (the test with the
# stub) does not, but the maths and memory copies, and links in nothing of
# the course's libraries the judge does not: what no rule on the answer's
# text alone can see (a template that calls system() only where the test
# instantiates it; a header that compiles only inside its test).
answer_link_rules() {
    local w=$1 probe=$2 judge=$3 bad
    # (printing to the terminal too, which ch11's stub allows: the verdict
    # comes through a channel of the judge's, never the answer's output)
    bad=$(LC_ALL=C comm -23 <(answer_imports "$probe") <(answer_imports "$judge") | grep -Ev "$answer_calls_allowed" |
        grep -Evx '(__)?(printf|fprintf|puts|fputs|putchar|fputc|putc|fflush)(_chk)?|stdout|stderr' | head -n 5)
    if [ -n "$bad" ]; then
        judge_fail rules "your code makes the test call $(tr '\n' ' ' <<<"$bad")which the stub's does not: an answer computes; it may call the C library's maths and memcpy/memset, print to the terminal, no input, file or system call"
        return 1
    fi
    bad=$(LC_ALL=C comm -23 <(answer_strong_globals "$probe") <(answer_strong_globals "$judge") | head -n 5)
    if [ -n "$bad" ]; then
        judge_fail rules "your code links $(tr '\n' ' ' <<<"$bad")into the test, which the stub's does not: an answer defines only the exercise's own functions and uses the course's code only as the stub's comments say"
        return 1
    fi
}
# answer_imports BINARY: the functions BINARY takes from shared libraries.
answer_imports() { nm -D --undefined-only -- "$1" | awk '{print $NF}' | sed 's/@.*//' | LC_ALL=C sort -u; }
# answer_strong_globals BINARY: the functions and data BINARY defines for
# every file (not weak: a C++ template's or inline function's copy is weak).
answer_strong_globals() { nm --defined-only -- "$1" | awk '$(NF-1) ~ /^[TDBR]$/ {print $NF}' | LC_ALL=C sort -u; }

# judge_confined COMMAND...: a compiler on the answer's text, in the sandbox
# (it may write only the grading's folder, judge_w; it reads no model answer,
# and an include of /dev/zero ends in time).
judge_confined() { "$judge_sandbox_path" --write "$judge_w" --timeout 300 -- "$@" < /dev/null; }

# judge_hide: SANDBOX_HIDE (tools/sandbox.c), what no build or run of an
# answer may read: the model and wrong answers, git's objects, every build
# folder but this one's shared files (its wrong answers and its tests, which
# link the solutions, hidden too).
judge_hide() {
    local root hide=() d extra=() jb
    root=$(pwd -P)
    # the build's folder where it is (BUILD=/scratch/x, or ../x, lies outside the checkout)
    jb=$(realpath -m -- "$judge_build")
    # and the folder the answer was laid from (a file left beside it, a
    # compiled helper, is not the answer), and JUDGE_HIDE's (one folder a
    # line: a path may hold a colon; make grade-class hides the whole class's
    # submissions)
    [ -z "${1:-}" ] || extra+=("$(realpath -m -- "$1")")
    [ -z "${JUDGE_HIDE:-}" ] || { mapfile -t d <<< "$JUDGE_HIDE"; extra+=("${d[@]}"); }
    for d in "$root/solutions" "$root/tests/wrong" "$root/.git" "$root"/build* "$jb/wrong" \
        "$jb/tests" "$jb/hints" "$judge_root" "${extra[@]}"; do
        [ -n "$d" ] || continue
        # (a folder whose path holds a newline could not be named to the sandbox: nothing is graded)
        [[ $d != *$'\n'* ]] || { echo "grade: '$d': a path with a newline in it cannot be hidden: not graded" >&2; exit 2; }
        [ ! -e "$d" ] || [ "$d" = "$jb" ] || hide+=("$d")
    done
    export SANDBOX_HIDE SANDBOX_READ
    SANDBOX_HIDE=$(printf '%s\n' "${hide[@]}") SANDBOX_READ=$judge_w$'\n'$judge_a
}

# judge_steps E FOLDER W A: steps 1 to 4, the answer in A, the rest in W.
judge_steps() {
    local e=$1 from=$2 w=$3 a=$4 dir gpu=() probe judge probe_status sandbox
    dir=$(judge_dir "$e")
    sandbox=$(realpath "$judge_sandbox")
    judge_sandbox_path=$sandbox judge_w=$w judge_a=$a
    judge_hide "$from"
    # no network in any run of the answer (tools/sandbox.c), but where the
    # test starts MPI ranks, which talk over loopback TCP
    if grep -qs 'mpirun' -- tests/test_ex_"$e".*; then export SANDBOX_NET=1; else unset SANDBOX_NET; fi
    stage=lay
    answer_lay "$e" "$from" "$a/answer/$dir" || return
    answer_hash=$(judge_files "$dir" | LC_ALL=C sort | (cd "$a/answer/$dir" && xargs -d '\n' sha256sum --) |
        sha256sum | cut -c1-16)
    chmod -R a-w "$a" || return
    stage=rules
    answer_rules "$e" "$w" "$a" || return
    stage=compile
    probe=$w/ex_${e}_probe judge=$judge_build/tests/ex_${e}_stub
    # built in the sandbox too: whatever the preprocessor is made to take in the
    # test's own context (#ifdef EX_DIR ...), a model answer cannot be read
    mkdir -p "$w/build-tmp" || return
    if ! "$sandbox" --write "$w" -- make --no-print-directory -s BUILD="$judge_build" PROBE_ROOT="$a/answer" PROBE_OUT="$w" \
        -o "$judge_build/libcommon.a" -o "$judge_build/nvcc-config.txt" -o "$judge_build/clang-config.txt" \
        -o "$judge_build/registry.sh" -o "$judge_build/registry.h" "$probe" > "$w/build.log" 2>&1; then
        [ -f "$w/build.log" ] || { judge_fail compile "the grader's own folder $w vanished while grading (something removed it): not your code; grade again"; return; }
        judge_fail compile "your code does not compile:" "$(grep -E 'error|Error' "$w/build.log" | head -n 20)"
        return
    fi
    answer_in_probe "$e" "$w" || return
    answer_link_rules "$w" "$probe" "$judge" || return
    stage=run
    # a GPU suite: unforked, and its runs may write below /proc (the CUDA driver needs it)
    [ -f "tests/test_ex_$e.cu" ] && gpu=(CK_FORK=no SANDBOX_PROC=1)
    mkdir -p "$w/probe-run" || return
    (cd "$w/probe-run" && env "${gpu[@]}" HARNESS_PROBE_FD=3 "$sandbox" --write "$w/probe-run" --keep-fd 3 \
        --timeout "${JUDGE_TIMEOUT:-900}" -- "$probe" 3> "$w/trace" < /dev/null > "$w/probe.log" 2>&1)
    probe_status=$?
    mkdir -p "$w/judge-tmp" || return
    VERDICT_INPUT=$w/trace verdict_run "$judge" "${gpu[@]}" TMPDIR="$w/judge-tmp" HARNESS_JUDGE_FD=3 HARNESS_EX_DIR="$a/answer/$dir" \
        HARNESS_SANDBOX="$sandbox" HARNESS_PROBE_BIN="$probe"
    notes=$(sed -n 's/^harness-note: //p' <<<"$out")
    if [ "$verdict" = fail ] && [ "$probe_status" -ge 124 ]; then
        # why the answer's run stopped, for the messages (the student's words: no control characters)
        out+=$'\n'"(your code's run ended with status $probe_status: $(grep -m 3 -E ':E:|signal|ran past' "$w/probe.log" |
            LC_ALL=C tr -d '\000-\011\013-\037' | tr '\n' ' '))"
    fi
}

# judge_cleanup: removes the folder of a grading cut short (grade.sh's and
# run_tests.sh's traps call it).
judge_cleanup() {
    [ -z "${judge_current_w:-}" ] || [ -n "${JUDGE_KEEP:-}" ] || judge_remove "$judge_current_w" "$judge_current_a"
}
# judge_remove W A: both folders (A is read-only: made writable first).
judge_remove() { chmod -R u+w -- "$2" 2>/dev/null; rm -rf -- "$1" "$2"; }

# judge_run E FOLDER: see the top of this file.
judge_run() {
    local w a
    judge_registry
    notes='' stage=lay answer_hash=''
    # (the folder must be this user's own, no link: one another user made
    # first could swap a grading's folders for links and take its files)
    mkdir -p "$judge_root" && [ ! -L "$judge_root" ] && [ -O "$judge_root" ] ||
        { judge_fail lay "the grader's folder $judge_root is not yours (another user made it, or it is a link): remove it, or grade with TMPDIR set to a folder of your own"; return; }
    chmod 700 "$judge_root" && w=$(mktemp -d "$judge_root/$1.XXXXXX") &&
        a=$(mktemp -d "$judge_root/$1.XXXXXX") ||
        { judge_fail lay "the grader cannot make its folders in $judge_root"; return; }
    judge_current_w=$w judge_current_a=$a
    judge_steps "$1" "$2" "$w" "$a"
    if [ -n "${JUDGE_KEEP:-}" ]; then echo "judge: kept $w and $a" >&2; else judge_remove "$w" "$a"; fi
    judge_current_w=''
}
