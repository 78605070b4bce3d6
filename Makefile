# flysim: the two commands of README.md, and their parts.
#   make run    install missing packages, build flysim (Release), run the canonical experiment
#   make test   install missing packages, build everything, run the whole test suite
#   make python install missing packages, build the Python module flysim (build/python)
#   make test-sanitize   the unit and actor tests under ASan+UBSan, the CPU pool's and the
#                        deterministic actor tests under TSan (make test-asan, make test-tsan;
#                        CI runs it after make test)
# ARGS="--key=value ..." passes options to `flysim run`.
BUILD ?= build
JOBS ?= $(shell nproc)
# The CUDA engine is compiled whenever nvcc is found (tests of it skip without a GPU),
# for the GPUs present (nvidia-smi's compute capabilities, e.g. 90-real), else for the
# list below; CUDA_ARCHS="86-real;90-real" overrides both.
NVCC := $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
GPU_ARCHS := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -E '^[0-9]+\.[0-9]+$$' | tr -d . | sort -u | sed 's/$$/-real/' | paste -sd';')
CUDA_ARCHS ?= $(if $(GPU_ARCHS),$(GPU_ARCHS),75-real;80-real;86-real;89-real;90-real;90-virtual)
ifneq ($(NVCC),)
  CUDA_FLAGS := -DFLYSIM_CUDA=ON -DCMAKE_CUDA_COMPILER=$(NVCC) "-DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHS)"
endif
CMAKE_ARGS ?=

.PHONY: setup configure build python run test bench bench-checkpoint bench-plasticity bench-service watch bench-page bench-brian2 bench-dense bench-workers bench-compare bench-cpu-engine bench-cuda-floor fuzz clean test-sanitize test-asan test-tsan

setup:
	bash scripts/setup.sh

configure: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CUDA_FLAGS) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# The Python module alone (python/): PYTHONPATH=$(BUILD)/python python3 -c "import flysim".
python: configure
	cmake --build $(BUILD) -j$(JOBS) --target python

run: configure
	cmake --build $(BUILD) -j$(JOBS) --target flysim
	$(BUILD)/flysim run $(ARGS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: build
	bash bench/bench.sh $(BUILD)/flysim

bench-checkpoint: build
	bash bench/bench_checkpoint.sh $(BUILD)/flysim

bench-plasticity: build
	bash bench/bench_plasticity.sh $(BUILD)/flysim

bench-service: build
	bash bench/bench_service.sh $(BUILD)/flysim

# A paced service for DURATION seconds (default 180) with checkpoints, swaps and stimulus
# changes; its replay must give the same spikes (bench/watch.sh; ENGINE=cuda on a GPU).
watch: build
	bash bench/watch.sh $(BUILD)/flysim $(DURATION)

bench-page: build
	bash bench/bench_page.sh $(BUILD)/flysim

# Brian2 C++ standalone beside flysim on the same FlyWire-scale network and kicks.
bench-brian2: build
	bash bench/bench_brian2.sh $(BUILD)/flysim

# Where most of the brain fires: dense kicks against Brian2 (CPU), dense Poisson and kicks on a GPU.
bench-dense: build
	bash bench/bench_dense.sh $(BUILD)/flysim

# A screen on this process and on 1, 2, 3 local `flysim worker` processes, files compared.
bench-workers: build
	bash bench/bench_workers.sh $(BUILD)/flysim

# Two builds interleaved, run by run; their spike files must match: OLD=PATH/TO/flysim.
bench-compare: build
	@test -n "$(OLD)" || { echo "usage: make bench-compare OLD=PATH/TO/OLD/flysim" >&2; exit 2; }
	bash bench/bench_compare.sh $(OLD) $(BUILD)/flysim 1 2

# The CPU engine alone, with hashes of its spikes and final state.
bench-cpu-engine: build
	$(BUILD)/flysim_cpu_bench --threads=1 --repeat=5

# What a CUDA epoch's launch structure costs by itself (needs nvcc and a GPU).
bench-cuda-floor: build
	@test -x $(BUILD)/flysim_cuda_floor_bench || { echo "bench-cuda-floor: this build has no CUDA (nvcc was not found)" >&2; exit 2; }
	$(BUILD)/flysim_cuda_floor_bench

fuzz: build
	bash bench/fuzz.sh $(BUILD)

# Sanitized builds (C++ only; ccache where there is one) of the unit and actor test
# binaries and the libraries they link, no flysim program; -O1 with line tables: half
# the compile time of -O2 -g, which UBSan's checks make slow. Their tests run through
# ctest, the wall-clock ones left out (a sanitizer's slowdown is not the code's).
# allocator_may_return_null: tests that cap allocations expect std::bad_alloc.
SANITIZE_CMAKE = -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DFLYSIM_CUDA=OFF -DFLYSIM_PYTHON=OFF \
  $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
SANITIZE_JOBS ?= 2
SANITIZE_TARGETS = flysim_unit_tests flysim_actor_tests
# What each runs, as ctest regular expressions: ASan+UBSan the unit and actor labels; TSan
# the tests of the CPU engine's threads and the actor tests on CAF's deterministic
# scheduler. Actors on a threaded actor system are left out of TSan: Debian's CAF is not
# built with it, so TSan cannot see its mailboxes order a message after its making and
# reports each hand-off (tests/README.md, "Sanitizers").
ASAN_LABELS ?= ^(unit|actors)$$
TSAN_TESTS ?= ^(CpuPool|ThreadPool|SpinBarrier|EngineIdentity|SilenceAndGroups|StimulusChange|FaultInjectingEngine|SimLoopActor|ScreenSlots|ScreenEngines|EngineGroup)\.

test-sanitize: test-asan test-tsan

test-asan: setup
	cmake -S . -B build-asan -DFLYSIM_SANITIZE=address,undefined $(SANITIZE_CMAKE) $(CMAKE_ARGS)
	cmake --build build-asan -j$(SANITIZE_JOBS) --target $(SANITIZE_TARGETS)
	cd build-asan && ASAN_OPTIONS=halt_on_error=1:print_stacktrace=1:allocator_may_return_null=1 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure -j$(SANITIZE_JOBS) -L '$(ASAN_LABELS)' -LE wallclock

# tests/tsan.supp silences reports inside CAF's own (uninstrumented) library only.
test-tsan: setup
	cmake -S . -B build-tsan -DFLYSIM_SANITIZE=thread $(SANITIZE_CMAKE) $(CMAKE_ARGS)
	cmake --build build-tsan -j$(SANITIZE_JOBS) --target $(SANITIZE_TARGETS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp \
	  ctest --output-on-failure -j$(SANITIZE_JOBS) -R '$(TSAN_TESTS)' -LE wallclock

clean:
	rm -rf $(BUILD)
