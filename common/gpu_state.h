/* gpu_state.h - the GPU's SM clock, power and temperature, for the provenance
 * columns of every results row (a GPU stage's numbers mean little without the
 * clock it ran at: a hot or power-capped card runs slower).
 *
 * Read through NVML, loaded at run time (dlopen of the driver's
 * libnvidia-ml.so.1): nothing to link, and on a machine without a GPU or
 * driver every reading is simply absent (ok = 0), never an error. The GPU is
 * the first one CUDA_VISIBLE_DEVICES names (a plain index), else index 0.
 */
#ifndef COMMON_GPU_STATE_H
#define COMMON_GPU_STATE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int ok;           /* 0: no reading (no NVML, no GPU, or a call failed) */
    unsigned sm_mhz;  /* SM clock now */
    double power_w;   /* board power now */
    unsigned temp_c;  /* GPU temperature now */
} gpu_snapshot;

/* One reading now (the first call loads NVML, once per process). */
gpu_snapshot gpu_state_now(void);

/* The start of a stage: measure_stage marks it; the next results row takes
 * it as its start state (else the state at the previous row). */
void gpu_state_mark_start(void);

/* 1 and the marked start state in *s (the mark cleared), or 0 when nothing
 * was marked since the last take. */
int gpu_state_take_start(gpu_snapshot *s);

#ifdef __cplusplus
}
#endif

#endif
