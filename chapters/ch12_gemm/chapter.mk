# ch12's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch12
ch12_DIR := chapters/ch12_gemm
ch12_TITLE := matrix multiply
ch12_SUMMARY := from a triple loop to packed AVX-512 micro-kernels on every core against OpenBLAS; FP32 on the CUDA cores from naive to warp tiles against cuBLAS SGEMM; bf16 on the tensor cores from WMMA to Hopper's wgmma fed by TMA against cuBLAS
ch12_GPU := some
ch12_RAYTRACER := no
ch12_SMALL := --m 33 --n 31 --k 65 --cpu-size 33 --repeat 1
ch12_BAD := --m 16385 --m;--k 0 --k;--cpu-size 0 --cpu-size
ch12_SANITIZE := --m 33 --n 31 --k 65 --repeat 1 --ceiling no;--m 1 --n 1 --k 1 --repeat 1 --ceiling no
# problem.o holds the program's hooks too (chapter_program): the suite links
# the GPU ceiling they measure, and never common/program.o (it has a main()).
ch12_TEST_OBJ := $(BUILD)/ch12/problem.o $(BUILD)/ch12/cpu_gemm.o $(BUILD)/ch12/gpu_fp32.o $(BUILD)/ch12/gpu_tensor.o $(BUILD)/ch12/gpu_hopper.o $(LIBGPU)
ch12_TEST_LIBS := -lcublas
ch12_PROFILE_ARGS := --m 4096 --n 4096 --k 4096 --repeat 1 --ceiling no
ch12_CHART := bar-log
ch12_CHART_TITLE := ch12: matrix multiply, GFLOP/s per stage (FP32, TF32 and bf16 inputs: compare within one)
ch12_CHART_YLABEL := GFLOP/s (log scale)

# gpu_hopper.cu holds Hopper's own instructions (wgmma, TMA, setmaxnreg), which
# only the arch-specific target sm_90a has: that file is built for sm_90a in
# place of sm_90 (other architectures of a fat build as they are; there its
# kernels are empty and gemm_hopper_supported says so).
ch12_sm90a = $(if $(filter sm_90,$(1)),sm_90a,$(1))
ifeq ($(CUDA_COMPILER),clang)
ch12_HOPPER_CXX = $(CLANG_CUDA) $(subst --cuda-gpu-arch=sm_90,--cuda-gpu-arch=sm_90a,$(CLANG_CUDA_FLAGS))
else
ch12_HOPPER_CXX = $(NVCC) $(filter-out $(NVCC_ARCH),$(NVCCFLAGS)) \
                  $(foreach a,$(or $(CUDA_ARCHS),$(CUDA_ARCH)),-gencode=arch=compute_$(call cuda_cc,$(call ch12_sm90a,$(a))),code=$(call ch12_sm90a,$(a)))
endif

$(BUILD)/ch12/%.o: $(ch12_DIR)/%.c $(ch12_DIR)/*.h common/*.h common/gpu/*.h | $(BUILD)/ch12/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) -c $< -o $@
$(BUILD)/ch12/%.o: $(ch12_DIR)/%.cu $(ch12_DIR)/*.h common/*.h $(CUDA_CONFIG) | $(BUILD)/ch12/.dir
	$(CUDA_CXX) -c $< -o $@
$(BUILD)/ch12/gpu_hopper.o: $(ch12_DIR)/gpu_hopper.cu $(ch12_DIR)/*.h common/*.h $(CUDA_CONFIG) | $(BUILD)/ch12/.dir
	$(ch12_HOPPER_CXX) -c $< -o $@
ch12: $(ch12_TEST_OBJ) $(PROGRAM_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS) -lcublas

ch12_EXERCISES := ch12
ex_ch12_WHAT := a shared-memory tile of 64-byte rows laid out so ldmatrix and the copy hit no bank conflict, without padding
ex_ch12_ON := CPU (every slot, every lane's bank in every phase); GPU (the layout on the device, a GEMM through it exact, SKIP without one)

# The side-trips: the book's text lists them after the ladder, one line each;
# its table leaves them out (the evidence page shows every row).
ch12_BOOK_TRIPS := cpu-blocked gpu-blocktile-1d cublas-tf32 wgmma-pipelined wgmma-persistent
