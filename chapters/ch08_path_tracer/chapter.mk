# ch08's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch08
ch08_DIR := chapters/ch08_path_tracer
ch08_TITLE := path tracer
ch08_SUMMARY := smallpt's Cornell box, its picture checked against the original's: CPU threads, recursion and its stack, a loop, block shape, path regeneration, a register cap (double), float, light sampling; Msamples/s, and time to an MSE against a converged reference
ch08_GPU := some
ch08_RAYTRACER := yes
ch08_SMALL := --width 33 --height 31 --spp 4 --threads 2
ch08_BAD := --spp 6 multiple;--noise-test maybe noise-test;--linear-reference /nonexistent/ref.pfm linear-reference;--linear-reference /etc/hostname linear-reference;--scene /nonexistent/scene.txt scene;--seed 4294967295 seed
ch08_SANITIZE := --width 33 --height 31 --spp 4
ch08_SAN_SRC := $(ch08_DIR)/scene.c $(ch08_DIR)/cpu.c $(ch08_DIR)/cpu_f32.c $(ch08_DIR)/linear.c
ch08_TEST_OBJ := $(BUILD)/ch08/scene.o $(BUILD)/ch08/cpu.o $(BUILD)/ch08/cpu_f32.o $(BUILD)/ch08/linear.o
ch08_STUDY := $(ch08_DIR)/study.sh
ch08_BOOK_EXTRA := $(ch08_DIR)/book_extra.py
ch08_CHART := lines-quality
ch08_CHART_TITLE := ch08: MSE against the converged reference, against kernel time (1024x768)
ch08_CHART_YLABEL := MSE per 8-bit channel (log scale)
ch08_EXERCISES := ch08
ex_ch08_WHAT := next-event estimation: one light sample from a sphere's cap, its mean against the analytic light a sphere sheds
ex_ch08_ON := CPU (means; the cap's axis along, near and off every coordinate axis)

SCENE_DEF := $(call path_def,SCENE_DIR,$(CURDIR)/data/scenes)
$(BUILD)/ch08/%.o: $(ch08_DIR)/%.c $(ch08_DIR)/*.h common/*.h | $(BUILD)/ch08/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) $(REFERENCE_DEF) $(SCENE_DEF) -c $< -o $@
$(BUILD)/ch08/render.o: $(ch08_DIR)/render.cu $(ch08_DIR)/*.h common/*.h $(CUDA_CONFIG) | $(BUILD)/ch08/.dir
	$(CUDA_CXX) -c $< -o $@
ch08: $(BUILD)/ch08/problem.o $(BUILD)/ch08/linear.o $(BUILD)/ch08/scene.o $(BUILD)/ch08/cpu.o $(BUILD)/ch08/cpu_f32.o $(BUILD)/ch08/render.o $(LIBGPU) $(PROGRAM_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS)

# The converged reference images the noise test compares with (GPU; minutes).
# The spp and seed here are the ones problem.c's table of references states.
CHAPTER_TARGETS += ch08-reference
ch08-reference_HELP := re-render ch08's converged reference images (GPU, about a minute)
.PHONY: ch08-reference
ch08-reference: ch08
	./ch08 --stage gpu-loop --width 128 --height 96 --spp 65536 --seed 1000 --repeat 1 --noise-test no --out data/reference/ch08_cornell_128x96.ppm
	./ch08 --stage gpu-loop --width 1024 --height 768 --spp 16384 --seed 1000 --repeat 1 --noise-test no --out data/reference/ch08_cornell_1024x768.ppm

# Beason's smallpt against the cpu-threads stage: the same picture, within noise (ORIGINAL=its .cpp).
$(BUILD)/ch08/smallpt_agree: $(ch08_DIR)/smallpt_agree.c $(LIBCOMMON) | $(BUILD)/ch08/.dir
	$(CC) $(ALL_CFLAGS) $< $(LIBCOMMON) -o $@ $(PNG_LIBS) $(LDLIBS_BASE)
CHAPTER_TARGETS += smallpt-vs-port
smallpt-vs-port_HELP := smallpt (ORIGINAL=its .cpp; SIZE, SPP) against ch08's cpu-threads: the same picture within noise
.PHONY: smallpt-vs-port
smallpt-vs-port: ch08 $(BUILD)/ch08/smallpt_agree
	@mkdir -p data/results/$(MACHINE) && AGREE=$(BUILD)/ch08/smallpt_agree \
	  OUT=data/results/$(MACHINE)/smallpt-vs-port.txt $(ch08_DIR)/smallpt_vs_port.sh

# tests/test_ch08.c's planted bug: path.h with the mirror's sign flipped
# (reflect() sends the ray into the surface), a bug in the template that every
# stage shares, so the GPU stages' check against the CPU (problem.c's spot check:
# path.h on both sides) cannot see it; the noise test against the committed
# reference does. tests/ch08_planted.c is copied beside the planted path.h so
# that its #include "path.h" finds this copy (in make sanitize's build too).
# The build fails if the line the sed flips is gone.
CH08_PLANTED := $(BUILD)/ch08/planted
ch08_TEST_OBJ += $(CH08_PLANTED)/planted.o
ch08_SAN_SRC += $(CH08_PLANTED)/planted.c
ch08_TEST_DEPS += tests/ch08_planted.h
# where test_ch08 finds ./ch08, whose GPU stages it runs at a size with a reference
ch08_TEST_FLAGS += $(call path_def,PROGRAM_DIR,$(CURDIR))
$(CH08_PLANTED)/path.h: $(ch08_DIR)/path.h | $(CH08_PLANTED)/.dir
	sed 's/scale(n, R(2.0) \* dot(n, d))/scale(n, R(-2.0) * dot(n, d))/' $< > $@.tmp && ! cmp -s $< $@.tmp && mv $@.tmp $@
$(CH08_PLANTED)/planted.c: tests/ch08_planted.c $(CH08_PLANTED)/path.h
	cp $< $@
$(CH08_PLANTED)/planted.o: $(CH08_PLANTED)/planted.c tests/ch08_planted.h $(ch08_DIR)/*.h common/*.h
	$(CC) $(ALL_CFLAGS) -Itests -I$(ch08_DIR) -c $< -o $@

# The side-trips: the book's text lists them after the ladder, one line each;
# its table leaves them out (the evidence page shows every row).
ch08_BOOK_TRIPS := cpu-threads-loop gpu-block-shape gpu-registers-56 gpu-registers-80
