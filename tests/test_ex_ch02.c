/* test_ex_ch02.c - exercise ch02: gcc -O1 inlines the vector helpers and the
 * picture does not change.
 *
 * 1. gcc -O1 -S of the exercise's card.c: inside trace() and sample() there is
 *    no call to a function whose name starts with vec_ (calls to sqrtf and pow
 *    stay: they are libc's).
 * 2. The exercise's card.c, built at -O0 and at -O1 with a small driver
 *    (tests/ex_ch02_driver.c), renders 64x48 at 4 spp byte for byte as ch01's
 *    card.c built at -O0 (the course's baseline, itself byte-identical to
 *    Kensler's original at 512x512x64). A build that fails shows gcc's own
 *    first 10 lines (at -O0 nothing is inlined: a plain `inline` definition,
 *    without static, gives the linker no function to call).
 * 3. Only the keyword: the exercise's card.c (and card.h), preprocessed as
 *    the builds of 1 and 2 read them (gcc -std=c11 -E at -O0 and at -O1,
 *    with the macros it defines and the includes it makes: -dD -dI), must be
 *    the stub's token for token, with only `inline` added. A pragma (#pragma,
 *    _Pragma, hidden in a macro or not), an attribute (always_inline, flatten,
 *    optimize ...), a macro, an include or any other edit could get gcc -O1
 *    to inline without the lesson's keyword (#pragma GCC optimize("O2") did,
 *    the picture unchanged); each is refused, named, with its line. Comments
 *    and spacing are free.
 * Compiled here with the system's gcc: no GPU needed.
 *
 * The probe and the judge (harness.h): the answer is never linked into this
 * program, only compiled by it, and its renders are programs of their own;
 * so every test runs in the judge only (HARNESS_JUDGE_ONLY). Each run of a
 * program built from the answer goes through harness_answer_shell in a fresh
 * folder of its own, the only one it may write; the reference picture is
 * rendered (by the course's own code) in another, so the answer's program
 * cannot touch what it is compared with.
 */
#include "harness.h"

#include <unistd.h>

static const char *work; /* the suite's scratch folder, made in main() */

/* The folder with the stub as handed out, which the answer is compared with.
 * The judge is the test built against the stub (BUILD/committed-stubs, read
 * from the manifest by blob id), so its own EX_DIR is that folder. A test run
 * by hand compares with the course's exercises/ch02 instead. */
static const char *stub_dir(void)
{
    return harness_mode == HARNESS_JUDGE ? harness_ex_dir_built : PROJECT_DIR "/exercises/ch02";
}

/* A new folder under the scratch folder, for one compile or one run. */
static void fresh_dir(char *dir, size_t size, const char *name)
{
    snprintf(dir, size, "%s/%s.XXXXXX", work, name);
    ck_assert_msg(mkdtemp(dir) != NULL, "harness: cannot make a folder %s: %s", dir, strerror(errno));
}

/* The first `max` lines of file `path` on one line, joined by " | " (the
 * graders show a failure's first line), malloc'd; "" when it cannot be read. */
static char *first_lines(const char *path, int max)
{
    char *text = harness_read_file(path);
    if (!text)
        return strdup("");
    char *joined = (char *)malloc(3 * strlen(text) + 1), *line = text;
    joined[0] = '\0';
    for (int n = 0; n < max && *line; n++) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (n)
            strcat(joined, " | ");
        strcat(joined, line);
        if (!end)
            break;
        line = end + 1;
    }
    free(text);
    return joined;
}

/* ------------------------------------------------------------ only the keyword
 * gcc -E's output, cut into C tokens (whitespace does not count), each with
 * the file and line it came from (gcc's line markers) and that line's text. */
typedef struct {
    const char *text, *file, *line_text;
    int line;
} token;
typedef struct {
    char *buffer; /* the preprocessed text, cut in place into lines */
    token *tok;
    size_t count, cap;
    char **strings; /* token texts and file names (malloc'd), freed with the list */
    size_t nstrings, capstrings;
} token_list;

static const char *keep_string(token_list *t, const char *s, size_t n)
{
    if (t->nstrings == t->capstrings) {
        t->capstrings = t->capstrings ? 2 * t->capstrings : 4096;
        t->strings = (char **)realloc(t->strings, t->capstrings * sizeof *t->strings);
        ck_assert_ptr_nonnull(t->strings);
    }
    char *copy = (char *)malloc(n + 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, s, n);
    copy[n] = '\0';
    return t->strings[t->nstrings++] = copy;
}

