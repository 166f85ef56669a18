# The course's only entry point. `make help` lists the targets.
#
# Variables you may set: CC (gcc), NVCC (nvcc, else /usr/local/cuda/bin/nvcc),
# CUDA_ARCH (e.g. sm_90; default: asked of the GPU, else sm_90 plus PTX),
# CUDA_ARCHS (several in one binary, e.g. "sm_80 sm_90"),
# WERROR=1 (warnings are errors, as in CI).
#
# No rule here names a chapter (a comment or a usage example may). Each
# chapter registers itself in chapters/chNN_*/chapter.mk (see "The chapter
# registry" below), with its own targets and scripts, and every target here
# and every script in tools/ reads that registry.

SHELL := /bin/bash
.DEFAULT_GOAL := help

# A line break in a value the course's targets take as text, or in any
# variable given on make's command line, would split a recipe's shell line or
# a rule (an unexplained "unexpected EOF", "missing separator"): refused at
# once, before anything reads it.
define newline


endef
TEXT_VARIABLES := EX GRADE_OUT GRADES_OUT STUDENT DIR N DEST RELEASE_CHECK CH STAGE A B JOBS PARTS SHARD ONLY CHAPTERS \
                  BUILD ORIGINAL SIZE SPP CUDA_COMPILER COURSE_DATA JUDGE_TIMEOUT ANSWERS
$(foreach v,$(sort $(TEXT_VARIABLES) $(foreach c,$(.VARIABLES),$(if $(filter command line,$(origin $(c))),$(c)))),$\
  $(if $(findstring $(newline),$(value $(v))),$(error $(v): a value with a line break in it is not taken (give it on one line))))

ifeq ($(origin CC),default)
CC := gcc
endif
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
CLANG := $(shell command -v clang 2>/dev/null)

# CUDA_COMPILER=clang: the chapters' .cu files compiled by clang (CLANG_CUDA,
# chosen below) instead of nvcc, into build-clang/; nvcc still links.
CUDA_COMPILER ?= nvcc
ifeq ($(filter nvcc clang,$(CUDA_COMPILER)),)
$(error CUDA_COMPILER=$(CUDA_COMPILER): must be nvcc or clang)
endif
BUILD := $(if $(filter clang,$(CUDA_COMPILER)),build-clang,build)
# WERROR=1 (CI builds so): every warning an error, so no new one can land: C
# compiles (gcc, clang), nvcc's (its own, its host compiler's and nvlink's
# warnings) and clang's CUDA ones. The one warning the course allows, ch04's
# stack size at its link, is kept out of the build log by ch04 (its chapter.mk).
WERROR_C := $(if $(filter 1,$(WERROR)),-Werror)
WERROR_NVCC := $(if $(filter 1,$(WERROR)),-Werror=all-warnings)
CFLAGS_COMMON := $(strip -std=c11 -g -Wall -Wextra -D_POSIX_C_SOURCE=200809L $(WERROR_C))
CFLAGS ?= -O2
ALL_CFLAGS := $(CFLAGS_COMMON) $(CFLAGS) $(EXTRA_CFLAGS)
LDLIBS_BASE := -lm -pthread

# libpng is optional: found by pkg-config, otherwise PNG output says it is unavailable.
PNG_FOUND := $(shell pkg-config --exists libpng 2>/dev/null && echo yes)
ifeq ($(PNG_FOUND),yes)
PNG_CFLAGS := -DHAVE_PNG $(shell pkg-config --cflags libpng)
PNG_LIBS := $(shell pkg-config --libs libpng)
endif

# Check (libcheck): pkg-config where it knows check, else the usual libraries
# (where the compiler finds them: /usr, or CPATH and LIBRARY_PATH). Without
# root, tools/slurm/check_in_home.sh puts it in a prefix of your own.
CHECK_LIBS := $(or $(shell pkg-config --libs check 2>/dev/null),-lcheck -lsubunit -lm -lrt -pthread)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
# nvcc does not take -pthread itself: hand it to the host compiler.
NVCC_CHECK_CFLAGS := $(patsubst -pthread,-Xcompiler=-pthread,$(CHECK_CFLAGS))
NVCC_CHECK_LIBS := $(patsubst -pthread,-Xcompiler=-pthread,$(CHECK_LIBS)) -Xcompiler=-pthread

# CUDA architecture: the visible GPU's, else sm_90 with PTX so newer GPUs can JIT it.
# A build on a GPU-less machine (a cluster's login node) for another GPU names
# it: CUDA_ARCH=sm_80 (A100). CUDA_ARCH="sm_80 sm_90" (or CUDA_ARCHS=, which
# wins): one fat binary, machine code for each and PTX of the last (for newer
# GPUs to JIT); CUDA_ARCH is then its first, the one architecture that the PTX
# evidence, the tests' own compiles and clang's CUDA use. (The list goes to
# sub-makes as CUDA_ARCHS: the environment's CUDA_ARCH is by then one word.)
ifeq ($(strip $(CUDA_ARCHS)),)
ifneq ($(word 2,$(CUDA_ARCH)),)
CUDA_ARCHS := $(CUDA_ARCH)
endif
endif
ifneq ($(filter-out sm_%,$(CUDA_ARCH) $(CUDA_ARCHS)),)
$(error CUDA_ARCH/CUDA_ARCHS: '$(filter-out sm_%,$(CUDA_ARCH) $(CUDA_ARCHS))' is not an architecture: want sm_NN, e.g. sm_80 (A100), sm_90 (H100, H200))
endif
cuda_cc = $(patsubst sm_%,%,$(1))
ifneq ($(strip $(CUDA_ARCHS)),)
export CUDA_ARCHS
override CUDA_ARCH := $(firstword $(CUDA_ARCHS))
NVCC_ARCH := $(foreach a,$(CUDA_ARCHS),-gencode=arch=compute_$(call cuda_cc,$(a)),code=$(a)) \
             -gencode=arch=compute_$(call cuda_cc,$(lastword $(CUDA_ARCHS))),code=compute_$(call cuda_cc,$(lastword $(CUDA_ARCHS)))
else ifndef CUDA_ARCH
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
ifneq ($(WERROR_NVCC),)
override NVCCFLAGS += $(WERROR_NVCC)
endif

