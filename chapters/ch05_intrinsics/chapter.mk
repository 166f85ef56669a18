# ch05's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch05
ch05_DIR := chapters/ch05_intrinsics
ch05_TITLE := intrinsics
ch05_SUMMARY := FP64-free code, `__powf` and its negative-base trap, pow by squaring, a sphere list, fast math and an ablation of its flags, block shape, work not done, samples shared across a warp, start-up cost
ch05_GPU := all
ch05_RAYTRACER := yes
ch05_SMALL := --width 9 --height 7 --spp 1
ch05_SANITIZE := --width 33 --height 31 --spp 2
CH05_BUILDS := fast ftz approx_div approx_sqrt
CH05_FLAGS_fast := $(CUDA_FAST_MATH)
CH05_FLAGS_ftz := $(CUDA_FTZ)
CH05_FLAGS_approx_div := $(CUDA_APPROX_DIV)
CH05_FLAGS_approx_sqrt := $(CUDA_APPROX_SQRT)
CH05_RENDER_OBJ := $(BUILD)/ch05/render.o $(CH05_BUILDS:%=$(BUILD)/ch05/render_%.o)
ch05_TEST_OBJ := $(CH05_RENDER_OBJ) $(BUILD)/ch05/problem.o $(BUILD)/ch03/card.o $(LIBGPU)
ch05_TEST_FLAGS := -I$(BUILD)/tests
ch05_TEST_DEPS := $(BUILD)/tests/ch05_card_planted.h
ch05_DIFFS := ch05-loop ch05-float-only diff-ch05-float-only;ch05-sphere-list ch05-fast-math diff-ch05-fast-math
ch05_BENCH_EXTRA := $(ch05_DIR)/bench_extra.sh
ch05_EXERCISES := ch05
ex_ch05_WHAT := find every hidden double in a shading function and remove it, to float accuracy
ex_ch05_ON := CPU (values; zero FP64 instructions in the PTX from `nvcc -ptx`); GPU (the same values, SKIP without one)

# ch05's kernels (kernels.h) once per set of floating-point flags: as is
# (render.cu), with -use_fast_math, and with each flag -use_fast_math implies
# alone (render_<build>.cu, each exporting gpu_render_<build>).
$(BUILD)/ch05/%.o: $(ch05_DIR)/%.c $(ch05_DIR)/*.h common/*.h | $(BUILD)/ch05/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) $(REFERENCE_DEF) -c $< -o $@
$(BUILD)/ch05/render.o: $(ch05_DIR)/render.cu $(ch05_DIR)/*.h common/*.h $(CUDA_CONFIG) | $(BUILD)/ch05/.dir
	$(CUDA_CXX) -c $< -o $@
$(BUILD)/ch05/render_%.o: $(ch05_DIR)/render_%.cu $(ch05_DIR)/*.h common/*.h $(CUDA_CONFIG) | $(BUILD)/ch05/.dir
	$(CUDA_CXX) $(CH05_FLAGS_$*) -c $< -o $@
ch05: $(BUILD)/ch05/problem.o $(CH05_RENDER_OBJ) $(LIBGPU) $(PROGRAM_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)

# FP64 instructions in each kernel's machine code (SASS), and all its
# instructions (tools/sass_count.sh). cuobjdump ships with the CUDA Toolkit's
# full install; CI and the dev machines lack it. The FP64 opcodes: arithmetic
# (DADD DMUL DFMA), comparisons (DSETP DMNMX), conversions to or from double,
# DEPBAR_NEVER; "[^A-Z]" before each: a whole opcode, not the end of a longer one.
CHAPTER_TARGETS += ch05-sass
ch05-sass_HELP := FP64 instructions in each ch05 kernel's machine code (needs cuobjdump)
CH05_SASS_FP64 := [^A-Z](DADD|DMUL|DFMA|DSETP|DMNMX|F2F\.F64|F2F\.F32\.F64|I2F\.F64|F2I\.F64|DEPBAR_NEVER)
.PHONY: ch05-sass
ch05-sass: $(CH05_RENDER_OBJ)
	@if [ -z "$(CUOBJDUMP)" ]; then echo "ch05-sass: cuobjdump not found (it comes with the full CUDA Toolkit); nothing counted"; exit 0; fi; \
	tools/sass_count.sh --object-column --kernel-title 'kernel (stage flags)' "$(CUOBJDUMP)" \
	  'FP64 instructions=$(CH05_SASS_FP64)' 'instructions=.' -- $^ > data/asm/ch05_fp64.md.tmp && \
	  mv data/asm/ch05_fp64.md.tmp data/asm/ch05_fp64.md && cat data/asm/ch05_fp64.md

# tests/test_ch05.cu's planted bug: card.h with one sign flipped (as ch04's),
# which only the comparison with ch03's code can see.
$(BUILD)/tests/ch05_card_planted.h: $(ch05_DIR)/card.h | $(BUILD)/tests/.dir
	sed 's/vec_dot(normal, dir) \* -2)/vec_dot(normal, dir) * 2)/' $< > $@.tmp && ! cmp -s $< $@.tmp && mv $@.tmp $@

# The side-trips: the book's text lists them after the ladder, one line each;
# its table leaves them out (the evidence page shows every row).
ch05_BOOK_TRIPS := pow-squaring sphere-algebra ftz approx-div approx-sqrt block-shape
