/* talk.h - the three compiler optimisations the clang talk names, each a
 * small kernel (talk.cu) that ch09 builds with both compilers. Launchers share
 * one signature so a stage row can hold any of them: in and in2 are inputs
 * (in2 NULL where unused), out the output, n elements; asynchronous. */
#ifndef CH09_TALK_H
#define CH09_TALK_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void talk_fn(const void *in, const void *in2, void *out, int n);

/* q[i] = the sum over k < TALK_DIVISIONS of (a[i] + k) / b[i], in 64-bit
 * integers (in, in2: long long, out: long long) */
talk_fn talk_divide;
#define TALK_DIVISIONS 32
/* out[i] = in[4i] + in[4i+1] + in[4i+2] + in[4i+3] (floats; in 16-byte
 * aligned): without telling the compiler, then telling it */
talk_fn talk_sum_quads_scalar, talk_sum_quads;
/* out[i] = TALK_SCALE * in[i] (floats): pointers that may alias, then __restrict__ */
talk_fn talk_scale_plain, talk_scale_restrict;
#define TALK_SCALE 3.0f

#ifdef __cplusplus
}
#endif

#endif
