/* test_ex_ch07.c - exercise ch07, part 1: the AVX2 interaction, on the CPU.
 *
 * 1. The values: 2000 random blocks of 8 bodies i and a body j (seed 7070),
 *    positions in [-1, 1]^3, masses in [0.5, 1.5], sums starting from 0; each
 *    lane's acceleration within 1e-5 relative of double precision (rsqrt +
 *    one Newton step is good to about 2^-22; the rest is a few roundings).
 *    Then 500 more blocks whose sums start from values in [-2, 2]: the
 *    interaction adds to (ax, ay, az), it does not overwrite them. Counted as
 *    skipped on a CPU without AVX2 + FMA.
 * 2. No division and no square root: every call goes through a small
 *    function that calls ex_simd_accel once (tests/ex_ch07_probe.c, built at
 *    the test's own level beside it), and the disassembly (objdump -d) of the
 *    object the values came from (in a grading, the probe's) must
 *    hold no (v)sqrt* or (v)div* instruction (nor x87's) and use no function
 *    it does not define (sqrtf, powf, ...). The rsqrt estimate (vrsqrtps) and
 *    the reciprocal estimate (vrcpps) are the lesson and are allowed. The
 *    object is read, not the compiler's assembly text: bytes written as data
 *    in inline assembly (.byte 0xc5, 0xfc, 0x51, ...) are instructions there
 *    too (tests/wrong/ch07/raw-bytes-*). And the disassembly must be one that
 *    can be trusted: no bytes that decode to no instruction, no data object
 *    in a code section (objdump prints those as data, not as instructions), no
 *    jump or call into the middle of an instruction or through a register or
 *    memory (where it lands cannot be read), no system call, no return to an
 *    address the code pushed or wrote over its own return address. This part
 *    needs no AVX2 CPU.
 * Every call into the answer goes through harness_answer (harness.h, "the
 * probe and the judge"): for grading, the checks run in a process the answer
 * never ran in, and part 2 runs there only.
 */
#include "harness.h"

#include "simd_interaction.h"

#include <math.h>

/* FROM_ZERO blocks whose sums start at 0 (the test as it always was), then
 * ADDING blocks whose sums start elsewhere. */
enum { FROM_ZERO = 2000, ADDING = 500, BLOCKS = FROM_ZERO + ADDING };

typedef struct {
    float xi[8], yi[8], zi[8], xj, yj, zj, mj;
    float start[3][8]; /* (ax, ay, az) before the call */
} block_input;

static block_input blocks[BLOCKS];
static float got[BLOCKS][3][8]; /* (ax, ay, az) after it */

static void make_blocks(void)
{
    test_rng r = {7070};
    for (int b = 0; b < BLOCKS; b++) {
        block_input *in = &blocks[b];
        for (int k = 0; k < 8; k++) {
            in->xi[k] = (float)test_rng_uniform(&r, -1, 1);
            in->yi[k] = (float)test_rng_uniform(&r, -1, 1);
            in->zi[k] = (float)test_rng_uniform(&r, -1, 1);
        }
        in->xj = (float)test_rng_uniform(&r, -1, 1), in->yj = (float)test_rng_uniform(&r, -1, 1);
        in->zj = (float)test_rng_uniform(&r, -1, 1), in->mj = (float)test_rng_uniform(&r, 0.5, 1.5);
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < 8; k++)
                in->start[c][k] = b < FROM_ZERO ? 0.0f : (float)test_rng_uniform(&r, -2, 2);
    }
}

/* The answer on every block (in the probe, and by hand), through ex_probe
 * (tests/ex_ch07_probe.c), the function whose machine code part 2 reads. */
void ex_probe(const float *p, float *a);
static void run_answer(void)
{
    for (int b = 0; b < BLOCKS; b++) {
        const block_input *in = &blocks[b];
        float p[28];
        memcpy(p, in->xi, sizeof in->xi);
        memcpy(p + 8, in->yi, sizeof in->yi);
        memcpy(p + 16, in->zi, sizeof in->zi);
        p[24] = in->xj, p[25] = in->yj, p[26] = in->zj, p[27] = in->mj;
        memcpy(got[b], in->start, sizeof got[b]);
        ex_probe(p, &got[b][0][0]);
    }
}

