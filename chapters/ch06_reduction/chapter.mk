# ch06's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch06
ch06_DIR := chapters/ch06_reduction
ch06_TITLE := reduction
ch06_SUMMARY := from a CPU loop to the memory-bandwidth limit, one change per stage (coalescing among them), against CUB and a read-only streaming ceiling measured in the same run; a warp race racecheck catches
ch06_GPU := some
ch06_RAYTRACER := no
ch06_SMALL := --n 1025
ch06_BAD := --n 1099511627776 host memory
ch06_SANITIZE := --n 1 --ceiling no;--n 1025 --ceiling no
ch06_TEST_OBJ := $(BUILD)/ch06/reduce_cpu.o $(BUILD)/ch06/reduce_gpu.o $(BUILD)/ch06/reduce_cub.o $(LIBGPU)
ch06_PROFILE_ARGS := --n 268435456
ch06_CHART := bar-log
ch06_CHART_TITLE := ch06: reduction of 2^{28} int32, GB/s of input read per stage
ch06_CHART_YLABEL := GB/s (log scale)
ch06_EXERCISES := ch06
ex_ch06_WHAT := the racy `volatile` last warp of a tree reduction, made correct
ex_ch06_ON := CPU (the PTX must synchronise the lanes, with the full member mask); GPU (exact sums, also past 2^31, SKIP without one)

$(BUILD)/ch06/%.o: $(ch06_DIR)/%.c $(ch06_DIR)/*.h common/*.h common/gpu/*.h | $(BUILD)/ch06/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) -c $< -o $@
$(BUILD)/ch06/%.o: $(ch06_DIR)/%.cu $(ch06_DIR)/*.h common/*.h common/gpu/*.h $(CUDA_CONFIG) | $(BUILD)/ch06/.dir
	$(CUDA_CXX) -c $< -o $@
ch06: $(BUILD)/ch06/problem.o $(BUILD)/ch06/reduce_cpu.o $(BUILD)/ch06/reduce_gpu.o $(BUILD)/ch06/reduce_cub.o $(LIBGPU) $(PROGRAM_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)

# The side-trips: the book's text lists them after the ladder, one line each;
# its table leaves them out (the evidence page shows every row).
ch06_BOOK_TRIPS := cpu-threads cpu-threads-simd cpu-pieces cpu-biased-lanes interleaved-strided warp-unrolled-volatile fully-unrolled chunk-per-thread warp-shuffle read-only-path ceiling-shape one-launch
