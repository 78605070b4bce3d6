#include "apps/flysim/commands/trial_runs.hpp"

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
    if (std::none_of(kept_prefixes.begin(), kept_prefixes.end(), [&](const std::string& p) { return spec.key.rfind(p, 0) == 0; }))
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

std::vector<uint32_t> readout_indices(const Options& o, const std::string& key, const Network& net,
                                      const std::vector<int64_t>& ids) {
  std::vector<uint32_t> indices;
  for (const int64_t id : ids) {
    const auto found = std::find(net.root_ids.begin(), net.root_ids.end(), id);
    if (found == net.root_ids.end()) o.reject(key, "names " + std::to_string(id) + ", which is not a neuron of the network");
    indices.push_back(static_cast<uint32_t>(found - net.root_ids.begin()));
  }
  return indices;
}

}  // namespace flysim::app