/* What is wrong with a component, in words: got g, the sum before `start`,
 * the acceleration body j gives `pull` (with the softening; `bare` without
 * it), the acceleration's size. */
static const char *diagnose(double g, double start, double pull, double bare, double size)
{
    double near = 3e-6 * size + 1e-6 * fabs(start); /* within float rounding */
    if (!isfinite(g))
        return " (not a number: is the softening, 1e-4, added to d2 before the reciprocal square root?)";
    if (g == start)
        return " (the sum is unchanged: nothing was added to it)";
    if (fabs(g - (start + bare)) <= near)
        return " (the pull without the softening: d2 = r.r + 1e-4, EX_SOFTENING2)";
    if (start != 0 && fabs(g - pull) <= near)
        return " (the acceleration alone: the sum that was there is lost; add to *ax, *ay, *az, e.g. "
               "_mm256_fmadd_ps(r, s, *ax), do not overwrite them)";
    if (fabs(g - (start - pull)) <= 1e-5 * size + 1e-6 * fabs(start))
        return " (the pull with its sign flipped: r = p_j - p_i points from body i to body j)";
    double rel = fabs(g - start - pull) / size;
    if (rel < 3e-3)
        return " (off by about the 12 bits _mm256_rsqrt_ps is good to: refine it with one Newton step, "
               "y (1.5 - 0.5 d2 y^2))";
    return "";
}

static void check_blocks(void)
{
    for (int b = 0; b < BLOCKS; b++) {
        const block_input *in = &blocks[b];
        for (int k = 0; k < 8; k++) {
            double rx = (double)in->xj - in->xi[k], ry = (double)in->yj - in->yi[k], rz = (double)in->zj - in->zi[k];
            double d2 = rx * rx + ry * ry + rz * rz + 1e-4, s = in->mj / (d2 * sqrt(d2));
            double pull[3] = {rx * s, ry * s, rz * s}, size = sqrt(d2 - 1e-4) * s;
            double bare = in->mj / pow(d2 - 1e-4, 1.5), unsoftened[3] = {rx * bare, ry * bare, rz * bare};
            for (int c = 0; c < 3; c++) {
                double start = in->start[c][k], want = start + pull[c], g = got[b][c][k];
                double bound = 1e-5 * size + 1e-6 * fabs(start) + 1e-30; /* the second term: adding rounds */
                ck_assert_msg(fabs(g - want) <= bound,
                              "body i = (%.6g, %.6g, %.6g) in lane %d, body j = (%.6g, %.6g, %.6g), mass %.6g, the "
                              "sum starting at %.6g: the acceleration's %c component: got %.9g, want %.9g within "
                              "%.2g (double precision, softening^2 = 1e-4)%s",
                              in->xi[k], in->yi[k], in->zi[k], k, in->xj, in->yj, in->zj, in->mj, start, "xyz"[c], g,
                              want, bound, diagnose(g, start, pull[c], unsoftened[c], size));
            }
        }
    }
}

START_TEST(simd_interaction_within_bound)
{
    make_blocks();
    memset(got, 0, sizeof got);
    if (HARNESS_CALLS_ANSWER)
        run_answer();
    harness_answer(got, sizeof got);
    check_blocks();
}
END_TEST

/* ---- Part 2: the object's disassembly ----
 * objdump -h -t -d -r -z prints the sections (which hold code), the symbols
 * (which are defined, which are data), every instruction of every code
 * section (zeros too) and the relocations (which name a call's target). */
enum { MAX_INSNS = 20000, MAX_SYMS = 2000, MAX_SECS = 64 };
typedef struct {
    int sec;                  /* index into the sections' names */
    unsigned long addr, next; /* this instruction's offset in its section, the next one's */
    char op[32], args[160];   /* mnemonic (prefixes dropped), operands */
    char func[64];            /* the symbol it follows: name+0xOFF in messages */
    unsigned long func_addr;
    int first;                /* the first instruction of a symbol */
    char reloc[128];          /* the symbol (and addend) a relocation in it names, or "" */
    char reloc_type[40];      /* R_X86_64_PC32, ... */
    long reloc_at;            /* where in the section that relocation is */
} insn;
typedef struct {
    char name[128], sec[64];
    unsigned long value;
    int object, function, undefined;
} sym;
typedef struct {
    char sec[MAX_SECS][64];
    int code[MAX_SECS], nsec;
    sym s[MAX_SYMS];
    int nsym;
    insn *in;
    int nin;
    char found[2048]; /* what is wrong, "; " between */
    int count;
} dump;

