# ch04's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch04
ch04_DIR := chapters/ch04_gpu_loop
ch04_TITLE := GPU: recursion to loop
ch04_SUMMARY := CUDA port; registers, stack (local memory), occupancy, divergence; two launches that fail on purpose (--block, --stack-bytes)
ch04_GPU := all
ch04_RAYTRACER := yes
ch04_SMALL := --width 9 --height 7 --spp 1
ch04_SANITIZE := --width 33 --height 31 --spp 2
ch04_TEST_OBJ := $(BUILD)/ch04/render.o $(BUILD)/ch03/card.o $(LIBGPU)
# The test links render.o too, whose stack-size message ch04's own link shows
# (below): here it would only repeat it, and under WERROR=1 (-Werror
# all-warnings reaches nvlink) fail the build. Only that message is suppressed.
ch04_TEST_FLAGS := $(CUDA_RDC) $(if $(CUDA_RDC),-Xnvlink=--suppress-stack-size-warning) \
                   $(call nvcc_path_def,PROGRAM_DIR,$(CURDIR)) -I$(BUILD)/tests
ch04_TEST_DEPS := $(BUILD)/tests/ch04_card_planted.h
ch04_DIFFS := ch04-recursive ch04-loop diff-ch04-loop
# ch03's card.c became card.h (the same code, host and device); its card.h, the
# interface the threads called, became render.h.
ch04_RENAMED := card.h:card.c render.h:card.h
ch04_EXERCISES := ch04
ex_ch04_WHAT := tinted mirrors: a recursion with a colour per bounce turned into a loop with no stack
ex_ch04_ON := CPU (equality; 0 bytes of stack from `ptxas -v`); GPU (the same rays, SKIP without one)
ex_ch04_INCLUDE := -I$(ch04_DIR)

# -rdc=true: nvlink then reports that the recursive kernel's stack size
# "cannot be statically determined" (the one warning the course allows, and
# ch04's lesson); nvcc 13 says nothing about it in whole-program mode. link.sh
# keeps it in $(BUILD)/ch04/nvlink.txt and says so; any other warning fails.
$(BUILD)/ch04/%.o: $(ch04_DIR)/%.c $(ch04_DIR)/*.h common/*.h | $(BUILD)/ch04/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) $(REFERENCE_DEF) -c $< -o $@
$(BUILD)/ch04/render.o: $(ch04_DIR)/render.cu $(ch04_DIR)/*.h common/*.h $(CUDA_CONFIG) | $(BUILD)/ch04/.dir
	$(CUDA_CXX) $(CUDA_RDC) -c $< -o $@
ch04: $(BUILD)/ch04/problem.o $(BUILD)/ch04/render.o $(LIBGPU) $(PROGRAM_OBJ) $(LIBCOMMON)
	$(ch04_DIR)/link.sh $(BUILD)/ch04/nvlink.txt $(NVCC) $(NVCC_ARCH) $(CUDA_RDC) $^ -o $@ $(NVCC_LDLIBS)

# tests/test_ch04.cu's planted bug: card.h with one sign flipped (mirrors
# reflect into the sphere), a bug in the code the GPU and CPU share, which only
# the comparison with ch03's code (independent) can see. The build fails if
# the line it flips is gone.
$(BUILD)/tests/ch04_card_planted.h: $(ch04_DIR)/card.h | $(BUILD)/tests/.dir
	sed 's/vec_dot(normal, dir) \* -2)/vec_dot(normal, dir) * 2)/' $< > $@.tmp && ! cmp -s $< $@.tmp && mv $@.tmp $@