# Where the CUDA toolkit lies: asked of nvcc itself (its TOP), because nvcc on
# PATH may be a wrapper script or a symlink outside the toolkit; else the usual place.
CUDA_HOME := $(abspath $(or $(shell $(NVCC) -v --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p'),/usr/local/cuda))

# One .cu to one .o with the chosen compiler: $(CUDA_CXX) [flags] -c SRC -o OBJ.
# The flags a chapter needs beyond that have a spelling per compiler:
#   CUDA_RDC           relocatable device code (nvcc only: clang's needs its own linker, and ch04 uses it
#                      only for nvlink's stack-size warning)
#   CUDA_FAST_MATH     nvcc's -use_fast_math; for clang the same four effects, spelled out (not clang's
#                      -ffast-math, which also assumes no NaN and may delete the programs' NaN checks: ch09)
#   CUDA_FTZ, CUDA_APPROX_DIV, CUDA_APPROX_SQRT   each of those effects alone
# clang's CUDA headers take sqrtf from libdevice, which asks __nvvm_reflect
# whether to round it exactly; clang answers no (sqrt.approx) unless told, where
# nvcc's default is -prec-sqrt=true (sqrt.rn). CLANG_PREC_SQRT tells it, so the
# plain builds of both compilers compute the same square root (ch09).
CLANG_PREC_SQRT := -mllvm -nvvm-reflect-add=__CUDA_PREC_SQRT=1
# (clang knows no __maxnreg__, nvcc's per-kernel register cap that ch08's gpu-registers-56 and -80 use:
# ch08's render.cu silences that one warning around those kernels, and clang's builds leave them uncapped.)
CLANG_CUDA_FLAGS = $(strip -x cuda --cuda-gpu-arch=$(CUDA_ARCH) --cuda-path=$(CUDA_HOME) -I$(CUDA_HOME)/include/cccl \
                   -Wno-unknown-cuda-version -O3 -std=c++17 -gline-tables-only -Wall -Wextra \
                   $(CLANG_PREC_SQRT) $(WERROR_C))
# Which clang compiles CUDA (ch09's second half, CUDA_COMPILER=clang): the
# first of clang++-22 and clang++ that passes a trial compile of a small kernel
# for CUDA_ARCH (tools/clang_cuda_probe.sh, cached in build/.probe; without
# WERROR's -Werror: the probe asks whether it compiles CUDA). Debian 12's
# own clang 14 does not (it knows neither sm_90 nor CUDA 13's headers), so there
# ch09 builds its nvcc half alone and says why. CLANG_CUDA=path asks for one
# compiler and is refused at once if it cannot; CLANG_CUDA= (empty) asks for none.
CLANG_CUDA_ASKED := $(if $(filter undefined,$(origin CLANG_CUDA)),,$(strip $(CLANG_CUDA)))
CLANG_CANDIDATES := $(if $(filter undefined,$(origin CLANG_CUDA)),clang++-22 clang++,$(CLANG_CUDA_ASKED))
CLANG_PROBE := $(if $(CLANG_CANDIDATES),$(shell CLANG_CUDA_FLAGS='$(filter-out -Werror,$(CLANG_CUDA_FLAGS))' tools/clang_cuda_probe.sh build/.probe $(CLANG_CANDIDATES)),no CLANG_CUDA is empty)
override CLANG_CUDA := $(if $(filter ok,$(firstword $(CLANG_PROBE))),$(word 2,$(CLANG_PROBE)))
CLANG_CUDA_WHY := $(if $(CLANG_CUDA),,$(wordlist 2,1000,$(CLANG_PROBE)))
CLANG_CUDA_PROVIDER := the Debian package clang-22 can (apt-get install clang-22)
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),help)),)
ifneq ($(CLANG_CUDA_ASKED),)
ifeq ($(CLANG_CUDA),)
$(error CLANG_CUDA=$(CLANG_CUDA_ASKED) cannot compile CUDA for $(CUDA_ARCH): $(CLANG_CUDA_WHY). $(CLANG_CUDA_PROVIDER); or CLANG_CUDA= for none)
endif
endif
ifeq ($(CUDA_COMPILER)$(CLANG_CUDA),clang)
$(error CUDA_COMPILER=clang: no clang here compiles CUDA for $(CUDA_ARCH) ($(CLANG_CUDA_WHY)). $(CLANG_CUDA_PROVIDER))
endif
endif
CLANG_FTZ := -fgpu-flush-denormals-to-zero
CLANG_APPROX_DIV := -mllvm -nvptx-prec-divf32=1
CLANG_APPROX_SQRT := -mllvm -nvptx-prec-sqrtf32=0 -mllvm -nvvm-reflect-add=__CUDA_PREC_SQRT=0
CLANG_FAST_MATH := $(CLANG_FTZ) $(CLANG_APPROX_DIV) $(CLANG_APPROX_SQRT) -fgpu-approx-transcendentals
NVCC_FAST_MATH := -use_fast_math
ifeq ($(CUDA_COMPILER),clang)
CUDA_CXX = $(CLANG_CUDA) $(CLANG_CUDA_FLAGS)
CUDA_RDC :=
CUDA_FTZ := $(CLANG_FTZ)
CUDA_APPROX_DIV := $(CLANG_APPROX_DIV)
CUDA_APPROX_SQRT := $(CLANG_APPROX_SQRT)
CUDA_FAST_MATH := $(CLANG_FAST_MATH)
else
CUDA_CXX = $(NVCC) $(NVCCFLAGS)
CUDA_RDC := -rdc=true
CUDA_FTZ := -ftz=true
CUDA_APPROX_DIV := -prec-div=false
CUDA_APPROX_SQRT := -prec-sqrt=false
CUDA_FAST_MATH := $(NVCC_FAST_MATH)
endif
CUDA_CFLAGS := -I$(CUDA_HOME)/include
# nvcc links the CUDA chapters (it knows where libcudart is); host C goes through gcc.
NVCC_LDLIBS := $(PNG_LIBS) -lm -lpthread
# NVTX (header-only, in the toolkit): common/measure.c names each stage's
# range on an Nsight Systems timeline; without the header, no ranges (a
# CPU-only build). Its loader calls dlopen, which glibc before 2.34 keeps in libdl.
NVTX_FOUND := $(if $(wildcard $(CUDA_HOME)/include/nvtx3/nvToolsExt.h),yes)
NVTX_CFLAGS := $(if $(NVTX_FOUND),-DHAVE_NVTX -isystem $(CUDA_HOME)/include)
NVTX_LIBS := $(if $(NVTX_FOUND),-ldl)
LDLIBS_BASE += $(NVTX_LIBS)
NVCC_LDLIBS += $(NVTX_LIBS)
$(BUILD)/common/measure.o: ALL_CFLAGS += $(NVTX_CFLAGS)

COMMON_SRC := common/timer.c common/image.c common/cli.c common/report.c common/measure.c common/team.c common/cpu_ceiling.c common/gpu_state.c common/stage.c
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
# The one main() every chapter's program runs (common/program.h): linked into
# the programs, never into the tests (they have main()s of their own).
PROGRAM_SRC := common/program.c
PROGRAM_OBJ := $(BUILD)/common/program.o
LIBCOMMON := $(BUILD)/libcommon.a
# The GPU's measuring equipment (common/gpu/: the ceilings), built once with
# the CUDA compiler; a GPU chapter links it before $(LIBCOMMON), which it uses.
GPU_COMMON_SRC := common/gpu/ceiling.cu common/gpu/kernel_info.cu
GPU_COMMON_OBJ := $(GPU_COMMON_SRC:%.cu=$(BUILD)/%.o)
LIBGPU := $(BUILD)/libcommon_gpu.a
# The N-body core (common/nbody/: bodies, interaction, integration, the
# reference check) that ch07, ch09's ch07 part and ch11 share: its host part,
# and its GPU part (the integration kernel).
NBODY_OBJ := $(BUILD)/common/nbody/nbody.o $(BUILD)/common/nbody/check.o
NBODY_GPU_OBJ := $(BUILD)/common/nbody/integrate.o
CUOBJDUMP := $(or $(shell command -v cuobjdump 2>/dev/null),$(wildcard $(CUDA_HOME)/bin/cuobjdump))
# A path as a C string literal in one shell word, for -DNAME=PATH: the
# checkout's absolute path may hold spaces, quotes or $ (tests/odd_path.sh
# proves it). In a rule made by $(eval), refer to such a define as $$(...), so
# that it is expanded when the recipe runs and eval never reads a $ in the path.
sh_quote = '$(subst ','\'',$(1))'
c_string = "$(subst ",\",$(subst \,\\,$(1)))"
path_def = -D$(1)=$(call sh_quote,$(call c_string,$(2)))
# nvcc hands a -D on to the host compiler through a shell of its own, which
# would expand a $ in it: there the $ goes as \\$.
nvcc_path_def = -D$(1)=$(call sh_quote,$(subst $$,\\$$,$(call c_string,$(2))))
REFERENCE_DEF := $(call path_def,REFERENCE_DIR,$(CURDIR)/data/reference)
# Results, plots and generated evidence are kept per machine: <gpu>_<cpu>.
MACHINE := $(shell tools/machine.sh)

# The compiler choices, as files: every object or test whose compiled code
# depends on one lists it, so changing CUDA_ARCH, NVCC or its flags, or the
# clang chosen (CLANG_CUDA), rebuilds exactly those and never links a stale one.
#   NVCC_CONFIG    what nvcc builds (and links) with
#   CLANG_CONFIG   which clang compiles CUDA, with what flags, or why none
#   CUDA_CONFIG    what this build's CUDA objects depend on (both, for CUDA_COMPILER=clang)
NVCC_CONFIG := $(BUILD)/nvcc-config.txt
CLANG_CONFIG := $(BUILD)/clang-config.txt
CUDA_CONFIG := $(NVCC_CONFIG) $(if $(filter clang,$(CUDA_COMPILER)),$(CLANG_CONFIG))