static int sec_index(dump *d, const char *name)
{
    for (int k = 0; k < d->nsec; k++)
        if (strcmp(d->sec[k], name) == 0)
            return k;
    if (d->nsec == MAX_SECS)
        return 0;
    snprintf(d->sec[d->nsec], sizeof d->sec[0], "%s", name);
    return d->nsec++;
}

static const sym *sym_named(const dump *d, const char *name)
{
    for (int k = 0; k < d->nsym; k++)
        if (strcmp(d->s[k].name, name) == 0)
            return &d->s[k];
    return NULL;
}

static void add_found(dump *d, const insn *i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_found(dump *d, const insn *i, const char *fmt, ...)
{
    char what[400], where[120] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (i)
        snprintf(where, sizeof where, " (at %s+0x%lx)", i->func, i->addr - i->func_addr);
    d->count++;
    size_t at = strlen(d->found);
    if (d->count <= 6 && at + strlen(what) + strlen(where) + 3 < sizeof d->found)
        snprintf(d->found + at, sizeof d->found - at, "%s%s%s", at ? "; " : "", what, where);
}

/* A line of the section table: "  0 .text  00000094 ..." then its flags. */
static void read_section(dump *d, const char *line, const char *flags)
{
    int idx;
    char name[64];
    if (sscanf(line, " %d %63s", &idx, name) == 2)
        d->code[sec_index(d, name)] = strstr(flags, "CODE") != NULL;
}

/* A line of the symbol table: value, 7 flag characters, section, tab, size, name. */
static void read_symbol(dump *d, const char *line)
{
    if (d->nsym == MAX_SYMS || strlen(line) < 26 || !strchr(line + 25, '\t'))
        return;
    sym *s = &d->s[d->nsym++];
    memset(s, 0, sizeof *s);
    s->value = strtoul(line, NULL, 16);
    s->object = line[23] == 'O', s->function = line[23] == 'F';
    const char *sec = line + 25, *tab = strchr(sec, '\t');
    snprintf(s->sec, sizeof s->sec, "%.*s", (int)(tab - sec), sec);
    s->undefined = strcmp(s->sec, "*UND*") == 0;
    const char *name = strchr(tab + 1, ' ');
    snprintf(s->name, sizeof s->name, "%s", name ? name + 1 : "");
}

/* An instruction line "  1f:\tvsqrtps %ymm0,%ymm0" (prefixes such as lock,
 * rep, notrack, data16, cs dropped from the mnemonic). */
static void read_insn(dump *d, int sec, const char *func, unsigned long func_addr, int first, const char *line)
{
    if (d->nin == MAX_INSNS)
        return;
    insn *i = &d->in[d->nin++];
    memset(i, 0, sizeof *i);
    i->sec = sec, i->first = first, i->func_addr = func_addr, i->reloc_at = -1;
    i->addr = strtoul(line, NULL, 16);
    snprintf(i->func, sizeof i->func, "%s", func);
    const char *c = strchr(line, '\t') + 1;
    static const char *prefixes[] = {"lock", "rep", "repz", "repnz", "repe", "repne", "notrack", "bnd", "data16",
                                     "addr32", "cs", "ds", "es", "ss", "fs", "gs", "xacquire", "xrelease", "{vex}",
                                     "{vex3}", "{evex}"};
    for (;;) {
        char word[32] = "";
        int n = 0;
        sscanf(c, " %31s%n", word, &n);
        int prefix = strncmp(word, "rex", 3) == 0;
        for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++)
            prefix |= strcmp(word, prefixes[k]) == 0;
        if (!prefix || !c[n]) {
            snprintf(i->op, sizeof i->op, "%s", word);
            c += n;
            break;
        }
        c += n;
    }
    while (*c == ' ')
        c++;
    snprintf(i->args, sizeof i->args, "%s", c);
}

