/* kernels.c - see kernels.h. */
#include "kernels.h"

#include "../../common/timer.h"

#include <dlfcn.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SIZE 32

static struct {
    unsigned long long key;
    compiled c;
} cache[CACHE_SIZE];
static int cached;

#ifndef NVRTC_LIBRARY
#define NVRTC_LIBRARY "libnvrtc.so"
#endif

/* NVRTC, loaded on first use (dlopen) instead of by the loader at start: its
 * 100 MB are then mapped only when a GPU stage is compiled, so --help,
 * --print-source and the CPU stage run without it, and a process that cannot
 * map it (ulimit -v) is told so in one line instead of dying before main(). */
static struct {
    __typeof__(&nvrtcCreateProgram) nvrtcCreateProgram;
    __typeof__(&nvrtcCompileProgram) nvrtcCompileProgram;
    __typeof__(&nvrtcDestroyProgram) nvrtcDestroyProgram;
    __typeof__(&nvrtcGetProgramLogSize) nvrtcGetProgramLogSize;
    __typeof__(&nvrtcGetProgramLog) nvrtcGetProgramLog;
    __typeof__(&nvrtcGetErrorString) nvrtcGetErrorString;
    __typeof__(&nvrtcGetPTXSize) nvrtcGetPTXSize;
    __typeof__(&nvrtcGetPTX) nvrtcGetPTX;
    __typeof__(&nvrtcGetCUBINSize) nvrtcGetCUBINSize;
    __typeof__(&nvrtcGetCUBIN) nvrtcGetCUBIN;
} nv;

static int load_nvrtc(char *err, size_t err_size)
{
    static void *library;
    if (library)
        return 0;
    void *h = dlopen(NVRTC_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, err_size, "%s:%d: cannot load NVRTC (%s): %s", __FILE__, __LINE__, NVRTC_LIBRARY, dlerror());
        return -1;
    }
    const struct {
        const char *name;
        void **slot;
    } symbols[] = {
        {"nvrtcCreateProgram", (void **)&nv.nvrtcCreateProgram},
        {"nvrtcCompileProgram", (void **)&nv.nvrtcCompileProgram},
        {"nvrtcDestroyProgram", (void **)&nv.nvrtcDestroyProgram},
        {"nvrtcGetProgramLogSize", (void **)&nv.nvrtcGetProgramLogSize},
        {"nvrtcGetProgramLog", (void **)&nv.nvrtcGetProgramLog},
        {"nvrtcGetErrorString", (void **)&nv.nvrtcGetErrorString},
        {"nvrtcGetPTXSize", (void **)&nv.nvrtcGetPTXSize},
        {"nvrtcGetPTX", (void **)&nv.nvrtcGetPTX},
        {"nvrtcGetCUBINSize", (void **)&nv.nvrtcGetCUBINSize},
        {"nvrtcGetCUBIN", (void **)&nv.nvrtcGetCUBIN},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++)
        if (!(*symbols[i].slot = dlsym(h, symbols[i].name))) {
            snprintf(err, err_size, "%s:%d: %s has no %s", __FILE__, __LINE__, NVRTC_LIBRARY, symbols[i].name);
            dlclose(h);
            return -1;
        }
    library = h;
    return 0;
}

unsigned long long kernel_hash(const char *text)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; *text; text++)
        h = (h ^ (unsigned char)*text) * 1099511628211ULL;
    return h;
}

/* The log, each "name(LINE): error" line followed by that line of the source. */
static void explain(const char *log, const char *source, const char *name, char *err, size_t err_size)
{
    size_t used = 0;
    used += (size_t)snprintf(err, err_size, "NVRTC could not compile %s:\n", name);
    for (const char *line = log; *line && used < err_size;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        used += (size_t)snprintf(err + used, used < err_size ? err_size - used : 0, "%.*s\n", (int)len, line);
        const char *paren = memchr(line, '(', len);
        long number = paren ? strtol(paren + 1, NULL, 10) : 0;
        if (number > 0 && used < err_size) {
            const char *s = source;
            for (long k = 1; k < number && s; k++)
                s = (s = strchr(s, '\n')) ? s + 1 : NULL;
            if (s) {
                const char *e = strchr(s, '\n');
                used += (size_t)snprintf(err + used, used < err_size ? err_size - used : 0, "  %5ld | %.*s\n", number,
                                         (int)(e ? e - s : (long)strlen(s)), s);
            }
        }
        line = end ? end + 1 : line + len;
    }
}

