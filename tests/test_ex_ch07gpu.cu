/* test_ex_ch07gpu.cu - exercise ch07, part 2: the tile loop, to the instruction.
 *
 * 1. From the machine code (no GPU): the exercise's tile_loop.cuh compiled to
 *    PTX (nvcc -ptx), at most 14.6 PTX instructions per interaction, measured
 *    from what the kernel executes, not from how its text looks: a thread
 *    (block 0's first and last; the larger count) is walked through the PTX
 *    (below) for a launch of 1 tile and one of 5 tiles (n = EX_TILE,
 *    5 EX_TILE); the difference / 4 is what a tile costs the thread (the loop
 *    over the tile, its counter and branches, the tile's load and barriers),
 *    and a tile is EX_TILE interactions for every thread:
 *    the problem fixes that, whatever the code looks like. So a redundant
 *    square root, unrolling, inline PTX with several instructions on a line
 *    or in braces change the count only by the instructions they run (the
 *    grader this replaced divided one basic block's lines by its square
 *    roots; all three fooled it: tests/wrong/ch07gpu/). nvcc 13, sm_90:
 *    chapter 07's plain tiled loop (the stub) 17.08; the solution 14.27; its
 *    loop unrolled 8 times 14.71, 16 times 14.39, fully 14.08. The
 *    arithmetic needs 14 (see the solution); the rest is the loop's counter
 *    and branch, which unrolling by 16 or more spreads thin enough.
 *    A branch the walk cannot decide (one on a loaded or floating-point
 *    value) fails the part with a message saying so.
 *    The same walk at n = EX_TILE + 1, 2 EX_TILE + 1, EX_TILE - 1, 1 (block
 *    0's first and last thread, the last block's last body) counts the
 *    square roots executed: a thread must compute at least n interactions,
 *    or the last, partial tile was dropped (tests/wrong/ch07gpu/
 *    partial-tile-dropped: right at n = 256 and 5 * 256, so only a GPU saw it).
 *    A pass names the count reached (harness_note: make grade shows it under
 *    PASS).
 * 2. On a GPU: n = 1, 255, 257, 1000, 4097 bodies (seed 7071); every body's
 *    acceleration within 1e-4 relative (of the sum of magnitudes) of a
 *    double-precision sum on the CPU. Skipped without a GPU.
 * 3. On a GPU with compute-sanitizer: the kernel (n = 513, three tiles) under
 *    racecheck reports no hazard, and under memcheck no invalid access: a
 *    tile overwritten while other warps still read it is a race even when the
 *    sums come out right.
 * For grading (harness.h, "the probe and the judge"), 2 runs the kernel in
 * the probe and hands what it computed (and any CUDA error) through
 * harness_answer to the judge, which makes every input and every wanted
 * value itself; 1 and 3 run in the judge only (3 runs the probe program
 * again, sandboxed, with --launch-once). */
#include "harness.h"

#include "tile_loop.cuh"

#include "cuda_util.h"

#include <math.h>

static const int sizes[] = {1, 255, 257, 1000, 4097};

/* The first failing CUDA call of run_on_gpu, for the message. */
static char gpu_failed[160];

#define GPU_STEP(call) HARNESS_GPU_STEP(err, gpu_failed, call)

/* The answer's kernel on bodies b[0..n) (in the probe, and by hand): the
 * accelerations into a. Every CUDA call is checked; returns the first error
 * (its call in gpu_failed), cudaSuccess when all went through. */
static cudaError_t run_on_gpu(const float4 *b, float3 *a, int n)
{
    cudaError_t err = cudaSuccess;
    memset(gpu_failed, 0, sizeof gpu_failed);
    float4 *d_b = NULL;
    float3 *d_a = NULL;
    GPU_STEP(cudaMalloc(&d_b, n * sizeof(float4)));
    GPU_STEP(cudaMalloc(&d_a, n * sizeof(float3)));
    GPU_STEP(cudaMemcpy(d_b, b, n * sizeof(float4), cudaMemcpyHostToDevice));
    GPU_STEP(cudaMemset(d_a, 0xFF, n * sizeof(float3))); /* NaN: a body the kernel does not write shows */
    if (err == cudaSuccess)
        exercise_tiled_kernel<<<(n + EX_TILE - 1) / EX_TILE, EX_TILE>>>(d_b, d_a, n);
    GPU_STEP(cudaGetLastError());
    GPU_STEP(cudaDeviceSynchronize());
    GPU_STEP(cudaMemcpy(a, d_a, n * sizeof(float3), cudaMemcpyDeviceToHost));
    void *buffers[] = {d_b, d_a};
    for (int k = 0; k < 2; k++)
        if (buffers[k])
            GPU_STEP(cudaFree(buffers[k]));
    return err;
}

