#include "apps/flysim/commands/trial_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "apps/flysim/options/batch_option.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/process/stop_signal.hpp"

namespace flysim::app {

std::vector<OptionSpec> trial_run_options(const std::vector<OptionSpec>& own) {
  const std::vector<std::string> kept_prefixes = {"network.", "stimulus.", "model.", "run.duration-ms",
                                                  "run.trials", "run.batch", "run.seed", "engine.kind", "engine.cuda-device", "engine.threads",
                                                  "log."};
  std::vector<OptionSpec> specs;
  for (OptionSpec spec : run_options()) {
    if (std::none_of(kept_prefixes.begin(), kept_prefixes.end(), [&](const std::string& p) { return spec.key.rfind(p, 0) == 0; }))
      continue;
    if (spec.key == "run.trials") spec.default_value = "30";
    if (spec.key == "run.duration-ms") spec.help = "simulated time per trial, ms";
    specs.push_back(spec);
  }
  specs.insert(specs.end() - static_cast<std::ptrdiff_t>(log_options().size()), own.begin(), own.end());
  return specs;
}

TrialRunSetup trial_run_setup(const Options& o) {
  TrialRunSetup s;
  const int64_t trials = o.integer("run.trials");
  if (trials < 1 || trials > 1000000) o.reject("run.trials", "must be 1..1000000");
  s.trials = static_cast<int32_t>(trials);
  if (o.integer("run.seed") < 0) o.reject("run.seed", "must not be negative");
  const int64_t threads = o.integer("engine.threads");
  if (threads < 1 || threads > 1024) o.reject("engine.threads", "must be 1..1024");
  s.threads = static_cast<unsigned>(threads);
  s.params = model_params(o);
  s.constants = constants_from_options(s.params);
  char* duration_end = nullptr;
  const std::string& duration_text = o.text("run.duration-ms");
  s.duration_ms = std::strtod(duration_text.c_str(), &duration_end);
  const double dt_ms = s.params.dt_ms;
  if (duration_text.empty() || *duration_end != '\0' || !(s.duration_ms >= dt_ms) ||
      s.duration_ms > static_cast<double>(kMaxRunSteps) * dt_ms)
    o.reject("run.duration-ms", fmt::format("must be a number of ms in {}..{}", dt_ms, static_cast<double>(kMaxRunSteps) * dt_ms));
  s.kind = engine_kind(o);
  s.device = cuda_device(o);
  return s;
}

double trial_seconds(const TrialRunSetup& s) {
  return duration_to_steps(s.duration_ms, s.params.dt_ms) * s.params.dt_ms * 1e-3;
}

TrialBatches trial_batches(const Options& o, const TrialRunSetup& s, std::size_t neurons) {
  TrialBatches plan;
  plan.trials = s.trials;
  plan.steps_per_trial = duration_to_steps(s.duration_ms, s.params.dt_ms);
  plan.delay_steps = s.constants.delay_steps;
  plan.neurons = neurons;
  plan.batch = batch_option(o, plan.trials, {s.kind, s.device, s.threads}, plan.neurons, plan.delay_steps, "", false);
  return plan;
}

std::unique_ptr<Engine> make_trial_engine(const TrialRunSetup& s, const TrialBatches& plan,
                                          std::shared_ptr<const Network> net, std::shared_ptr<const StimulusPlan> stimulus,
                                          uint32_t poisson_threshold) {
  EngineSetup setup{std::move(net), std::move(stimulus), s.constants, nullptr, HostWait::poll, s.device, plan.batch};
  setup.constants.poisson_threshold = poisson_threshold;
  return make_engine(s.kind, setup, s.threads);
}

std::shared_ptr<const Network> load_network_into(const Options& o, const std::string& dir_key) {
  std::error_code ec;
  std::filesystem::create_directories(o.text(dir_key), ec);
  if (ec) o.reject(dir_key, "cannot be created: " + ec.message());
  return obtain_network(network_source(o), [](const std::string& line) {
    throw_if_stopped("loading the network");
    spdlog::info("{}", line);
  });
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
