# ch09's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch09
ch09_DIR := chapters/ch09_two_compilers
ch09_TITLE := two GPU compilers
ch09_SUMMARY := the kernels of ch05, ch06 and ch07, each compiled by nvcc and by clang and linked into one program; the PTX each produced; what fast math costs a NaN check; three optimisations from Justin Lebar's talk (Credits), with and without
ch09_GPU := all
ch09_RAYTRACER := no
ch09_SMALL := --repeat 1 --n 100003 --width 33 --height 31 --spp 2
ch09_SANITIZE := --n 4097 --width 33 --height 31 --spp 2
ch09_TEST_OBJ :=
# test_ch09 asks the clang the build chose (none: its clang checks are skipped).
ch09_TEST_FLAGS = -DCH09_CLANG='"$(CLANG_CUDA)"' $(call path_def,CH09_BUILD,$(CURDIR)/$(BUILD)/ch09)
ch09_TEST_DEPS = $(CLANG_CONFIG) $(foreach c,$(CH09_COMPILERS),$(BUILD)/ch09/talk-$(c).ptx)
ch09_EXERCISES := ch09
ex_ch09_WHAT := a NaN and infinity check that survives -ffast-math (gcc and clang), from the float's bits
ex_ch09_ON := CPU (the test compiles your header with -O2 -ffast-math and feeds it NaN, infinities, subnormals)

# The same sources as their own chapters, each compiled by each compiler.
# A part is: a source, its flags, the C functions it exports. Each object
# keeps only those functions global, renamed <function>_<compiler>
# (objcopy), so both builds of one source link into ./ch09.
CH09_COMPILERS := nvcc $(if $(CLANG_CUDA),clang)
CH09_PARTS := ch05 ch05fast ch06 ch07 talk
CH09_SRC_ch05 := $(ch05_DIR)/render.cu
CH09_SRC_ch05fast := $(ch05_DIR)/render_fast.cu
CH09_SRC_ch06 := $(ch06_DIR)/reduce_gpu.cu
CH09_SRC_ch07 := $(ch07_DIR)/gpu_tiled.cu
CH09_SRC_talk := $(ch09_DIR)/talk.cu
CH09_FLAGS_ch05fast_nvcc := $(NVCC_FAST_MATH)
CH09_FLAGS_ch05fast_clang := $(CLANG_FAST_MATH)
CH09_API_ch05 := gpu_render
CH09_API_ch05fast := gpu_render_fast
CH09_API_ch06 := reduce_sequential reduce_vector_shuffle
CH09_API_ch07 := gpu_naive_forces gpu_tiled_forces gpu_tiled_ftz_forces
CH09_API_talk := talk_divide talk_sum_quads_scalar talk_sum_quads talk_scale_plain talk_scale_restrict
# What ./ch09 takes from the chapters' CPU side, compiled once: ch05's CPU
# render (from nvcc's plain build of render.cu), ch06's input generator and
# ch07's reference forces (the N-body core's: common/nbody/).
CH09_KEEP_nvcc_ch05 := cpu_render_picture_pixel
CH09_KEEP_nvcc_ch06 := reduce_scratch_bytes
CH09_CXX_nvcc = $(NVCC) $(NVCCFLAGS)
CH09_CXX_clang = $(CLANG_CUDA) $(CLANG_CUDA_FLAGS)
CH09_CONFIG_nvcc = $(NVCC_CONFIG)
CH09_CONFIG_clang = $(CLANG_CONFIG)

# Each source is compiled inside a namespace of its own (a wrapper that
# includes it, after the system headers it uses), so the two compilers'
# templates and kernels get different names. (The wrapper, in $(BUILD)/ch09/,
# names the source relative to itself: the checkout's absolute path may hold
# characters the shell or make would read.)
CH09_SYSTEM_HEADERS := cuda_runtime.h math.h pthread.h stddef.h stdint.h stdio.h stdlib.h string.h unistd.h
# (ch06's CUB stage is a file of its own, reduce_cub.cu, which ch09 does not
# build: CUB's kernels are templates outside any namespace of ours.)
define CH09_OBJECT_RULES
$(BUILD)/ch09/$(1)-$(2).cu: $(ch09_DIR)/chapter.mk | $(BUILD)/ch09/.dir
	@{ printf '#include <%s>\n' $(CH09_SYSTEM_HEADERS) $(CH09_SYSTEM_HEADERS_$(1)); \
	   printf 'namespace ch09_$(1)_$(2) {\n#include "../../$(CH09_SRC_$(1))"\n}\n'; } > $$@