/* Body i's acceleration from bodies j < upto, in double precision, into w;
 * returns the sum of the pulls' sizes (the scale of the tolerance). */
static double double_sum(const float4 *b, int i, int upto, double w[3])
{
    double size = 0;
    w[0] = w[1] = w[2] = 0;
    for (int j = 0; j < upto; j++) {
        double rx = (double)b[j].x - b[i].x, ry = (double)b[j].y - b[i].y, rz = (double)b[j].z - b[i].z;
        double d2 = rx * rx + ry * ry + rz * rz + 1e-4, s = b[j].w / (d2 * sqrt(d2));
        w[0] += rx * s, w[1] += ry * s, w[2] += rz * s;
        size += sqrt(d2 - 1e-4) * s;
    }
    return size;
}

/* Why body i's sum (got) is wrong, in words, or "". */
static const char *diagnose(const float4 *b, int n, int i, const float got[3])
{
    unsigned bits[3];
    memcpy(bits, got, sizeof bits);
    if (bits[0] == 0xFFFFFFFFu && bits[1] == 0xFFFFFFFFu && bits[2] == 0xFFFFFFFFu)
        return " (never written: the kernel must store a[i] for every body i < n)";
    if (!isfinite(got[0]) || !isfinite(got[1]) || !isfinite(got[2]))
        return " (not a number: is the softening, 1e-4, in d2 before the reciprocal square root? Bodies past n "
               "must load as mass 0, not as whatever lies past the array)";
    int full = n / EX_TILE * EX_TILE;
    double w[3];
    if (full < n) {
        double part = double_sum(b, i, full, w);
        int match = 1;
        for (int c = 0; c < 3; c++)
            match &= fabs(got[c] - w[c]) <= 1e-4 * part + 1e-30;
        if (match)
            return " (the sum over the full tiles only: the last, partial tile is dropped; run the tile loop "
                   "while t * EX_TILE < n, with bodies past n loaded as mass 0)";
    }
    return "";
}

START_TEST(tile_loop_matches_double)
{
    int n = sizes[_i];
    float4 *b = (float4 *)malloc(n * sizeof(float4));
    float3 *a = (float3 *)malloc(n * sizeof(float3));
    test_rng r = {7071};
    for (int i = 0; i < n; i++)
        b[i] = make_float4((float)test_rng_uniform(&r, -1, 1), (float)test_rng_uniform(&r, -1, 1),
                           (float)test_rng_uniform(&r, -1, 1), (float)test_rng_uniform(&r, 0.5, 1.5) / n);
    cudaError_t err = cudaSuccess;
    memset(a, 0, n * sizeof(float3));
    if (HARNESS_CALLS_ANSWER)
        err = run_on_gpu(b, a, n);
    harness_answer(&err, sizeof err);
    harness_answer(gpu_failed, sizeof gpu_failed);
    harness_answer(a, n * sizeof(float3));
    gpu_failed[sizeof gpu_failed - 1] = '\0';
    ck_assert_msg(err == cudaSuccess, "n = %d: %s failed, running your exercise_tiled_kernel: %s (%s)", n,
                  gpu_failed, cudaGetErrorName(err), cudaGetErrorString(err));
    for (int i = 0; i < n; i++) {
        double w[3], size = double_sum(b, i, n, w);
        float got[3] = {a[i].x, a[i].y, a[i].z};
        for (int c = 0; c < 3; c++)
            ck_assert_msg(fabs(got[c] - w[c]) <= 1e-4 * size + 1e-30,
                          "n = %d, body %d, the acceleration's %c component: got %.7g, want %.7g within %.2g (1e-4 "
                          "of the sum of the pulls' sizes, a double-precision sum on the CPU)%s",
                          n, i, "xyz"[c], got[c], w[c], 1e-4 * size, diagnose(b, n, i, got));
    }
    free(b);
    free(a);
}
END_TEST

/* --launch-once (run by compute-sanitizer, on the probe program: the judge
 * runs it again, sandboxed): the kernel once on three tiles, then exit. */
static int launch_once(void)
{
    enum { N = 2 * EX_TILE + 1 };
    static float4 b[N];
    test_rng r = {7072};
    for (int i = 0; i < N; i++)
        b[i] = make_float4((float)test_rng_uniform(&r, -1, 1), (float)test_rng_uniform(&r, -1, 1),
                           (float)test_rng_uniform(&r, -1, 1), 1.0f / N);
    float4 *d_b;
    float3 *d_a;
    CUDA_CHECK(cudaMalloc(&d_b, sizeof b));
    CUDA_CHECK(cudaMalloc(&d_a, N * sizeof(float3)));
    CUDA_CHECK(cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice));
    exercise_tiled_kernel<<<(N + EX_TILE - 1) / EX_TILE, EX_TILE>>>(d_b, d_a, N);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_a));
    return 0;
}

