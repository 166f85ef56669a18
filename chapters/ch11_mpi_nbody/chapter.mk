# ch11's entry in the chapter registry (see "The chapter registry" in the Makefile).
# It needs an MPI (Open MPI's mpicc): without one it is not registered, and
# says so (UNAVAILABLE); make check installs Open MPI first where it can (root, apt).
MPICC ?= $(shell command -v mpicc 2>/dev/null)
# Open MPI's wrapper says which flags it adds.
MPI_CFLAGS := $(if $(MPICC),$(shell $(MPICC) --showme:compile 2>/dev/null))
MPI_LIBS := $(if $(MPICC),$(shell $(MPICC) --showme:link 2>/dev/null))
# Its registry entry is the same with an MPI or without (make book's output
# depends on the committed data only, not on this machine's MPI); only whether
# it is registered (built, tested, benched) depends on one.
ch11_TITLE := N-body over MPI
ch11_SUMMARY := ch07's N-body split over MPI ranks, one GPU each (or ch07's SIMD loop on CPU ranks): blocking allgather, pinned staging, a ring overlapped with the forces; strong and weak scaling, and a model carried to 1024 GPUs
ch11_EXERCISES := ch11
ex_ch11_WHAT := the ring exchange: each block passed on while the one held is computed (MPI_Isend/MPI_Irecv)
ex_ch11_ON := CPU ranks (mpirun at P = 1 .. 4; the MPI calls are watched through MPI's profiling interface)
ifeq ($(MPICC),)
UNAVAILABLE += ch11
ch11_UNAVAILABLE := needs an MPI: sudo apt-get install openmpi-bin libopenmpi-dev
CHECK_DEPS_APT += openmpi-bin libopenmpi-dev
else
REGISTERED += ch11
endif
ch11_DIR := chapters/ch11_mpi_nbody
ch11_GPU := none
ch11_RAYTRACER := no
ch11_SMALL := --n 33 --steps 2
ch11_BAD := --n 16777217 --n;--inject fail@x --inject;--inject hang@1 --inject
ch11_TEST_OBJ := $(BUILD)/ch07/cpu.o $(NBODY_OBJ)
ch11_TEST_FLAGS := $(MPI_CFLAGS) $(CUDA_CFLAGS) $(call path_def,PROGRAM_DIR,$(CURDIR))
ch11_STUDY := $(ch11_DIR)/study.sh
ch11_BOOK_EXTRA := $(ch11_DIR)/book_extra.py
ch11_CHART := lines-n
ch11_CHART_TITLE := ch11: GFLOP/s (20 flops per interaction) against the number of bodies, one rank
ch11_CHART_YLABEL := GFLOP/s (log scale)

# A run's files in the order it reads (ranks.h), its forces (the CPU's ch07's
# own cpu.o, the GPU's forces_gpu.cu), and the N-body core it shares with
# ch07 (common/nbody/); main() is common/program.c's, on every rank.
ch11_OBJ := $(BUILD)/ch11/deadline.o $(BUILD)/ch11/setup.o $(BUILD)/ch07/cpu.o $(BUILD)/ch11/forces_gpu.o \
    $(BUILD)/ch11/exchange.o

$(BUILD)/ch11/%.o: $(ch11_DIR)/%.c $(ch11_DIR)/*.h common/*.h common/nbody/*.h | $(BUILD)/ch11/.dir
	$(CC) $(ALL_CFLAGS) $(CUDA_CFLAGS) $(MPI_CFLAGS) -c $< -o $@
$(BUILD)/ch11/%.o: $(ch11_DIR)/%.cu $(ch11_DIR)/*.h common/*.h common/nbody/*.h $(CUDA_CONFIG) | $(BUILD)/ch11/.dir
	$(CUDA_CXX) -c $< -o $@
ch11: $(BUILD)/ch11/problem.o $(ch11_OBJ) $(NBODY_OBJ) $(NBODY_GPU_OBJ) $(PROGRAM_OBJ) $(LIBCOMMON)
	$(NVCC) $(NVCC_ARCH) $^ -o $@ $(NVCC_LDLIBS) $(MPI_LIBS)
