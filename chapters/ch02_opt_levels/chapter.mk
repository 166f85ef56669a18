# ch02's entry in the chapter registry (see "The chapter registry" in the Makefile).
REGISTERED += ch02
ch02_DIR := chapters/ch02_opt_levels
ch02_TITLE := -O levels
ch02_SUMMARY := the same source built at -O0 … -O3, `-march=native`, `-ffast-math`, with gcc and clang, in one program; which builds give identical images and why
ch02_GPU := none
ch02_RAYTRACER := yes
ch02_SMALL := --width 9 --height 7 --spp 1
# ch02's -march=native builds may use AVX-512, which Valgrind cannot execute:
# its portable builds run there (the code is the same card.c).
ch02_VALGRIND := --stage gcc-O0 --width 5 --height 3 --spp 1;--stage gcc-O2 --width 5 --height 3 --spp 1;--stage gcc-O3 --width 5 --height 3 --spp 1
ch02_BENCH_ARGS := --spp 2 --repeat 5
ch02_STUDY := $(ch02_DIR)/study.sh
ch02_BENCH_EXTRA := $(ch02_DIR)/bench_extra.sh
ch02_BOOK_EXTRA := $(ch02_DIR)/book_extra.py
ch02_CHART := bar
ch02_CHART_TITLE := ch02: card.c, one build per bar (lower is faster)
ch02_CHART_YLABEL := seconds, 512x512 at 64 spp
ch02_EXERCISES := ch02
ex_ch02_WHAT := make gcc -O1 inline the card's vector helpers with one keyword each, the picture byte-identical
ex_ch02_ON := CPU (the assembly, from gcc -S)
ex_ch02_NOT_LINKED := %/card.c

# ch01's card.c built once per row of stages.h, with the command the row's
# description gives (its first word the compiler, the rest the flags). Each
# build's card_render is renamed (objcopy) so all of them link into ./ch02.
# Rows become words "name:command" with spaces as '@'.
CH02_ROWS := $(shell sed -n 's/^ *{{"\([^"]*\)", "\([^"]*\)".*/\1:\2/p' $(ch02_DIR)/stages.h | tr ' ' '@')
CH02_VARIANTS := $(filter-out $(if $(CLANG),,clang-%),$(foreach r,$(CH02_ROWS),$(firstword $(subst :, ,$(r)))))
ch02_command = $(subst @, ,$(patsubst $(1):%,%,$(filter $(1):%,$(CH02_ROWS))))
ch02_compiler = $(firstword $(call ch02_command,$(1)))
ch02_flags = $(wordlist 2,100,$(call ch02_command,$(1)))
ch02_symbol = card_render_$(subst -,_,$(1))

# A stamp per variant holding its command line, rewritten only when it changes,
# so changing a flag (or the compiler) rebuilds exactly that variant.
define CH02_VARIANT_RULES
$(BUILD)/ch02/$(1).flags: FORCE | $(BUILD)/ch02/.dir
	@echo '$(call ch02_compiler,$(1)) $(CFLAGS_COMMON) -g0 $(call ch02_flags,$(1))' | cmp -s - $$@ || \
	  echo '$(call ch02_compiler,$(1)) $(CFLAGS_COMMON) -g0 $(call ch02_flags,$(1))' > $$@
$(BUILD)/ch02/card-$(1).o: $(ch01_DIR)/card.c $(ch01_DIR)/card.h $(BUILD)/ch02/$(1).flags
	$(call ch02_compiler,$(1)) $(CFLAGS_COMMON) -g0 $(call ch02_flags,$(1)) -c $$< -o $$@.tmp
	objcopy --redefine-sym card_render=$(call ch02_symbol,$(1)) $$@.tmp $$@
	rm -f $$@.tmp
$(BUILD)/ch02-asm/$(1).s: $(ch01_DIR)/card.c $(BUILD)/ch02/$(1).flags | $(BUILD)/ch02-asm/.dir
	$(call ch02_compiler,$(1)) $(CFLAGS_COMMON) $(call ch02_flags,$(1)) -g0 -fno-asynchronous-unwind-tables -S $$< -o $$@
endef
$(foreach v,$(CH02_VARIANTS),$(eval $(call CH02_VARIANT_RULES,$(v))))

# problem.o has the clang rows when clang is here (a stamp: rebuilt when that changes).
CH02_PROBLEM_DEFS := $(if $(CLANG),-DCH02_CLANG)
$(BUILD)/ch02/problem.flags: FORCE | $(BUILD)/ch02/.dir
	@echo '$(CH02_PROBLEM_DEFS)' | cmp -s - $@ || echo '$(CH02_PROBLEM_DEFS)' > $@
$(BUILD)/ch02/problem.o: $(ch02_DIR)/problem.c $(ch02_DIR)/*.h $(ch01_DIR)/card.h common/*.h $(BUILD)/ch02/problem.flags
	$(CC) $(ALL_CFLAGS) $(CH02_PROBLEM_DEFS) $(REFERENCE_DEF) -c $< -o $@

ch02: $(BUILD)/ch02/problem.o $(foreach v,$(CH02_VARIANTS),$(BUILD)/ch02/card-$(v).o) $(PROGRAM_OBJ) $(LIBCOMMON)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(PNG_LIBS) $(LDLIBS_BASE)

# Each build's assembly, side by side; the summary is per machine (the
# compilers and -march=native differ), like the results.
CHAPTER_TARGETS += ch02-asm
ch02-asm_HELP := assembly of each ch02 build, side by side, in $(BUILD)/ch02-asm/
BOOK_INPUTS += ch02-asm
.PHONY: ch02-asm
ch02-asm: $(foreach v,$(CH02_VARIANTS),$(BUILD)/ch02-asm/$(v).s)
	@out=data/asm/ch02_summary_$(MACHINE).md; $(ch02_DIR)/asm_summary.sh $(BUILD)/ch02-asm $(CH02_VARIANTS) > $$out.tmp && mv $$out.tmp $$out && cat $$out && \
	  echo "summary: $$out; assembly per build and side-by-side listings: $(BUILD)/ch02-asm/"

# The instructions each build executes (Valgrind's callgrind: exact where a
# time on a shared machine is not), beside its time from this machine's bench.
CHAPTER_TARGETS += ch02-instructions
ch02-instructions_HELP := instructions each ch02 build executes (callgrind, 64x64 at 8 spp) beside its bench time
.PHONY: ch02-instructions
ch02-instructions: ch02
	@command -v valgrind > /dev/null || { echo "ch02-instructions: valgrind not found: nothing counted"; exit 0; }; \
	out=data/asm/ch02_instructions_$(MACHINE).md; $(ch02_DIR)/instructions.sh ./ch02 data/results/$(MACHINE).csv \
	  $(CH02_VARIANTS) > $$out.tmp && mv $$out.tmp $$out && cat $$out