START_TEST(clean_under_compute_sanitizer)
{
    HARNESS_JUDGE_ONLY;
    char why[400];
    int rc = harness_sanitize_kernel(NVCC, why, sizeof why);
    ck_assert_msg(rc == 0, "compute-sanitizer on your kernel (n = %d): %s (every warp must be done reading "
                           "a tile before any thread loads the next: a barrier after the inner loop)",
                  2 * EX_TILE + 1, why);
}
END_TEST

/* ---- Part 1: one thread walked through the kernel's PTX ----
 * The PTX is read into statements (comments, directives and braces dropped;
 * several statements on a line, as inline asm makes, are several), then one
 * thread is run through them. Only integer and predicate values are tracked
 * (mov, add, sub, mul, mad, shifts, logic, min/max, cvt, setp, selp); the
 * launch gives %tid, %ctaid, %ntid, %nctaid, the parameter n, and made-up
 * addresses for the pointers and the shared tile. Anything else (floats,
 * loads) is "unknown", which is harmless unless a branch depends on it. */
enum { A_NONE, A_IMM, A_NAME, A_VEC, A_MEM, A_PARAM };
enum { S_REG, S_LABEL, S_ADDR, S_PARAM, S_SPECIAL };
typedef struct {
    int kind, neg, n, r[8]; /* r: symbols (A_NAME: r[0]; A_VEC: r[0..n-1]; A_PARAM: r[0]) */
    long long v;            /* A_IMM: its bits */
} ptx_arg;
typedef struct {
    char op[48], text[100];
    int guard, guard_neg, nargs; /* guard: symbol of @%p, or -1 */
    ptx_arg a[8];
} ptx_stmt;
typedef struct {
    char *name;
    int kind;
    long long v; /* S_LABEL: statement; S_ADDR: address; S_PARAM: address, or -1 for n; S_SPECIAL: which */
} ptx_sym;
#define PTX_HASH (1 << 15)
typedef struct {
    ptx_stmt *s;
    ptx_sym *sym;
    int ns, nsym, full, hash[PTX_HASH];
} ptx_prog;
typedef struct {
    long long v;
    int known;
} ptx_val;

static int ptx_intern(ptx_prog *p, const char *name, size_t len, int kind)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    for (unsigned k = h % PTX_HASH;; k = (k + 1) % PTX_HASH) {
        int i = p->hash[k] - 1;
        if (i < 0) {
            if (p->nsym >= PTX_HASH / 2)
                return p->full = 1, 0;
            if (p->nsym % 256 == 0)
                p->sym = (ptx_sym *)realloc(p->sym, (p->nsym + 256) * sizeof(ptx_sym));
            p->sym[p->nsym] = (ptx_sym){strndup(name, len), kind, 0};
            p->hash[k] = ++p->nsym;
            return p->nsym - 1;
        }
        if (strlen(p->sym[i].name) == len && memcmp(p->sym[i].name, name, len) == 0)
            return i;
    }
}

