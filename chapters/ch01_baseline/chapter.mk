# ch01's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch01
ch01_DIR := chapters/ch01_baseline
ch01_TITLE := baseline
ch01_SUMMARY := Kensler's card as readable C, built -O0, byte-identical to the original's output
ch01_GPU := none
ch01_RAYTRACER := yes
ch01_SMALL := --width 9 --height 7 --spp 1
ch01_VALGRIND := --width 9 --height 7 --spp 1
ch01_SAN_SRC := $(ch01_DIR)/problem.c $(ch01_DIR)/card.c
ch01_SAN_ARGS := --width 31 --height 17 --spp 2
ch01_TEST_OBJ := $(BUILD)/ch01/card.o
ch01_EXERCISES := ch01

# card.c is the lesson's baseline, so it is built -O0 whatever CFLAGS says.
$(BUILD)/ch01/card.o: $(ch01_DIR)/card.c $(ch01_DIR)/card.h common/image.h | $(BUILD)/ch01/.dir
	$(CC) $(CFLAGS_COMMON) -O0 -c $< -o $@
$(BUILD)/ch01/problem.o: $(ch01_DIR)/problem.c $(ch01_DIR)/*.h common/*.h | $(BUILD)/ch01/.dir
	$(CC) $(ALL_CFLAGS) $(REFERENCE_DEF) -c $< -o $@
ch01: $(BUILD)/ch01/problem.o $(BUILD)/ch01/card.o $(PROGRAM_OBJ) $(LIBCOMMON)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(PNG_LIBS) $(LDLIBS_BASE)
ex_ch01_WHAT := the card's vector functions: add, scale, dot, cross, normalize, reflect
ex_ch01_ON := CPU (values; no double-precision instruction in the assembly, from `cc -O0 -S`)
# built -O0, test and answer: the assembly graded is the one that ran, and -O2 folds a float-double-float away
ex_ch01_CFLAGS := -O0
ch01_BENCH_ARGS := --spp 2 --repeat 5
ch01_STUDY := $(ch01_DIR)/study.sh
ch01_BOOK_EXTRA := $(ch01_DIR)/book_extra.py

# The original C++ program against ch01's port at -O0 .. -O3, each alone (ORIGINAL=its path).
CHAPTER_TARGETS += original-vs-port
original-vs-port_HELP := the original program (ORIGINAL=its .cpp) against ch01's port, -O0 .. -O3, each alone
.PHONY: original-vs-port
original-vs-port: $(PROGRAM_OBJ) $(LIBCOMMON) $(BUILD)/image_diff
	@mkdir -p data/results/$(MACHINE) && PNG_LIBS="$(PNG_LIBS)" IMAGE_DIFF=$(BUILD)/image_diff \
	  OUT=data/results/$(MACHINE)/original-vs-port.txt $(ch01_DIR)/original_vs_port.sh