# ---------------------------------------------------------------- the chapter registry
# chapters/chNN_*/chapter.mk says, once, everything the tools need to know:
#   REGISTERED += chNN         the chapter's name (its program is ./chNN)
#   chNN_DIR                   its folder
#   chNN_TITLE, chNN_SUMMARY   for the README's chapter table
#   chNN_GPU                   none | all (no GPU: exit 3 at once) | some (CPU stages run, then exit 3)
#   chNN_RAYTRACER             yes: takes --out and --images, bench keeps its images, book shows them
#   chNN_SMALL                 arguments for a quick run at a small, odd size (tests)
#   chNN_BAD                   more bad-input vectors: "OPTION VALUE TEXT-THE-ERROR-NAMES;..."
#   chNN_SANITIZE              compute-sanitizer argument sets, ';'-separated (GPU stages)
#   chNN_VALGRIND              Valgrind argument sets, ';'-separated (CPU chapters)
#   chNN_SAN_SRC, chNN_SAN_ARGS, chNN_TSAN_STAGES   its ASan/UBSan (and TSan) build and run
#                              (a SAN_SRC without problem.c: only tests/test_chNN.c is built with it)
#   chNN_TEST_OBJ, chNN_TEST_FLAGS, chNN_TEST_LIBS, chNN_SAN_TEST_SRC   what tests/test_chNN.{c,cu} links
#   chNN_TEST_DEPS             what else a suite's build depends on (e.g. $(CLANG_CONFIG), a test-only copy of a header)
#   chNN_DIFFS                 difference images for the book: "A B NAME;..."
#   chNN_BENCH_ARGS            arguments of make bench's run of the chapter (a smaller workload than the
#                              default, more repeats), where the default would not fit its time
#   chNN_BENCH_EXTRA           a script bench.sh runs after the chapter (short extra runs, images)
#   chNN_STUDY                 a script make studies runs: a long study (full-size renders, MSE ladders,
#                              scaling curves), its rows in the same CSV under a run id of its own
#   chNN_BOOK_EXTRA            a Python hook (book_extra.py) tools/book.py calls in-process: book_extra(csvs, gen) writes the chapter's own generated sections
#   chNN_BOOK_WORKLOADS        the workloads (separated by ";") whose rows the chapter's table in the
#                              book shows; its evidence page shows every row (results:chNN-full)
#   chNN_BOOK_TRIPS            the stages that are side-trips: the chapter's text lists them after the
#                              ladder, and its table in the book leaves them out (the evidence page has all)
#   chNN_PROFILE_ARGS          what make profile adds to the stage's command line (each stage's
#                              kernel is its row's: ./chNN --list-stages)
#   chNN_CHART, chNN_CHART_TITLE, chNN_CHART_YLABEL   bar | bar-log | lines-threads | lines-n
#   chNN_RENAMED               for make diff: "new:old" files renamed from the chapter before
#   chNN_EXERCISES             its exercises; for each: ex_NAME_WHAT, ex_NAME_ON,
#                              ex_NAME_DIR (folder, default NAME), ex_NAME_INCLUDE
#   UNAVAILABLE += chNN, chNN_UNAVAILABLE, CHECK_DEPS_APT += PKG...   instead of REGISTERED += chNN,
#                              where what it needs is missing (ch11: an MPI): make all and make check
#                              say so in one line (check counts it skipped); check-deps installs PKG
#                              first where it can (root, apt), and the chapter is then registered
#   CHAPTER_TARGETS += T       a target of its own (make help lists it, with T_HELP)
#   BOOK_INPUTS += T           a target make evidence runs (compiler evidence the book includes; make book only reads it)
# and the rules that build ./chNN. tests/test_chNN.c (CPU) or .cu (GPU) is its
# suite; tests/test_ex_NAME.{c,cu} each exercise's.
comma := ,
REGISTERED :=
UNAVAILABLE :=
CHECK_DEPS_APT :=
CHAPTER_TARGETS :=
BOOK_INPUTS :=
include $(sort $(wildcard chapters/*/chapter.mk))
# CHAPTERS="ch02 ch03" (make's command line or the environment) picks a subset
# for bench, profiles and the sanitizers. Its text is data, never make code:
# read with $(value), checked word by word against the registry, and replaced
# by the registered chapters it names, in the registry's order.
CHAPTERS_ASKED := $(strip $(value CHAPTERS))
CHAPTERS_UNKNOWN := $(filter-out $(REGISTERED) $(UNAVAILABLE),$(CHAPTERS_ASKED))
ifneq ($(CHAPTERS_UNKNOWN),)
$(error CHAPTERS: not a chapter: $(CHAPTERS_UNKNOWN) (the chapters: $(sort $(REGISTERED) $(UNAVAILABLE))))
endif
override CHAPTERS := $(if $(CHAPTERS_ASKED),$(filter $(CHAPTERS_ASKED),$(REGISTERED)),$(REGISTERED))
ifeq ($(CHAPTERS),)
$(error CHAPTERS: $(CHAPTERS_ASKED): not available here ($(foreach c,$(CHAPTERS_ASKED),$(c): $($(c)_UNAVAILABLE))))
endif
export CHAPTERS

REGISTRY_FIELDS := DIR TITLE SUMMARY GPU RAYTRACER SMALL BAD SANITIZE VALGRIND SAN_ARGS TSAN_STAGES DIFFS \
                   BENCH_ARGS BENCH_EXTRA STUDY BOOK_EXTRA BOOK_WORKLOADS BOOK_TRIPS PROFILE_ARGS CHART CHART_TITLE CHART_YLABEL \
                   RENAMED EXERCISES
EXERCISE_FIELDS := WHAT ON DIR INCLUDE CFLAGS
EXERCISES := $(foreach c,$(CHAPTERS),$($(c)_EXERCISES))
# Every chapter and exercise of the course, registered here or not (ch11
# without an MPI): the README's tables show them all, on any machine.
COURSE_CHAPTERS := $(sort $(REGISTERED) $(UNAVAILABLE))
COURSE_EXERCISES := $(foreach c,$(COURSE_CHAPTERS),$($(c)_EXERCISES))
ex_dir = $(or $(ex_$(1)_DIR),$(1))
ex_lang = $(if $(wildcard tests/test_ex_$(1).cu),cuda,c)
define REGISTRY_SH
# Generated by make from chapters/*/chapter.mk: eval "$$(make -s print-registry)"
CHAPTERS=$(call sh_quote,$(CHAPTERS))
EXERCISES=$(call sh_quote,$(EXERCISES))
COURSE_CHAPTERS=$(call sh_quote,$(COURSE_CHAPTERS))
COURSE_EXERCISES=$(call sh_quote,$(COURSE_EXERCISES))
MACHINE=$(call sh_quote,$(MACHINE))
$(foreach c,$(COURSE_CHAPTERS),$(foreach f,$(REGISTRY_FIELDS),$(c)_$(f)=$(call sh_quote,$(strip $($(c)_$(f))))
))$(foreach e,$(COURSE_EXERCISES),$(foreach f,$(EXERCISE_FIELDS),ex_$(e)_$(f)=$(call sh_quote,$(strip $(if $(filter DIR,$(f)),$(call ex_dir,$(e)),$(ex_$(e)_$(f)))))
))
endef
c_quote = "$(subst ",\",$(strip $(1)))"
define REGISTRY_H
/* Generated by make from each chapter.mk: CHAPTER(name, gpu, raytracer, small, bad) */
$(foreach c,$(CHAPTERS),CHAPTER("$(c)", "$($(c)_GPU)", $(if $(filter yes,$($(c)_RAYTRACER)),1,0), $(call c_quote,$($(c)_SMALL)), $(call c_quote,$($(c)_BAD)))
)
endef

# The compiler-choice files (NVCC_CONFIG, CLANG_CONFIG: see above) and the
# registry's, rewritten only when they change. The shell writes them (their
# text in its environment, GENERATED_TEXT; one newline at its end, as make's
# $(file) wrote), so make -n writes nothing, and through a temporary name of
# its own ($$$$, the shell's pid), so makes running at once in one checkout do
# not collide.
write_if_changed = @printf '%s\n' "$${GENERATED_TEXT%$$'\n'}" > $@.$$$$.tmp && \
                   { cmp -s $@.$$$$.tmp $@ && rm -f $@.$$$$.tmp || mv -f $@.$$$$.tmp $@; }
$(NVCC_CONFIG): export GENERATED_TEXT = $(NVCC) $(NVCCFLAGS) $(NVCC_ARCH)
$(CLANG_CONFIG): export GENERATED_TEXT = $(CLANG_CUDA) $(CLANG_CUDA_FLAGS)$(newline)$(CLANG_CUDA_WHY)
$(BUILD)/registry.sh: export GENERATED_TEXT = $(REGISTRY_SH)
$(BUILD)/registry.h: export GENERATED_TEXT = $(REGISTRY_H)
$(NVCC_CONFIG) $(CLANG_CONFIG) $(BUILD)/registry.sh $(BUILD)/registry.h: FORCE | $(BUILD)/.dir
	$(write_if_changed)

.PHONY: print-chapters print-registry FORCE
print-chapters:
	@printf '%s\n' $(CHAPTERS)
print-registry: $(BUILD)/registry.sh
	@cat $<
FORCE:

# ---------------------------------------------------------------- help
.PHONY: help all check check-deps check-exercises grade hint bench book sanitize profile clean diff
help:
	@echo "The course: staged C/CUDA programs, one per chapter. Targets:"
	@echo "  make chNN           build ./chNN in this folder, one of: $(CHAPTERS) (./chNN --help: its options)"
	@echo "  make all            build every chapter"
	@echo "  make check          build everything, run every test suite, the exercises against solutions/"
	@echo "                      (ends: N passed, N failed, N skipped)"
	@echo "  make check-exercises  every exercise stub as handed out (exercises/STUBS) fails its test, every solution passes, every"
	@echo "                      wrong answer in tests/wrong/ fails; then the graders under an odd path (tests/odd_path.sh)$(NOT_IN_RELEASE)"
	@echo "  make stubs-manifest  maintainers, after changing a stub: rewrite exercises/STUBS (each stub's git blob id"
	@echo "                      and path: what check-exercises and reset read), then commit both$(NOT_IN_RELEASE)"
	@echo "  make student-release DEST=path  a copy for students in a git repository of its own: no solutions/,"
	@echo "                      no tests/wrong/, no last hints; it builds, grades its stubs and passes make check, which it runs"
	@echo "                      in the copy before handing it over (RELEASE_CHECK=command: another check)$(NOT_IN_RELEASE)"
	@echo "  make check-gpu      on a GPU machine: make check with the GPU suites, compute-sanitizer over every"
	@echo "                      GPU stage, a one-repetition smoke of make bench; one summary line (ONLY=\"sanitize"
	@echo "                      bench-smoke\": those parts alone, the others read from an earlier call's logs)"
	@echo "  make check-add-stage  add one row to a chapter in a scratch copy: program, tests, bench, book show it"
	@echo "  make grade          your answers in exercises/: PASS/FAIL each (EX=ch03: just that one;"
	@echo "                      GRADE_OUT=result.csv STUDENT=id: also a result file to hand in)"
	@echo "  make collect-grades DIR=folder   a class's result files: one table, totals, a gradebook CSV, Gradescope's"
	@echo "                      results.json, a chart (mine/grades/; PARTS=none|half|full: what a GPU part not run counts)"
	@echo "  make grade-class DIR=folder   a folder per student (each like exercises/), graded JOBS at once (default: every"
	@echo "                      core), then collected as above (SHARD=I/N: one task of a Slurm job array)"
	@echo "  make mock-class N=60 DIR=folder   a made-up class of mixed submissions, to rehearse and time make grade-class$(NOT_IN_RELEASE)"
	@echo "  make hint EX=ch03   the next hint for an exercise (three, from where to look to nearly the code)"
	@echo "  make reset EX=ch03  put an exercise back to its stub, even after you committed; your files are moved"
	@echo "                      first to saved/<folder>-<date>-<time>/ (make clean leaves saved/ alone)"
	@echo "  make bench          every chapter and stage once, in minutes (the CPU chapters at a smaller workload:"
	@echo "                      chNN_BENCH_ARGS); your CSV to mine/results/$(MACHINE).csv, each row with its commit, run"
	@echo "                      and machine ids and the GPU's clock, power and temperature; stage and difference images to"
	@echo "                      mine/images/$(MACHINE)/ (CHAPTERS=\"ch02 ch03\": a subset);"
	@echo "                      COURSE_DATA=1 (maintainers): into the course's data/ instead, which make book reads"
	@echo "  make studies        the long studies (full-size renders, ch08's MSE ladders, ch11's scaling), in parts with"
	@echo "                      CHAPTERS=..., into the same CSV under a run id of their own"
	@echo "  make book           regenerate the tables in book.md and README.md, charts and images, from data/ (stages' work tags: data/results/*/chNN-stages.tsv)"
	@echo "  make evidence       (maintainers, before make book) remake the compiler evidence the book includes: $(BOOK_INPUTS)"
	@echo "  make html           the book as a site in $(BUILD)/html/: a page per chapter, contents, charts, images (needs pandoc)"
	@echo "  make site           the course as a site in $(BUILD)/site/ (MkDocs, Material theme): sidebar, search, chapters,"
	@echo "                      exercises with hints, evidence, profiles, source files (needs mkdocs, mkdocs-material)"
	@echo "  make sanitize       CPU code and tests under ASan + UBSan, TSan, Valgrind;"
	@echo "                      with a GPU, every GPU stage under compute-sanitizer"
	@echo "  make show CH=ch12 STAGE=gpu-double-buffer   one stage from its row to its code: the row, the function and"
	@echo "                      kernel it runs, the one change a flag set adds (where the code tests it); any machine"
	@echo "  make profile CH=ch05 STAGE=fast-math   Nsight Compute on one stage, saved in data/profiles/<machine>/"
	@echo "  make profiles       make profile for every GPU stage of every GPU chapter (CHAPTERS=...: a subset)"
	@echo "  make host-record    this host's CPU model, vector ISA and triad memory bandwidth (make bench runs it)"
	@echo "  make cpu-scaling    this machine's parallel efficiency on work that shares nothing (the CPU chapters' yardstick)"
	@$(foreach t,$(CHAPTER_TARGETS),printf '  make %-15s %s\n' $(call sh_quote,$(t)) $(call sh_quote,$($(t)_HELP));)
	@echo "  make CUDA_COMPILER=clang chNN   a GPU chapter's kernels compiled by clang (clang++-22) instead of nvcc"
	@echo "  make diff A=ch04 B=ch05   what changed between two chapters' sources, file by file"
	@echo "  make diff A=ch05:STAGE B=ch05:STAGE   what one stage changes from another of its chapter (the code it runs)"
	@echo "  make print-chapters / print-registry   the chapter registry, for scripts"
	@echo "  make clean          remove $(BUILD)/ and the chapter binaries"
	@echo "Variables: CC=$(CC) NVCC=$(NVCC) CUDA_ARCH=$(CUDA_ARCH) CUDA_COMPILER=$(CUDA_COMPILER) CLANG_CUDA=$(or $(CLANG_CUDA),none) libpng=$(or $(PNG_FOUND),no)"

all: $(CHAPTERS)
	@$(foreach c,$(UNAVAILABLE),echo "$(c) not built: $($(c)_UNAVAILABLE)";)
.PHONY: $(CHAPTERS)
# (Phony: a program is relinked every time, so CUDA_COMPILER=clang and back
# always leaves ./chNN built by the compiler last asked for.)

# ---------------------------------------------------------------- common/
%/.dir:
	@mkdir -p $(@D) && touch $@
.PRECIOUS: %/.dir

$(BUILD)/common/%.o: common/%.c common/*.h | $(BUILD)/common/.dir
	$(CC) $(ALL_CFLAGS) $(PNG_CFLAGS) -c $< -o $@
# --version (common/cli.c) says the commit cli.o was built from (tools/commit.sh):
# $(BUILD)/commit.txt is rewritten only when it changes, and cli.o rebuilt then.
$(BUILD)/commit.txt: export GENERATED_TEXT = $(shell tools/commit.sh | tr -cd 'A-Za-z0-9._-')
$(BUILD)/commit.txt: FORCE | $(BUILD)/.dir
	$(write_if_changed)
$(BUILD)/common/cli.o: $(BUILD)/commit.txt
$(BUILD)/common/cli.o: ALL_CFLAGS = $(CFLAGS_COMMON) $(CFLAGS) $(EXTRA_CFLAGS) -DBUILD_COMMIT='"$(file <$(BUILD)/commit.txt)"'

$(LIBCOMMON): $(COMMON_OBJ)
	ar rcs $@ $^

$(BUILD)/common/gpu/%.o: common/gpu/%.cu common/gpu/*.h common/*.h $(CUDA_CONFIG) | $(BUILD)/common/gpu/.dir
	$(CUDA_CXX) -c $< -o $@

$(LIBGPU): $(GPU_COMMON_OBJ)
	ar rcs $@ $^

# (Static pattern rules: the generic $(BUILD)/common/%.o rule above would take the .c files.)
$(NBODY_OBJ): $(BUILD)/common/nbody/%.o: common/nbody/%.c common/nbody/*.h common/*.h | $(BUILD)/common/nbody/.dir
	$(CC) $(ALL_CFLAGS) -c $< -o $@
$(NBODY_GPU_OBJ): $(BUILD)/common/nbody/%.o: common/nbody/%.cu common/nbody/*.h common/*.h $(CUDA_CONFIG) | $(BUILD)/common/nbody/.dir
	$(CUDA_CXX) -c $< -o $@

# ---------------------------------------------------------------- tests
TEST_CFLAGS := $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests -Icommon
TEST_LIBS := $(CHECK_LIBS) $(PNG_LIBS) $(LDLIBS_BASE)
NVCC_TEST = $(NVCC) $(NVCCFLAGS) $(NVCC_CHECK_CFLAGS) -Itests -Icommon
NVCC_TEST_LIBS := $(NVCC_CHECK_LIBS) $(PNG_LIBS) -lm $(NVTX_LIBS)

$(BUILD)/tests/test_common: tests/test_common.c tests/harness.h $(LIBCOMMON) | $(BUILD)/tests/.dir
	$(CC) $(TEST_CFLAGS) $< $(LIBCOMMON) -o $@ $(TEST_LIBS)

# The course's scripts, each tests/tools/*.sh one test (stand-ins where a GPU would be needed).
$(BUILD)/tests/test_tools: tests/test_tools.c tests/harness.h | $(BUILD)/tests/.dir
	$(CC) $(TEST_CFLAGS) -DPROGRAM_DIR='"$(CURDIR)"' $< -o $@ $(TEST_LIBS)

# The CUDA helper compiles in CI (no GPU): this test includes it and skips its
# device checks when there is no device.
$(BUILD)/tests/test_cuda_util: tests/test_cuda_util.cu tests/harness.h common/cuda_util.h $(LIBCOMMON) $(CUDA_CONFIG) | $(BUILD)/tests/.dir
	$(NVCC_TEST) $(call nvcc_path_def,PROGRAM_DIR,$(CURDIR)) $< $(LIBCOMMON) -o $@ $(NVCC_TEST_LIBS)

# The GPU ceilings: the test includes common/gpu/ceiling.cu whole, so their
# host logic is tested on the CPU in CI and the kernels where there is a GPU.
$(BUILD)/tests/test_gpu_ceiling: tests/test_gpu_ceiling.cu tests/harness.h $(GPU_COMMON_SRC) common/gpu/*.h common/*.h $(LIBCOMMON) $(CUDA_CONFIG) | $(BUILD)/tests/.dir
	$(NVCC_TEST) $< $(LIBCOMMON) -o $@ $(NVCC_TEST_LIBS)

# Command-line behaviour of every chapter program (the registry's list).
$(BUILD)/tests/test_cli_programs: tests/test_cli_programs.c tests/harness.h $(BUILD)/registry.h $(BUILD)/image_diff | $(BUILD)/tests/.dir
	$(CC) $(TEST_CFLAGS) -I$(BUILD) $(call path_def,PROGRAM_DIR,$(CURDIR)) $< -o $@ $(TEST_LIBS)

# A chapter's suite: tests/test_chNN.c (CPU: Check forks each test) or .cu
# (nvcc-built; its CPU parts run everywhere, its GPU parts skip without a
# device; run with CK_FORK=no).
define CHAPTER_TEST_RULES
ifneq ($(wildcard tests/test_$(1).c),)
$(BUILD)/tests/test_$(1): tests/test_$(1).c $(wildcard tests/*.h) $(wildcard $($(1)_DIR)/*.h) $($(1)_TEST_OBJ) $(LIBCOMMON) $($(1)_TEST_DEPS) | $(BUILD)/tests/.dir
	$(CC) $(TEST_CFLAGS) $$($(1)_TEST_FLAGS) -I$($(1)_DIR) $$(REFERENCE_DEF) $$< $($(1)_TEST_OBJ) $(LIBCOMMON) -o $$@ $(TEST_LIBS) $($(1)_TEST_LIBS)
CPU_TESTS += $(BUILD)/tests/test_$(1)
endif
ifneq ($(wildcard tests/test_$(1).cu),)
$(BUILD)/tests/test_$(1): tests/test_$(1).cu $(wildcard tests/*.h) $(wildcard $($(1)_DIR)/*.h) $($(1)_TEST_OBJ) $(LIBCOMMON) $($(1)_TEST_DEPS) $(CUDA_CONFIG) | $(BUILD)/tests/.dir
	$(NVCC_TEST) $$($(1)_TEST_FLAGS) -I$($(1)_DIR) $$(call nvcc_path_def,REFERENCE_DIR,$(CURDIR)/data/reference) $$< $($(1)_TEST_OBJ) $(LIBCOMMON) -o $$@ $(NVCC_TEST_LIBS) $($(1)_TEST_LIBS)
GPU_TESTS += $(BUILD)/tests/test_$(1)
endif
endef
CPU_TESTS := $(BUILD)/tests/test_common $(BUILD)/tests/test_cli_programs $(BUILD)/tests/test_tools
GPU_TESTS := $(BUILD)/tests/test_cuda_util $(BUILD)/tests/test_gpu_ceiling
$(foreach c,$(CHAPTERS),$(eval $(call CHAPTER_TEST_RULES,$(c))))

# Exercises: each test is built against one folder holding the exercise:
# solutions/ (make check), exercises/ (make grade), or the stubs as handed out
# (make check-exercises: read from the manifest exercises/STUBS by blob id, so
# a student's commits do not matter). C exercises link the folder's .c files
# (if any); CUDA ones are header-only.
# A student release (make student-release) has no solutions/: there make
# check tests no exercise, and check-exercises says it is not in a release.
STUDENT_RELEASE := $(if $(wildcard solutions/*/*),,yes)
NOT_IN_RELEASE := $(if $(STUDENT_RELEASE), (not in a student release))
STUB_PATHS := $(if $(wildcard exercises/STUBS),$(file <exercises/STUBS))
# The test also learns where the exercise's folder is (EX_DIR), so it can
# compile it again itself (gcc -S, nvcc -ptx) and grade the machine code.
# (EXERCISE_RULES refers to it as $$(call ex_defs,...): see path_def.)
# $(4): path_def, or nvcc_path_def for a test nvcc compiles.
ex_defs = $(call $(or $(4),path_def),EX_DIR,$(abspath $(3)/$(call ex_dir,$(1)))) \
          $(call $(or $(4),path_def),PROJECT_DIR,$(CURDIR)) $(call $(or $(4),path_def),NVCC,$(NVCC)) \
          $(call $(or $(4),path_def),CC_NAME,$(CC)) -DCUDA_ARCH='"$(CUDA_ARCH)"'
