/* kernels.h - ch10's run-time compilation: a kernel's source through NVRTC
 * to a cubin (or to PTX, which needs no GPU), and a cubin into the running
 * program (cudaLibraryLoadData: the runtime API's form of the driver's
 * cuModuleLoadData, so the program needs no libcuda at link time and still
 * runs its CPU stage on a machine without a driver). */
#ifndef CH10_KERNELS_H
#define CH10_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char *image;     /* the cubin or PTX */
    size_t size;
    double ms;       /* NVRTC's time, 0 when it came from the cache */
    int from_cache;
} compiled;

/* The arithmetic NVRTC is asked for (the source text's table of math
 * configurations, in CUDA's terms):
 *   MATH_STRICT      IEEE, no contraction into FMAs (--fmad=false): the rules
 *                    expr.h calls exact are exact under it
 *   MATH_FMA         a*b+c contracted into one rounding (--fmad=true)
 *   MATH_APPROX      approximate division and square root (--prec-div=false
 *                    --prec-sqrt=false): the article's native_divide/sqrt
 *   MATH_FMA_APPROX  both
 *   MATH_FAST        --use_fast_math: both, flush-to-zero, and intrinsic
 *                    sin/cos: the article's native + relaxed math */
enum { MATH_STRICT, MATH_FMA, MATH_APPROX, MATH_FMA_APPROX, MATH_FAST, MATH_COUNT };
extern const char *const math_names[MATH_COUNT];

/* Compiles `source` (named `name` in messages) for sm_<arch> (cubin) or, if
 * ptx is set, for compute_<arch> (PTX text), with the arithmetic `math`.
 * Results are cached by a hash of source and options. On error returns -1
 * with NVRTC's log in err, each error followed by the source line it names. */
int kernel_compile(const char *source, const char *name, int math, int arch, int ptx, compiled *out, char *err,
                   size_t err_size);

/* The options kernel_compile gives NVRTC, as one line of text; arch 0 writes
 * the architecture as the device's (sm_<its compute capability>). */
void kernel_options_text(int math, int arch, int ptx, char *text, size_t size);

/* 64-bit FNV-1a of the text (the cache's key, printed with a source). */
unsigned long long kernel_hash(const char *text);

#ifdef __cplusplus
}
#endif

#endif