static void add_token(token_list *t, const char *s, size_t n, const char *file, int line, const char *line_text)
{
    if (t->count == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16384;
        t->tok = (token *)realloc(t->tok, t->cap * sizeof *t->tok);
        ck_assert_ptr_nonnull(t->tok);
    }
    token k = {keep_string(t, s, n), file, line_text, line};
    t->tok[t->count++] = k;
}

static int is_ident(int c)
{
    return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* The length of the punctuator at p (the longest that matches: C's maximal munch). */
static size_t punctuator(const char *p)
{
    static const char *const longer[] = {"%:%:", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=",
                                         "==",   "!=",  "&&",  "||",  "*=", "/=", "%=", "+=", "-=", "&=", "^=",
                                         "|=",   "##",  "<:",  ":>",  "<%", "%>", "%:", NULL};
    for (int i = 0; longer[i]; i++)
        if (strncmp(p, longer[i], strlen(longer[i])) == 0)
            return strlen(longer[i]);
    return 1;
}

/* The length of the token at p (p not at whitespace or the end). */
static size_t token_length(const char *p)
{
    const char *q = p;
    if (*q == '"' || *q == '\'') { /* a literal, its escapes kept */
        char quote = *q++;
        while (*q && *q != quote)
            q += q[0] == '\\' && q[1] ? 2 : 1;
        return (size_t)(q - p) + (*q == quote);
    }
    if ((*q >= '0' && *q <= '9') || (*q == '.' && q[1] >= '0' && q[1] <= '9')) { /* a pp-number */
        for (q++; is_ident(*q) || *q == '.' || ((*q == '+' || *q == '-') && strchr("eEpP", q[-1])); q++)
            ;
        return (size_t)(q - p);
    }
    if (is_ident(*q)) {
        while (is_ident(*q))
            q++;
        return (size_t)(q - p);
    }
    return punctuator(p);
}

/* The line marker `# N "file" ...`: sets file and line (of the next line). */
static int line_marker(token_list *t, const char *s, const char **file, int *line)
{
    char *end;
    if (s[0] != '#' || s[1] != ' ' || s[2] < '0' || s[2] > '9')
        return 0;
    long n = strtol(s + 2, &end, 10);
    const char *open = strchr(end, '"'), *close = open ? strrchr(open + 1, '"') : NULL;
    if (close) {
        const char *base = open + 1;
        for (const char *p = open + 1; p < close; p++)
            if (*p == '/')
                base = p + 1;
        *file = keep_string(t, base, (size_t)(close - base));
    }
    *line = (int)n - 1; /* counted up as the next line is read */
    return 1;
}

static void tokenize(token_list *t, char *text)
{
    const char *file = "?";
    int line = 0;
    t->buffer = text;
    for (char *s = text; s && *s;) {
        char *end = strchr(s, '\n');
        if (end)
            *end = '\0';
        line++;
        if (!line_marker(t, s, &file, &line))
            for (const char *p = s; *p;) {
                if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
                    p++;
                    continue;
                }
                size_t n = token_length(p);
                add_token(t, p, n, file, line, s);
                p += n;
            }
        s = end ? end + 1 : NULL;
    }
}

static void free_tokens(token_list *t)
{
    for (size_t i = 0; i < t->nstrings; i++)
        free(t->strings[i]);
    free(t->strings);
    free(t->tok);
    free(t->buffer);
}

/* card.c from folder dir as gcc -std=c11 `flags` preprocesses it: its
 * tokens, with the macros it defines and the files it includes (-dD -dI).
 * The preprocessor runs no code of the answer's. */
static int preprocess(const char *dir, const char *flags, const char *out_dir, const char *name, token_list *t)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s.i", out_dir, name);
    int rc = harness_shell("gcc -std=c11 %s -E -dD -dI -I%s/common -I%s %s/card.c -o %s 2> %s.log", flags,
                           harness_q(PROJECT_DIR), harness_q(dir), harness_q(dir), harness_q(path), harness_q(path));
    char *text = rc == 0 ? harness_read_file(path) : NULL;
    if (!text)
        return 0;
    tokenize(t, text);
    return 1;
}

