# ch07's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch07
ch07_DIR := chapters/ch07_nbody
ch07_TITLE := N-body
ch07_SUMMARY := scalar, AVX2 and threaded CPU; naive, tiled, float4, rsqrt, unrolled, flush-to-zero, softening-in-FMA and two-bodies-per-thread GPU kernels against FP32 peak; symmetric forces, naive and fair; several GPUs
ch07_GPU := some
ch07_RAYTRACER := no
ch07_SMALL := --n 1025 --steps 1
ch07_BAD := --n 16777217 --n
ch07_SANITIZE := --n 1 --steps 1 --ceiling no;--n 1025 --steps 1 --ceiling no
# The GPU stages by family: the tiled ladder, several bodies a thread, each
# pair once (symmetric), several GPUs.
CH07_GPU_SRC := $(addprefix $(ch07_DIR)/,gpu_tiled.cu gpu_bodies.cu gpu_symmetric.cu gpu_multi.cu)
CH07_GPU_OBJ := $(CH07_GPU_SRC:$(ch07_DIR)/%.cu=$(BUILD)/ch07/%.o)
ch07_TEST_OBJ := $(BUILD)/ch07/cpu.o $(CH07_GPU_OBJ) $(NBODY_OBJ)
ch07_CHART := lines-n
# The book's table: the CPU's and the GPU's standard sizes; the sweeps are the
# chart's, and the evidence page shows every row.
ch07_BOOK_WORKLOADS := n=16384 steps=2;n=131072 steps=2
ch07_BENCH_EXTRA := $(ch07_DIR)/bench_extra.sh
ch07_BOOK_EXTRA := $(ch07_DIR)/book_extra.py
ch07_CHART_TITLE := ch07: GFLOP/s (20 flops per interaction) against the number of bodies
ch07_CHART_YLABEL := GFLOP/s (log scale)
ch07_EXERCISES := ch07 ch07gpu
ex_ch07gpu_DIR := ch07
ex_ch07gpu_WHAT := the tile loop at most 14.6 PTX instructions per interaction, still correct
ex_ch07gpu_ON := CPU (the count from `nvcc -ptx`); GPU (correctness, SKIP without one)
ex_ch07_WHAT := the body-body interaction on 8 bodies at once with AVX2 + FMA, no division or square root
ex_ch07_ON := CPU (values; no division or square root instruction in the object, from `cc -O2 -c` and `objdump -d`)

$(BUILD)/ch07/%.o: $(ch07_DIR)/%.c $(ch07_DIR)/*.h common/*.h common/gpu/*.h common/nbody/*.h | $(BUILD)/ch07/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) -c $< -o $@
$(BUILD)/ch07/%.o: $(ch07_DIR)/%.cu $(ch07_DIR)/*.h common/*.h common/gpu/*.h common/nbody/*.h $(CUDA_CONFIG) | $(BUILD)/ch07/.dir
	$(CUDA_CXX) -c $< -o $@
ch07: $(BUILD)/ch07/problem.o $(BUILD)/ch07/output.o $(BUILD)/ch07/cpu.o $(CH07_GPU_OBJ) $(NBODY_OBJ) $(NBODY_GPU_OBJ) $(PROGRAM_OBJ) $(LIBGPU) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)

# Instructions per body-body interaction in the unrolled tile loops, read from
# the PTX (nvcc alone: no GPU, no cuobjdump needed): every GPU family's PTX in
# one file, as ptx_mix.sh reads it.
$(BUILD)/ch07/%.ptx: $(ch07_DIR)/%.cu $(ch07_DIR)/*.h common/*.h common/nbody/*.h $(CUDA_CONFIG) | $(BUILD)/ch07/.dir
	$(NVCC) -O3 -std=c++17 -arch=$(CUDA_ARCH) -ptx $< -o $@
$(BUILD)/ch07/gpu.ptx: $(CH07_GPU_OBJ:.o=.ptx)
	cat $^ > $@.$$$$.tmp && mv -f $@.$$$$.tmp $@
CHAPTER_TARGETS += ch07-ptx ch07-sass
ch07-ptx_HELP := instructions per N-body interaction in ch07's unrolled loops (PTX)
ch07-sass_HELP := per ch07 kernel: SASS instructions, MUFU and FSETP (needs cuobjdump)
BOOK_INPUTS += ch07-ptx
.PHONY: ch07-ptx
ch07-ptx: $(BUILD)/ch07/gpu.ptx ch07
	@$(ch07_DIR)/ptx_mix.sh $< ./ch07 > data/asm/ch07_ptx_mix.md.tmp && mv data/asm/ch07_ptx_mix.md.tmp data/asm/ch07_ptx_mix.md && cat data/asm/ch07_ptx_mix.md

# The kernels' machine code (SASS): instructions, special-function
# instructions and float comparisons per kernel (tools/sass_count.sh). Needs
# cuobjdump.
.PHONY: ch07-sass
ch07-sass: $(CH07_GPU_OBJ)
	@if [ -z "$(CUOBJDUMP)" ]; then echo "ch07-sass: cuobjdump not found (it comes with the full CUDA Toolkit); nothing counted"; exit 0; fi; \
	tools/sass_count.sh --demangle --kernel-title 'kernel (demangled by c++filt where present)' "$(CUOBJDUMP)" \
	  'SASS instructions=.' 'MUFU=MUFU' 'FSETP=FSETP' -- $^ > data/asm/ch07_sass_counts.md.tmp && \
	  mv data/asm/ch07_sass_counts.md.tmp data/asm/ch07_sass_counts.md && cat data/asm/ch07_sass_counts.md

# The side-trips: the book's text lists them after the ladder, one line each;
# its table leaves them out (the evidence page shows every row).
ch07_BOOK_TRIPS := cpu-avx512-threads cpu-avx512-pieces cpu-avx512-folded cpu-avx512-two-vectors cpu-avx512-mass-table cpu-avx512-eight-tiles gpu-tiled-float4 gpu-tiled-unrolled gpu-softening-fma gpu-two-bodies-unsplit gpu-four-bodies gpu-warp-tiles gpu-broadcast-loads gpu-atomic-symmetric gpu-symmetric-staggered gpu-symmetric-balanced gpu-output-pageable gpu-output-pinned gpu-output-overlap gpu-output-graph multi-gpu multi-gpu-pinned multi-gpu-one-thread
