#include "apps/flysim/screen/screen_engines.hpp"
#include "apps/flysim/run/device_engines.hpp"

namespace flysim::app {

ScreenEngines screen_engines(const Options& o, const std::vector<int>& devices, EngineKind kind, const EngineBuilder& builder,
                             const TrialBatches& plan, const ScreenRun& first) {
  return ScreenEngines(engines_on_devices(o, devices, kind, builder, plan.batch, plan.neurons, plan.delay_steps,
                                          std::make_shared<const StimulusPlan>(first.plan), first.rate_Hz));
}

}  // namespace flysim::app