static int is_the_keyword(const char *s)
{
    return strcmp(s, "inline") == 0 || strcmp(s, "__inline") == 0 || strcmp(s, "__inline__") == 0;
}

/* What the answer's token k (at its line) is, in words, for the message. */
static const char *what_it_is(const token_list *a, size_t k)
{
    const token *t = &a->tok[k];
    const char *line = t->line_text;
    while (*line == ' ' || *line == '\t')
        line++;
    if (line[0] == '#') {
        const char *word = line + 1;
        while (*word == ' ')
            word++;
        if (strncmp(word, "pragma", 6) == 0)
            return "a pragma (a #pragma or _Pragma line, or a macro that holds one), which changes how gcc compiles "
                   "the code";
        if (strncmp(word, "define", 6) == 0 || strncmp(word, "undef", 5) == 0)
            return "a macro the stub does not have (a macro can hide a pragma, an attribute or a keyword)";
        if (strncmp(word, "include", 7) == 0)
            return "an include the stub does not have";
        return "a preprocessor directive the stub does not have";
    }
    if (strstr(t->text, "attribute") || strcmp(t->text, "__declspec") == 0 ||
        (t->text[0] == '[' && k + 1 < a->count && a->tok[k + 1].text[0] == '['))
        return "an attribute (always_inline, flatten, optimize, noinline, hot, target ... change what gcc "
               "inlines or how it optimises)";
    if (strcmp(t->text, "asm") == 0 || strcmp(t->text, "__asm__") == 0 || strcmp(t->text, "__asm") == 0)
        return "inline assembly";
    return NULL;
}

/* One line of text, shortened to fit a message. */
static const char *short_line(const char *line, char *out, size_t size)
{
    while (*line == ' ' || *line == '\t')
        line++;
    snprintf(out, size, "%.110s%s", line, strlen(line) > 110 ? " ..." : "");
    return out;
}

/* The answer's tokens must be the stub's with only `inline` (or gcc's
 * __inline, __inline__) added; the first other difference fails the test. */
static void compare_with_stub(const token_list *a, const token_list *s, const char *flags)
{
    size_t i = 0, j = 0;
    while (i < a->count || j < s->count) {
        if (i < a->count && j < s->count && strcmp(a->tok[i].text, s->tok[j].text) == 0) {
            i++, j++;
        } else if (i < a->count && is_the_keyword(a->tok[i].text)) {
            i++;
        } else {
            break;
        }
    }
    if (i == a->count && j == s->count)
        return;
    char mine[160], theirs[160];
    const char *rule = "the exercise is one keyword per helper, `inline`, and nothing else: no pragma, attribute, "
                       "macro, include or other edit (your file, preprocessed as gcc reads it, is compared with the "
                       "stub's: only `inline` may be added; comments and spacing are free)";
    if (i == a->count) {
        const token *t = &s->tok[j];
        ck_abort_msg("your card.c (gcc -std=c11 %s -E) ends before the stub's %s line %d (`%s`): %s", flags, t->file,
                     t->line, short_line(t->line_text, theirs, sizeof theirs), rule);
    }
    const token *t = &a->tok[i];
    const char *what = what_it_is(a, i);
    if (what)
        ck_abort_msg("your %s, line %d: `%s` is %s; %s", t->file, t->line, short_line(t->line_text, mine, sizeof mine),
                     what, rule);
    if (j == s->count)
        ck_abort_msg("your %s, line %d: `%s` comes after all of the stub's code; %s", t->file, t->line,
                     short_line(t->line_text, mine, sizeof mine), rule);
    const token *u = &s->tok[j];
    ck_abort_msg("your %s, line %d: `%s` has `%s` where the stub (%s line %d: `%s`) has `%s`; %s", t->file, t->line,
                 short_line(t->line_text, mine, sizeof mine), t->text, u->file, u->line,
                 short_line(u->line_text, theirs, sizeof theirs), u->text, rule);
}

