#!/usr/bin/env bash
# The grader's rules for what an answer cannot do by its text alone
# (tools/judge.sh), each on a small case of its own; the wrong answers in
# tests/wrong/ (make check-exercises) try each end to end:
#   - an attribute that un-checks or places code, in either spelling
#     (__attribute__, __attribute, [[gnu::...]]), is seen; a variable named
#     target is not an attribute;
#   - a pragma made by a macro (_Pr ## agma) is seen in the preprocessed text;
#   - a stub's macro given another body is refused;
#   - the names the test keeps to itself: the harness's and a driver's
#     statics, not a header the exercise forces into the answer's build;
#   - the probe (test + answer) may import no system function the judge
#     (test + stub) does not, but maths and printing, and may link in no
#     global the judge does not.
set -u
[ "${1:-}" = --can-run ] && exit 0
. "$(dirname "$0")/lib.bash"
cd "$1" || exit 1
. tools/judge.sh
judge_registry
judge_confined() { "$@" < /dev/null; } # the compiler on these cases as it is (the sandbox is the grading's)
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT

# attributes
words() { printf '%s\n' "$1" > "$t/lines"; answer_attribute_words "$t/lines" | tr '\n' ' '; }
[ "$(words '__attribute__((no_sanitize("thread"))) static void f(void) {}')" = "no_sanitize " ] || fail "no_sanitize(\"thread\") not seen: '$(words '__attribute__((no_sanitize("thread"))) static void f(void) {}')'"
[ "$(words '__attribute((no_sanitize_thread)) static void f(void) {}')" = "no_sanitize_thread " ] || fail "__attribute((no_sanitize_thread)) not seen"
[ "$(words '[[gnu::section(".init")]] static void f(void) {}')" = "section " ] || fail "[[gnu::section]] not seen"
[ "$(words 'static int f(int x) __attribute__((optimize("O0")));')" = "optimize " ] || fail "optimize not seen"
[ -z "$(words 'static float target = 1, section = 2; int used(int alias) { return alias; }')" ] || fail "plain names taken for attributes: '$(words 'static float target = 1, section = 2; int used(int alias) { return alias; }')'"
[ -z "$(words '__attribute__((unused)) static int k; [[maybe_unused]] static int j;')" ] || fail "unused / maybe_unused refused"

# a pragma by a macro, a stub macro with another body
printf '#ifndef G_H\n#define G_H\nstatic int f(void) { return 1; }\n#endif\n' > "$t/stub.h"
printf '#ifndef G_H\n#define G_H(x) _Pr ## agma(#x)\nG_H(GCC optimize("O0"))\nstatic int f(void) { return 1; }\n#endif\n' > "$t/answer.h"
answer_pass c "$t/answer.h" host "$t/a" && answer_pass c "$t/stub.h" host "$t/s" || fail "cannot preprocess the cases"
answer_text_rules answer.h "$t/answer.h" "$t/stub.h" "$t/a.lines" "$t/s.lines" && fail "a guard given a body that makes a pragma passed the text rules"
[[ $why == *"pragma"* ]] || fail "the pasted pragma not named: $why"
printf '#ifndef G_H\n#define G_H 1\nstatic int f(void) { return 1; }\n#endif\n' > "$t/answer.h"
answer_pass c "$t/answer.h" host "$t/a" || fail "cannot preprocess"
answer_text_rules answer.h "$t/answer.h" "$t/stub.h" "$t/a.lines" "$t/s.lines" && fail "a stub's macro with another body passed"
[[ $why == *"changes a macro the stub defines"* ]] || fail "the changed macro not named: $why"
cp "$t/stub.h" "$t/answer.h" && answer_pass c "$t/answer.h" host "$t/a" || fail "cannot preprocess"
answer_text_rules answer.h "$t/answer.h" "$t/stub.h" "$t/a.lines" "$t/s.lines" || fail "the stub itself refused: $why"

[ -z "$(words 'static int rule_is_neg(const int *c, int target) __attribute__((always_inline));')" ] || fail "a parameter named target read as an attribute"
[ "$(words '__attribute__((__noipa__, __used__)) static int f(void);')" = "noipa used " ] || fail "__noipa__/__used__ not read as noipa/used: '$(words '__attribute__((__noipa__, __used__)) static int f(void);')'"
[ "$(words 'static const char *p __attribute__((__weakref__("harness_" "call")));')" = "weakref " ] || fail "__weakref__ not seen"

