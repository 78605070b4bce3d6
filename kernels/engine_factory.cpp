#include "kernels/engine_factory.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "kernels/cpu/cpu_engine.hpp"
#include "model/errors.hpp"
#if FLYSIM_HAVE_CUDA
#include "kernels/cuda/cuda_engine.hpp"
#endif

namespace flysim {

std::string to_string(EngineKind kind) { return kind == EngineKind::cpu ? "cpu" : "cuda"; }

bool cuda_compiled_in() { return FLYSIM_HAVE_CUDA != 0; }

CudaProbe probe_cuda_backend(int device) {
#if FLYSIM_HAVE_CUDA
  return probe_cuda(device);
#else
  CudaProbe probe;
  probe.device = device;
  probe.problem = "this flysim was built without CUDA: rebuild with -DFLYSIM_CUDA=ON (make does so when nvcc is installed)";
  return probe;
#endif
}

namespace {
// Bytes one trial of a batch takes beyond the shared network, as the engines allocate
// them: CpuTrial's ring (int64 per slot and neuron) and per-neuron arrays (the active
// list at its largest included); the CUDA engine's ring, cell spike list (12 bytes per
// slot and neuron) and per-neuron arrays.
std::size_t bytes_per_trial(EngineKind kind, std::size_t neurons, int32_t delay_steps) {
  const auto d = static_cast<std::size_t>(delay_steps);
  return kind == EngineKind::cpu ? neurons * (8 * d + 4 + 1 + 4 + 4 + 32) : neurons * (8 * d + 12 * d + 8 + 8 + 4 + 4 + 4);
}

// The host's MemAvailable (free memory and what the kernel can reclaim), else its free pages.
std::size_t host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  while (meminfo >> key >> kib)
    if (key == "MemAvailable:") return kib * 1024;
    else meminfo.ignore(256, '\n');
  return static_cast<std::size_t>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::size_t free_memory_bytes(EngineWhere where) {
  if (where.kind == EngineKind::cuda) return probe_cuda_backend(where.cuda_device).free_memory_bytes;
  return host_available_bytes();
}

// The most trials the memory of `where` holds, before any cap on parallelism.
std::size_t trials_in_memory(EngineWhere where, std::size_t neurons, int32_t delay_steps) {
  const std::size_t per_trial = std::max<std::size_t>(1, bytes_per_trial(where.kind, neurons, delay_steps));
  std::size_t fits = free_memory_bytes(where) / 2 / per_trial;
  if (where.kind == EngineKind::cuda) {
    const std::size_t cell = std::max<std::size_t>(1, neurons * static_cast<std::size_t>(delay_steps));
    fits = std::min(fits, ((std::size_t{1} << 32) - 1) / cell);
  }
  return fits;
}

std::unique_ptr<Engine> make_backend(EngineKind kind, EngineSetup setup, unsigned threads) {
  if (kind == EngineKind::cpu) return std::make_unique<CpuEngine>(std::move(setup), threads);
#if FLYSIM_HAVE_CUDA
  return make_cuda_engine(std::move(setup));
#else
  throw input_error(
      "the CUDA engine is asked for, but this flysim was built without CUDA: rebuild with -DFLYSIM_CUDA=ON "
      "(see README.md), or use the CPU engine");
#endif
}
}  // namespace

int32_t batch_that_fits(EngineWhere where, std::size_t neurons, int32_t delay_steps) {
  std::size_t fits = trials_in_memory(where, neurons, delay_steps);
  if (where.kind == EngineKind::cpu && where.cpu_threads > 0) fits = std::min<std::size_t>(fits, where.cpu_threads);
  return static_cast<int32_t>(std::clamp<std::size_t>(fits, 1, 1000000));
}

int32_t batch_that_fits_beside(EngineWhere where, std::size_t neurons, int32_t delay_steps, int32_t engines) {
  return std::max(1, batch_that_fits(where, neurons, delay_steps) / std::max(1, engines));
}

std::string batch_beyond_memory(EngineWhere where, std::size_t neurons, int32_t delay_steps, int64_t batch) {
  const std::size_t fits = std::max<std::size_t>(1, trials_in_memory(where, neurons, delay_steps));
  if (batch <= 0 || static_cast<std::size_t>(batch) <= fits) return "";
  const double per_trial_mib = static_cast<double>(bytes_per_trial(where.kind, neurons, delay_steps)) / (1 << 20);
  return fmt::format("a batch of {} trials of {} neurons needs {:.0f} MiB ({:.2f} MiB a trial); the {} has {:.0f} MiB free, "
                     "of which a batch may take half: at most {} trials",
                     batch, neurons, per_trial_mib * static_cast<double>(batch), per_trial_mib,
                     where.kind == EngineKind::cuda ? "CUDA device" : "host",
                     static_cast<double>(free_memory_bytes(where)) / (1 << 20), fits);
}

std::unique_ptr<Engine> make_engine(EngineKind kind, EngineSetup setup, unsigned threads, EngineFault fault) {
  std::unique_ptr<Engine> engine = make_backend(kind, std::move(setup), threads);
  if (fault.after_epochs == 0) return engine;
  return std::make_unique<FaultInjectingEngine>(std::move(engine), fault.after_epochs, fault.export_fails);
}

}  // namespace flysim