# The .c files an exercise's test links, in folder $(2): the names the
# manifest lists (every folder of the exercise has the same files; a folder made
# during the build is not yet in make's directory cache, so no wildcard there).
ex_c_files = $(addprefix $(2)/$(call ex_dir,$(1))/,$(filter-out $(notdir $(ex_$(1)_NOT_LINKED)),$(notdir $(filter exercises/$(call ex_dir,$(1))/%.c,$(STUB_PATHS)))))
# $(4): the binary's path, if not $(BUILD)/tests/ex_$(1)_$(2) (a grading's probe).
define EXERCISE_RULES
$(or $(4),$(BUILD)/tests/ex_$(1)_$(2)): tests/test_ex_$(1).$(if $(filter cuda,$(call ex_lang,$(1))),cu,c) tests/harness.h $(wildcard tests/ex_$(call ex_dir,$(1))_*) $(wildcard common/nbody/*) $(wildcard $(3)/$(call ex_dir,$(1))/*) $(LIBCOMMON) $(CUDA_CONFIG) | $(BUILD)/tests/.dir
ifeq ($(call ex_lang,$(1)),cuda)
	$(if $(4),mkdir -p $$@.keep &&) $(NVCC_TEST) $$(call ex_defs,$(1),$(2),$(3),nvcc_path_def) -I$(3)/$(call ex_dir,$(1)) $(ex_$(1)_INCLUDE) $(if $(4),-keep -keep-dir $$@.keep) $$< $(LIBCOMMON) -o $$@ $(NVCC_TEST_LIBS)
else
	$(CC) $(TEST_CFLAGS) $(ex_$(1)_CFLAGS) $$(call ex_defs,$(1),$(2),$(3)) -I$(3)/$(call ex_dir,$(1)) $(ex_$(1)_INCLUDE) $(if $(4),-save-temps=obj) $$< $(call ex_c_files,$(1),$(3)) $(wildcard tests/ex_$(1)_probe.c) $(LIBCOMMON) -o $$@ $(TEST_LIBS)
endif
endef
STUBS := $(BUILD)/committed-stubs
$(foreach e,$(EXERCISES),$(eval $(call EXERCISE_RULES,$(e),solution,solutions)))
$(foreach e,$(EXERCISES),$(eval $(call EXERCISE_RULES,$(e),stub,$(STUBS))))
# A grading (tools/judge.sh) builds its probe, the test with the answer laid
# in its private folder PROBE_ROOT, as PROBE_OUT/ex_NAME_probe, keeping what
# it compiled beside it (-save-temps: ex_NAME_probe-FILE.s and .o; nvcc -keep:
# ex_NAME_probe.keep/*.ptx): the judge grades that machine code, the code the
# probe ran. The judges are the stubs' builds (make judges, under
# tools/judge.sh's lock). tests/ex_NAME_probe.c, where there is one, is a
# test's own file built in beside the answer.
ifneq ($(PROBE_ROOT),)
$(foreach e,$(EXERCISES),$(eval $(call EXERCISE_RULES,$(e),probe,$(PROBE_ROOT),$(PROBE_OUT)/ex_$(e)_probe)))
endif
.PHONY: judges print-nvcc print-cuda-arch
judges: check-deps
	@tools/committed_stubs.sh $(STUBS) $(foreach e,$(EXERCISES),exercises/$(call ex_dir,$(e)))
	@$(MAKE) --no-print-directory $(JUDGE_TARGETS)
print-nvcc:
	@echo $(NVCC)
print-cuda-arch:
	@echo $(CUDA_ARCH)
# For editors (clangd, ccls): the compile command of every C and CUDA source
# that make all, the suites and the tools build, read from make's own dry run
# of these rules (tools/compile_commands.sh), so it is what the rules run.
.PHONY: compile_commands.json
compile_commands.json:
	@$(MAKE) --no-print-directory -n -B all $(CPU_TESTS) $(GPU_TESTS) $(addprefix $(BUILD)/,image_diff ppm2png cpu_scaling host_record sandbox) | \
	  tools/compile_commands.sh "$(CURDIR)" > $@.$$$$.tmp && mv -f $@.$$$$.tmp $@ && echo "compile_commands.json: $$(grep -c '"file"' $@) entries"
# The sandbox every run of an answer goes through (tools/sandbox.c).
$(BUILD)/sandbox: tools/sandbox.c | $(BUILD)/.dir
	$(CC) $(CFLAGS_COMMON) -O2 $< -o $@
# What tools/run_tests.sh grades (EXERCISE=FOLDER, through tools/judge.sh as
# make grade does): the solutions (make check), the stubs and the wrong answers
# (make check-exercises, each must fail); the judges they need.
SOLUTION_ANSWERS := $(if $(STUDENT_RELEASE),,$(foreach e,$(EXERCISES),$(e)=solutions/$(call ex_dir,$(e))))
STUB_ANSWERS := $(foreach e,$(EXERCISES),$(e)=$(STUBS)/$(call ex_dir,$(e)))
STUB_TESTS := $(foreach e,$(EXERCISES),$(BUILD)/tests/ex_$(e)_stub)
JUDGES := $(STUB_TESTS) $(BUILD)/sandbox

# Wrong answers: tests/wrong/<exercise>/<case>.patch is one mistake (what it
# is, said at its top) as a patch against the solution. make check-exercises
# builds each exercise's test against the solution with every patch applied
# in turn, and each must fail: a grader that passes the mistake its lesson is
# about is broken. (patch(1) applies them.)
WRONG_CASES := $(foreach e,$(EXERCISES),$(foreach c,$(basename $(notdir $(wildcard tests/wrong/$(e)/*.patch))),$(e)/$(c)))
wrong_ex = $(firstword $(subst /, ,$(1)))
wrong_case = $(lastword $(subst /, ,$(1)))
wrong_root = $(BUILD)/wrong/$(subst /,-,$(1))
define WRONG_RULES
$(call wrong_root,$(1))/.laid: $(wildcard solutions/$(call ex_dir,$(call wrong_ex,$(1)))/*) tests/wrong/$(1).patch
	rm -rf $$(@D) && mkdir -p $$(@D)/$(call ex_dir,$(call wrong_ex,$(1))) && \
	  cp solutions/$(call ex_dir,$(call wrong_ex,$(1)))/* $$(@D)/$(call ex_dir,$(call wrong_ex,$(1)))/ && \
	  patch -s -p1 -d $$(@D)/$(call ex_dir,$(call wrong_ex,$(1))) < tests/wrong/$(1).patch && touch $$@
# (the test built with it, to run by hand: make build/tests/ex_E_wrong_CASE)
$(BUILD)/tests/ex_$(call wrong_ex,$(1))_wrong_$(call wrong_case,$(1)): $(call wrong_root,$(1))/.laid
$(call EXERCISE_RULES,$(call wrong_ex,$(1)),wrong_$(call wrong_case,$(1)),$(call wrong_root,$(1)))
endef
$(foreach w,$(WRONG_CASES),$(eval $(call WRONG_RULES,$(w))))
WRONG_LAID := $(foreach w,$(WRONG_CASES),$(call wrong_root,$(w))/.laid)
WRONG_ANSWERS := $(foreach w,$(WRONG_CASES),$(call wrong_ex,$(w))=$(call wrong_root,$(w))/$(call ex_dir,$(call wrong_ex,$(w))))

# check-deps may install what a chapter needs (ch11: an MPI), so the rest
# runs in a second make that reads the registry again.
check: check-deps
	@$(MAKE) --no-print-directory check-suites
.PHONY: check-suites
check-suites: all $(CPU_TESTS) $(GPU_TESTS)
	@$(if $(SOLUTION_ANSWERS),$(MAKE) --no-print-directory judges JUDGE_TARGETS='$(JUDGES)')
	@BUILD=$(BUILD) tools/run_tests.sh --unavailable $(foreach c,$(UNAVAILABLE),$(call sh_quote,$(c): $($(c)_UNAVAILABLE))) \
	  --suites $(CPU_TESTS) --gpu-suites $(GPU_TESTS) --exercises $(SOLUTION_ANSWERS)

# Adding a stage is adding its row: tests/add_stage.sh adds one to ch03 in a
# scratch copy and checks the program, its suite, make bench and make book
# show it (a few minutes: it runs ch03's bench).
.PHONY: check-add-stage
check-add-stage: check-deps
	@tests/add_stage.sh

# Installs Check with apt when it is missing and we are root; otherwise says how.
# So too what an unavailable chapter needs (CHECK_DEPS_APT); without it, that
# chapter is skipped with one line (UNAVAILABLE) and everything else runs.
# apt-get waits up to 10 minutes for the package lock that another apt (an
# unattended upgrade on a fresh machine) may hold, instead of giving up at once.
APT_GET := DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600
check-deps:
	@if ! { pkg-config --exists check 2>/dev/null || echo '#include <check.h>' | $(CC) -E -x c - >/dev/null 2>&1; }; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Check (libcheck) is missing: installing it with apt-get"; \
	    $(APT_GET) update -qq && $(APT_GET) install -y -qq check pkg-config >/dev/null; \
	  else echo "Check (libcheck) is missing: run  sudo apt-get install check pkg-config  (without root: tools/slurm/check_in_home.sh)"; exit 1; fi; fi
	@if [ -n "$(strip $(CHECK_DEPS_APT))" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "$(UNAVAILABLE) need$(if $(word 2,$(UNAVAILABLE)),,s) $(strip $(CHECK_DEPS_APT)): installing with apt-get"; \
	  $(APT_GET) update -qq && $(APT_GET) install -y -qq $(CHECK_DEPS_APT) >/dev/null || \
	  echo "could not install $(strip $(CHECK_DEPS_APT)): $(UNAVAILABLE) will be skipped"; fi

# Every exercise stub as handed out (exercises/STUBS, by blob id: not the
# working copy nor the last commit, where a student's answers live) must fail
# its test, and so must every committed wrong answer (tests/wrong/); every
# solution must pass. Then the graders in a copy of the checkout under a path
# with a space, a quote and a $ (tests/odd_path.sh).
ifneq ($(STUDENT_RELEASE),)
check-exercises:
	@echo "check-exercises: not in a student release (it proves the solutions pass, and solutions/ is left out); make grade grades your answers" >&2; exit 2
else
check-exercises: check-deps
	@$(MAKE) --no-print-directory judges JUDGE_TARGETS='$(JUDGES) $(WRONG_LAID)' >/dev/null
	@BUILD=$(BUILD) tools/run_tests.sh --exercises $(SOLUTION_ANSWERS) --must-fail $(STUB_ANSWERS) $(WRONG_ANSWERS)
	@echo "The graders under a path with a space, a quote and a dollar sign (tests/odd_path.sh):"
	@tests/odd_path.sh
endif

# The stubs as handed out are listed by content in exercises/STUBS (git blob
# id, path): check-exercises and reset read them from there, whatever a
# student has committed since. A maintainer who changes a stub runs make
# stubs-manifest and commits both (CI fails while they differ). reset moves
# the student's files to saved/ first; student-release writes a copy without
# solutions/, tests/wrong/ or the last hints, in a git repository of its own.
.PHONY: stubs-manifest reset student-release
unexport DEST RELEASE_CHECK
ifneq ($(STUDENT_RELEASE),)
stubs-manifest student-release:
	@echo "$@: not in a student release (it needs solutions/, which a student release leaves out)" >&2; exit 2
else
stubs-manifest:
	@tools/stubs_manifest.sh write
student-release:
	@RELEASE_CHECK=$(call sh_quote,$(value RELEASE_CHECK)) tools/student_release.sh $(call sh_quote,$(value DEST))
endif
reset:
	@tools/reset_exercise.sh $(EX_TEXT) $(foreach e,$(EXERCISES),$(e):$(call ex_dir,$(e)))

# The student's commands: EX=ch03 grades one exercise (EX="ch03 ch05" two);
# GRADE_OUT=FILE STUDENT=ID also writes the result as CSV, to hand in
# (tools/grade.sh says what is in it). EX, GRADE_OUT and STUDENT reach the
# scripts as their literal text, quoted (never as make or shell code), and
# they check them before anything else.
EX_TEXT := $(call sh_quote,$(value EX))
unexport GRADE_OUT STUDENT DIR N
grade: check-deps
	@BUILD=$(BUILD) GRADE_OUT=$(call sh_quote,$(value GRADE_OUT)) STUDENT=$(call sh_quote,$(value STUDENT)) \
	  tools/grade.sh $(EX_TEXT) $(EXERCISES)

# A class's grade files (make grade GRADE_OUT=...), a folder of them, as one
# table of students and exercises, with totals (PARTS: what a GPU part not
# run counts), pass counts, a gradebook CSV, Gradescope's results.json and a
# chart, in mine/grades/ (tools/collect_grades.py).
unexport JOBS PARTS SHARD
.PHONY: collect-grades grade-class
collect-grades:
	@PARTS=$(call sh_quote,$(value PARTS)) tools/collect_grades.py $(call sh_quote,$(value DIR))
# A class's submissions, a folder per student, graded JOBS at once, then
# collected (tools/grade_class.sh; SHARD=I/N for a Slurm job array's task).
grade-class: check-deps
	@BUILD=$(BUILD) JOBS=$(call sh_quote,$(value JOBS)) PARTS=$(call sh_quote,$(value PARTS)) \
	  SHARD=$(call sh_quote,$(value SHARD)) tools/grade_class.sh $(call sh_quote,$(value DIR)) $(EX_TEXT) $(EXERCISES)
# A made-up class of N submissions (model answers, stubs, the wrong answers
# in turn) to rehearse and time make grade-class (tools/mock_class.sh).
.PHONY: mock-class
mock-class:
	@tools/mock_class.sh $(call sh_quote,$(value N)) $(call sh_quote,$(value DIR)) $(EXERCISES)

hint:
	@tools/hint.sh $(EX_TEXT) $(EXERCISES)

# ---------------------------------------------------------------- bench, book
# Whose results: a bench (and host-record, cpu-scaling) writes mine/ (results/,
# images/: data/'s layout, git-ignored, kept by make clean), never the course's
# committed data/, which make book reads; COURSE_DATA=1, a maintainer's opt-in,
# writes data/. Any other value is refused before anything runs.
ifneq ($(filter-out 1,$(value COURSE_DATA)),)
$(error COURSE_DATA is 1 (write the course's committed data/) or left out (write mine/), not '$(value COURSE_DATA)')
endif
unexport COURSE_DATA
BENCH_DATA := $(if $(value COURSE_DATA),data,mine)
# bench.sh --check first (the bench's up-front checks alone: exit 2, nothing
# run), then host-record's recipe (its triad takes minutes), then the bench.
BENCH_ENV = COURSE_DATA=$(if $(value COURSE_DATA),1) IMAGE_DIFF=$(BUILD)/image_diff IMAGE_EXT=$(if $(PNG_FOUND),png,ppm)
bench: all $(BUILD)/image_diff $(BUILD)/host_record
	@$(BENCH_ENV) tools/bench.sh --check
	@$(HOST_RECORD)
	@$(BENCH_ENV) tools/bench.sh
# The long studies (chNN_STUDY): full-size renders, MSE ladders, scaling curves; CHAPTERS=... runs some.
.PHONY: studies
studies: all $(BUILD)/image_diff
	@STUDY=1 COURSE_DATA=$(if $(value COURSE_DATA),1) IMAGE_DIFF=$(BUILD)/image_diff IMAGE_EXT=$(if $(PNG_FOUND),png,ppm) tools/bench.sh

$(BUILD)/ppm2png $(BUILD)/image_diff $(BUILD)/cpu_scaling $(BUILD)/host_record: $(BUILD)/%: tools/%.c $(LIBCOMMON)
	$(CC) $(ALL_CFLAGS) $(PNG_CFLAGS) $< $(LIBCOMMON) -o $@ $(PNG_LIBS) $(LDLIBS_BASE)

# What the host is beside its CPU results: model, vector ISA, triad bandwidth.
.PHONY: host-record
HOST_RECORD = tools/write_checked.sh $(BENCH_DATA)/results/$(MACHINE)/host.txt $(BUILD)/host_record && \
  cat $(BENCH_DATA)/results/$(MACHINE)/host.txt
host-record: $(BUILD)/host_record
	@$(HOST_RECORD)

# How this machine's cores scale on work that shares nothing (the CPU chapters' yardstick).
.PHONY: cpu-scaling
cpu-scaling: $(BUILD)/cpu_scaling
	@tools/write_checked.sh $(BENCH_DATA)/results/$(MACHINE)/cpu-scaling.txt $(BUILD)/cpu_scaling && \
	  cat $(BENCH_DATA)/results/$(MACHINE)/cpu-scaling.txt

# make book reads the committed data only; the evidence it includes that a
# compiler makes (ch02's assembly, ch07's PTX counts: BOOK_INPUTS) is remade by
# make evidence, a maintainer's step before make book, so that another
# machine's compilers never change a published number.
book: $(BUILD)/ppm2png $(CHAPTERS)
	@command -v python3 >/dev/null || { echo "make book: python3 is not installed (apt-get install python3): tools/book.py needs it" >&2; exit 1; }; PPM2PNG=$(BUILD)/ppm2png python3 tools/book.py
.PHONY: evidence
evidence: $(BOOK_INPUTS)

# The book as a site (pandoc): a page per chapter, the contents, charts and images.
.PHONY: html
html:
	@tools/html.sh $(BUILD)/html

# The course as a site (MkDocs with the Material theme): the MkDocs project
# generated into $(BUILD)/site-src/, built into $(BUILD)/site/ (tools/site.py).
.PHONY: site
site:
	@command -v python3 >/dev/null || { echo "make site: python3 is not installed (apt-get install python3): tools/site.py needs it" >&2; exit 1; }; python3 tools/site.py $(BUILD)/site

# ---------------------------------------------------------------- sanitizers
# CPU: common/, the CPU chapters (chNN_SAN_SRC), their tests, the C exercises'
# solutions and the tools under AddressSanitizer + UndefinedBehaviorSanitizer;
# chNN_TSAN_STAGES under ThreadSanitizer; chNN_VALGRIND under Valgrind.
# GPU (when compute-sanitizer and a GPU are present): tools/gpu_sanitize.sh.
SAN := build-san
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TSAN_FLAGS := -O1 -g -fsanitize=thread
SAN_CHAPTERS := $(foreach c,$(CHAPTERS),$(if $($(c)_SAN_SRC),$(c)))
# Chapters whose SAN_SRC is a whole program (its problem.c, which defines
# chapter_program, with common/program.c's main()): run under the sanitizers
# too; the others (a GPU chapter's CPU half) only through their tests.
SAN_PROGRAMS := $(foreach c,$(SAN_CHAPTERS),$(if $(filter %/problem.c,$($(c)_SAN_SRC)),$(c)))
SAN_TESTS := $(SAN)/test_common $(foreach c,$(SAN_CHAPTERS),$(if $(wildcard tests/test_$(c).c),$(SAN)/test_$(c))) \
             $(if $(STUDENT_RELEASE),,$(foreach e,$(EXERCISES),$(if $(filter c,$(call ex_lang,$(e))),$(SAN)/ex_$(e))))
SAN_TOOLS := $(SAN)/image_diff $(SAN)/ppm2png
SAN_BUILD = $(CC) $(CFLAGS_COMMON) $(1) $(REFERENCE_DEF) $(PNG_CFLAGS)
define SAN_RULES
$(SAN)/$(1): $($(1)_SAN_SRC) $(COMMON_SRC) $(PROGRAM_SRC) common/*.h | $(SAN)/.dir
	$$(call SAN_BUILD,$$(ASAN_FLAGS)) $($(1)_SAN_SRC) $(COMMON_SRC) $(PROGRAM_SRC) -o $$@ $(PNG_LIBS) $(LDLIBS_BASE)
$(SAN)/$(1)-tsan: $($(1)_SAN_SRC) $(COMMON_SRC) $(PROGRAM_SRC) common/*.h | $(SAN)/.dir
	$$(call SAN_BUILD,$$(TSAN_FLAGS)) $($(1)_SAN_SRC) $(COMMON_SRC) $(PROGRAM_SRC) -o $$@ $(PNG_LIBS) $(LDLIBS_BASE)
$(SAN)/test_$(1): tests/test_$(1).c $($(1)_SAN_SRC) $(COMMON_SRC) common/*.h | $(SAN)/.dir
	$$(call SAN_BUILD,$$(ASAN_FLAGS)) $(CHECK_CFLAGS) -Itests -Icommon -I$($(1)_DIR) $$< $($(1)_SAN_SRC) $(COMMON_SRC) -o $$@ $(CHECK_LIBS) $(PNG_LIBS) $(LDLIBS_BASE)
endef
$(foreach c,$(SAN_CHAPTERS),$(eval $(call SAN_RULES,$(c))))
$(SAN)/test_common: tests/test_common.c $(COMMON_SRC) common/*.h | $(SAN)/.dir
	$(call SAN_BUILD,$(ASAN_FLAGS)) $(CHECK_CFLAGS) -Itests -Icommon $< $(COMMON_SRC) -o $@ $(CHECK_LIBS) $(PNG_LIBS) $(LDLIBS_BASE)
$(SAN)/ex_%: tests/test_ex_%.c $(COMMON_SRC) | $(SAN)/.dir
	$(call SAN_BUILD,$(ASAN_FLAGS)) $(CHECK_CFLAGS) $(ex_$*_CFLAGS) $(call ex_defs,$*,solution,solutions) -Itests -Icommon -Isolutions/$(call ex_dir,$*) $(ex_$*_INCLUDE) $< $(filter-out $(ex_$*_NOT_LINKED),$(wildcard solutions/$(call ex_dir,$*)/*.c)) $(wildcard tests/ex_$*_probe.c) $(COMMON_SRC) -o $@ $(CHECK_LIBS) $(PNG_LIBS) $(LDLIBS_BASE)
$(SAN)/%: tools/%.c $(COMMON_SRC) common/*.h | $(SAN)/.dir
	$(call SAN_BUILD,$(ASAN_FLAGS)) $< $(COMMON_SRC) -o $@ $(PNG_LIBS) $(LDLIBS_BASE)

sanitize: check-deps $(SAN_PROGRAMS:%=$(SAN)/%) $(foreach c,$(SAN_PROGRAMS),$(if $($(c)_TSAN_STAGES),$(SAN)/$(c)-tsan)) $(SAN_TESTS) $(SAN_TOOLS)
	@echo "sanitize: running (the full-size identity test of the first chapter is skipped here: CH01_QUICK=1)"
	@set -e; $(foreach c,$(SAN_PROGRAMS),$(SAN)/$(c) $($(c)_SAN_ARGS) --quiet --out $(SAN)/$(c).ppm; \
	  $(foreach s,$($(c)_TSAN_STAGES),TSAN_OPTIONS=halt_on_error=1 $(SAN)/$(c)-tsan --stage $(s) $($(c)_SAN_ARGS) --quiet --out $(SAN)/$(c)t.ppm;))
	@CK_FORK=no CH01_QUICK=1 tools/run_tests.sh --suites $(SAN_TESTS)
	@SAN=$(SAN) tools/sanitize_tools.sh
	@$(MAKE) --no-print-directory all >/dev/null
	@tools/valgrind_check.sh
	@tools/gpu_sanitize.sh

# The GPU gate, for a machine with a GPU (CI has none): make check with its GPU
# suites, compute-sanitizer over every GPU stage, a smoke run of make bench;
# one summary line (tools/check_gpu.sh). Run it before calling GPU work done.
.PHONY: check-gpu
check-gpu:
	@tools/check_gpu.sh $(call sh_quote,$(value ONLY))

# CH, STAGE, A, B and EX reach the scripts as their literal text, quoted (above
# and below), and are never exported: make would expand them as make code to
# put them in a recipe's environment.
unexport CH STAGE A B EX ONLY
.PHONY: show
show:
	@command -v python3 >/dev/null || { echo "make show: python3 is not installed (apt-get install python3)" >&2; exit 1; }
	@python3 tools/show_stage.py $(call sh_quote,$(value CH)) $(call sh_quote,$(value STAGE))
profile:
	@tools/profile.sh $(call sh_quote,$(value CH)) $(call sh_quote,$(value STAGE))

# Every GPU stage that names a kernel, every GPU chapter (CHAPTERS=...: a subset).
.PHONY: profiles
profiles: all
	@tools/profiles.sh

# ---------------------------------------------------------------- misc
diff:
	@tools/chapter_diff.sh $(call sh_quote,$(value A)) $(call sh_quote,$(value B))

clean:
	rm -rf build build-clang $(SAN)
	@# the chapters' programs and pictures, as files only: a folder or a link of that name is someone's
	@for f in $(CHAPTERS) $(CHAPTERS:=.ppm) $(CHAPTERS:=.png); do [ -d "$$f" ] || [ -L "$$f" ] || rm -f -- "$$f"; done
