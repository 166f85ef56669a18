# The course's only entry point. `make help` lists the targets.
#
# Variables you may set: CC (gcc), NVCC (nvcc, else /usr/local/cuda/bin/nvcc),
# CUDA_ARCH (e.g. sm_90; default: asked of the GPU, else sm_90 plus PTX).

SHELL := /bin/bash
.DEFAULT_GOAL := help

ifeq ($(origin CC),default)
CC := gcc
endif
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
CLANG := $(shell command -v clang 2>/dev/null)

BUILD := build
CFLAGS_COMMON := -std=c11 -g -Wall -Wextra -D_POSIX_C_SOURCE=200809L
CFLAGS ?= -O2
ALL_CFLAGS := $(CFLAGS_COMMON) $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS_BASE := -lm -pthread

# libpng is optional: found by pkg-config, otherwise PNG output says it is unavailable.
PNG_FOUND := $(shell pkg-config --exists libpng 2>/dev/null && echo yes)
ifeq ($(PNG_FOUND),yes)
PNG_CFLAGS := -DHAVE_PNG $(shell pkg-config --cflags libpng)
PNG_LIBS := $(shell pkg-config --libs libpng)
endif

# Check (libcheck): pkg-config where it knows check, else the usual libraries.
CHECK_LIBS := $(or $(shell pkg-config --libs check 2>/dev/null),-lcheck -lsubunit -lm -lrt -pthread)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
# nvcc does not take -pthread itself: hand it to the host compiler.
NVCC_CHECK_CFLAGS := $(patsubst -pthread,-Xcompiler=-pthread,$(CHECK_CFLAGS))
NVCC_CHECK_LIBS := $(patsubst -pthread,-Xcompiler=-pthread,$(CHECK_LIBS)) -Xcompiler=-pthread

# CUDA architecture: the visible GPU's, else sm_90 with PTX so newer GPUs can JIT it.
ifndef CUDA_ARCH
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
ifneq ($(GPU_CC),)
CUDA_ARCH := sm_$(GPU_CC)
NVCC_ARCH := -arch=$(CUDA_ARCH)
else
CUDA_ARCH := sm_90
NVCC_ARCH := -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90
endif
else
NVCC_ARCH := -arch=$(CUDA_ARCH)
endif
NVCCFLAGS ?= -O3 -std=c++17 -lineinfo $(NVCC_ARCH) -Xcompiler -Wall,-Wextra