START_TEST(only_the_keyword_is_added)
{
    HARNESS_JUDGE_ONLY;
    /* each set of flags the test's builds use: code under #ifdef __OPTIMIZE__
     * (or __NO_INLINE__) is read as that build reads it */
    const char *flags[] = {"-D_POSIX_C_SOURCE=200809L -O0", "-D_POSIX_C_SOURCE=200809L -O1"};
    char dir[600];
    fresh_dir(dir, sizeof dir, "preprocessed");
    for (int f = 0; f < 2; f++) {
        token_list answer = {0}, stub = {0};
        ck_assert_msg(preprocess(stub_dir(), flags[f], dir, "stub", &stub),
                      "the stub (%s/card.c) does not preprocess: the course's checkout is broken, not your answer",
                      stub_dir());
        if (!preprocess(EX_DIR, flags[f], dir, "answer", &answer)) {
            char log[700];
            snprintf(log, sizeof log, "%s/answer.i.log", dir);
            ck_abort_msg("your card.c does not preprocess (gcc -std=c11 %s -E); gcc says: %s", flags[f],
                         first_lines(log, 10));
        }
        compare_with_stub(&answer, &stub, flags[f]);
        free_tokens(&answer);
        free_tokens(&stub);
    }
}
END_TEST

/* ------------------------------------------------------- inlined at gcc -O1 */

/* The lines of function `name`'s body in an assembly file. */
static char *function_body(const char *asm_text, const char *name)
{
    char label[64];
    snprintf(label, sizeof label, "\n%s:\n", name);
    const char *start = strstr(asm_text, label);
    if (!start)
        return NULL;
    start += strlen(label);
    const char *end = strstr(start, "\t.size\t");
    size_t n = end ? (size_t)(end - start) : strlen(start);
    char *body = (char *)malloc(n + 1);
    memcpy(body, start, n);
    body[n] = '\0';
    return body;
}

START_TEST(o1_inlines_the_vector_helpers)
{
    HARNESS_JUDGE_ONLY;
    char dir[600], path[700];
    fresh_dir(dir, sizeof dir, "assembly");
    snprintf(path, sizeof path, "%s/card.s", dir);
    if (harness_shell("gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -S -fno-asynchronous-unwind-tables -I%s/common "
                      "-I%s %s/card.c -o %s > %s.log 2>&1",
                      harness_q(PROJECT_DIR), harness_q(EX_DIR), harness_q(EX_DIR), harness_q(path),
                      harness_q(path)) != 0) {
        char log[720];
        snprintf(log, sizeof log, "%s.log", path);
        ck_abort_msg("your card.c does not compile at gcc -O1 -S; gcc says: %s", first_lines(log, 10));
    }
    char *text = harness_read_file(path);
    ck_assert_ptr_nonnull(text);
    const char *functions[] = {"trace", "sample"};
    for (int f = 0; f < 2; f++) {
        char *body = function_body(text, functions[f]);
        if (!body)
            continue; /* inlined itself into its caller: no calls of its own left */
        int calls = 0;
        char names[200] = ""; /* each helper still called, named once */
        for (char *p = strstr(body, "call\tvec_"); p; p = strstr(p + 1, "call\tvec_")) {
            calls++;
            char name[40];
            if (sscanf(p + 5, "%39[A-Za-z0-9_]", name) == 1 && !strstr(names, name) &&
                strlen(names) + strlen(name) + 3 < sizeof names)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "", name);
        }
        ck_assert_msg(calls == 0,
                      "got: %d call%s to vec_* inside %s() at gcc -O1 (%s: still called, not inlined); want: 0 "
                      "(each helper marked for gcc -O1 to inline)",
                      calls, calls == 1 ? "" : "s", functions[f], names);
        free(body);
    }
    free(text);
}
END_TEST

/* --------------------------------------------------------- the same picture */

/* Builds the driver with card.c from `src` at `level` in folder dir. A build
 * that fails shows the compiler's and linker's own first 10 lines (an
 * undefined reference says which function has no definition to link). */
static void build_driver(const char *src, const char *level, const char *dir, const char *whose)
{
    int rc = harness_shell("cd %s && gcc -std=c11 -D_POSIX_C_SOURCE=200809L %s -I%s/common -I%s "
                           "%s/tests/ex_ch02_driver.c %s/card.c %s/common/image.c -o driver -lm > build.txt 2>&1",
                           harness_q(dir), level, harness_q(PROJECT_DIR), harness_q(src), harness_q(PROJECT_DIR),
                           harness_q(src), harness_q(PROJECT_DIR));
    if (rc != 0) {
        char path[700];
        snprintf(path, sizeof path, "%s/build.txt", dir);
        ck_abort_msg("%s card.c does not build at %s with the test's driver (tests/ex_ch02_driver.c); gcc says: %s",
                     whose, level, first_lines(path, 10));
    }
}