static const char *ptx_skip(const char *c)
{
    while (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
        c++;
    return c;
}

/* One operand, text [b, e). */
static void ptx_operand(ptx_prog *p, ptx_arg *a, const char *b, const char *e)
{
    b = ptx_skip(b);
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    memset(a, 0, sizeof *a);
    if ((a->neg = *b == '!'))
        b++;
    const char *bar = (const char *)memchr(b, '|', e - b);
    if (*b == '{' || bar) { /* {%f1, %f2} (vector), %p1|%p2 (setp's two results) */
        a->kind = A_VEC;
        for (const char *c = b + (*b == '{'); c < e && a->n < 8;) {
            c = ptx_skip(c);
            const char *d = c;
            while (d < e && *d != ',' && *d != '|' && *d != '}' && *d != ' ')
                d++;
            if (d > c && !(d - c == 1 && *c == '_'))
                a->r[a->n++] = ptx_intern(p, c, d - c, S_REG);
            c = d + (d < e);
            while (c < e && (*c == ' ' || *c == '}'))
                c++;
        }
    } else if (*b == '[') { /* memory: only [param] matters */
        const char *c = ptx_skip(b + 1), *d = c;
        while (d < e && *d != '+' && *d != ']' && *d != ' ')
            d++;
        int s = ptx_intern(p, c, d - c, S_REG);
        a->kind = p->sym[s].kind == S_PARAM ? A_PARAM : A_MEM;
        a->r[0] = s;
    } else if ((*b >= '0' && *b <= '9') || *b == '-') {
        a->kind = A_IMM;
        a->v = (b[0] == '0' && strchr("fFdD", b[1])) ? (long long)strtoull(b + 2, NULL, 16) : strtoll(b, NULL, 0);
    } else if (e > b) {
        a->kind = A_NAME;
        a->r[0] = ptx_intern(p, b, e - b, S_REG);
    }
}

/* One statement, text [b, e) without its ';'. */
static void ptx_statement(ptx_prog *p, const char *b, const char *e)
{
    if (p->ns % 256 == 0)
        p->s = (ptx_stmt *)realloc(p->s, (p->ns + 256) * sizeof(ptx_stmt));
    ptx_stmt *s = &p->s[p->ns++];
    memset(s, 0, sizeof *s);
    snprintf(s->text, sizeof s->text, "%.*s", (int)(e - b), b);
    for (char *c = s->text; *c; c++) /* one line in messages */
        if (*c == '\t' || *c == '\n')
            *c = ' ';
    s->guard = -1;
    if (*b == '@') {
        b++;
        if ((s->guard_neg = *b == '!'))
            b++;
        const char *c = b;
        while (c < e && *c != ' ' && *c != '\t')
            c++;
        s->guard = ptx_intern(p, b, c - b, S_REG);
        b = ptx_skip(c);
    }
    const char *c = b;
    while (c < e && *c != ' ' && *c != '\t')
        c++;
    snprintf(s->op, sizeof s->op, "%.*s", (int)(c - b), b);
    for (int depth = 0; c < e && s->nargs < 8;) { /* commas outside {} and [] part the operands */
        const char *d = c;
        for (; d < e && (depth || *d != ','); d++)
            depth += (*d == '{' || *d == '[') - (*d == '}' || *d == ']');
        ptx_operand(p, &s->a[s->nargs++], c, d);
        c = d + 1;
    }
}

/* Reads the .entry whose name contains `kernel`; 0, or -1 with why. */
static int ptx_read(ptx_prog *p, char *ptx, const char *kernel, char *why, size_t len)
{
    for (char *c = ptx; *c; c++) /* comments out */
        if (c[0] == '/' && c[1] == '/')
            while (*c && *c != '\n')
                *c++ = ' ';
        else if (c[0] == '/' && c[1] == '*')
            for (; *c && !(c[0] == '*' && c[1] == '/'); c++)
                *c = ' ';
    static const char *special[] = {"%tid.x", "%ntid.x", "%ctaid.x", "%nctaid.x", "%tid.y", "%tid.z", "%ctaid.y",
                                    "%ctaid.z", "%ntid.y", "%ntid.z", "%nctaid.y", "%nctaid.z", "%laneid"};
    for (int k = 0; k < (int)(sizeof special / sizeof *special); k++) {
        int s = ptx_intern(p, special[k], strlen(special[k]), S_SPECIAL);
        p->sym[s].v = k;
    }
    char *e = ptx;
    while ((e = strstr(e, ".entry"))) {
        char head[300];
        snprintf(head, sizeof head, "%.*s", (int)strcspn(e, "("), e);
        if (strstr(head, kernel))
            break;
        e++;
    }
    if (!e) {
        snprintf(why, len, "no kernel named %s in the PTX", kernel);
        return -1;
    }
    char *body = strchr(e, ')');
    long long addr = 1LL << 40;
    for (char *c = strchr(e, '('); c && c < body;) { /* parameters: a pointer gets an address, n is n */
        char *next = c + strcspn(c, ",)"), *end = next;
        while (end > c && strchr(" \t\r\n", end[-1]))
            end--;
        char *name = end;
        while (name > c && name[-1] != ' ' && name[-1] != '\t')
            name--;
        int s = ptx_intern(p, name, end - name, S_PARAM);
        p->sym[s].v = strstr(c, "64 ") && strstr(c, "64 ") < end ? addr : -1;
        addr += 1LL << 40;
        c = next + 1;
    }
    const char *c = strchr(body, '{');
    for (int depth = 0; c && *(c = ptx_skip(c));) {
        if (*c == '{' || *c == '}') {
            depth += *c == '{' ? 1 : -1;
            c++;
            if (depth == 0)
                break;
            continue;
        }
        const char *semi = c + strcspn(c, ";"), *d = c;
        if (*c == '.') { /* a directive: a declared array (shared tile, local depot) gets an address */
            if (strncmp(c, ".reg", 4) && strncmp(c, ".pragma", 7) && strncmp(c, ".loc", 4)) {
                const char *ne = c + strcspn(c, "[;"), *nb = ne;
                while (nb > c && nb[-1] != ' ' && nb[-1] != '\t')
                    nb--;
                int s = ptx_intern(p, nb, ne - nb, S_ADDR);
                p->sym[s].kind = S_ADDR, p->sym[s].v = addr, addr += 1LL << 20;
            }
            c = semi + (*semi == ';');
            continue;
        }
        while (*d && !strchr(" \t\n;:{}", *d))
            d++;
        if (*ptx_skip(d) == ':') { /* a label */
            int s = ptx_intern(p, c, d - c, S_REG);
            p->full |= p->sym[s].kind == S_LABEL && p->sym[s].v != p->ns; /* one name, two places */
            p->sym[s].kind = S_LABEL, p->sym[s].v = p->ns;
            c = ptx_skip(d) + 1;
            continue;
        }
        ptx_statement(p, c, semi);
        c = semi + (*semi == ';');
    }
    if (p->full) {
        snprintf(why, len, "the grader cannot read this PTX: too many names, or one label in two places "
                           "(labels in inline PTX that is unrolled?)");
        return -1;
    }
    return 0;
}

typedef struct {
    char cls; /* s, u, b, f, p (pred); 0: none */
    int bits;
} ptx_type;

static long long ptx_norm(long long v, ptx_type t)
{
    if (t.cls == 'p')
        return v != 0;
    if (t.bits == 0 || t.bits >= 64)
        return v;
    unsigned long long m = (1ULL << t.bits) - 1, u = (unsigned long long)v & m;
    if (t.cls == 's' && u >> (t.bits - 1))
        u |= ~m;
    return (long long)u;
}

typedef struct {
    const ptx_prog *p;
    ptx_val *reg;
    long long tid, ntid, ctaid, nctaid, n;
    /* executed: [T_ROOTS] square roots (sqrt, rsqrt), one or more per interaction; [T_IEEE] IEEE square
     * roots (sqrt.rn); [T_DIVS] divisions (div, rcp); [T_BRANCHES] branches, taken or not */
    long tally[4];
} ptx_thread;
enum { T_ROOTS, T_IEEE, T_DIVS, T_BRANCHES };

static ptx_val ptx_get(const ptx_thread *t, const ptx_arg *a, ptx_type ty)
{
    ptx_val r = {0, 0};
    const ptx_sym *s = a->kind == A_NAME || a->kind == A_PARAM ? &t->p->sym[a->r[0]] : NULL;
    long long special[] = {t->tid, t->ntid, t->ctaid, t->nctaid, 0, 0, 0, 0, 1, 1, 1, 1, t->tid % 32};
    if (a->kind == A_IMM)
        r = (ptx_val){a->v, 1};
    else if (a->kind == A_PARAM)
        r = (ptx_val){s->v < 0 ? t->n : s->v, 1};
    else if (s && s->kind == S_REG)
        r = t->reg[a->r[0]];
    else if (s && s->kind == S_ADDR)
        r = (ptx_val){s->v, 1};
    else if (s && s->kind == S_SPECIAL)
        r = (ptx_val){special[s->v], 1};
    if (r.known && a->neg)
        r.v = !r.v;
    r.v = r.known ? ptx_norm(r.v, ty) : 0;
    return r;
}

/* Destination i of operand a gets v (only registers are tracked). */
static void ptx_set(ptx_thread *t, const ptx_arg *a, int i, ptx_val v)
{
    int s = a->kind == A_NAME && i == 0 ? a->r[0] : a->kind == A_VEC && i < a->n ? a->r[i] : -1;
    if (s >= 0 && t->p->sym[s].kind == S_REG)
        t->reg[s] = v;
}

static int ptx_compare(const char *cmp, long long a, long long b, int sgn)
{
    unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
    int lt = sgn ? a < b : ua < ub, eq = a == b;
    if (!strcmp(cmp, "eq"))
        return eq;
    if (!strcmp(cmp, "ne"))
        return !eq;
    if (!strcmp(cmp, "lt") || !strcmp(cmp, "lo"))
        return lt;
    if (!strcmp(cmp, "le") || !strcmp(cmp, "ls"))
        return lt || eq;
    if (!strcmp(cmp, "gt") || !strcmp(cmp, "hi"))
        return !lt && !eq;
    if (!strcmp(cmp, "ge") || !strcmp(cmp, "hs"))
        return !lt;
    return -1;
}

/* One statement's effect on the tracked registers (not branches). */
static void ptx_step(ptx_thread *t, const ptx_stmt *s, int guard_known)
{
    char op[48], *part[8] = {op};
    int np = 0;
    ptx_type types[2] = {{0, 0}, {0, 0}}, ty = {0, 0};
    snprintf(op, sizeof op, "%s", s->op);
    for (char *c = strtok(op, "."); c && np < 8; c = strtok(NULL, "."))
        part[np++] = c;
    for (int k = 1, nt = 0; k < np; k++) /* type suffixes: .s32, .u64, .pred, ... */
        if ((strchr("subf", part[k][0]) && part[k][1] >= '1' && part[k][1] <= '9') || !strcmp(part[k], "pred")) {
            ty = (ptx_type){part[k][0], part[k][0] == 'p' ? 1 : atoi(part[k] + 1)};
            if (nt < 2)
                types[nt++] = ty;
        }
    const char *name = part[0];
    int wide = 0, hi = 0;
    for (int k = 1; k < np; k++)
        wide |= !strcmp(part[k], "wide"), hi |= !strcmp(part[k], "hi");
    ptx_type dst = ty, src = ty;
    if (!strcmp(name, "cvt"))
        dst = types[0], src = types[1];
    if (wide)
        dst.bits *= 2;
    if (!strcmp(name, "shl") || !strcmp(name, "shr"))
        dst.cls = src.cls = name[2] == 'r' && ty.cls == 's' ? 's' : 'u';
    ptx_type pred = {'p', 1};
    ptx_val a = s->nargs > 1 ? ptx_get(t, &s->a[1], src) : (ptx_val){0, 0};
    ptx_val b = s->nargs > 2 ? ptx_get(t, &s->a[2], src) : (ptx_val){0, 0};
    ptx_val c = s->nargs > 3 ? ptx_get(t, &s->a[3], strcmp(name, "mad") ? pred : src) : (ptx_val){0, 0};
    ptx_val r = {0, guard_known && a.known && (s->nargs < 3 || b.known) && src.cls != 'f' && dst.cls != 'f'};
    long long x = a.v, y = b.v;
    __int128 product = (__int128)x * y;
    if (s->a[0].kind == A_VEC)
        r.known = 0; /* packs and vector loads: not integers we follow */
    if (!strcmp(name, "mov") || !strcmp(name, "cvta") || !strcmp(name, "cvt") ||
        (!strcmp(name, "ld") && s->a[1].kind == A_PARAM))
        r.v = x;
    else if (!strcmp(name, "add"))
        r.v = x + y;
    else if (!strcmp(name, "sub"))
        r.v = x - y;
    else if (!strcmp(name, "mul") || !strcmp(name, "mad")) {
        r.v = (long long)(hi ? product >> ty.bits : product);
        if (name[1] == 'a')
            r.known &= c.known, r.v += c.v;
    } else if (!strcmp(name, "div") || !strcmp(name, "rem")) {
        r.known &= y != 0;
        r.v = y == 0 ? 0 : name[0] == 'd' ? (ty.cls == 's' ? x / y : (long long)((unsigned long long)x / (unsigned long long)y))
                                          : (ty.cls == 's' ? x % y : (long long)((unsigned long long)x % (unsigned long long)y));
    } else if (!strcmp(name, "min") || !strcmp(name, "max"))
        r.v = ptx_compare("lt", x, y, ty.cls == 's') == (name[1] == 'i') ? x : y;
    else if (!strcmp(name, "shl"))
        r.v = y >= ty.bits ? 0 : (long long)((unsigned long long)x << y);
    else if (!strcmp(name, "shr"))
        r.v = y >= ty.bits ? (x < 0 ? -1 : 0) : ty.cls == 's' ? x >> y : (long long)((unsigned long long)x >> y);
    else if (!strcmp(name, "and"))
        r.v = x & y;
    else if (!strcmp(name, "or"))
        r.v = x | y;
    else if (!strcmp(name, "xor"))
        r.v = x ^ y;
    else if (!strcmp(name, "not"))
        r.v = ty.cls == 'p' ? !x : ~x;
    else if (!strcmp(name, "neg"))
        r.v = -x;
    else if (!strcmp(name, "selp")) {
        r.known = guard_known && c.known && (c.v ? a.known : b.known);
        r.v = c.v ? x : y;
    } else if (!strcmp(name, "setp") && np >= 3) {
        int v = ptx_compare(part[1], x, y, ty.cls == 's'), w = !v;
        r.known &= v >= 0;
        const char *bop = np >= 4 ? part[2] : "";
        if (!strcmp(bop, "and") || !strcmp(bop, "or") || !strcmp(bop, "xor")) {
            r.known &= c.known;
            v = bop[0] == 'a' ? v && c.v : bop[0] == 'o' ? v || c.v : v != c.v;
            w = bop[0] == 'a' ? w && c.v : bop[0] == 'o' ? w || c.v : w != c.v;
        }
        ptx_set(t, &s->a[0], 0, (ptx_val){v, r.known});
        ptx_set(t, &s->a[0], 1, (ptx_val){w, r.known});
        return;
    } else
        r.known = 0; /* anything else: its destinations are unknown */
    r.v = r.known ? ptx_norm(r.v, dst) : 0;
    for (int i = 0; i < 8; i++)
        ptx_set(t, &s->a[0], i, r);
}

/* Instructions one thread executes, or -1 with why when the walk cannot
 * follow the kernel. */
static long ptx_run(ptx_thread *t, char *why, size_t len)
{
    const ptx_prog *p = t->p;
    long count = 0;
    for (int pc = 0; pc < p->ns;) {
        const ptx_stmt *s = &p->s[pc++];
        if (++count > 100000000) {
            snprintf(why, len, "one thread ran more than 10^8 instructions: does every loop end?");
            return -1;
        }
        ptx_arg garg = {A_NAME, s->guard_neg, 0, {s->guard}, 0};
        ptx_val g = s->guard >= 0 ? ptx_get(t, &garg, (ptx_type){'p', 1}) : (ptx_val){1, 1};
        int branch = !strncmp(s->op, "bra", 3) && (!s->op[3] || s->op[3] == '.');
        int stop = !strcmp(s->op, "ret") || !strcmp(s->op, "exit");
        if (!strncmp(s->op, "call", 4) || !strncmp(s->op, "brx", 3)) {
            snprintf(why, len, "your kernel calls a function or jumps through a table (`%s`): keep the interaction "
                               "inline (a __device__ inline function) and the loop a plain loop", s->text);
            return -1;
        }
        if ((branch || stop) && !g.known) {
            snprintf(why, len, "it cannot tell whether the branch `%s` is taken. It runs one thread through the "
                               "PTX, following only integers computed from constants, n, threadIdx, blockIdx and "
                               "addresses: write the loop over the tile as a counted loop "
                               "(for (int k = 0; k < EX_TILE; k++), unrolled or not), not one that tests loaded "
                               "or floating-point values", s->text);
            return -1;
        }
        t->tally[T_BRANCHES] += branch && !(g.known && !g.v);
        if (branch && g.v) {
            const ptx_sym *to = s->a[0].kind == A_NAME ? &p->sym[s->a[0].r[0]] : NULL;
            if (!to || to->kind != S_LABEL) {
                snprintf(why, len, "the branch `%s` goes to no label of the kernel", s->text);
                return -1;
            }
            pc = (int)to->v;
        } else if (stop && g.v)
            return count;
        else if (!branch && !stop && !(g.known && !g.v)) {
            t->tally[T_ROOTS] += !strncmp(s->op, "sqrt.", 5) || !strncmp(s->op, "rsqrt.", 6);
            t->tally[T_IEEE] += !strncmp(s->op, "sqrt.", 5) && !strstr(s->op, ".approx");
            t->tally[T_DIVS] += (!strncmp(s->op, "div.", 4) || !strncmp(s->op, "rcp.", 4)) && strstr(s->op, ".f");
            ptx_step(t, s, g.known);
        }
    }
    return count;
}

#define MAX_PER_INTERACTION 14.6

/* Instructions thread tid of block ctaid runs with n bodies (the test's
 * launch: n / EX_TILE blocks rounded up); tally: what among them (T_*). */
static long ptx_count(const ptx_prog *p, int ctaid, int tid, int n, long tally[4], char *why, size_t len)
{
    ptx_thread t = {p, (ptx_val *)calloc(p->nsym, sizeof(ptx_val)), tid, EX_TILE, ctaid, (n + EX_TILE - 1) / EX_TILE, n,
                    {0, 0, 0, 0}};
    long count = ptx_run(&t, why, len);
    memcpy(tally, t.tally, sizeof t.tally);
    free(t.reg);
    return count;
}

/* Where a count above the bound goes, in words (each: per interaction, T_*):
 * what the PTX does, not what to change (make hint's three steps say that,
 * so a failing grade does not hand out the answer). */
static void where_the_instructions_go(const double each[4], char *text, size_t size)
{
    size_t at = 0;
    text[0] = '\0';
    if (each[T_IEEE] > 0.01 || each[T_DIVS] > 0.01)
        at += (size_t)snprintf(text + at, size - at, " Each interaction runs %.2g IEEE square root%s (sqrt.rn) and "
                               "%.2g division%s (div, rcp): more than the force needs.", each[T_IEEE],
                               each[T_IEEE] == 1 ? "" : "s", each[T_DIVS], each[T_DIVS] == 1 ? "" : "s");
    else if (each[T_ROOTS] > 1.01)
        at += (size_t)snprintf(text + at, size - at, " Each interaction runs %.3g (reciprocal) square roots: more "
                               "than the force needs.", each[T_ROOTS]);
    if (each[T_BRANCHES] > 1.0 / 16 + 1e-9 && at < size)
        snprintf(text + at, size - at, " The loop branches once every %.3g interactions: its counter, compare and "
                 "branch are paid that often.", 1 / each[T_BRANCHES]);
    else if (!text[0])
        snprintf(text, size, " The arithmetic needs 14 an interaction: find the extras in the PTX (nvcc -ptx).");
}

START_TEST(few_instructions_per_interaction)
{
    HARNESS_JUDGE_ONLY;
    char *ptx = harness_nvcc(NVCC, CUDA_ARCH, EX_DIR, NULL, PROJECT_DIR "/tests/ex_ch07_kernel.cu", "ptx");
    ck_assert_msg(ptx != NULL, "your tile_loop.cuh does not compile (nvcc -ptx)");
    ptx_prog *p = (ptx_prog *)calloc(1, sizeof *p);
    char why[600] = "";
    ck_assert_msg(ptx_read(p, ptx, "exercise_tiled_kernel", why, sizeof why) == 0, "%s", why);
    enum { FEW = 1, MANY = 5 }; /* tiles */
    const int tids[] = {0, EX_TILE - 1};
    double per_tile = 0;
    long tally_few[4] = {0}, tally_many[4] = {0};
    for (int k = 0; k < 2; k++) {
        long few = ptx_count(p, 0, tids[k], FEW * EX_TILE, tally_few, why, sizeof why);
        long many = few < 0 ? -1 : ptx_count(p, 0, tids[k], MANY * EX_TILE, tally_many, why, sizeof why);
        ck_assert_msg(many >= 0, "the grader cannot follow your kernel: %s", why);
        per_tile = fmax(per_tile, (double)(many - few) / (MANY - FEW));
    }
    double per = per_tile / EX_TILE;
    ck_assert_msg(per > 0, "your kernel runs no more instructions for more bodies: where is the interaction?");
    double each[4]; /* per interaction, T_* */
    for (int k = 0; k < 4; k++)
        each[k] = (double)(tally_many[k] - tally_few[k]) / ((MANY - FEW) * EX_TILE);
    char extra[600];
    where_the_instructions_go(each, extra, sizeof extra);
    ck_assert_msg(per <= MAX_PER_INTERACTION, "got: %.2f PTX instructions per interaction (one thread runs %.0f per "
                  "tile of %d bodies); want: at most %.1f.%s", per, per_tile, EX_TILE, MAX_PER_INTERACTION, extra);
    /* The last, partial tile: GPU-only correctness would let a kernel that
     * drops it pass without a GPU. Every thread with a body (i < n) must
     * interact with all n: n interactions (a bound on the inner loop) or more
     * (padded with massless bodies). Interactions are counted by the square
     * roots the walk executes (an interaction has as many as the full tiles
     * showed), not by instructions, which vary with the loop's shape; a kernel
     * without a root cannot be counted so and is left to the GPU part. */
    double roots_per = each[T_ROOTS];
    const int ns[] = {EX_TILE + 1, 2 * EX_TILE + 1, EX_TILE - 1, 1};
    for (int k = 0; k < 4 && roots_per > 0; k++) {
        int n = ns[k], last = (n - 1) / EX_TILE;
        const int who[3][2] = {{0, 0}, {0, n < EX_TILE ? n - 1 : EX_TILE - 1}, {last, (n - 1) % EX_TILE}};
        for (int w = 0; w < 3; w++) {
            long tally[4];
            ck_assert_msg(ptx_count(p, who[w][0], who[w][1], n, tally, why, sizeof why) >= 0,
                          "the grader cannot follow your kernel at n = %d: %s", n, why);
            double roots = (double)tally[T_ROOTS];
            ck_assert_msg(roots / roots_per > n - 0.5, "at n = %d thread %d of block %d computed %.0f interactions, "
                          "want %d: the last, partial tile is dropped. Loop over every tile that holds a body "
                          "(while t * EX_TILE < n: n / EX_TILE rounded up), and guard that tile's loads (bodies "
                          "past n as mass 0, or a bound on the inner loop)", n, who[w][1], who[w][0], roots / roots_per, n);
        }
    }
    for (int k = 0; k < p->nsym; k++)
        free(p->sym[k].name);
    free(p->sym);
    free(p->s);
    free(p);
    free(ptx);
    harness_note("reached %.2f PTX instructions per interaction (at most %.1f passes; one thread runs %.0f per tile "
                 "of %d bodies)", per, MAX_PER_INTERACTION, per_tile, EX_TILE);
}
END_TEST

int main(int argc, char **argv)
{
    /* before the suite, in every build alike: the judge runs the probe
     * program this way under compute-sanitizer */
    if (argc > 1 && strcmp(argv[1], "--launch-once") == 0)
        return launch_once();
    Suite *s = suite_create("exercise ch07 (GPU)");
    TCase *tc = tcase_create("tiles");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, few_instructions_per_interaction);
    int skipped = harness_add_gpu_test(tc, tile_loop_matches_double, (int)(sizeof sizes / sizeof sizes[0]));
    if (harness_can_sanitize(NVCC))
        tcase_add_test(tc, clean_under_compute_sanitizer);
    else
        skipped++, printf("no GPU or no compute-sanitizer: the compute-sanitizer runs are skipped\n");
    suite_add_tcase(s, tc);
    return harness_run_gpu(s, "exercise-ch07gpu", skipped);
}
