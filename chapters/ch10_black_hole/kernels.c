/* kernels.c - see kernels.h. */
#include "kernels.h"

#include "../../common/timer.h"

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

int kernel_compile(const char *source, const char *name, int fast_math, int arch, int ptx, compiled *out,
                   char *err, size_t err_size)
{
    char target[48];
    snprintf(target, sizeof target, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", arch);
    const char *options[] = {target, fast_math ? "--use_fast_math" : "--fmad=false", "-default-device",
                             "--std=c++17"};
    unsigned long long key = kernel_hash(source) ^ (kernel_hash(target) * 31) ^ (unsigned long long)fast_math;
    for (int i = 0; i < cached; i++)
        if (cache[i].key == key) {
            *out = cache[i].c;
            out->ms = 0;
            out->from_cache = 1;
            return 0;
        }
    nvrtcProgram prog;
    double t0 = now_seconds();
    if (nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL) != NVRTC_SUCCESS) {
        snprintf(err, err_size, "%s:%d: nvrtcCreateProgram failed", __FILE__, __LINE__);
        return -1;
    }
    nvrtcResult rc = nvrtcCompileProgram(prog, (int)(sizeof options / sizeof options[0]), options);
    if (rc != NVRTC_SUCCESS) {
        size_t log_size = 0;
        nvrtcGetProgramLogSize(prog, &log_size);
        char *log = malloc(log_size + 1);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            explain(log, source, name, err, err_size);
        else
            snprintf(err, err_size, "NVRTC could not compile %s: %s", name, nvrtcGetErrorString(rc));
        free(log);
        nvrtcDestroyProgram(&prog);
        return -1;
    }
    size_t size = 0;
    rc = ptx ? nvrtcGetPTXSize(prog, &size) : nvrtcGetCUBINSize(prog, &size);
    char *image = rc == NVRTC_SUCCESS ? malloc(size) : NULL;
    if (!image || (ptx ? nvrtcGetPTX(prog, image) : nvrtcGetCUBIN(prog, image)) != NVRTC_SUCCESS) {
        snprintf(err, err_size, "%s:%d: NVRTC gave no %s for %s", __FILE__, __LINE__, ptx ? "PTX" : "cubin", name);
        free(image);
        nvrtcDestroyProgram(&prog);
        return -1;
    }
    nvrtcDestroyProgram(&prog);
    *out = (compiled){image, size, (now_seconds() - t0) * 1e3, 0};
    if (cached < CACHE_SIZE)
        cache[cached].key = key, cache[cached++].c = *out;
    return 0;
}
