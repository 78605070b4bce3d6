#include <fmt/format.h>

#include <algorithm>
#include <future>

#include "apps/flysim/commands/screen_engines.hpp"

namespace flysim::app {

int32_t batch_beside_engines(const Options& o, const std::vector<int>& devices, const TrialBatches& plan) {
  if (o.text("run.batch") != "auto") return plan.batch;
  int32_t batch = plan.batch;
  for (int d : devices) {
    const auto k = static_cast<int32_t>(std::count(devices.begin(), devices.end(), d));
    if (k > 1)
      batch = std::min(batch, std::max(1, batch_that_fits({EngineKind::cuda, d, 0}, plan.neurons, plan.delay_steps) / k));
  }
  return batch;
}

ScreenEngines screen_engines(const Options& o, const std::vector<int>& devices, EngineKind kind, const EngineBuilder& builder,
                             const TrialBatches& plan, const ScreenRun& first) {
  for (int d : devices) {
    const auto k = std::count(devices.begin(), devices.end(), d);
    if (k < 2) continue;
    const std::string beyond = batch_beyond_memory({EngineKind::cuda, d, 0}, plan.neurons, plan.delay_steps, int64_t{plan.batch} * k);
    if (!beyond.empty())
      o.reject("engine.per-device", fmt::format("puts {} engines of {} trials on device {}: {}", k, plan.batch, d, beyond));
  }
  const auto stimulus = std::make_shared<const StimulusPlan>(first.plan);
  // Built side by side: a CUDA engine's buffers and warm-up take a while each.
  std::vector<std::future<std::unique_ptr<Engine>>> building;
  for (int d : devices)
    building.push_back(std::async(std::launch::async, [&, d] { return builder.on_device(d).make(kind, 0, stimulus, first.rate_Hz); }));
  std::vector<std::unique_ptr<Engine>> engines;
  for (auto& engine : building) engines.push_back(engine.get());
  return ScreenEngines(std::move(engines));
}

}  // namespace flysim::app