/* Reads objdump's report into d; 0 when it holds a disassembly. */
static int read_dump(dump *d, char *text)
{
    int sec = 0, first = 0, in_sections = 0, in_symbols = 0, disassembly = 0;
    char func[64] = "?";
    unsigned long func_addr = 0;
    char *save, *prev = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; prev = line, line = strtok_r(NULL, "\n", &save)) {
        unsigned long a;
        char name[100];
        if (strncmp(line, "Sections:", 9) == 0) {
            in_sections = 1, in_symbols = 0;
        } else if (strncmp(line, "SYMBOL TABLE:", 13) == 0) {
            in_sections = 0, in_symbols = 1;
        } else if (sscanf(line, "Disassembly of section %99[^:]:", name) == 1) {
            in_sections = in_symbols = 0, disassembly = 1;
            sec = sec_index(d, name);
        } else if (in_sections && strstr(line, "ALLOC") && prev) {
            read_section(d, prev, line);
        } else if (in_symbols && line[0] >= '0') {
            read_symbol(d, line);
        } else if (disassembly && sscanf(line, "%lx <%63[^>]>:", &a, name) == 2) {
            snprintf(func, sizeof func, "%.63s", name);
            func_addr = a, first = 1;
        } else if (disassembly && sscanf(line, " %lx: R_%99s", &a, name) == 2 && d->nin > 0 &&
                   d->in[d->nin - 1].reloc_at < 0) {
            insn *i = &d->in[d->nin - 1];
            const char *tab = strrchr(line, '\t');
            snprintf(i->reloc, sizeof i->reloc, "%s", tab ? tab + 1 : "");
            snprintf(i->reloc_type, sizeof i->reloc_type, "%.39s", name);
            i->reloc_at = (long)a;
        } else if (disassembly && sscanf(line, " %lx:%c", &a, name) == 2 && strchr(line, '\t')) {
            read_insn(d, sec, func, func_addr, first, line);
            first = 0;
        }
    }
    for (int k = 0; k < d->nin; k++)
        d->in[k].next = k + 1 < d->nin && d->in[k + 1].sec == d->in[k].sec ? d->in[k + 1].addr : (unsigned long)-1;
    return disassembly ? 0 : -1;
}

/* 1 when offset a of section sec is where an instruction of the disassembly starts. */
static int starts_insn(const dump *d, int sec, unsigned long a)
{
    for (int k = 0; k < d->nin; k++)
        if (d->in[k].sec == sec && d->in[k].addr == a)
            return 1;
    return 0;
}

/* A square root, a division, a system call: what the lesson forbids. */
static void check_op(dump *d, const insn *i)
{
    const char *op = i->op, *m = op[0] == 'v' ? op + 1 : op;
    if (strncmp(m, "sqrt", 4) == 0 || strncmp(op, "fsqrt", 5) == 0)
        add_found(d, i, "%s, a square root instruction", op);
    else if (strncmp(m, "div", 3) == 0 && strlen(m) == 5 && strchr("ps", m[3]) && strchr("sdh", m[4]))
        add_found(d, i, "%s, a division instruction", op);
    else if (strncmp(op, "fdiv", 4) == 0 || strncmp(op, "fidiv", 5) == 0)
        add_found(d, i, "%s, an x87 division", op);
    else if (!strcmp(op, "syscall") || !strcmp(op, "sysenter") || !strcmp(op, "int") || !strcmp(op, "int80"))
        add_found(d, i, "%s, a system call", op);
    else if (!strcmp(op, "(bad)"))
        add_found(d, i, "bytes that decode to no instruction (the disassembly cannot read them)");
}

/* The offset in its section that a relocation "sym+0xA" / "sym-0xA" of
 * instruction i points at (a PC-relative one counts from the instruction's
 * end, the addend from the relocated field), and the symbol; NULL when it
 * names no symbol of a code section. */
static const sym *reloc_target(const dump *d, const insn *i, long *offset)
{
    char name[128];
    snprintf(name, sizeof name, "%s", i->reloc);
    char *sign = strpbrk(name + 1, "+-");
    long addend = sign ? strtol(sign, NULL, 16) : 0;
    if (sign)
        *sign = '\0';
    const sym *s = sym_named(d, name);
    int code = 0;
    for (int k = 0; s && k < d->nsec; k++)
        code |= d->code[k] && strcmp(d->sec[k], s->sec) == 0;
    if (!s || !code)
        return NULL;
    int pc = strstr(i->reloc_type, "PC") || strstr(i->reloc_type, "PLT");
    *offset = (long)s->value + addend + (pc ? (long)(i->next - (unsigned long)i->reloc_at) : 0);
    return s;
}