/* The reference: ch01's card.c (the course's own code) at -O0, rendered in a
 * folder of its own; its picture's path goes in ref. */
static void render_reference(char *ref, size_t size)
{
    char dir[600];
    fresh_dir(dir, sizeof dir, "reference");
    build_driver(PROJECT_DIR "/chapters/ch01_baseline", "-O0", dir, "ch01's (the course's baseline)");
    ck_assert_msg(harness_shell("cd %s && ./driver 64 48 4 picture.ppm", harness_q(dir)) == 0,
                  "ch01's card.c (the reference) did not render: the course's checkout is broken, not your answer");
    snprintf(ref, size, "%s/picture.ppm", dir);
}

/* A whole file (binary), malloc'd, its size in *n; NULL if it cannot be read. */
static unsigned char *read_binary(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16;
    unsigned char *data = (unsigned char *)malloc(cap);
    *n = 0;
    for (size_t got = 1; data && got > 0;) {
        if (*n == cap)
            data = (unsigned char *)realloc(data, cap *= 2);
        got = data ? fread(data + *n, 1, cap - *n, f) : 0;
        *n += got;
    }
    fclose(f);
    return data;
}

/* The answer's card.c at `level`, built and run (in the sandbox, in a fresh
 * folder that is all it may write), must render the reference's bytes. */
static void check_render(const char *level, const char *ref)
{
    char dir[600], path[700];
    fresh_dir(dir, sizeof dir, level + 1);
    build_driver(EX_DIR, level, dir, "your");
    int rc = harness_answer_shell(dir, "timeout 60 ./driver 64 48 4 picture.ppm");
    ck_assert_msg(rc == 0, "your card.c at %s: the render failed (exit status %d%s)", level, rc,
                  rc == 124 ? ": it ran past 60 s" : "");
    snprintf(path, sizeof path, "%s/picture.ppm", dir);
    size_t n_ref = 0, n_got = 0;
    unsigned char *want = read_binary(ref, &n_ref), *got = read_binary(path, &n_got);
    if (!want || !got) {
        int no_reference = want == NULL;
        free(want);
        free(got);
        ck_assert_msg(!no_reference, "the reference picture %s cannot be read", ref);
        ck_abort_msg("your card.c at %s: the render wrote no picture", level);
    }
    size_t k = 0;
    while (k < n_ref && k < n_got && want[k] == got[k])
        k++;
    /* the header "P6\n64 48\n255\n" is 13 bytes; then 3 bytes a pixel, (63, 47) first */
    const size_t header = 13;
    int same = k == n_ref && k == n_got;
    int at = k >= header && k < n_ref && k < n_got ? got[k] : -1, wanted = at >= 0 ? want[k] : -1;
    free(want);
    free(got);
    if (same)
        return;
    if (at >= 0) {
        size_t pixel = (k - header) / 3;
        ck_abort_msg("64x48x4 at %s: your card.c's image differs from ch01's at -O0 (want: byte-identical): first at "
                     "byte %zu, pixel (x %zu, y %zu), channel %c: got %d, want %d",
                     level, k, 63 - pixel % 64, 47 - pixel / 64, "rgb"[(k - header) % 3], at, wanted);
    }
    ck_abort_msg("64x48x4 at %s: your card.c's image differs from ch01's at -O0 (want: byte-identical): got %zu bytes, "
                 "want %zu, first difference at byte %zu",
                 level, n_got, n_ref, k);
}

START_TEST(picture_unchanged_at_o0_and_o1)
{
    HARNESS_JUDGE_ONLY;
    char ref[700];
    render_reference(ref, sizeof ref);
    check_render("-O0", ref);
    check_render("-O1", ref);
}
END_TEST

int main(void)
{
    work = harness_scratch("test_ex_ch02");
    Suite *s = suite_create("exercise ch02");
    TCase *tc = tcase_create("inline");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, o1_inlines_the_vector_helpers);
    tcase_add_test(tc, picture_unchanged_at_o0_and_o1);
    tcase_add_test(tc, only_the_keyword_is_added);
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch02", 0);
}
