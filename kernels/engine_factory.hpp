#pragma once
// The one place that chooses a backend (Arbor's habit): the only FLYSIM_HAVE_CUDA #if.
#include <memory>
#include <string>

#include "kernels/cuda/cuda_probe.hpp"
#include "kernels/engine.hpp"
#include "kernels/fault_injecting_engine.hpp"
#include "host/engine_limits.hpp"

namespace flysim {

enum class EngineKind { cpu, cuda };

std::string to_string(EngineKind kind);

// True when this binary was built with FLYSIM_CUDA=ON.
bool cuda_compiled_in();

// What the CUDA backend finds on this machine for `device`; without CUDA compiled in, a
// probe whose problem says so.
CudaProbe probe_cuda_backend(int device);

// Builds an engine holding the resting state of trial 0. `threads` sizes the CPU pool.
// Throws input_error when cuda is asked for and cannot be had, saying why and what to do.
// With fault.after_epochs > 0 the engine is wrapped in a FaultInjectingEngine that fails
// then (tests of the fallback from a failed engine; kernels/fault_injecting_engine.hpp).
std::unique_ptr<Engine> make_engine(EngineKind kind, EngineSetup setup, unsigned threads, EngineFault fault = {});

// The most trials one engine should hold for a network of `neurons` neurons:
// what fits in half the memory free now (the host's, or the CUDA device's), within the
// CUDA engine's 32-bit count of a cell's spikes; for the CPU pool at most one trial per
// thread; at least 1 (run.batch=auto). Why one per thread: the pool runs each trial of
// a batch on one worker, so more trials than workers add no parallelism, only state to
// sweep through each epoch (docs/BENCHMARKS.md, "Batched trials").
struct EngineWhere {
  EngineKind kind = EngineKind::cpu;
  int cuda_device = 0;       // for EngineKind::cuda
  unsigned cpu_threads = 0;  // for EngineKind::cpu: the pool's threads (0: not given, no cap)
};
int32_t batch_that_fits(EngineWhere where, std::size_t neurons, int32_t delay_steps);
// Each one's part of batch_that_fits when `engines` engines share the device (at least 1).
int32_t batch_that_fits_beside(EngineWhere where, std::size_t neurons, int32_t delay_steps, int32_t engines);

// The memory a batch of `batch` trials would take on `where`, if it lies beyond what
// batch_that_fits may fill (half the free memory, the CUDA count limit): the message
// says how much it needs and how much there is. Empty when the batch fits.
std::string batch_beyond_memory(EngineWhere where, std::size_t neurons, int32_t delay_steps, int64_t batch);

}  // namespace flysim
