# mgpu - build, test, bench. `make demo` and `make test` are the two set-up commands.
CC      ?= cc
CXX     ?= c++
NVCC    ?= nvcc
WARN     = -Wall -Wextra -pedantic -Werror
CFLAGS  ?= -O2 -g
BUILD    = build
LIBS     = -ldl -lpthread
# Machine code for each major architecture nvcc 13 supports from sm_75 up (sm_80's also runs
# on sm_86 and sm_89), plus PTX of the newest for later GPUs.
ARCHS    = 75 80 90 100 120
GENCODE  = $(foreach a,$(ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
           -gencode arch=compute_120,code=compute_120

# blur_image and blur_pipeline need Debian's libstb-dev (.ci/run installs it); without it they are skipped.
STB_FOUND := $(or $(shell pkg-config --exists stb 2> /dev/null && echo yes),$(wildcard /usr/include/stb/stb_image.h))
STB_EXAMPLES = examples/blur_image.c examples/blur_pipeline.c
EXAMPLES = $(patsubst examples/%.c,$(BUILD)/%,$(filter-out examples/mpi_%.c,$(if $(STB_FOUND),$(wildcard examples/*.c),$(filter-out $(STB_EXAMPLES),$(wildcard examples/*.c)))))
# The MPI examples (examples/mpi_*.c) need mpicc and mpirun (Debian's libopenmpi-dev and
# openmpi-bin; .ci/run installs them); without them `make test` skips them with a line.
MPICC   ?= mpicc
MPI_FOUND := $(shell command -v $(MPICC) > /dev/null 2>&1 && command -v mpirun > /dev/null 2>&1 && echo yes)
MPI_EXAMPLES = $(patsubst examples/%.c,$(BUILD)/%,$(wildcard examples/mpi_*.c))
BENCHES  = $(patsubst bench/%.c,$(BUILD)/bench_%,$(wildcard bench/*.c))
TEST_SRC = $(wildcard tests/*.c)
HDRS     = mgpu.h kernels_fatbin.h

.PHONY: all demo check test test-unit test-asan test-matrix test-vendor test-examples test-docs examples bench kernels clean
all: examples $(BUILD)/mgpu_tests

$(BUILD):
	mkdir -p $(BUILD)

# ---- kernels: mgpu_kernels.cu -> fatbin -> kernels_fatbin.h (committed; needs nvcc). The
# kernel names come from the source preprocessed by the host compiler (macro-made kernels too).
kernels: $(BUILD)/embed_fatbin
	$(NVCC) -fatbin -O3 -std=c++17 --threads 0 -Xfatbin=-compress-all --compress-mode=size $(GENCODE) -o $(BUILD)/mgpu_kernels.fatbin mgpu_kernels.cu
	$(CXX) -E -P -x c++ mgpu_kernels.cu > $(BUILD)/mgpu_kernels.ii
	$(BUILD)/embed_fatbin $(BUILD)/mgpu_kernels.fatbin mgpu_kernels.cu $(BUILD)/mgpu_kernels.ii "$(ARCHS)" \
	  "$$($(NVCC) --version | tail -1)" > kernels_fatbin.h.tmp && mv kernels_fatbin.h.tmp kernels_fatbin.h
$(BUILD)/embed_fatbin: tools/embed_fatbin.c tools/sha256.h | $(BUILD)
	$(CC) -O2 $(WARN) -std=c99 -o $@ $<

# ---- library objects: one translation unit holds the implementation
$(BUILD)/mgpu.o: mgpu.c $(HDRS) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) -std=c99 -c -o $@ mgpu.c

# ---- examples
examples: $(EXAMPLES)
# blur_image reads and writes image files with Debian's stb (libstb-dev; .ci/run installs it).
STB_CFLAGS = $(shell pkg-config --cflags stb 2> /dev/null || echo -I/usr/include/stb)
STB_LIBS   = $(shell pkg-config --libs stb 2> /dev/null || echo -lstb)
EXAMPLE_FLAGS_blur_image = $(STB_CFLAGS)
EXAMPLE_LIBS_blur_image = $(STB_LIBS)
EXAMPLE_FLAGS_blur_pipeline = $(STB_CFLAGS)
EXAMPLE_LIBS_blur_pipeline = $(STB_LIBS)
EXAMPLE_LIBS_pipeline_stages = -lm
$(BUILD)/%: examples/%.c $(BUILD)/mgpu.o | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) -std=c99 -I. $(EXAMPLE_FLAGS_$*) -o $@ $< $(BUILD)/mgpu.o $(LIBS) $(EXAMPLE_LIBS_$*)

$(BUILD)/mpi_%: examples/mpi_%.c $(BUILD)/mgpu.o | $(BUILD)
	$(MPICC) $(CFLAGS) $(WARN) -std=c99 -I. -o $@ $< $(BUILD)/mgpu.o $(LIBS)
# Each MPI example under mpirun with 2 and 4 ranks, on CPU devices and fake GPUs (tests/mpi_run.sh).
.PHONY: test-mpi
test-mpi: run/mpi
run/mpi: $(if $(MPI_FOUND),$(MPI_EXAMPLES) $(BUILD)/libfake_cuda.so) FORCE
	@sh tests/mpi_run.sh

demo: $(BUILD)/demo
	./$(BUILD)/demo

# ---- tests
# Every test run is a target run/<name> that writes build/<name>.log and prints one line, ok
# with the log's last line and the seconds it took, or FAIL with the end of the log
# (tests/run.sh). `make test` and `make check` run them in parallel ($(JOBS) at a time,
# each target's lines together: --output-sync) and print the core suite's result last.
JOBS    ?= $(shell nproc 2> /dev/null || echo 2)
PARALLEL = $(MAKE) --no-print-directory -k -j$(JOBS) --output-sync=target
RUN      = @sh tests/run.sh
ASAN_ENV = ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 LSAN_OPTIONS=suppressions=tests/lsan.supp
OLD_DRV  = MGPU_FAKE_OLD_DRIVER=$(BUILD)/libfake_old_cuda.so
ASAN     = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
.PHONY: test-all check-all

# Every example is a test: each runs with the default devices and with 4 CPU devices
# (MGPU_CPU_DEVICES=4) and must exit 0. Output goes to build/<name>[.cpu4].log. The doc
# checks (tests/doc_check.sh): every program block of README.md and docs/*.md is its examples/
# file character for character, every excerpt is in its file, every relative link resolves,
# docs/api.md names every public function, and the blur channels and CPU devices agree.
test-examples: run/examples run/docs
test-docs: run/docs
run/docs: FORCE | $(BUILD)
	$(RUN) docs $(BUILD)/doc_check.log sh tests/doc_check.sh
run/examples: examples FORCE
	@$(if $(STB_FOUND),,echo "skip build/blur_image: libstb-dev is not installed";) \
	$(if $(VULKAN_FOUND),,echo "skip build/vulkan_blur: the Vulkan headers (libvulkan-dev) are not installed: built without Vulkan";) \
	start=$$(date +%s); fail=0; n=0; \
	for e in $(EXAMPLES); do n=$$((n + 1)); \
	  env -u MGPU_CPU_DEVICES $$e > $$e.log 2>&1 || { echo "FAIL $$e (exit $$?)"; cat $$e.log; fail=1; }; \
	  env MGPU_CPU_DEVICES=4 $$e > $$e.cpu4.log 2>&1 || { echo "FAIL MGPU_CPU_DEVICES=4 $$e (exit $$?)"; cat $$e.cpu4.log; fail=1; }; \
	done; \
	[ $$fail = 0 ] && printf 'ok   %-30s  %s  (%ss)\n' examples "$$n programs, each with the default devices and MGPU_CPU_DEVICES=4" $$(($$(date +%s) - start)); \
	exit $$fail

$(BUILD)/mgpu_tests: $(TEST_SRC) tests/*.h tools/sha256.h $(BUILD)/mgpu.o | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) -std=c99 -I. -o $@ $(TEST_SRC) $(BUILD)/mgpu.o $(LIBS) -lm
$(BUILD)/mgpu_tests_asan: $(TEST_SRC) tests/*.h tools/sha256.h $(HDRS) mgpu.c | $(BUILD)
	$(CC) $(ASAN) $(WARN) -std=c99 -I. -o $@ $(TEST_SRC) mgpu.c $(LIBS) -lm
$(BUILD)/libfake_old_cuda.so: tests/fixtures/fake_old_cuda.c | $(BUILD)
	$(CC) -shared -fPIC $(WARN) -o $@ $<

# Suites of one operation family each (tests/suites/*.c, one program each, the
# implementation in their own translation unit): same ok/FAIL/skip lines and summary
# (tests/suites/suite.h).
SUITE_NAMES = $(patsubst tests/suites/%.c,%,$(wildcard tests/suites/*.c))
SUITES = $(addprefix $(BUILD)/suite_,$(SUITE_NAMES))
$(BUILD)/suite_%: tests/suites/%.c tests/suites/suite.h $(HDRS) | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) -std=c99 -I. -o $@ $< $(LIBS) -lm
$(BUILD)/suite_asan_%: tests/suites/%.c tests/suites/suite.h $(HDRS) | $(BUILD)
	$(CC) $(ASAN) $(WARN) -std=c99 -I. -o $@ $< $(LIBS) -lm
.SECONDARY: $(SUITES) $(addprefix $(BUILD)/suite_asan_,$(SUITE_NAMES))
# suite_pipeline checks mgpu's NVTX ranges with a stand-in libnvToolsExt (MGPU_NVTX_PATH).
$(BUILD)/suite_pipeline $(BUILD)/suite_asan_pipeline: $(BUILD)/libfake_nvtx.so
$(BUILD)/libfake_nvtx.so: tests/fixtures/fake_nvtx.c | $(BUILD)
	$(CC) -shared -fPIC $(WARN) -o $@ $<

# The core suite (tests/*.c: build/mgpu_tests) and the suites; the core prints its failures,
# each distinct skip reason once and its last line (N passed, N failed, N skipped).
test-unit: $(addprefix run/suite_,$(SUITE_NAMES)) run/core
	@cat $(BUILD)/mgpu_tests.log
run/suite_%: $(BUILD)/suite_% FORCE
	$(RUN) suite_$* $(BUILD)/suite_$*.log ./$(BUILD)/suite_$*
run/core: $(BUILD)/mgpu_tests $(BUILD)/libfake_old_cuda.so FORCE
	$(RUN) core $(BUILD)/mgpu_tests.log $(OLD_DRV) ./$(BUILD)/mgpu_tests

# AddressSanitizer + UndefinedBehaviorSanitizer build of the whole suite.
test-asan: $(addprefix run/asan_,$(SUITE_NAMES)) run/core_asan
	@cat $(BUILD)/mgpu_tests_asan.log
run/asan_%: $(BUILD)/suite_asan_% FORCE
	$(RUN) suite_asan_$* $(BUILD)/suite_asan_$*.log $(ASAN_ENV) ./$(BUILD)/suite_asan_$*
run/core_asan: $(BUILD)/mgpu_tests_asan $(BUILD)/libfake_old_cuda.so FORCE
	$(RUN) core_asan $(BUILD)/mgpu_tests_asan.log $(ASAN_ENV) $(OLD_DRV) ./$(BUILD)/mgpu_tests_asan

# ThreadSanitizer build of the core suite running its concurrency tests (16 threads making,
# using and destroying handles, allocating, binding and reducing at once; threads per device)
# on the CPU devices and the 2 fake GPUs; any report fails the run.
TSAN       = -O1 -g -fsanitize=thread
TSAN_TESTS = handles_concurrent concurrent_alloc run_on_device
$(BUILD)/mgpu_tests_tsan: $(TEST_SRC) tests/*.h tools/sha256.h $(HDRS) mgpu.c | $(BUILD)
	$(CC) $(TSAN) $(WARN) -std=c99 -I. -o $@ $(TEST_SRC) mgpu.c $(LIBS) -lm
run/core_tsan: $(BUILD)/mgpu_tests_tsan $(BUILD)/libfake_cuda.so FORCE
	$(RUN) core_tsan $(BUILD)/mgpu_tests_tsan.log TSAN_OPTIONS=halt_on_error=1 \
	  MGPU_CUDA_PATH=$(CURDIR)/$(BUILD)/libfake_cuda.so ./$(BUILD)/mgpu_tests_tsan $(TSAN_TESTS)
# The same for suite_pipeline (stage threads, workers finishing batches out of order, the
# profiler) on the CPU devices and the 2 fake GPUs.
$(BUILD)/suite_tsan_pipeline: tests/suites/pipeline.c tests/suites/suite.h $(HDRS) $(BUILD)/libfake_nvtx.so | $(BUILD)
	$(CC) $(TSAN) $(WARN) -std=c99 -I. -o $@ $< $(LIBS) -lm
run/pipeline_tsan: $(BUILD)/suite_tsan_pipeline $(BUILD)/libfake_cuda.so FORCE
	$(RUN) pipeline_tsan $(BUILD)/suite_tsan_pipeline.log TSAN_OPTIONS=halt_on_error=1 FAKE_CUDA_DEVICES=2 \
	  MGPU_CUDA_PATH=$(CURDIR)/$(BUILD)/libfake_cuda.so ./$(BUILD)/suite_tsan_pipeline
# Graphics interop under TSan on the 2 fake GPUs: the exporter's thread signalling semaphores a
# stream waits for, image batches queued on both GPUs, imports and destroys beside them.
$(BUILD)/suite_tsan_interop: tests/suites/interop.c tests/suites/suite.h $(HDRS) | $(BUILD)
	$(CC) $(TSAN) $(WARN) -std=c99 -I. -o $@ $< $(LIBS) -lm
run/interop_tsan: $(BUILD)/suite_tsan_interop $(BUILD)/libfake_cuda.so FORCE
	$(RUN) interop_tsan $(BUILD)/suite_tsan_interop.log TSAN_OPTIONS=halt_on_error=1 FAKE_CUDA_DEVICES=2 \
	  MGPU_CUDA_PATH=$(CURDIR)/$(BUILD)/libfake_cuda.so ./$(BUILD)/suite_tsan_interop

# The bad-input tables and the checked handles under ASan/UBSan on the 2 fake GPUs (their
# CPU-device runs are part of run/core_asan): every range past the end of a fake GPU's
# allocation, stale handle and bad argument refused before the driver sees it.
FAKE_CORE_TESTS = bad_input handles module_image_sizes
run/core_asan_fake: $(BUILD)/mgpu_tests_asan $(BUILD)/libfake_cuda.so FORCE
	$(RUN) core_asan_fake $(BUILD)/mgpu_tests_asan.fake.log $(ASAN_ENV) MGPU_CUDA_PATH=$(CURDIR)/$(BUILD)/libfake_cuda.so \
	  ./$(BUILD)/mgpu_tests_asan $(FAKE_CORE_TESTS)

# gcc and clang; C99, C11 and C++17; -Wall -Wextra -pedantic -Werror; plus MGPU_STATIC twice
# in one program and the real cuda.h checked against mgpu's mirror (one run per compiler
# and standard; tests/compile_matrix.sh). mingw: the same for Windows with mingw-w64, run
# under wine, plus the code paths MSVC takes.
MATRIX = gcc-c99 gcc-c11 clang-c99 clang-c11 g++-c++17 clang++-c++17 mingw-c99 mingw-c11 mingw++-c++17
test-matrix: $(addprefix run/matrix_,$(MATRIX))
run/matrix_%: FORCE | $(BUILD)
	$(RUN) matrix_$* $(BUILD)/matrix_$*.log sh tests/compile_matrix.sh $*

# Copy the two files into an empty folder and build a ten-line program with one cc line.
test-vendor: run/vendor
run/vendor: FORCE | $(BUILD)
	$(RUN) vendor $(BUILD)/vendor.log sh tests/vendor_check.sh

# The blur kernels on the host: the "Gaussian blur" section of mgpu_kernels.cu compiled as
# C++ under the kernel emulator (tests/fake_cuda/emu.h: a coroutine per CUDA thread, warp
# shuffles, cp.async completing only at its wait, alignment checked), compared bit for bit
# with the CPU device on random shapes, pitches, bands, borders and radii, with the launch
# shapes mgpu.h picks (tests/fake_cuda/blur_kernel_emu.cpp); the second run only shapes for
# the pipelined 8-bit kernels, each also through one of bench_blur's tuning variants
# (bench/blur_variants.cu); the third only radii 3..16 (the generic kernels); the fourth
# radii 3..8 on aligned rows (the ring kernels); the fifth radii 17..64 (the wide kernels);
# the sixth the tensor-core 8-bit kernels at radius 0..16.
# Under ASan/UBSan.
.PHONY: test-blur-emu test-fake
$(BUILD)/blur_section.cu: mgpu_kernels.cu | $(BUILD)
	awk '/Gaussian blur \(BEGIN\)/{f=1} f{print} /Gaussian blur \(END\)/{exit}' $< > $@
$(BUILD)/msm_section.cu: mgpu_kernels.cu | $(BUILD)
	awk '/BN254 MSM \(BEGIN\)/{f=1} f{print} /BN254 MSM \(END\)/{exit}' $< > $@
# (the reductions section has no BEGIN/END markers: it runs from its heading to the blur
# section; a marker would change mgpu_kernels.cu and so the sha256 kernels_fatbin.h records)
$(BUILD)/reduce_section.cu: mgpu_kernels.cu | $(BUILD)
	awk '/^\/\* =+ reductions/{f=1} /Gaussian blur \(BEGIN\)/{exit} f{print}' $< > $@
	grep -q 'mgpu_allreduce_max_u64' $@ || { echo "$@: the reductions section was not found"; rm -f $@; exit 1; }
EMU_DEPS = tests/fake_cuda/emu.h tests/fake_cuda/emu_blur.h bench/blur_variants.cu $(BUILD)/blur_section.cu mgpu.h
EMU_FLAGS = -std=c++17 -g -ffp-contract=off -Wall -Wextra -Wno-unknown-pragmas -I. -I$(BUILD)
$(BUILD)/blur_kernel_emu: tests/fake_cuda/blur_kernel_emu.cpp $(EMU_DEPS)
	$(CXX) $(EMU_FLAGS) -O0 -fsanitize=address,undefined -fno-sanitize-recover=all -o $@ $< -ldl -lpthread
test-blur-emu: run/blur_emu_all run/blur_emu_pipe run/blur_emu_any run/blur_emu_ring run/blur_emu_wide run/blur_emu_mma \
               run/blur_emu_tile
run/blur_emu_all: $(BUILD)/blur_kernel_emu FORCE
	$(RUN) blur_emu_all $(BUILD)/blur_emu_all.log ./$(BUILD)/blur_kernel_emu 300 1
run/blur_emu_pipe: $(BUILD)/blur_kernel_emu FORCE
	$(RUN) blur_emu_pipe $(BUILD)/blur_emu_pipe.log EMU_FOCUS=pipe ./$(BUILD)/blur_kernel_emu 150 2
run/blur_emu_any: $(BUILD)/blur_kernel_emu FORCE
	$(RUN) blur_emu_any $(BUILD)/blur_emu_any.log EMU_FOCUS=any ./$(BUILD)/blur_kernel_emu 200 3
run/blur_emu_ring: $(BUILD)/blur_kernel_emu FORCE
	$(RUN) blur_emu_ring $(BUILD)/blur_emu_ring.log EMU_FOCUS=ring ./$(BUILD)/blur_kernel_emu 200 4
run/blur_emu_wide: $(BUILD)/blur_kernel_emu FORCE
	$(RUN) blur_emu_wide $(BUILD)/blur_emu_wide.log EMU_FOCUS=wide ./$(BUILD)/blur_kernel_emu 150 5
run/blur_emu_mma: $(BUILD)/blur_kernel_emu FORCE
	$(RUN) blur_emu_mma $(BUILD)/blur_emu_mma.log EMU_FOCUS=mma ./$(BUILD)/blur_kernel_emu 150 6
run/blur_emu_tile: $(BUILD)/blur_kernel_emu FORCE
	$(RUN) blur_emu_tile $(BUILD)/blur_emu_tile.log EMU_FOCUS=tile ./$(BUILD)/blur_kernel_emu 120 7

# The BN254 field arithmetic of the MSM section on the host (tests/fake_cuda/bn_field_check.cpp):
# the lazy unrolled multiplication, addition and subtraction against canonical results, on
# random values and the edges of [0, 2m), and bench_bn_field's FP64 multiplication and mixed
# additions (bench/bn_field_fp64.h) against the integer ones, and the other MSM groups' tuned
# F_p and F_p2 products against their compact ones, under ASan/UBSan.
.PHONY: test-bn-field
$(BUILD)/bn_field_check: tests/fake_cuda/bn_field_check.cpp tests/fake_cuda/emu.h $(BUILD)/msm_section.cu bench/bn_field_fp64.h
	$(CXX) $(EMU_FLAGS) -O1 -Wno-unused-function -Wno-maybe-uninitialized -fsanitize=address,undefined \
	  -fno-sanitize-recover=all -o $@ $< -ldl -lpthread
test-bn-field: run/bn_field
run/bn_field: $(BUILD)/bn_field_check FORCE
	$(RUN) bn_field $(BUILD)/bn_field_check.log ./$(BUILD)/bn_field_check

# The CUDA host paths without a GPU: build/libfake_cuda.so (tests/fake_cuda/fake_cuda.cpp) is
# a stand-in libcuda.so with 2 fake GPUs on host memory (lazy stream queues, events, peer
# access, pinned and managed memory) that runs the reduction (reduce, combine, one-pass
# all-reduce), MSM (BN254 G1 and G2, BLS12-381 G1 and G2: suite_msm's curves section, the
# four groups on both fake GPUs and split over them) and Gaussian blur kernels of mgpu_kernels.cu under the emulator,
# every pointer (range) checked to be usable by the launching GPU: its own memory, pinned or
# managed, or a peer's with peer access on. suite_msm and suite_blur run their GPU cases on
# it (TEST_MSM_QUICK / TEST_BLUR_QUICK: the small ones), suite_reduce and suite_collectives
# all of theirs; then with FAKE_CUDA_P2P=0 (no peer access: copies staged through pinned
# memory, all-reduce by its chunked path) suite_blur, suite_collectives and suite_msm's
# multi-GPU section; suite_pipeline (pipelines and the profiler) with and without peer access. Each run must pass and show that it ran on the 2 fake GPUs (its 2-GPU
# header, or its [cuda] all-reduce line); logs in build/suite_<name>.fake[.nop2p][.<first argument>].log. A run
# is "suite,[VAR=value,...][ran:PREFIX=N,...][argument,...]" (tests/fake_run.sh):
# ran:PREFIX=N requires that exactly N different kernels whose names start with PREFIX were
# launched (the fake's FAKE_CUDA_REPORT lines), so every dtype x op of the reduction kernels
# runs where it should and the one-pass all-reduce does not run without peer access.
# suite_faults (tests/suites/faults.c) fails every driver call of its programs in turn
# (under ASan/UBSan, with and without peer access; the MSM programs, slow on the emulator,
# in the plain build): each must end cleanly, leave mgpu usable and the fake holding nothing.
# suite_pointers (under ASan/UBSan): memory from the driver's own cuMemAlloc used through mgpu.
# suite_msm's fake GPU cases run as two runs at once: its curves section (which runs its pair
# and encodings sections too; the pairs over several devices run with multi) and every other
# section (a new section joins that list).
FAKE_RUNS = msm,TEST_MSM_QUICK=1,curves msm,TEST_MSM_QUICK=1,helpers,bad,vectors,edges,forms,precompute,batch,memory,multi,random \
            reduce,ran:mgpu_reduce_=18,ran:mgpu_combine_=18 \
            collectives,ran:mgpu_allreduce_=18,ran:mgpu_reduce_=18 \
            collectives,FAKE_CUDA_P2P=0,ran:mgpu_allreduce_=0,ran:mgpu_combine_=18 \
            blur,TEST_BLUR_QUICK=1 blur,TEST_BLUR_QUICK=1,FAKE_CUDA_P2P=0 \
            msm,TEST_MSM_QUICK=1,FAKE_CUDA_P2P=0,multi processes \
            pipeline pipeline,FAKE_CUDA_P2P=0 \
            asan_faults,init,memory,streams,reduce,collectives,blur \
            asan_faults,FAKE_CUDA_P2P=0,memory,streams,collectives,blur faults,msm,msm_pieces,msm_pair asan_pointers

# ---- graphics interop (mgpu.h's >>interop; docs/interop.md). suite_interop on the 2 fake
# GPUs, whose driver takes memfds as exported memory and semaphores (buffers, images,
# semaphores, several GPUs; without peer access too), under ASan/UBSan, and suite_faults'
# interop program (every driver call failed in turn) under ASan/UBSan. examples/vulkan_blur.c
# needs the Vulkan headers (Debian's libvulkan-dev; its OpenGL part libegl-dev and libgl-dev;
# .ci/run installs them) and loads libvulkan.so.1 (libEGL.so.1) at run time; without the
# headers it builds as a program that says so.
FAKE_RUNS += interop,ran:mgpu_blur_img_=1,ran:mgpu_img_=3,ran:mgpu_blur_imgp_=3 interop,FAKE_CUDA_P2P=0 asan_interop asan_faults,interop
VULKAN_FOUND := $(wildcard /usr/include/vulkan/vulkan.h)
FAKE_IDS  = $(shell seq 1 $(words $(FAKE_RUNS)))
comma    := ,
# (-Wno-maybe-uninitialized: at -O2 gcc cannot see that the blur kernels read a halo word
# only where need_left/need_right had it shuffled in.)
$(BUILD)/libfake_cuda.so: tests/fake_cuda/fake_cuda.cpp tests/fake_cuda/fault_control.h $(EMU_DEPS) $(BUILD)/msm_section.cu tests/fake_cuda/emu_reduce.h \
                          $(BUILD)/reduce_section.cu
	$(CXX) $(EMU_FLAGS) -O2 -Wno-maybe-uninitialized -fPIC -shared -o $@ $< -lpthread
fake_run  = $(subst $(comma), ,$(word $(1),$(FAKE_RUNS)))
# build/libcuda_faultshim.so (tests/fault_shim): a libcuda in front of another one that fails
# the chosen driver call itself, so that suite_faults runs against the real driver on a GPU
# machine (tools/gpu_check.sh). run/faults_shim proves the shim here, in front of the fake
# (whose own fault injection stays off): every program but the MSM ones (slow on the emulator).
$(BUILD)/libcuda_faultshim.so: tests/fault_shim/fault_shim.cpp tests/fake_cuda/fault_control.h mgpu.h | $(BUILD)
	$(CXX) -std=c++17 -O2 -g -Wall -Wextra -Werror -I. -fPIC -shared -o $@ $< -ldl -lpthread
run/faults_shim: $(BUILD)/libcuda_faultshim.so $(BUILD)/libfake_cuda.so $(BUILD)/suite_faults FORCE
	@sh tests/fake_run.sh faults MGPU_CUDA_PATH=$(CURDIR)/$(BUILD)/libcuda_faultshim.so \
	  FAULTSHIM_REAL=$(CURDIR)/$(BUILD)/libfake_cuda.so init memory streams reduce collectives blur interop
test-fake: $(addprefix run/fake_,$(FAKE_IDS))
.SECONDEXPANSION:
run/fake_%: $(BUILD)/libfake_cuda.so $(BUILD)/suite_$$(firstword $$(call fake_run,$$*)) FORCE
	@sh tests/fake_run.sh $(call fake_run,$*)

# ---- fuzzing (tests/fuzz/README.md): libFuzzer targets built with clang under ASan/UBSan
# for the parsers of untrusted bytes: BN254MSM and CURVEMSM files as examples/msm_file.c reads them
# (msm_file), the EIP-196 point and scalar encodings (eip196), the EIP-197 and EIP-2537
# encodings of every group and their MSM input (eip2537), and mgpu_module_create on
# any bytes, loaded on the 2 fake GPUs whose driver reads the image as far as its headers
# say (module). `make test` runs each for FUZZ_SECONDS on its committed seeds
# (tests/fuzz/corpus/<target>) plus what earlier runs found (build/fuzz/corpus_<target>);
# longer runs: `make test-fuzz FUZZ_SECONDS=600`. Where clang cannot link libFuzzer
# (Debian's libclang-rt-NN-dev missing) the targets link tests/fuzz/replay.c instead: the
# seeds plus deterministic mutations, no coverage guidance, and the run's line says
# "replay" (build/fuzz/engine).
FUZZ_TARGETS = msm_file eip196 eip2537 module
FUZZ_SECONDS ?= 15
FUZZ_CC     := $(if $(shell command -v clang 2> /dev/null),clang,$(CC))
FUZZ_CFLAGS  = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer $(WARN) -std=c99 -I.
FUZZ_ENGINE  = $$([ "$$(cat $(BUILD)/fuzz/engine)" = libfuzzer ] && echo -fsanitize=fuzzer)
$(BUILD)/fuzz:
	mkdir -p $@
$(BUILD)/fuzz/engine: | $(BUILD)/fuzz
	@if printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
	    $(FUZZ_CC) -fsanitize=fuzzer -x c -o $@.probe - 2> /dev/null; then echo libfuzzer > $@; \
	else echo "note: $(FUZZ_CC) cannot link -fsanitize=fuzzer: the fuzz targets use tests/fuzz/replay.c"; echo replay > $@; fi
	@rm -f $@.probe
$(BUILD)/fuzz/mgpu.o: mgpu.c $(HDRS) $(BUILD)/fuzz/engine
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_ENGINE) -c -o $@ mgpu.c
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h tests/fuzz/replay.c examples/msm_file.c $(BUILD)/fuzz/mgpu.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-unused-function -o $@ $< $(BUILD)/fuzz/mgpu.o \
	  $$([ "$$(cat $(BUILD)/fuzz/engine)" = libfuzzer ] && echo -fsanitize=fuzzer || echo tests/fuzz/replay.c) $(LIBS) -lm
.PHONY: test-fuzz
test-fuzz: $(addprefix run/fuzz_,$(FUZZ_TARGETS))
run/fuzz_msm_file run/fuzz_eip196 run/fuzz_eip2537: run/fuzz_%: $(BUILD)/fuzz/fuzz_% FORCE
	$(RUN) fuzz_$* $(BUILD)/fuzz/fuzz_$*.log sh tests/fuzz/run.sh $* $(FUZZ_SECONDS) MGPU_DEVICE=cpu
run/fuzz_module: $(BUILD)/fuzz/fuzz_module $(BUILD)/libfake_cuda.so FORCE
	$(RUN) fuzz_module $(BUILD)/fuzz/fuzz_module.log sh tests/fuzz/run.sh module $(FUZZ_SECONDS) \
	  MGPU_CUDA_PATH=$(CURDIR)/$(BUILD)/libfake_cuda.so

# ---- Windows: the library, the core suite, the suites and the examples cross-built with
# mingw-w64 (Debian's gcc-mingw-w64-x86-64) into build/win/*.exe and run under wine
# (tests/wine.sh; Debian's wine64): .ci/run installs both. Same lines and checks as on Linux;
# without mingw-w64 or wine each run prints a skip line instead. The library itself links
# nothing; the test programs link mingw's winpthreads (-lpthread, statically) for their own
# threads and clock_gettime. Examples left out, each with a skip line: blur_image and
# blur_pipeline (they link Debian's Linux libstb), readme_processes (it forks) and the MPI ones.
MINGW_CC  = x86_64-w64-mingw32-gcc
MINGW_CXX = x86_64-w64-mingw32-g++-posix
WIN       = $(BUILD)/win
WIN_CC    = $(MINGW_CC) $(CFLAGS) $(WARN) -std=c99 -I.
WIN_LIBS  = -static -lpthread -lm
HAVE_WIN := $(and $(shell command -v $(MINGW_CC) 2> /dev/null),$(shell sh tests/wine.sh --find 2> /dev/null))
WIN_SKIP  = echo "skip $@: $(if $(shell command -v $(MINGW_CC) 2> /dev/null),wine,mingw-w64) is not installed (.ci/run installs it)"
WIN_LEFT_OUT = $(STB_EXAMPLES) examples/readme_processes.c $(wildcard examples/mpi_*.c)
WIN_EXAMPLES = $(patsubst examples/%.c,$(WIN)/%.exe,$(filter-out $(WIN_LEFT_OUT),$(wildcard examples/*.c)))
$(WIN):
	mkdir -p $(WIN)
$(WIN)/mgpu.o: mgpu.c $(HDRS) | $(WIN)
	$(WIN_CC) -c -o $@ mgpu.c
$(WIN)/%.exe: examples/%.c $(WIN)/mgpu.o
	$(WIN_CC) -o $@ $< $(WIN)/mgpu.o $(WIN_LIBS)
$(WIN)/mgpu_tests.exe: $(TEST_SRC) tests/*.h tools/sha256.h $(WIN)/mgpu.o
	$(WIN_CC) -o $@ $(TEST_SRC) $(WIN)/mgpu.o $(WIN_LIBS)
$(WIN)/suite_%.exe: tests/suites/%.c tests/suites/suite.h $(HDRS) | $(WIN)
	$(WIN_CC) -o $@ $< $(WIN_LIBS)
# The stand-ins of tests/fixtures (the too-old driver; suite_pipeline's NVTX) as DLLs.
$(WIN)/fake_%.dll: tests/fixtures/fake_%.c | $(WIN)
	$(MINGW_CC) -shared $(WARN) -o $@ $<
$(WIN)/suite_pipeline.exe: $(WIN)/fake_nvtx.dll
# The fake libcuda as a DLL (tests/fake_cuda: the emulator's coroutines are Windows fibers
# there; -Wno-array-bounds: mingw's own inline __readgsqword in GetCurrentFiber), linked
# statically with mingw's posix-thread libstdc++ (std::mutex). Four of the fake GPU runs
# (FAKE_RUNS above) run again on it: every reduction kernel (the accuracy case at 2^22
# elements, TEST_REDUCE_QUICK), the collectives without peer
# access (the staging copies and the chunked all-reduce), the MSM split over the GPUs, and
# suite_processes (device selection; GPU pool memory refused for IPC on Windows).
WIN_FAKE_RUNS = reduce,TEST_REDUCE_QUICK=1,ran:mgpu_reduce_=18,ran:mgpu_combine_=18 \
                collectives,FAKE_CUDA_P2P=0,ran:mgpu_allreduce_=0,ran:mgpu_combine_=18 \
                msm,TEST_MSM_QUICK=1,multi processes
WIN_FAKE_IDS  = $(shell seq 1 $(words $(WIN_FAKE_RUNS)))
win_fake_run  = $(subst $(comma), ,$(word $(1),$(WIN_FAKE_RUNS)))
$(WIN)/fake_cuda.dll: tests/fake_cuda/fake_cuda.cpp tests/fake_cuda/fault_control.h $(EMU_DEPS) $(BUILD)/msm_section.cu tests/fake_cuda/emu_reduce.h \
                      $(BUILD)/reduce_section.cu | $(WIN)
	$(MINGW_CXX) $(EMU_FLAGS) -O2 -Wno-maybe-uninitialized -Wno-array-bounds -shared -static -o $@ $<
.SECONDARY: $(addprefix $(WIN)/suite_,$(addsuffix .exe,$(SUITE_NAMES)))
.PHONY: test-windows
test-windows: run/win_core $(addprefix run/win_,$(SUITE_NAMES)) run/win_examples $(addprefix run/win_fake_,$(WIN_FAKE_IDS))
ifneq ($(HAVE_WIN),)
run/win_fake_%: $(WIN)/fake_cuda.dll $(WIN)/suite_$$(firstword $$(call win_fake_run,$$*)).exe FORCE
	@sh tests/fake_run.sh --windows $(call win_fake_run,$*)
run/win_core: $(WIN)/mgpu_tests.exe $(WIN)/fake_old_cuda.dll FORCE
	$(RUN) win_core $(WIN)/mgpu_tests.log MGPU_FAKE_OLD_DRIVER=$(WIN)/fake_old_cuda.dll sh tests/wine.sh $(WIN)/mgpu_tests.exe
run/win_%: $(WIN)/suite_%.exe FORCE
	$(RUN) win_$* $(WIN)/suite_$*.log sh tests/wine.sh $(WIN)/suite_$*.exe
run/win_examples: $(WIN_EXAMPLES) FORCE
	@echo "skip win_examples: $(notdir $(WIN_LEFT_OUT)): Linux only (Debian's libstb, fork, MPI)"; \
	start=$$(date +%s); fail=0; n=0; \
	for e in $(WIN_EXAMPLES); do n=$$((n + 1)); \
	  env -u MGPU_CPU_DEVICES sh tests/wine.sh $$e > $$e.log 2>&1 || { echo "FAIL $$e (exit $$?)"; cat $$e.log; fail=1; }; \
	  env MGPU_CPU_DEVICES=4 sh tests/wine.sh $$e > $$e.cpu4.log 2>&1 || { echo "FAIL MGPU_CPU_DEVICES=4 $$e (exit $$?)"; cat $$e.cpu4.log; fail=1; }; \
	done; \
	[ $$fail = 0 ] && printf 'ok   %-30s  %s  (%ss)\n' win_examples "$$n programs under wine, each with the default devices and MGPU_CPU_DEVICES=4" $$(($$(date +%s) - start)); \
	exit $$fail
else
run/win_%: FORCE
	@$(WIN_SKIP)
endif

# Everything, in parallel; the last line is the core suite's (under ASan/UBSan), which CI
# reads: N passed, N failed, N skipped. The longest chain first (the fake libcuda, then its
# runs); the kernel sections are cut out before, so that make can start it at once.
SECTIONS  = $(BUILD)/blur_section.cu $(BUILD)/msm_section.cu $(BUILD)/reduce_section.cu
TEST_RUNS = $(BUILD)/libfake_cuda.so $(addprefix run/fake_,$(FAKE_IDS)) run/faults_shim $(addprefix run/fuzz_,$(FUZZ_TARGETS)) run/core_asan run/core_asan_fake run/core_tsan run/pipeline_tsan run/interop_tsan $(addprefix run/asan_,$(SUITE_NAMES)) \
            run/blur_emu_all run/blur_emu_pipe run/blur_emu_any run/blur_emu_ring run/blur_emu_wide run/blur_emu_mma \
            run/blur_emu_tile $(addprefix run/matrix_,$(MATRIX)) \
            run/bn_field run/vendor run/examples run/mpi run/docs $(addprefix run/suite_,$(SUITE_NAMES)) run/core \
            run/win_core $(addprefix run/win_,$(SUITE_NAMES)) run/win_examples $(addprefix run/win_fake_,$(WIN_FAKE_IDS))
test:
	@mkdir -p $(BUILD) && date +%s > $(BUILD)/test.start
	@$(MAKE) --no-print-directory -s $(SECTIONS)
	@$(PARALLEL) test-all
test-all: $(TEST_RUNS)
	@echo "make test: every run passed in $$(($$(date +%s) - $$(cat $(BUILD)/test.start))) s; the core suite under ASan/UBSan:"
	@cat $(BUILD)/mgpu_tests_asan.log

# The inner loop: the README checks, the examples, the core suite and the suites on the CPU
# devices (no compiler matrix, sanitizers, emulator or fake GPUs), in parallel.
CHECK_RUNS = run/core run/suite_reduce $(addprefix run/suite_,$(filter-out reduce,$(SUITE_NAMES))) run/examples run/docs
check:
	@mkdir -p $(BUILD) && date +%s > $(BUILD)/check.start
	@$(PARALLEL) check-all
check-all: $(CHECK_RUNS)
	@echo "make check: every run passed in $$(($$(date +%s) - $$(cat $(BUILD)/check.start))) s; the core suite:"
	@cat $(BUILD)/mgpu_tests.log

# ---- benchmarks (need a GPU; CUB/NCCL peers are built with nvcc when present)
# The raw-driver baselines use cuda.h. By default they take the driver's entry points from
# libcuda.so.1 at run time (like mgpu), so -lcuda is linked --as-needed and drops out: the
# binaries start without a driver and skip (exit 77). BENCH_LINK_CUDA=1 calls the linked
# symbols instead (a hard dependency on libcuda.so.1). bench/run_all.sh runs them all.
CUDA_HOME     ?= /usr/local/cuda
BENCH_CFLAGS   = -D_POSIX_C_SOURCE=200809L -I$(CUDA_HOME)/include
ifeq ($(BENCH_LINK_CUDA),1)
BENCH_CFLAGS  += -DBENCH_LINK_CUDA
BENCH_LIBS     = -L$(CUDA_HOME)/lib64/stubs -lcuda
else
BENCH_LIBS     = -L$(CUDA_HOME)/lib64/stubs -Wl,--as-needed -lcuda -Wl,--no-as-needed
endif
bench: $(BENCHES)
$(BUILD)/bench_%: bench/%.c bench/bench_util.h $(BUILD)/mgpu.o | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) -std=c99 $(BENCH_CFLAGS) -I. -o $@ $< $(BUILD)/mgpu.o $(LIBS) -lm $(BENCH_LIBS)

# Peers: bench/peers/*.cu -> build/peers/*.o with C entry points (bench/peers/peers.h), on
# the CUDA runtime: cub_reduce (CUB DeviceReduce, a read-only ceiling kernel) for
# bench_reduce, nccl_peer (NCCL) for bench_collectives. `make bench ARCH=sm_100` builds them
# for another GPU (default sm_90, H100/H200). Without nvcc they compile to stubs (the
# benchmarks then say so and skip those baselines); without nccl.h / libnccl the NCCL peer
# is a stub. NCCL is looked for in NCCL_HOME (default CUDA_HOME), /usr, /usr/local and the
# pip package nvidia-nccl-cu*; NCCL_INCDIR= / NCCL_LIBDIR= override the search.
PEER_ARCH     = $(if $(filter command line,$(origin ARCH)),$(ARCH),sm_90)
HAVE_NVCC    := $(shell command -v $(NVCC) 2> /dev/null)
NCCL_HOME    ?= $(CUDA_HOME)
NCCL_PIP      = $(shell python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2> /dev/null)
nccl_find_inc = $(firstword $(foreach d,$(1),$(if $(wildcard $(d)/nccl.h),$(d))))
nccl_find_lib = $(firstword $(foreach d,$(1),$(if $(wildcard $(d)/libnccl.so $(d)/libnccl.so.2),$(d))))
NCCL_INCDIR   ?= $(or $(call nccl_find_inc,$(NCCL_HOME)/include /usr/include /usr/local/include),$(call nccl_find_inc,$(NCCL_PIP)/include))
NCCL_LIBDIR   ?= $(or $(call nccl_find_lib,$(NCCL_HOME)/lib64 $(NCCL_HOME)/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib),$(call nccl_find_lib,$(NCCL_PIP)/lib))
NCCL_OK       = $(and $(HAVE_NVCC),$(NCCL_INCDIR),$(NCCL_LIBDIR))
comma        := ,
CUDART_LIBS   = $(if $(HAVE_NVCC),-L$(CUDA_HOME)/lib64 -Wl$(comma)-rpath$(comma)$(CUDA_HOME)/lib64 -lcudart) -lstdc++
NCCL_LIBS     = $(if $(NCCL_OK),-L$(NCCL_LIBDIR) -Wl$(comma)-rpath$(comma)$(NCCL_LIBDIR) $(if $(wildcard $(NCCL_LIBDIR)/libnccl.so),-lnccl,-l:libnccl.so.2))
# NPP (bench_blur's peer: nppiFilterGaussBorder, libnppif + libnppc) is looked for in NPP_HOME
# (default CUDA_HOME), /usr, /usr/local and the pip package nvidia-npp (nvidia/cu13 or
# nvidia/npp); NPP_INCDIR= / NPP_LIBDIR= override the search.
NPP_HOME     ?= $(CUDA_HOME)
NPP_PIP       = $(shell python3 -c 'import nvidia, os; print(" ".join(os.path.join(p, d) for p in nvidia.__path__ for d in ("cu13", "npp", "cu12")))' 2> /dev/null)
npp_find_inc  = $(firstword $(foreach d,$(1),$(if $(wildcard $(d)/nppi_filtering_functions.h),$(d))))
npp_find_lib  = $(firstword $(foreach d,$(1),$(if $(wildcard $(d)/libnppif.so $(d)/libnppif.so.*),$(d))))
NPP_INCDIR   ?= $(or $(call npp_find_inc,$(NPP_HOME)/include /usr/include /usr/local/include),$(call npp_find_inc,$(addsuffix /include,$(NPP_PIP))))
NPP_LIBDIR   ?= $(or $(call npp_find_lib,$(NPP_HOME)/lib64 $(NPP_HOME)/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib),$(call npp_find_lib,$(addsuffix /lib,$(NPP_PIP))))
NPP_OK        = $(and $(HAVE_NVCC),$(NPP_INCDIR),$(NPP_LIBDIR))
npp_lib       = $(if $(wildcard $(NPP_LIBDIR)/lib$(1).so),-l$(1),-l:$(notdir $(firstword $(wildcard $(NPP_LIBDIR)/lib$(1).so.*))))
NPP_LIBS      = $(if $(NPP_OK),-L$(NPP_LIBDIR) -Wl$(comma)-rpath$(comma)$(NPP_LIBDIR) $(call npp_lib,nppif) $(call npp_lib,nppc))
PEER_DEFS_cub_reduce =
PEER_DEFS_nccl_peer  = $(if $(NCCL_OK),-I$(NCCL_INCDIR),-DBENCH_NO_NCCL='"nccl.h/libnccl not found (NCCL_HOME=$(NCCL_HOME): set NCCL_HOME or NCCL_INCDIR and NCCL_LIBDIR)"')
PEER_DEFS_npp_blur   = $(if $(NPP_OK),-I$(NPP_INCDIR),-DBENCH_NO_NPP='"NPP headers/libnppif not found (NPP_HOME=$(NPP_HOME): set NPP_HOME or NPP_INCDIR and NPP_LIBDIR)"')
$(BUILD)/peers:
	mkdir -p $@
# build/peers/<peer>.cfg holds the peer's build configuration and changes only with it, so a
# new ARCH, nvcc or NCCL rebuilds the peer.
peer_neq      = $(if $(subst x$(1),,x$(2))$(subst x$(2),,x$(1)),1)
PEER_CFG      = $(HAVE_NVCC) $(PEER_ARCH) $(PEER_DEFS_$*) $(if $(filter nccl_peer,$*),$(NCCL_LIBS)) $(if $(filter npp_blur,$*),$(NPP_LIBS))
$(BUILD)/peers/%.cfg: FORCE | $(BUILD)/peers
	$(if $(call peer_neq,$(PEER_CFG),$(file < $@)),$(file > $@,$(PEER_CFG)))
FORCE:
.PHONY: FORCE
.PRECIOUS: $(BUILD)/peers/%.cfg
$(BUILD)/peers/%.o: bench/peers/%.cu bench/peers/peers.h $(BUILD)/peers/%.cfg | $(BUILD)/peers
ifneq ($(HAVE_NVCC),)
	$(NVCC) -O3 -std=c++17 -arch=$(PEER_ARCH) -Ibench/peers $(PEER_DEFS_$*) -c -o $@ $<
else
	@echo "note: $(NVCC) not found: $@ is a stub (its baseline is skipped at run time)"
	$(CXX) -x c++ -std=c++17 -O2 -Ibench/peers -DBENCH_PEER_STUB='"no nvcc at build time"' \
	  -DBENCH_NO_NCCL='"no nvcc at build time"' -c -o $@ $<
endif

# bench_blur: the NPP peer, and the pipelined 8-bit blur kernel's tuning variants
# (bench/blur_variants.cu -> build/blur_variants.fatbin for ARCH, loaded by --sweep; without
# nvcc an empty file, and the sweep says so).
$(BUILD)/blur_variants.fatbin: bench/blur_variants.cu mgpu_kernels.cu $(BUILD)/peers/blur_variants.cfg | $(BUILD)
ifneq ($(HAVE_NVCC),)
	$(NVCC) -fatbin -O3 -std=c++17 -arch=$(PEER_ARCH) -o $@ $<
else
	@echo "note: $(NVCC) not found: $@ is empty (bench_blur --sweep is skipped)"
	: > $@
endif
$(BUILD)/bench_blur: bench/blur.c bench/bench_util.h bench/peers/peers.h $(BUILD)/mgpu.o \
                     $(BUILD)/peers/npp_blur.o $(BUILD)/blur_variants.fatbin | $(BUILD)
	@$(if $(NPP_OK),true,echo "note: no NPP peer (nvcc: $(or $(HAVE_NVCC),missing); NPP headers: $(or $(NPP_INCDIR),not found); libnppif: $(or $(NPP_LIBDIR),not found); NPP_HOME=$(NPP_HOME)): bench_blur measures mgpu and the copy only")
	$(CC) $(CFLAGS) $(WARN) -std=c99 $(BENCH_CFLAGS) -I. -o $@ $< $(BUILD)/mgpu.o \
	  $(BUILD)/peers/npp_blur.o $(LIBS) -lm $(BENCH_LIBS) $(CUDART_LIBS) $(NPP_LIBS)


# bench_bn_field: mgpu's BN254 field multiply, square and mixed addition (the MSM section's
# code, build/msm_section.cu) in small kernels on the CUDA runtime, for ARCH; needs nvcc.
$(BUILD)/bench_bn_field: bench/bn_field.cu bench/bn_field_fp64.h bench/msm_bench.cuh $(BUILD)/msm_section.cu $(BUILD)/peers/bn_field.cfg | $(BUILD)
	$(NVCC) -O3 -std=c++17 -arch=$(PEER_ARCH) -I$(BUILD) -o $@ $<
ifneq ($(HAVE_NVCC),)
bench: $(BUILD)/bench_bn_field
endif

# bench_curve_affine: the other MSM groups' mixed additions against affine sums with a batched
# inversion (the MSM section's code) in small kernels on the CUDA runtime, for ARCH; needs nvcc.
$(BUILD)/bench_curve_affine: bench/curve_affine.cu bench/msm_bench.cuh $(BUILD)/msm_section.cu | $(BUILD)
	$(NVCC) -O3 -std=c++17 -arch=$(PEER_ARCH) -I$(BUILD) -o $@ $<
ifneq ($(HAVE_NVCC),)
bench: $(BUILD)/bench_curve_affine
endif

# bench_imma_rate: the rate and latency of the int8 tensor-core product of the 8-bit blur
# kernels (mma.sync m16n8k32), CUDA runtime, sm_80 and later; needs nvcc. For sm_90 it is
# built for sm_90a, and also times Hopper's warpgroup product (wgmma) at several shapes
# (with compute_90 PTX beside it, without the wgmma code, for later GPUs).
$(BUILD)/bench_imma_rate: bench/imma_rate.cu | $(BUILD)
	$(NVCC) -O3 -std=c++17 $(if $(filter sm_90,$(PEER_ARCH)),-gencode arch=compute_90a$(comma)code=sm_90a -gencode arch=compute_90$(comma)code=compute_90 -DMGPU_WGMMA,-arch=$(if $(filter sm_7%,$(PEER_ARCH)),sm_80,$(PEER_ARCH))) -o $@ $<
ifneq ($(HAVE_NVCC),)
bench: $(BUILD)/bench_imma_rate
endif

# bench_image_copy: copies between a CUDA array (surface object) and pitch-linear memory in
# the thread layouts of the image copy kernels, against cudaMemcpy2D (docs/interop.md section
# 7), CUDA runtime; needs nvcc.
$(BUILD)/bench_image_copy: bench/image_copy.cu | $(BUILD)
	$(NVCC) -O3 -std=c++17 -arch=$(if $(filter sm_7%,$(PEER_ARCH)),sm_80,$(PEER_ARCH)) -o $@ $<
ifneq ($(HAVE_NVCC),)
bench: $(BUILD)/bench_image_copy
endif
# bench_image_blur: the 8-bit one-pass image kernel (mgpu_kernels.cu's imgpipe) and its in-place
# frame against the copy path and the buffer blur on surface arrays, every result checked
# against a CPU blur (docs/interop.md section 7); `bench_image_blur surftest` first, then
# `bench_image_blur sop16`. CUDA runtime; needs nvcc.
$(BUILD)/bench_image_blur: bench/image_blur.cu $(BUILD)/blur_section.cu | $(BUILD)
	$(NVCC) -O3 -std=c++17 -arch=$(if $(filter sm_7%,$(PEER_ARCH)),sm_80,$(PEER_ARCH)) -I$(BUILD) -o $@ $<
ifneq ($(HAVE_NVCC),)
bench: $(BUILD)/bench_image_blur
endif

$(BUILD)/bench_reduce: bench/reduce.c bench/bench_util.h bench/peers/peers.h $(BUILD)/mgpu.o \
                       $(BUILD)/peers/cub_reduce.o | $(BUILD)
	$(CC) $(CFLAGS) $(WARN) -std=c99 $(BENCH_CFLAGS) -I. -o $@ $< $(BUILD)/mgpu.o \
	  $(BUILD)/peers/cub_reduce.o $(LIBS) -lm $(BENCH_LIBS) $(CUDART_LIBS)
$(BUILD)/bench_collectives: bench/collectives.c bench/bench_util.h bench/peers/peers.h $(BUILD)/mgpu.o \
                            $(BUILD)/peers/nccl_peer.o | $(BUILD)
	@$(if $(NCCL_OK),true,echo "note: no NCCL peer (nvcc: $(or $(HAVE_NVCC),missing); nccl.h: $(or $(NCCL_INCDIR),not found); libnccl: $(or $(NCCL_LIBDIR),not found); NCCL_HOME=$(NCCL_HOME)): bench_collectives measures mgpu only")
	$(CC) $(CFLAGS) $(WARN) -std=c99 $(BENCH_CFLAGS) -I. -o $@ $< $(BUILD)/mgpu.o \
	  $(BUILD)/peers/nccl_peer.o $(LIBS) -lm $(BENCH_LIBS) $(CUDART_LIBS) $(NCCL_LIBS)

clean:
	rm -rf $(BUILD)