# a condition, a context macro, a system header, a loader name the stub has not
text_rule() { # WHAT ANSWER_TEXT: the answer (the stub with TEXT added) must be refused, why naming WHAT
    printf '#ifndef G_H\n#define G_H\n%b\nstatic int f(void) { return 1; }\n#endif\n' "$2" > "$t/answer.h"
    answer_pass c "$t/answer.h" host "$t/a" || fail "cannot preprocess: $2"
    answer_text_rules answer.h "$t/answer.h" "$t/stub.h" "$t/a.lines" "$t/s.lines" &&
        answer_reach_rules answer.h "$t/answer.h" "$t/stub.h" "$t/a.lines" "$t/s.lines" && fail "passed the text rules: $2"
    [[ $why == *"$1"* ]] || fail "'$2' refused, but not for $1: $why"
}
text_rule 'adds a condition' '#if __INCLUDE_LEVEL__ > 0\nstatic int g;\n#endif'
text_rule 'adds a condition' '#ifdef __clang__\nstatic int g;\n#endif'
text_rule 'reads where or how' 'static int level = __INCLUDE_LEVEL__;'
text_rule 'system header' '#include <dlfcn.h>'
text_rule '_DYNAMIC' 'extern char _DYNAMIC[];\nstatic char *d(void) { return _DYNAMIC; }'
text_rule '__builtin_frame_address' 'static void *d(void) { return __builtin_frame_address(0); }'
printf '#ifndef G_H\n#define G_H\n#include <math.h>\nstatic int f(void) { return 1; }\n#endif\n' > "$t/answer.h"
answer_pass c "$t/answer.h" host "$t/a" && answer_text_rules answer.h "$t/answer.h" "$t/stub.h" "$t/a.lines" "$t/s.lines" &&
    answer_reach_rules answer.h "$t/answer.h" "$t/stub.h" "$t/a.lines" "$t/s.lines" || fail "an answer that adds math.h refused: $why"

# the test's own names
answer_test_statics ch11 > "$t/ch11" && answer_test_statics ch03 > "$t/ch03" || fail "answer_test_statics failed"
for n in computes harness_shell harness_trace_fd reqs; do grep -qx "$n" "$t/ch11" || fail "ch11's test statics lack $n"; done
grep -qx ex_atomic_event "$t/ch03" && fail "ch03's forced atomics header counted as the test's own"
grep -qxE 'static|int|const' "$t/ch11" && fail "a keyword counted as a name"
answer_test_statics ch10 > "$t/ch10" || fail "answer_test_statics ch10 failed"
for n in harness_verdict_open gives_the_sums_bits_fn; do grep -qx "$n" "$t/ch10" || fail "ch10's test statics lack $n (an attribute-led line, a START_TEST's function)"; done
grep -qE '^[0-9]' "$t/ch10" && fail "a number counted as a name"

# the probe against the judge
cc=${CC:-gcc}
printf '#include <stdio.h>\nint main(void) { puts("judge"); return 0; }\n' > "$t/judge.c"
printf '#include <stdio.h>\n#include <math.h>\nint main(int c, char **v) { printf("%%f\\n", sqrt((double)c)); (void)v; return 0; }\n' > "$t/fine.c"
printf '#include <stdlib.h>\nint main(void) { return system("true"); }\n' > "$t/shell.c"
printf '#include <stdio.h>\nint extra_global = 3;\nint main(void) { puts("x"); return extra_global - 3; }\n' > "$t/global.c"
for f in judge fine shell global; do "$cc" -O1 "$t/$f.c" -o "$t/$f" -lm || fail "cannot build $f.c"; done
answer_link_rules "$t" "$t/fine" "$t/judge" || fail "maths and printing refused: $why"
answer_link_rules "$t" "$t/shell" "$t/judge" && fail "a probe that calls system() passed"
[[ $why == *system* ]] || fail "system not named: $why"
answer_link_rules "$t" "$t/global" "$t/judge" && fail "a probe with a global the judge lacks passed"
[[ $why == *extra_global* ]] || fail "extra_global not named: $why"
echo "attributes in three spellings (parameters and __x__ read right), pasted pragmas, changed stub macros, new conditions, context macros, system headers and loader names, the test's statics and the probe's imports and globals are each seen"
