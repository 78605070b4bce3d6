#include "apps/flysim/run/device_engines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <map>

#include "apps/flysim/options/batch_option.hpp"
#include "apps/flysim/options/cuda_devices_option.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {
// Each device once, with the number of engines on it: a device's memory is asked once.
std::map<int, int32_t> engines_per_device(const std::vector<int>& devices) {
  std::map<int, int32_t> count;
  for (int d : devices) ++count[d];
  return count;
}
}  // namespace

int32_t batch_beside_engines(const Options& o, EngineKind kind, const std::vector<int>& devices, int32_t batch,
                             std::size_t neurons, int32_t delay_steps) {
  if (kind != EngineKind::cuda || !batch_is_auto(o)) return batch;
  for (const auto& [d, k] : engines_per_device(devices))
    batch = std::min(batch, batch_that_fits_beside({EngineKind::cuda, d, 0}, neurons, delay_steps, k));
  return batch;
}

std::vector<std::unique_ptr<Engine>> engines_on_devices(const Options& o, const std::vector<int>& devices, EngineKind kind,
                                                        const EngineBuilder& builder, int32_t batch, std::size_t neurons,
                                                        int32_t delay_steps, std::shared_ptr<const StimulusPlan> stimulus,
                                                        double rate_Hz, EngineFault first_fault) {
  if (kind == EngineKind::cuda)
    for (const auto& [d, k] : engines_per_device(devices)) {
      // A device that cannot run the engine says why before any question of its memory.
      if (const CudaProbe probe = probe_cuda_backend(d); !probe.problem.empty()) throw input_error(cuda_cannot_run(probe));
      const std::string beyond = batch_beyond_memory({EngineKind::cuda, d, 0}, neurons, delay_steps, int64_t{batch} * k);
      if (!beyond.empty())
        o.reject(k > 1 ? kPerDeviceKey : kCudaDevicesKey,
                 fmt::format("puts {} engine(s) of {} trials on device {}: {}", k, batch, d, beyond));
    }
  std::vector<std::future<std::unique_ptr<Engine>>> building;
  for (std::size_t j = 0; j < devices.size(); ++j)
    building.push_back(std::async(std::launch::async, [&, j] {
      return builder.on_device(devices[j]).with_batch(batch).make(kind, 0, stimulus, rate_Hz, j == 0 ? first_fault : EngineFault{});
    }));
  std::vector<std::unique_ptr<Engine>> engines;
  for (auto& engine : building) engines.push_back(engine.get());
  return engines;
}

}  // namespace flysim::app