/* The arithmetic of each math configuration (kernels.h's MATH_*), as NVRTC
 * options: the source text's configurations in CUDA's terms. */
static const char *const math_options[MATH_COUNT][3] = {
    [MATH_STRICT] = {"--fmad=false"},
    [MATH_FMA] = {"--fmad=true"},
    [MATH_APPROX] = {"--fmad=false", "--prec-div=false", "--prec-sqrt=false"},
    [MATH_FMA_APPROX] = {"--fmad=true", "--prec-div=false", "--prec-sqrt=false"},
    [MATH_FAST] = {"--use_fast_math"},
};
const char *const math_names[MATH_COUNT] = {"strict", "fma", "approx", "fma-approx", "fast"};
#define MAX_OPTIONS 6

/* NVRTC's options for a kernel: the target, then the arithmetic, then what
 * every kernel takes. Returns how many. */
static int kernel_options(const char *target, int math, const char *options[MAX_OPTIONS])
{
    int n = 0;
    options[n++] = target;
    for (int i = 0; i < 3 && math_options[math][i]; i++)
        options[n++] = math_options[math][i];
    options[n++] = "-default-device";
    options[n++] = "--std=c++17";
    return n;
}

static void target_option(int arch, int ptx, char *target, size_t size)
{
    if (arch > 0)
        snprintf(target, size, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", arch);
    else
        snprintf(target, size, "--gpu-architecture=%s_<the device's>", ptx ? "compute" : "sm");
}

void kernel_options_text(int math, int arch, int ptx, char *text, size_t size)
{
    char target[48];
    target_option(arch, ptx, target, sizeof target);
    const char *options[MAX_OPTIONS];
    int count = kernel_options(target, math, options);
    size_t used = 0;
    text[0] = '\0';
    for (int i = 0; i < count; i++)
        used += (size_t)snprintf(text + used, used < size ? size - used : 0, "%s%s", i ? " " : "", options[i]);
}

int kernel_compile(const char *source, const char *name, int math, int arch, int ptx, compiled *out, char *err,
                   size_t err_size)
{
    char target[48];
    target_option(arch, ptx, target, sizeof target);
    const char *options[MAX_OPTIONS];
    int count = kernel_options(target, math, options);
    unsigned long long key = kernel_hash(source) ^ (kernel_hash(target) * 31) ^ ((unsigned long long)math << 56);
    for (int i = 0; i < cached; i++)
        if (cache[i].key == key) {
            *out = cache[i].c;
            out->ms = 0;
            out->from_cache = 1;
            return 0;
        }
    if (load_nvrtc(err, err_size) != 0)
        return -1;
    nvrtcProgram prog;
    double t0 = now_seconds();
    if (nv.nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL) != NVRTC_SUCCESS) {
        snprintf(err, err_size, "%s:%d: nvrtcCreateProgram failed", __FILE__, __LINE__);
        return -1;
    }
    nvrtcResult rc = nv.nvrtcCompileProgram(prog, count, options);
    if (rc != NVRTC_SUCCESS) {
        size_t log_size = 0;
        nv.nvrtcGetProgramLogSize(prog, &log_size);
        char *log = malloc(log_size + 1);
        if (log && nv.nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            explain(log, source, name, err, err_size);
        else
            snprintf(err, err_size, "NVRTC could not compile %s: %s", name, nv.nvrtcGetErrorString(rc));
        free(log);
        nv.nvrtcDestroyProgram(&prog);
        return -1;
    }
    size_t size = 0;
    rc = ptx ? nv.nvrtcGetPTXSize(prog, &size) : nv.nvrtcGetCUBINSize(prog, &size);
    char *image = rc == NVRTC_SUCCESS ? malloc(size) : NULL;
    if (!image || (ptx ? nv.nvrtcGetPTX(prog, image) : nv.nvrtcGetCUBIN(prog, image)) != NVRTC_SUCCESS) {
        snprintf(err, err_size, "%s:%d: NVRTC gave no %s for %s", __FILE__, __LINE__, ptx ? "PTX" : "cubin", name);
        free(image);
        nv.nvrtcDestroyProgram(&prog);
        return -1;
    }
    nv.nvrtcDestroyProgram(&prog);
    *out = (compiled){image, size, (now_seconds() - t0) * 1e3, 0};
    if (cached < CACHE_SIZE)
        cache[cached].key = key, cache[cached++].c = *out;
    return 0;
}