# Where the CUDA toolkit lies: asked of nvcc itself (its TOP), because nvcc on
# PATH may be a wrapper script or a symlink outside the toolkit; else the usual place.
CUDA_HOME := $(abspath $(or $(shell $(NVCC) -v --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p'),/usr/local/cuda))
CUDA_CFLAGS := -I$(CUDA_HOME)/include
# nvcc links the CUDA chapters (it knows where libcudart is); host C goes through gcc.
NVCC_LDLIBS := $(PNG_LIBS) -lm -lpthread

COMMON_SRC := common/timer.c common/image.c common/cli.c common/report.c
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
LIBCOMMON := $(BUILD)/libcommon.a

.PHONY: help all ch02-asm ch05-sass ch07-ptx check grade bench book sanitize profile clean diff
help:
	@echo "The course: staged C/CUDA programs, one per chapter. Targets:"
	@echo "  make ch01 .. ch07   build ./chNN in this folder (run ./chNN --help for its options)"
	@echo "  make all            build every chapter"
	@echo "  make check          build everything and run every test suite (ends: N passed, N failed, N skipped)"
	@echo "  make grade          run the exercise tests against exercises/ (your answers): PASS/FAIL each"
	@echo "  make bench          run every chapter on its standard workload; CSV to data/results/<gpu>_<cpu>.csv,"
	@echo "                     stage and difference images to data/images/<gpu>_<cpu>/ (CHAPTERS=\"ch02 ch03\": a subset)"
	@echo "  make book           regenerate the tables in book.md and README.md, charts and images, from data/"
	@echo "  make ch02-asm       assembly of each ch02 build, side by side, in $(BUILD)/ch02-asm/"
	@echo "  make sanitize       CPU code and tests under ASan + UBSan, ch03 under TSan, ch01-ch03 under Valgrind;"
	@echo "                     with a GPU, every GPU stage under compute-sanitizer"
	@echo "  make profile CH=ch05 STAGE=fast-math   Nsight Compute on one stage, saved in data/profiles/"
	@echo "  make ch05-sass      FP64 instructions in each ch05 kernel's machine code (needs cuobjdump)"
	@echo "  make ch07-ptx       instructions per N-body interaction in ch07's unrolled loop (PTX)"
	@echo "  make diff A=ch01 B=ch02   what changed between two chapters' sources"
	@echo "  make clean          remove $(BUILD)/ and the chapter binaries"
	@echo "Variables: CC=$(CC) NVCC=$(NVCC) CUDA_ARCH=$(CUDA_ARCH) libpng=$(or $(PNG_FOUND),no)"

all: ch01 ch02 ch03 ch04 ch05 ch06 ch07

# ---------------------------------------------------------------- common/
$(BUILD)/common/%.o: common/%.c common/*.h | $(BUILD)/common
	$(CC) $(ALL_CFLAGS) $(PNG_CFLAGS) -c $< -o $@

$(LIBCOMMON): $(COMMON_OBJ)
	ar rcs $@ $^

$(BUILD)/common $(BUILD)/ch01 $(BUILD)/ch02 $(BUILD)/ch03 $(BUILD)/ch04 $(BUILD)/ch05 $(BUILD)/ch06 $(BUILD)/ch07 $(BUILD)/tests $(BUILD)/ch02-asm:
	mkdir -p $@

# ---------------------------------------------------------------- ch01
# card.c is the lesson's baseline, so it is built -O0 whatever CFLAGS says.
CH01_DIR := chapters/ch01_baseline
$(BUILD)/ch01/card.o: $(CH01_DIR)/card.c $(CH01_DIR)/card.h common/image.h | $(BUILD)/ch01
	$(CC) $(CFLAGS_COMMON) -O0 -c $< -o $@

$(BUILD)/ch01/main.o: $(CH01_DIR)/main.c $(CH01_DIR)/card.h common/*.h | $(BUILD)/ch01
	$(CC) $(ALL_CFLAGS) -DREFERENCE_DIR='"$(CURDIR)/data/reference"' -c $< -o $@

ch01: $(BUILD)/ch01/main.o $(BUILD)/ch01/card.o $(LIBCOMMON)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(PNG_LIBS) $(LDLIBS_BASE)

# ---------------------------------------------------------------- ch02
# ch01's card.c built once per compiler and flag set. Each build's card_render
# is renamed (objcopy) so all of them link into one program, ./ch02.
CH02_DIR := chapters/ch02_opt_levels
CH02_LEVELS := O0 O1 O2 O3 O3-native O3-native-fastmath
CH02_FLAGS_O0 := -O0
CH02_FLAGS_O1 := -O1
CH02_FLAGS_O2 := -O2
CH02_FLAGS_O3 := -O3
CH02_FLAGS_O3-native := -O3 -march=native
CH02_FLAGS_O3-native-fastmath := -O3 -march=native -ffast-math
CH02_COMPILERS := gcc $(if $(CLANG),clang)
CH02_VARIANTS := $(foreach c,$(CH02_COMPILERS),$(foreach l,$(CH02_LEVELS),$(c)-$(l)))
ch02_compiler = $(firstword $(subst -, ,$(1)))
ch02_level = $(patsubst $(call ch02_compiler,$(1))-%,%,$(1))
ch02_flags = $(CH02_FLAGS_$(call ch02_level,$(1)))
ch02_symbol = card_render_$(subst -,_,$(1))

# A stamp per variant holding its command line, rewritten only when it changes,
# so changing a flag (or the compiler) rebuilds exactly that variant.
define CH02_VARIANT_RULES
$(BUILD)/ch02/$(1).flags: FORCE | $(BUILD)/ch02
	@echo '$(call ch02_compiler,$(1)) $(CFLAGS_COMMON) -g0 $(call ch02_flags,$(1))' | cmp -s - $$@ || \
	  echo '$(call ch02_compiler,$(1)) $(CFLAGS_COMMON) -g0 $(call ch02_flags,$(1))' > $$@
$(BUILD)/ch02/card-$(1).o: $(CH01_DIR)/card.c $(CH01_DIR)/card.h $(BUILD)/ch02/$(1).flags
	$(call ch02_compiler,$(1)) $(CFLAGS_COMMON) -g0 $(call ch02_flags,$(1)) -c $$< -o $$@.tmp
	objcopy --redefine-sym card_render=$(call ch02_symbol,$(1)) $$@.tmp $$@
	rm -f $$@.tmp
$(BUILD)/ch02-asm/$(1).s: $(CH01_DIR)/card.c $(BUILD)/ch02/$(1).flags | $(BUILD)/ch02-asm
	$(call ch02_compiler,$(1)) $(CFLAGS_COMMON) $(call ch02_flags,$(1)) -g0 -fno-asynchronous-unwind-tables -S $$< -o $$@
endef
$(foreach v,$(CH02_VARIANTS),$(eval $(call CH02_VARIANT_RULES,$(v))))

# The list of builds, as an X-macro header the driver includes.
$(BUILD)/ch02/variants.h: FORCE | $(BUILD)/ch02
	@{ $(foreach v,$(CH02_VARIANTS),echo 'CH02_VARIANT($(call ch02_symbol,$(v)), "$(v)", "$(call ch02_compiler,$(v)) $(call ch02_flags,$(v))")';) } \
	  | cmp -s - $@ || { $(foreach v,$(CH02_VARIANTS),echo 'CH02_VARIANT($(call ch02_symbol,$(v)), "$(v)", "$(call ch02_compiler,$(v)) $(call ch02_flags,$(v))")';) } > $@

$(BUILD)/ch02/main.o: $(CH02_DIR)/main.c $(BUILD)/ch02/variants.h $(CH01_DIR)/card.h common/*.h
	$(CC) $(ALL_CFLAGS) -I$(BUILD)/ch02 -DREFERENCE_DIR='"$(CURDIR)/data/reference"' -c $< -o $@

ch02: $(BUILD)/ch02/main.o $(foreach v,$(CH02_VARIANTS),$(BUILD)/ch02/card-$(v).o) $(LIBCOMMON)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(PNG_LIBS) $(LDLIBS_BASE)

ch02-asm: $(foreach v,$(CH02_VARIANTS),$(BUILD)/ch02-asm/$(v).s)
	@tools/asm_summary.sh $(BUILD)/ch02-asm $(CH02_VARIANTS) > data/asm/ch02_summary.md
	@cat data/asm/ch02_summary.md
	@echo "assembly per build and side-by-side listings: $(BUILD)/ch02-asm/"

FORCE:

# ---------------------------------------------------------------- ch03
# From here on card.c is built with the project's optimisation level (-O2).
CH03_DIR := chapters/ch03_threads
$(BUILD)/ch03/%.o: $(CH03_DIR)/%.c $(CH03_DIR)/*.h common/*.h | $(BUILD)/ch03
	$(CC) $(ALL_CFLAGS) -DREFERENCE_DIR='"$(CURDIR)/data/reference"' -c $< -o $@

ch03: $(BUILD)/ch03/main.o $(BUILD)/ch03/card.o $(BUILD)/ch03/threads.o $(LIBCOMMON)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(PNG_LIBS) $(LDLIBS_BASE)

# ---------------------------------------------------------------- ch04
# -rdc=true: nvlink then reports that the recursive kernel's stack size
# "cannot be statically determined" (the one warning the course allows, and
# ch04's lesson); nvcc 13 says nothing about it in whole-program mode.
CH04_DIR := chapters/ch04_gpu_loop
$(BUILD)/ch04/main.o: $(CH04_DIR)/main.c $(CH04_DIR)/render.h common/*.h | $(BUILD)/ch04
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) -DREFERENCE_DIR='"$(CURDIR)/data/reference"' -c $< -o $@
$(BUILD)/ch04/render.o: $(CH04_DIR)/render.cu $(CH04_DIR)/*.h common/*.h | $(BUILD)/ch04
	$(NVCC) $(NVCCFLAGS) -rdc=true -c $< -o $@

ch04: $(BUILD)/ch04/main.o $(BUILD)/ch04/render.o $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) -rdc=true $^ -o $@ $(NVCC_LDLIBS)

# ---------------------------------------------------------------- ch05
# render.cu twice: as is, and with -use_fast_math (its functions renamed *_fast).
CH05_DIR := chapters/ch05_intrinsics
$(BUILD)/ch05/main.o: $(CH05_DIR)/main.c $(CH05_DIR)/render.h common/*.h | $(BUILD)/ch05
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) -DREFERENCE_DIR='"$(CURDIR)/data/reference"' -c $< -o $@
$(BUILD)/ch05/render.o: $(CH05_DIR)/render.cu $(CH05_DIR)/*.h common/*.h | $(BUILD)/ch05
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
$(BUILD)/ch05/render_fast.o: $(CH05_DIR)/render.cu $(CH05_DIR)/*.h common/*.h | $(BUILD)/ch05
	$(NVCC) $(NVCCFLAGS) -use_fast_math -DFAST_MATH_BUILD -c $< -o $@

CH05_OBJ := $(BUILD)/ch05/main.o $(BUILD)/ch05/render.o $(BUILD)/ch05/render_fast.o
ch05: $(CH05_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)

# FP64 instructions in each kernel's machine code (SASS). cuobjdump ships with
# the CUDA Toolkit's full install; CI and the dev machines lack it.
CUOBJDUMP := $(or $(shell command -v cuobjdump 2>/dev/null),$(wildcard $(CUDA_HOME)/bin/cuobjdump))
ch05-sass: $(BUILD)/ch05/render.o $(BUILD)/ch05/render_fast.o
	@if [ -z "$(CUOBJDUMP)" ]; then echo "ch05-sass: cuobjdump not found (it comes with the full CUDA Toolkit); nothing counted"; exit 0; fi; \
	tools/sass_fp64.sh "$(CUOBJDUMP)" $^ | tee data/asm/ch05_fp64.md

# ---------------------------------------------------------------- ch06
CH06_DIR := chapters/ch06_reduction
$(BUILD)/ch06/%.o: $(CH06_DIR)/%.c $(CH06_DIR)/reduce.h common/*.h | $(BUILD)/ch06
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) -c $< -o $@
$(BUILD)/ch06/%.o: $(CH06_DIR)/%.cu $(CH06_DIR)/reduce.h common/*.h | $(BUILD)/ch06
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

CH06_OBJ := $(BUILD)/ch06/main.o $(BUILD)/ch06/stages.o $(BUILD)/ch06/reduce_cpu.o $(BUILD)/ch06/reduce_gpu.o
ch06: $(CH06_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)

# ---------------------------------------------------------------- ch07
CH07_DIR := chapters/ch07_nbody
$(BUILD)/ch07/%.o: $(CH07_DIR)/%.c $(CH07_DIR)/nbody.h common/*.h | $(BUILD)/ch07
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) -c $< -o $@
$(BUILD)/ch07/%.o: $(CH07_DIR)/%.cu $(CH07_DIR)/nbody.h common/*.h | $(BUILD)/ch07
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

CH07_OBJ := $(BUILD)/ch07/main.o $(BUILD)/ch07/stages.o $(BUILD)/ch07/check.o $(BUILD)/ch07/cpu.o $(BUILD)/ch07/gpu.o
ch07: $(CH07_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)

# Instructions per body-body interaction in the unrolled tile loop, read from
# the PTX (nvcc alone: no GPU, no cuobjdump needed).
$(BUILD)/ch07/gpu.ptx: $(CH07_DIR)/gpu.cu $(CH07_DIR)/nbody.h common/*.h | $(BUILD)/ch07
	$(NVCC) -O3 -std=c++17 -arch=$(CUDA_ARCH) -ptx $< -o $@
ch07-ptx: $(BUILD)/ch07/gpu.ptx
	@tools/ptx_mix.sh $< > data/asm/ch07_ptx_mix.md && cat data/asm/ch07_ptx_mix.md

# ---------------------------------------------------------------- tests
TEST_CFLAGS := $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests -Icommon
TEST_LIBS := $(CHECK_LIBS) $(PNG_LIBS) $(LDLIBS_BASE)

$(BUILD)/tests/test_common: tests/test_common.c tests/harness.h $(LIBCOMMON) | $(BUILD)/tests
	$(CC) $(TEST_CFLAGS) $< $(LIBCOMMON) -o $@ $(TEST_LIBS)

$(BUILD)/tests/test_ch01: tests/test_ch01.c tests/harness.h $(BUILD)/ch01/card.o $(LIBCOMMON) | $(BUILD)/tests
	$(CC) $(TEST_CFLAGS) -I$(CH01_DIR) -DREFERENCE_DIR='"$(CURDIR)/data/reference"' $< $(BUILD)/ch01/card.o $(LIBCOMMON) -o $@ $(TEST_LIBS)

$(BUILD)/tests/test_ch03: tests/test_ch03.c tests/harness.h $(BUILD)/ch03/card.o $(BUILD)/ch03/threads.o $(LIBCOMMON) | $(BUILD)/tests
	$(CC) $(TEST_CFLAGS) -I$(CH03_DIR) $< $(BUILD)/ch03/card.o $(BUILD)/ch03/threads.o $(LIBCOMMON) -o $@ $(TEST_LIBS)

# The CUDA helper compiles in CI (no GPU): this test includes it and skips its
# device checks when there is no device.
$(BUILD)/tests/test_cuda_util: tests/test_cuda_util.cu tests/harness.h common/cuda_util.h $(LIBCOMMON) | $(BUILD)/tests
	$(NVCC) $(NVCCFLAGS) $(NVCC_CHECK_CFLAGS) -Itests -Icommon -DPROGRAM_DIR='"$(CURDIR)"' $< $(LIBCOMMON) -o $@ $(NVCC_CHECK_LIBS) -lm

# GPU chapters' tests: nvcc-built; their CPU parts run everywhere, their GPU
# parts skip without a device. Run with CK_FORK=no (tools/run_tests.sh).
$(BUILD)/tests/test_ch04: tests/test_ch04.cu tests/harness.h $(CH04_DIR)/*.h $(BUILD)/ch04/render.o $(LIBCOMMON) | $(BUILD)/tests
	$(NVCC) $(NVCCFLAGS) -rdc=true $(NVCC_CHECK_CFLAGS) -Itests -Icommon -I$(CH04_DIR) $< $(BUILD)/ch04/render.o $(LIBCOMMON) -o $@ $(NVCC_CHECK_LIBS) -lm

$(BUILD)/tests/test_ch05: tests/test_ch05.cu tests/harness.h $(CH05_DIR)/*.h $(BUILD)/ch05/render.o $(BUILD)/ch05/render_fast.o $(LIBCOMMON) | $(BUILD)/tests
	$(NVCC) $(NVCCFLAGS) $(NVCC_CHECK_CFLAGS) -Itests -Icommon -I$(CH05_DIR) $< $(BUILD)/ch05/render.o $(BUILD)/ch05/render_fast.o $(LIBCOMMON) -o $@ $(NVCC_CHECK_LIBS) -lm

$(BUILD)/tests/test_ch06: tests/test_ch06.cu tests/harness.h $(CH06_DIR)/reduce.h $(filter-out %/main.o,$(CH06_OBJ)) $(LIBCOMMON) | $(BUILD)/tests
	$(NVCC) $(NVCCFLAGS) $(NVCC_CHECK_CFLAGS) -Itests -Icommon -I$(CH06_DIR) $< $(filter-out %/main.o,$(CH06_OBJ)) $(LIBCOMMON) -o $@ $(NVCC_CHECK_LIBS) -lm

$(BUILD)/tests/test_ch07: tests/test_ch07.cu tests/harness.h $(CH07_DIR)/nbody.h $(filter-out %/main.o,$(CH07_OBJ)) $(LIBCOMMON) | $(BUILD)/tests
	$(NVCC) $(NVCCFLAGS) $(NVCC_CHECK_CFLAGS) -Itests -Icommon -I$(CH07_DIR) $< $(filter-out %/main.o,$(CH07_OBJ)) $(LIBCOMMON) -o $@ $(NVCC_CHECK_LIBS) -lm

# Command-line behaviour of the chapter programs: bad input must exit 2 and write nothing.
$(BUILD)/tests/test_cli_programs: tests/test_cli_programs.c tests/harness.h $(BUILD)/image_diff | $(BUILD)/tests
	$(CC) $(TEST_CFLAGS) -DPROGRAM_DIR='"$(CURDIR)"' $< -o $@ $(TEST_LIBS)

# Exercises: each test is built against solutions/ (must pass) and against the
# untouched stub in exercises/ (must fail); `make grade` builds it against exercises/.
# C exercises link the folder's .c files (if any); CUDA ones are header-only.
EXERCISES_C := ch01 ch03 ch05 ch07
EXERCISES_CUDA := ch04 ch06 ch07gpu
EX_DIR_ch07gpu := ch07
EXERCISES := $(EXERCISES_C) $(EXERCISES_CUDA)
EX_INCLUDE_ch04 := -I$(CH04_DIR)
define EXERCISE_C_RULES
$(BUILD)/tests/ex_$(1)_$(2): tests/test_ex_$(1).c tests/harness.h $(wildcard $(3)/$(1)/*) $(LIBCOMMON) | $(BUILD)/tests
	$(CC) $(TEST_CFLAGS) -I$(3)/$(1) $$< $(wildcard $(3)/$(1)/*.c) $(LIBCOMMON) -o $$@ $(TEST_LIBS)
endef
# (a CUDA exercise may live in another exercise's folder: EX_DIR_<name>)
define EXERCISE_CUDA_RULES
$(BUILD)/tests/ex_$(1)_$(2): tests/test_ex_$(1).cu tests/harness.h $(wildcard $(3)/$(or $(EX_DIR_$(1)),$(1))/*) $(LIBCOMMON) | $(BUILD)/tests
	$(NVCC) $(NVCCFLAGS) $(NVCC_CHECK_CFLAGS) -Itests -Icommon -I$(3)/$(or $(EX_DIR_$(1)),$(1)) $(EX_INCLUDE_$(1)) $$< $(LIBCOMMON) -o $$@ $(NVCC_CHECK_LIBS) -lm
endef
$(foreach e,$(EXERCISES_C),$(eval $(call EXERCISE_C_RULES,$(e),solution,solutions))$(eval $(call EXERCISE_C_RULES,$(e),exercise,exercises)))
$(foreach e,$(EXERCISES_CUDA),$(eval $(call EXERCISE_CUDA_RULES,$(e),solution,solutions))$(eval $(call EXERCISE_CUDA_RULES,$(e),exercise,exercises)))

CPU_TESTS := $(BUILD)/tests/test_common $(BUILD)/tests/test_ch01 $(BUILD)/tests/test_ch03 $(BUILD)/tests/test_cli_programs
GPU_TESTS := $(BUILD)/tests/test_cuda_util $(BUILD)/tests/test_ch04 $(BUILD)/tests/test_ch05 $(BUILD)/tests/test_ch06 $(BUILD)/tests/test_ch07
SOLUTION_TESTS := $(foreach e,$(EXERCISES),$(BUILD)/tests/ex_$(e)_solution)
STUB_TESTS := $(foreach e,$(EXERCISES),$(BUILD)/tests/ex_$(e)_exercise)

check: check-deps all $(CPU_TESTS) $(GPU_TESTS) $(SOLUTION_TESTS) $(STUB_TESTS)
	@tools/run_tests.sh --suites $(CPU_TESTS) $(SOLUTION_TESTS) --gpu-suites $(GPU_TESTS) --must-fail $(STUB_TESTS)

# Installs Check with apt when it is missing and we are root; otherwise says how.
.PHONY: check-deps
check-deps:
	@if ! { pkg-config --exists check 2>/dev/null || [ -e /usr/include/check.h ]; }; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Check (libcheck) is missing: installing it with apt-get"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq check pkg-config >/dev/null; \
	  else echo "Check (libcheck) is missing: run  sudo apt-get install check pkg-config"; exit 1; fi; fi

grade: $(STUB_TESTS)
	@tools/grade.sh $(EXERCISES)

# ---------------------------------------------------------------- bench, book
bench: all $(BUILD)/image_diff
	@IMAGE_DIFF=$(BUILD)/image_diff IMAGE_EXT=$(if $(PNG_FOUND),png,ppm) tools/bench.sh

$(BUILD)/ppm2png $(BUILD)/image_diff: $(BUILD)/%: tools/%.c $(LIBCOMMON)
	$(CC) $(ALL_CFLAGS) $(PNG_CFLAGS) $< $(LIBCOMMON) -o $@ $(PNG_LIBS) $(LDLIBS_BASE)

book: ch02-asm ch07-ptx $(BUILD)/ppm2png
	@PPM2PNG=$(BUILD)/ppm2png tools/book.sh

# ---------------------------------------------------------------- sanitizers
# CPU: common/, the CPU chapters' code and their tests under AddressSanitizer +
# UndefinedBehaviorSanitizer, ch03's threaded stages under ThreadSanitizer.
# GPU (when compute-sanitizer and a GPU are present): tools/gpu_sanitize.sh.
SAN := build-san
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TSAN_FLAGS := -O1 -g -fsanitize=thread
SAN_SRC_CH01 := $(CH01_DIR)/main.c $(CH01_DIR)/card.c
SAN_SRC_CH03 := $(CH03_DIR)/main.c $(CH03_DIR)/card.c $(CH03_DIR)/threads.c
SAN_DEFS := -DREFERENCE_DIR='"$(CURDIR)/data/reference"'
sanitize: check-deps
	@mkdir -p $(SAN)
	@echo "sanitize: building with AddressSanitizer + UndefinedBehaviorSanitizer, and ThreadSanitizer for ch03"
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) $(SAN_DEFS) $(SAN_SRC_CH01) $(COMMON_SRC) -o $(SAN)/ch01 $(LDLIBS_BASE)
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) $(SAN_DEFS) $(SAN_SRC_CH03) $(COMMON_SRC) -o $(SAN)/ch03 $(LDLIBS_BASE)
	$(CC) $(CFLAGS_COMMON) $(TSAN_FLAGS) $(SAN_DEFS) $(SAN_SRC_CH03) $(COMMON_SRC) -o $(SAN)/ch03-tsan $(LDLIBS_BASE)
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) $(CHECK_CFLAGS) -Itests -Icommon tests/test_common.c $(COMMON_SRC) -o $(SAN)/test_common $(CHECK_LIBS) $(LDLIBS_BASE)
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) $(CHECK_CFLAGS) $(SAN_DEFS) -Itests -Icommon -I$(CH01_DIR) tests/test_ch01.c $(CH01_DIR)/card.c $(COMMON_SRC) -o $(SAN)/test_ch01 $(CHECK_LIBS) $(LDLIBS_BASE)
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) $(CHECK_CFLAGS) -Itests -Icommon -I$(CH03_DIR) tests/test_ch03.c $(CH03_DIR)/card.c $(CH03_DIR)/threads.c $(COMMON_SRC) -o $(SAN)/test_ch03 $(CHECK_LIBS) $(LDLIBS_BASE)
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) $(CHECK_CFLAGS) -Itests -Icommon -Isolutions/ch01 tests/test_ex_ch01.c solutions/ch01/vec.c $(COMMON_SRC) -o $(SAN)/ex_ch01 $(CHECK_LIBS) $(LDLIBS_BASE)
	$(CC) $(CFLAGS_COMMON) $(ASAN_FLAGS) $(CHECK_CFLAGS) -Itests -Icommon -Isolutions/ch03 tests/test_ex_ch03.c solutions/ch03/render.c $(COMMON_SRC) -o $(SAN)/ex_ch03 $(CHECK_LIBS) $(LDLIBS_BASE)
	@echo "sanitize: running (the full-size ch01 identity test is skipped here: CH01_QUICK=1)"
	$(SAN)/ch01 --width 31 --height 17 --spp 2 --quiet --out $(SAN)/ch01.ppm
	$(SAN)/ch03 --width 33 --height 31 --spp 2 --threads 4 --quiet --out $(SAN)/ch03.ppm
	for s in rng-packed rng-local rng-local-dynamic; do TSAN_OPTIONS=halt_on_error=1 $(SAN)/ch03-tsan --stage $$s --width 33 --height 31 --spp 2 --threads 4 --quiet --out $(SAN)/ch03t.ppm || exit 1; done
	CK_FORK=no CH01_QUICK=1 tools/run_tests.sh --suites $(SAN)/test_common $(SAN)/test_ch01 $(SAN)/test_ch03 $(SAN)/ex_ch01 $(SAN)/ex_ch03
	@$(MAKE) --no-print-directory ch01 ch02 ch03 >/dev/null && tools/valgrind_check.sh
	@$(MAKE) --no-print-directory ch04 ch05 ch06 >/dev/null && tools/gpu_sanitize.sh

profile:
	@tools/profile.sh "$(CH)" "$(STAGE)"

# ---------------------------------------------------------------- misc
diff:
	@tools/chapter_diff.sh "$(A)" "$(B)"

clean:
	rm -rf $(BUILD) build-san ch0[0-9] ch0[0-9].ppm
