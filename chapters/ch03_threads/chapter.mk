# ch03's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch03
ch03_DIR := chapters/ch03_threads
ch03_TITLE := threads
ch03_SUMMARY := libc `rand()` lock contention, false sharing, a thread-local generator, static vs dynamic rows; a thread sweep; the same image at any thread count
ch03_GPU := none
ch03_RAYTRACER := yes
ch03_SMALL := --width 9 --height 7 --spp 1 --threads 2
ch03_VALGRIND := --width 9 --height 7 --spp 1 --threads 3
ch03_SAN_SRC := $(ch03_DIR)/problem.c $(ch03_DIR)/card.c $(ch03_DIR)/threads.c
ch03_SAN_ARGS := --width 33 --height 31 --spp 2 --threads 4
ch03_TSAN_STAGES := rng-packed rng-local rng-local-dynamic
ch03_TEST_OBJ := $(BUILD)/ch03/card.o $(BUILD)/ch03/threads.o
ch03_SAN_TEST_SRC := $(ch03_DIR)/card.c $(ch03_DIR)/threads.c
ch03_TEST_FLAGS += $(call path_def,PROGRAM_DIR,$(CURDIR))
ch03_BENCH_ARGS := --spp 4 --repeat 3
ch03_STUDY := $(ch03_DIR)/study.sh
ch03_BENCH_EXTRA := $(ch03_DIR)/bench_extra.sh
ch03_CHART := lines-threads
ch03_CHART_TITLE := ch03: samples per second against threads
ch03_CHART_YLABEL := Msamples/s (higher is better)
ch03_EXERCISES := ch03
ex_ch03_WHAT := the LCG (bit-exact), per-row seeds, and an atomic row scheduler: the same image at 1, 3 and 8 threads
ex_ch03_ON := CPU (ThreadSanitizer and UndefinedBehaviorSanitizer builds; a forced interleaving of the row counter)
# The test makes a lost update certain through the atomics (see the header).
# (relative: gcc looks for an -include file in its working folder, the checkout's root,
# and the absolute path may hold characters the shell or make would read)
ex_ch03_INCLUDE := -include tests/ex_ch03_atomics.h

# From here on card.c is built with the project's optimisation level (-O2).
$(BUILD)/ch03/%.o: $(ch03_DIR)/%.c $(ch03_DIR)/*.h common/*.h | $(BUILD)/ch03/.dir
	$(CC) $(ALL_CFLAGS) $(REFERENCE_DEF) -c $< -o $@
ch03: $(BUILD)/ch03/problem.o $(BUILD)/ch03/card.o $(BUILD)/ch03/threads.o $(PROGRAM_OBJ) $(LIBCOMMON)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(PNG_LIBS) $(LDLIBS_BASE)