$(BUILD)/ch09/$(1)-$(2).o: $(BUILD)/ch09/$(1)-$(2).cu $(CH09_SRC_$(1)) $(wildcard $(dir $(CH09_SRC_$(1)))*.h) common/*.h $(ch09_DIR)/rename.sh $$(CH09_CONFIG_$(2))
	@start=$$$$(date +%s%N); $(CH09_CXX_$(2)) $(CH09_FLAGS_$(1)_$(2)) $(CH09_DEFS_$(1)) -I$(dir $(CH09_SRC_$(1))) -c $$< -o $$@.raw && \
	  echo "$(1) $(2) $$$$((($$$$(date +%s%N) - start) / 1000000))" > $(BUILD)/ch09/$(1)-$(2).ms && \
	  echo "$(2) $(CH09_FLAGS_$(1)_$(2)) -c $(CH09_SRC_$(1)) -> $$@ ($$$$(cut -d' ' -f3 $(BUILD)/ch09/$(1)-$(2).ms) ms)"
	$(ch09_DIR)/rename.sh $$@.raw $$@ $(2) "$(CH09_API_$(1))" "$(CH09_KEEP_$(2)_$(1))"
	rm -f $$@.raw
endef
$(foreach p,$(CH09_PARTS),$(foreach c,$(CH09_COMPILERS),$(eval $(call CH09_OBJECT_RULES,$(p),$(c)))))
CH09_OBJ := $(foreach p,$(CH09_PARTS),$(foreach c,$(CH09_COMPILERS),$(BUILD)/ch09/$(p)-$(c).o))
# The talk's kernels as PTX, each compiler with the flags of its object above
# (tests/test_ch09.c reads them: no GPU needed).
CH09_PTX_nvcc = $(NVCC) $(filter-out -gencode=% -lineinfo,$(NVCCFLAGS)) -arch=$(CUDA_ARCH) -ptx
CH09_PTX_clang = $(CLANG_CUDA) $(CLANG_CUDA_FLAGS) --cuda-device-only -S
$(BUILD)/ch09/talk-%.ptx: $(BUILD)/ch09/talk-%.cu $(ch09_DIR)/talk.cu $(ch09_DIR)/talk.h common/*.h
	$(CH09_PTX_$*) -I$(ch09_DIR) $< -o $@

CH09_MAIN_DEPS := $(ch09_DIR)/*.h $(ch05_DIR)/render.h $(ch06_DIR)/reduce.h $(ch07_DIR)/nbody.h common/*.h common/nbody/*.h $(NVCC_CONFIG) $(CLANG_CONFIG)
CH09_DEFS = -DCH09_HAVE_CLANG=$(if $(CLANG_CUDA),1,0) -DCH09_CLANG='"$(CLANG_CUDA)"' -DCH09_NO_CLANG_WHY='"$(CH09_NO_CLANG)"'
$(BUILD)/ch09/problem.o: $(ch09_DIR)/problem.c $(CH09_MAIN_DEPS) | $(BUILD)/ch09/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) $(REFERENCE_DEF) $(CH09_DEFS) -c $< -o $@
$(BUILD)/ch09/reduce_cpu.o: $(ch06_DIR)/reduce_cpu.c $(ch06_DIR)/*.h | $(BUILD)/ch09/.dir
	$(CC) $(ALL_CFLAGS) -c $< -o $@
# Without a clang that compiles CUDA: the nvcc half, and one line saying why.
CH09_NO_CLANG = $(if $(CLANG_CUDA),,no clang half: $(subst ",,$(subst ',,$(CLANG_CUDA_WHY))); $(CLANG_CUDA_PROVIDER))
ch09: $(BUILD)/ch09/problem.o $(CH09_OBJ) $(NBODY_OBJ) $(BUILD)/ch09/reduce_cpu.o $(PROGRAM_OBJ) $(LIBGPU) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)
	$(if $(CLANG_CUDA),,@echo 'ch09: $(CH09_NO_CLANG)')

# The evidence: per kernel and compiler, the PTX's instruction mix and the
# registers ptxas gives it, and each object's compile time ($(ch09_DIR)/ptx_table.sh).
# This machine's compilers and times go to $(BUILD)/ch09/ch09_ptx.md; the
# book's committed copy, data/asm/ch09_ptx.md, only with COURSE_DATA=1 (a
# maintainer's opt-in, as make bench's), so a reader's run leaves it alone.
CH09_PTX_OUT = $(if $(value COURSE_DATA),data/asm,$(BUILD)/ch09)/ch09_ptx.md
CHAPTER_TARGETS += ch09-ptx
ch09-ptx_HELP := per kernel and compiler (nvcc, clang): registers and PTX instruction mix, in $(BUILD)/ch09/ch09_ptx.md (COURSE_DATA=1: the book's data/asm/ch09_ptx.md)
.PHONY: ch09-ptx
ch09-ptx: $(CH09_OBJ)
	@mkdir -p $(dir $(CH09_PTX_OUT)) && \
	  NVCC="$(NVCC)" NVCCFLAGS="$(NVCCFLAGS)" CLANG_CUDA="$(CLANG_CUDA)" CLANG_CUDA_FLAGS="$(CLANG_CUDA_FLAGS)" \
	  CUDA_ARCH=$(CUDA_ARCH) NVCC_FAST_MATH="$(NVCC_FAST_MATH)" CLANG_FAST_MATH="$(CLANG_FAST_MATH)" BUILD=$(BUILD) \
	  $(ch09_DIR)/ptx_table.sh > $(CH09_PTX_OUT).tmp && mv $(CH09_PTX_OUT).tmp $(CH09_PTX_OUT) && cat $(CH09_PTX_OUT) && \
	  echo "ch09-ptx: written to $(CH09_PTX_OUT)$(if $(value COURSE_DATA),, (COURSE_DATA=1: the book's data/asm/ch09_ptx.md))"

# make profile CH=ch09 STAGE=ch05-loop-clang: each build's kernels live in a
# namespace of their own, ch09_<part>_<compiler> (see above).
