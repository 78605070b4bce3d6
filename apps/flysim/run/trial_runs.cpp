#include "apps/flysim/run/trial_runs.hpp"

#include <algorithm>

#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/cuda_devices_option.hpp"

namespace flysim::app {

std::vector<OptionSpec> trial_run_options(const std::vector<OptionSpec>& own) {
  const std::vector<std::string> kept_prefixes = {"network.", "stimulus.", "model.", "run.duration-ms",
                                                  "run.trials", "run.batch", "run.seed", "engine.kind", "engine.cuda-device", "engine.threads",
                                                  "log."};
  std::vector<OptionSpec> specs;
  for (OptionSpec spec : run_options()) {
    if (!starts_with_any(spec.key, kept_prefixes))
      continue;
    // A screen and a worker add these themselves (their engines run experiments).
    if (spec.key == kCudaDevicesKey || spec.key == kPerDeviceKey) continue;
    if (spec.key == "run.trials") spec.default_value = "30";
    if (spec.key == "run.duration-ms") spec.help = "simulated time per trial, ms";
    specs.push_back(spec);
  }
  specs.insert(specs.end() - static_cast<std::ptrdiff_t>(log_options().size()), own.begin(), own.end());
  return specs;
}

}  // namespace flysim::app
