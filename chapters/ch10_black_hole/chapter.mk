# ch10's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch10
ch10_DIR := chapters/ch10_black_hole
ch10_TITLE := kernels written at run time
ch10_SUMMARY := a Schwarzschild black hole: the geodesic step built as an expression tree from the metric (symbolic derivatives), simplified by named rules (strict IEEE-exact or relaxed), printed as CUDA C and compiled by NVRTC at run time; the math configurations of the article it follows (Credits) measured
ch10_GPU := some
ch10_BOOK_EXTRA := $(ch10_DIR)/book_extra.py
ch10_RAYTRACER := yes
ch10_SMALL := --width 33 --height 31 --threads 2
ch10_BAD := --math loose math;--print-source no-such-stage no-such-stage;--print-source cpu-threads cpu-threads
ch10_SANITIZE := --width 33 --height 31
ch10_SIMD_OBJ := $(foreach p,float double,$(foreach i,avx512 avx2,$(BUILD)/ch10/cpu_simd_$(p)_$(i).o))
ch10_TEST_OBJ := $(BUILD)/ch10/expr.o $(BUILD)/ch10/gen.o $(BUILD)/ch10/kernels.o $(BUILD)/ch10/cpu.o \
                 $(BUILD)/ch10/cpu_float.o $(ch10_SIMD_OBJ)
ch10_TEST_LIBS :=
ch10_TEST_FLAGS += $(call path_def,PROGRAM_DIR,$(CURDIR))
ch10_EXERCISES := ch10
ex_ch10_WHAT := one more rule for the expression compiler, x + (-y) -> x - y, and its exactness checked bit for bit
ex_ch10_ON := CPU
ex_ch10_INCLUDE := -I$(ch10_DIR)
ch10_CHART := bar
# The book's table: the standard frame only; the math= variants' rows are the
# math table's (book_extra.py), and the evidence page shows them all.
ch10_BOOK_WORKLOADS := 1024x1024
ch10_CHART_TITLE := ch10: kernel time per stage, 1024x1024 (lower is faster)
ch10_CHART_YLABEL := seconds

# NVRTC comes with the CUDA Toolkit; the program loads it (dlopen, kernels.c)
# from where it was built, when a GPU stage first compiles a kernel.
NVRTC_DEF := -DNVRTC_LIBRARY='"$(CUDA_HOME)/lib64/libnvrtc.so"'

# bh.h's text as a C string: every generated source starts with it.
$(BUILD)/ch10/bh_text.h: $(ch10_DIR)/bh.h | $(BUILD)/ch10/.dir
	awk 'BEGIN { print "/* generated from bh.h by chapter.mk */"; print "const char bh_text[] =" } \
	  { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); printf "    \"%s\\n\"\n", $$0 } END { print "    ;" }' $< > $@.tmp && mv $@.tmp $@
$(BUILD)/ch10/gen.o: $(ch10_DIR)/gen.c $(ch10_DIR)/*.h $(BUILD)/ch10/bh_text.h | $(BUILD)/ch10/.dir
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/ch10 -c $< -o $@
# cpu-threads-float rounds every operation on its own, as the strict GPU
# stages do (gcc's -std=c11 does already; clang contracts by default).
$(BUILD)/ch10/cpu_float.o: ALL_CFLAGS += -ffp-contract=off
# Every CPU stage's step at -O3: gcc -O2 keeps bh.h's RK4 loop (4 stages, the
# k[4][3] array in memory); -O3 unrolls it into registers, measured 1.8x on
# the scalar float stage and 2.3x on the AVX-512 one (a 2-core dev machine,
# 256x256, one thread). The same level for all, so a vectorised stage still
# differs from its scalar one by the vectors alone. Rounding is unchanged
# (cpu-threads-simd's row says whether its bytes are still the reference's).
$(BUILD)/ch10/cpu.o $(BUILD)/ch10/cpu_float.o $(ch10_SIMD_OBJ): ALL_CFLAGS += -O3
# The vectorised stages: cpu_simd.c once per precision and vector ISA (its
# header says why), every operation rounded on its own as in the scalar
# stages (-ffp-contract=off: AVX2 and AVX-512 have FMAs a compiler could
# contract into). The program calls only what the CPU has.
SIMD_ISA_avx512 := -mavx512f
SIMD_ISA_avx2 := -mavx2
$(BUILD)/ch10/cpu_simd_%.o: $(ch10_DIR)/cpu_simd.c $(ch10_DIR)/*.h common/*.h | $(BUILD)/ch10/.dir
	$(CC) $(ALL_CFLAGS) -ffp-contract=off $(SIMD_ISA_$(lastword $(subst _, ,$*))) \
	  -DSIMD_REAL=$(firstword $(subst _, ,$*)) -DSIMD_NAME=cpu_simd_row_$* -c $< -o $@
$(BUILD)/ch10/%.o: $(ch10_DIR)/%.c $(ch10_DIR)/*.h common/*.h | $(BUILD)/ch10/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) $(NVRTC_DEF) -c $< -o $@
ch10: $(BUILD)/ch10/problem.o $(BUILD)/ch10/expr.o $(BUILD)/ch10/gen.o $(BUILD)/ch10/kernels.o $(BUILD)/ch10/cpu.o $(BUILD)/ch10/cpu_float.o $(ch10_SIMD_OBJ) $(PROGRAM_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)

# The evidence: operations and rewrites per rule set, and each kernel's PTX by
# kind of instruction ($(ch10_DIR)/ptx_table.sh; nvcc, no GPU).
CHAPTER_TARGETS += ch10-ptx
ch10-ptx_HELP := per generated ch10 kernel: operations, rewrites per rule, PTX by kind
.PHONY: ch10-ptx
ch10-ptx: ch10
	@NVCC="$(NVCC)" CUDA_ARCH=$(CUDA_ARCH) BUILD=$(BUILD) $(ch10_DIR)/ptx_table.sh > data/asm/ch10_ptx.md.tmp && \
	  mv data/asm/ch10_ptx.md.tmp data/asm/ch10_ptx.md && cat data/asm/ch10_ptx.md

# The side-trips: the book's text lists them after the ladder, one line each;
# its table leaves them out (the evidence page shows every row).
ch10_BOOK_TRIPS := cpu-threads-float cpu-threads-simd cpu-threads-simd-float gpu-hand-written-double gpu-generated-fast-math