/* Jumps and calls, and references to code: each must land where an
 * instruction starts, and be one the disassembly can follow. */
static void check_flow(dump *d, const insn *i)
{
    const char *op = i->op;
    int branch = op[0] == 'j' || !strncmp(op, "call", 4) || !strncmp(op, "loop", 4) || !strcmp(op, "xbegin");
    if (branch && i->args[0] == '*') {
        add_found(d, i, "`%s %s`, a %s through a register or memory: where it lands cannot be read", op, i->args,
                  op[0] == 'j' ? "jump" : "call");
        return;
    }
    if (i->reloc[0]) {
        char name[128];
        snprintf(name, sizeof name, "%s", i->reloc);
        name[strcspn(name + 1, "+-") + 1] = '\0';
        const sym *s = sym_named(d, name);
        long at;
        const sym *t = reloc_target(d, i, &at);
        if (s && s->undefined && strcmp(name, "__stack_chk_fail") != 0)
            add_found(d, i, "a %s %s (a library function: the interaction is AVX2 + FMA instructions only)",
                      branch ? "call to" : "use of", name);
        else if (t && !starts_insn(d, sec_index(d, t->sec), (unsigned long)at))
            add_found(d, i, "`%s %s`, which points into the middle of an instruction of %s (bytes hidden from the "
                      "disassembly)", op, i->args, t->sec);
        return;
    }
    const char *hash = strstr(i->args, "# ");
    unsigned long target = 0;
    if (branch && sscanf(i->args, "%lx", &target) == 1) {
        if (!starts_insn(d, i->sec, target))
            add_found(d, i, "`%s %s`, a %s into the middle of an instruction (bytes hidden from the disassembly)",
                      op, i->args, op[0] == 'c' ? "call" : "jump");
    } else if (hash && strstr(i->args, "(%rip)") && sscanf(hash + 2, "%lx", &target) == 1 &&
               !starts_insn(d, i->sec, target)) {
        add_found(d, i, "`%s %s`, an address in the middle of an instruction (bytes hidden from the disassembly)",
                  op, i->args);
    }
}

/* The return address: code that pushes an address and returns to it, or
 * writes over its own return address, jumps where the disassembly cannot
 * follow. Pushes and pops are counted from each symbol's first instruction;
 * *frame says the stack pointer moved (a push, a sub, an and). */
static void check_stack(dump *d, const insn *i, int *depth, int *frame)
{
    const char *op = i->op, *args = i->args;
    size_t n = strlen(args);
    const char *last = strrchr(args, ',') ? strrchr(args, ',') + 1 : args;
    int to_rsp = strcmp(last, "%rsp") == 0;
    int at_top = !strcmp(last, "(%rsp)") || !strcmp(last, "0x0(%rsp)");
    if (i->first)
        *depth = 0, *frame = 0;
    if (!strncmp(op, "push", 4)) {
        ++*depth, *frame = 1;
    } else if (!strncmp(op, "pop", 3) && n) {
        if (!*frame)
            add_found(d, i, "`%s %s`, which takes its own return address off the stack", op, args);
        --*depth;
    } else if (!strncmp(op, "ret", 3)) {
        if (*depth > 0)
            add_found(d, i, "a return to an address the code pushed (%d push%s not popped)", *depth,
                      *depth == 1 ? "" : "es");
    } else if (to_rsp && (!strncmp(op, "sub", 3) || !strncmp(op, "and", 3) || !strncmp(op, "lea", 3) ||
                          !strncmp(op, "enter", 5))) {
        *frame = 1;
    } else if (!*frame && at_top && strncmp(op, "cmp", 3) && strncmp(op, "test", 4) && strncmp(op, "prefetch", 8)) {
        add_found(d, i, "`%s %s`, which writes over its own return address", op, args);
    } else if (!*frame && !strncmp(op, "mov", 3) && !strncmp(args, "%rsp,", 5)) {
        add_found(d, i, "`%s %s`, a copy of the stack pointer that can reach the return address", op, args);
    }
}

