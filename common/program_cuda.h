/* program_cuda.h - a CUDA chapter's device for the skeleton (program.h):
 * `.device = PROGRAM_CUDA`. Included by the one file of a chapter that
 * defines chapter_program; program_gpu holds the open device's description. */
#ifndef COMMON_PROGRAM_CUDA_H
#define COMMON_PROGRAM_CUDA_H

#include "cuda_util.h"
#include "program.h"

static cuda_device_info program_gpu; /* the open device (zero without one) */

static int program_cuda_count(const cli_spec *spec, long device, char *why, size_t whylen)
{
    return cuda_check_device_option(spec, device, why, whylen);
}

static const char *program_cuda_open(program_run *r)
{
    cuda_require_device(r->spec, (int)r->opt.device);
    cuda_describe_device((int)r->opt.device, &program_gpu);
    if (!r->opt.quiet)
        cuda_print_device(stderr, (int)r->opt.device, &program_gpu);
    return program_gpu.name;
}

static const program_device program_cuda = {program_cuda_count, program_cuda_open};
#define PROGRAM_CUDA (&program_cuda)

#endif