static void check_dump(dump *d)
{
    for (int k = 0; k < d->nsym; k++)
        for (int c = 0; c < d->nsec; c++)
            if (d->s[k].object && d->code[c] && strcmp(d->sec[c], d->s[k].sec) == 0)
                add_found(d, NULL, "%s, data in the code section %s (objdump prints it as data, not as the "
                          "instructions it may hold)", d->s[k].name, d->s[k].sec);
    int depth = 0, frame = 0;
    for (int k = 0; k < d->nin; k++) {
        check_op(d, &d->in[k]);
        check_flow(d, &d->in[k]);
        check_stack(d, &d->in[k], &depth, &frame);
    }
    for (int k = 0; k < d->nsym; k++) /* a use the instructions above did not name */
        if (d->s[k].undefined && d->s[k].name[0] && strcmp(d->s[k].name, "__stack_chk_fail") != 0 &&
            !strstr(d->found, d->s[k].name))
            add_found(d, NULL, "a use of %s, which the header does not define (a library function: the interaction "
                      "is AVX2 + FMA instructions only)", d->s[k].name);
}

static const char *work; /* the suite's scratch folder, made in main() */

START_TEST(no_division_or_square_root_in_the_machine_code)
{
    HARNESS_JUDGE_ONLY;
    /* in a grading, the object the probe was built with (gcc -save-temps);
     * by hand, tests/ex_ch07_probe.c compiled here the same way */
    char object[512], path[512];
    if (!harness_probe_kept("-ex_ch07_probe.o", object, sizeof object)) {
        snprintf(object, sizeof object, "%s/probe.o", work);
        ck_assert_msg(harness_shell("%s -std=c11 -O2 -c -I%s %s/tests/ex_ch07_probe.c -o %s 2>&1", harness_q(CC_NAME),
                                    harness_q(EX_DIR), harness_q(PROJECT_DIR), harness_q(object)) == 0,
                      "your simd_interaction.h does not compile with %s -O2 -c (in a function that calls "
                      "ex_simd_accel)", CC_NAME);
    }
    ck_assert_msg(harness_shell("objdump -h -t -d -r -z --no-show-raw-insn %s > %s/probe.dis", harness_q(object),
                                harness_q(work)) == 0,
                  "objdump -d could not read the object your simd_interaction.h compiles to (is binutils installed?)");
    snprintf(path, sizeof path, "%s/probe.dis", work);
    char *text = harness_read_file(path);
    ck_assert_ptr_nonnull(text);
    dump *d = (dump *)calloc(1, sizeof *d);
    ck_assert_ptr_nonnull(d);
    d->in = (insn *)calloc(MAX_INSNS, sizeof(insn));
    ck_assert_ptr_nonnull(d->in);
    ck_assert_msg(read_dump(d, text) == 0 && d->nin > 0, "objdump -d of your header's object shows no instructions");
    ck_assert_msg(d->nin < MAX_INSNS, "your header compiles to more than %d instructions: the interaction is a few "
                  "dozen", MAX_INSNS);
    check_dump(d);
    char found[sizeof d->found + 8];
    int count = d->count;
    snprintf(found, sizeof found, "%s%s", d->found, count > 6 ? "; ..." : "");
    free(d->in);
    free(d);
    free(text);
    ck_assert_msg(count == 0,
                  "ex_simd_accel's machine code (%s -O2 -c, then objdump -d) has %s. No division and no square "
                  "root: _mm256_rsqrt_ps gives 1/sqrt(d2) to 12 bits, and a Newton step refines it",
                  CC_NAME, found);
}
END_TEST

int main(void)
{
    work = harness_scratch("test_ex_ch07");
    Suite *s = suite_create("exercise ch07 (AVX2)");
    TCase *tc = tcase_create("simd");
    int skipped = 0;
    tcase_add_test(tc, no_division_or_square_root_in_the_machine_code);
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        tcase_add_test(tc, simd_interaction_within_bound);
    else
        skipped = 1; /* this CPU cannot run the code under test */
    suite_add_tcase(s, tc);
    return harness_run(s, "exercise-ch07", skipped);
}
