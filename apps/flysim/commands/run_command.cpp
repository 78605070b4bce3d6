// flysim run: load the network and stimulus, start the actors, run, summarize.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "actors/caf_thread_roles.hpp"
#include "actors/checkpointer.hpp"
#include "actors/engine_actor.hpp"
#include "actors/recorder.hpp"
#include "actors/sim_loop.hpp"
#include "apps/flysim/options/batch_option.hpp"
#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "actors/control.hpp"
#include "apps/flysim/options/control_options.hpp"
#include "apps/flysim/service/control_server.hpp"
#include "apps/flysim/service/cost_table.hpp"
#include "apps/flysim/process/file_roles.hpp"
#include "apps/flysim/process/owned_files.hpp"
#include "apps/flysim/remote/network_layer.hpp"
#include "apps/flysim/options/plasticity_options.hpp"
#include "apps/flysim/options/readout_option.hpp"
#include "apps/flysim/options/realtime_options.hpp"
#include "apps/flysim/service/replay_journal.hpp"
#include "apps/flysim/commands/run_summary.hpp"
#include "apps/flysim/remote/shard_placement.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "kernels/engine_factory.hpp"
#include "kernels/version.hpp"
#include "model/errors.hpp"
#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/snapshot_check.hpp"
#include "model/lif_params.hpp"
#include "io/journal.hpp"
#include "io/weights_file.hpp"
#include "model/shard_setup.hpp"

namespace flysim::app {

namespace {

// The live page's window (model/ACTIVITY.md): 20 ms bins, the newest 10 s of them.
constexpr double kActivityBinMs = 20.0;
constexpr std::size_t kActivityBins = 500;


// Everything a run is made from, whether it starts from rest or from a checkpoint.
struct RunInputs {
  LifParams params;
  LifConstants constants;
  std::shared_ptr<const Network> network;
  TrialPlan trial_plan;
  std::optional<Snapshot> restored;
  std::string compatibility;
};

// The network, logging its progress; a stop signal abandons the loading. A presynaptic
// neuron with both signs is legal for the model but unusual in FlyWire data: warned.
std::shared_ptr<const Network> load_network(const Options& o) {
  auto net = obtain_network(network_source(o), [](const std::string& line) {
    throw_if_stopped("loading the network");
    spdlog::info("{}", line);
  });
  throw_if_stopped("loading the network");
  if (const std::vector<uint32_t> mixed = mixed_sign_neurons(*net); !mixed.empty())
    spdlog::warn("network: neuron {} (index {}) has both excitatory and inhibitory connections{}; the model allows it, "
                 "but a FlyWire neuron has one transmitter: check the connectivity file",
                 net->root_ids[mixed.front()], mixed.front(),
                 mixed.size() > 1 ? fmt::format(", and so do {} other neurons", mixed.size() - 1) : std::string());
  return net;
}

// run.duration-ms in steps: 1..kMaxRunSteps, said in ms for this dt; 'forever' is the
// longest trial there is.
int32_t trial_steps(const Options& o, double dt_ms) {
  if (o.text("run.duration-ms") == "forever") return static_cast<int32_t>(kMaxRunSteps);
  double duration_ms = 0;
  const std::string& text = o.text("run.duration-ms");
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), duration_ms);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    o.reject("run.duration-ms", "is neither a number of ms nor 'forever'");
  const double max_ms = static_cast<double>(kMaxRunSteps) * dt_ms;
  if (!(duration_ms >= dt_ms) || duration_ms > max_ms)
    o.reject("run.duration-ms", fmt::format("must lie in {}..{} ms (1 to 2^29 steps of model.dt-ms={} ms)", dt_ms, max_ms, dt_ms));
  return duration_to_steps(duration_ms, dt_ms);
}

RunInputs fresh_inputs(const Options& o) {
  RunInputs in;
  const int64_t trials = o.integer("run.trials");
  if (trials < 1 || trials > kMaxTrials) o.reject("run.trials", "must be 1.." + std::to_string(kMaxTrials));
  if (o.text("run.duration-ms") == "forever" && trials != 1) o.reject("run.trials", "must be 1 when run.duration-ms=forever");
  if (o.integer("run.seed") < 0) o.reject("run.seed", "must not be negative");
  in.params = model_params(o);
  in.constants = constants_from_options(in.params);
  const int32_t steps = trial_steps(o, in.params.dt_ms);
  in.network = load_network(o);
  in.trial_plan = TrialPlan{static_cast<int32_t>(trials), static_cast<int32_t>(steps), in.params.r_poi_Hz, stimulus_plan(o, *in.network)};
  const auto& kicks = in.trial_plan.stimulus.kicks;
  if (const auto late = std::count_if(kicks.begin(), kicks.end(), [&](const Kick& k) { return k.step >= steps; }); late > 0)
    spdlog::warn("{}: {} kicks at step {} or later fall after the end of a trial ({} steps) and do nothing",
                 o.text("stimulus.kicks"), late, steps, steps);
  in.compatibility = compatibility_string(in.constants, in.network->content_hash());
  return in;
}

// Silencing and groups given with --restore must be the checkpoint's: a restored run
// cannot change who is silenced or driven, and saying otherwise is an error, not a warning.
void refuse_other_condition(const Options& o, const Network& net, const StimulusPlan& saved, const std::string& path) {
  const bool silence_given = o.given("stimulus.silence") || o.given("stimulus.silence-mode");
  const bool groups_given = !poisson_group_names(o).empty();
  if (!silence_given && !groups_given) return;
  const StimulusPlan asked = stimulus_plan(o, net);
  if (silence_given && (asked.silenced != saved.silenced || asked.silence_mode != saved.silence_mode))
    throw input_error("option stimulus.silence" + std::string(o.given("stimulus.silence") ? "='" + o.text("stimulus.silence") + "'" : "") +
                      " (mode " + silence_mode_name(asked.silence_mode) + ", " + std::to_string(asked.silenced.size()) +
                      " neurons) differs from what " + path + " silences (mode " + silence_mode_name(saved.silence_mode) +
                      ", " + std::to_string(saved.silenced.size()) + " neurons): a restored run keeps its checkpoint's silenced set");
  if (groups_given && asked.groups != saved.groups)
    throw input_error("options stimulus.group.* differ from the Poisson groups of " + path +
                      ": a restored run keeps its checkpoint's groups");
}

// A restored run continues its checkpoint's plan (trials, duration, stimulus); the
// network and model parameters come from the options and must match the checkpoint.
RunInputs restored_inputs(const Options& o) {
  RunInputs in;
  const std::string path = o.text("restore");
  CheckpointHeader header;
  Snapshot snapshot = load_checkpoint_unchecked(path, &header);
  for (const char* key : {"run.duration-ms", "run.trials", "run.batch", "run.seed", "stimulus.ids", "stimulus.kicks", "stimulus.rate"})
    if (o.given(key)) spdlog::warn("{} is ignored: a restored run continues the plan of {}", key, path);
  in.params = model_params(o);
  in.params.r_poi_Hz = snapshot.plan.stimulus_rate_Hz;
  in.constants = constants_from_options(in.params);
  in.network = load_network(o);
  in.compatibility = compatibility_string(in.constants, in.network->content_hash());
  verify_identity(path, header, {in.compatibility, kKernelVersion, in.network->content_hash()});
  validate_snapshot(snapshot, in.network->neuron_count(), in.constants.delay_steps, path);
  refuse_other_condition(o, *in.network, snapshot.plan.stimulus, path);
  in.trial_plan = snapshot.plan;
  spdlog::info("restoring {}: trial {} step {} of {} trial(s) x {} steps", path, snapshot.engine.trial,
               snapshot.engine.next_step, in.trial_plan.trials, in.trial_plan.steps_per_trial);
  in.restored = std::move(snapshot);
  return in;
}

struct SwapRequest {
  double ms;
  EngineKind kind;
};

// "500:cuda,800:cpu" -> what is asked for (simulated ms since the start of the run).
// Checked before the network loads, so a typo costs no waiting.
std::vector<SwapRequest> swap_requests(const Options& o) {
  std::vector<SwapRequest> requests;
  const std::string text = o.text("run.swap-at");
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const std::size_t colon = item.find(':');
    double ms = 0;
    const std::string kind = colon == std::string::npos ? "" : item.substr(colon + 1);
    const std::string number = item.substr(0, colon);
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), ms);
    if (colon == std::string::npos || ec != std::errc() || end != number.data() + number.size() || !(ms > 0) ||
        (kind != "cpu" && kind != "cuda"))
      o.reject("run.swap-at", "has '" + item + "'; expected MS:cpu or MS:cuda items separated by commas, MS > 0");
    if (kind == "cuda") {
      const CudaProbe probe = probe_cuda_backend(cuda_device(o));
      if (!probe.problem.empty()) o.reject("run.swap-at", "asks for the cuda engine, which cannot run here: " + probe.problem);
    }
    requests.push_back({ms, kind == "cuda" ? EngineKind::cuda : EngineKind::cpu});
    pos = comma + 1;
  }
  return requests;
}

// Scripted swaps as commands at the first delay-cell boundary at or after each request:
// the path a live swap takes too.
std::vector<PlacedCommand> scripted_swaps(const std::vector<SwapRequest>& requests, const ScheduleGeometry& g) {
  std::vector<PlacedCommand> swaps;
  for (const SwapRequest& r : requests) {
    swaps.push_back({position_at_ms(r.ms, g, g.delay_steps), SwapCommand{to_string(r.kind), std::nullopt}});
  }
  std::stable_sort(swaps.begin(), swaps.end(), [](const PlacedCommand& a, const PlacedCommand& b) { return a.at < b.at; });
  for (const PlacedCommand& swap : swaps)
    if (!reached(swap.at, g))
      spdlog::warn("run.swap-at: the swap to {} at trial {} step {} lies outside what this run simulates; it will not happen",
                   std::get<SwapCommand>(swap.command).engine, swap.at.trial, swap.at.step);
  return swaps;
}

// What the shards start from: a fresh run's initial weights and empty traces, or a
// checkpoint's learned state (refused when its plasticity settings differ).
PlasticityState starting_plasticity(const RunInputs& in, const std::vector<uint64_t>& edges, const std::string& settings,
                                    int32_t period_steps, const std::string& path) {
  const std::size_t n = in.network->neuron_count();
  if (!in.restored) {
    PlasticityState fresh{settings, 0, empty_traces(n), empty_traces(n), {}};
    for (uint64_t e : edges) fresh.learned.push_back(in.network->out_weights[e]);
    return fresh;
  }
  const Snapshot& s = *in.restored;
  if (s.plasticity.settings.empty())
    throw input_error(path + " was written without plasticity; restore it without plasticity.enabled=true");
  if (s.plasticity.settings != settings)
    throw input_error(path + ": the checkpoint's plasticity settings differ from the plasticity.* options (only plasticity.shards, "
                      "plasticity.nodes and plasticity.weights-out may change):\n  checkpoint: " +
                      s.plasticity.settings + "\n  options:    " + settings);
  // Trace sizes and steps were checked with the rest of the snapshot (validate_snapshot).
  if (s.engine.next_step % period_steps != 0 || s.engine.plastic_weights.size() != edges.size() ||
      s.plasticity.learned.size() != edges.size())
    throw input_error(path + ": the checkpoint's plasticity state does not fit its settings (step " +
                      std::to_string(s.engine.next_step) + ", period " + std::to_string(period_steps) + " steps)");
  return s.plasticity;
}

// The weights learned before a checkpoint that the engine had not applied yet.
std::vector<WeightChange> unapplied_weights(const PlasticityState& learned, const std::vector<int32_t>& applied) {
  std::vector<WeightChange> changes;
  for (std::size_t p = 0; p < applied.size(); ++p)
    if (learned.learned[p] != applied[p]) changes.push_back({static_cast<uint32_t>(p), learned.learned[p]});
  return changes;
}

// run.pace: 'off' -> 0, 'realtime' -> 1, or a positive factor.
double pace_factor(const Options& o) {
  const std::string& text = o.text("run.pace");
  if (text == "off") return 0.0;
  if (text == "realtime") return 1.0;
  double factor = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (ec != std::errc() || end != text.data() + text.size() || !(factor > 0) || factor > 1e6)
    o.reject("run.pace", "must be off, realtime or simulated seconds per wall second (a number above 0)");
  return factor;
}

// The options a journal records: those the user set that decide what a run computes,
// and the duration (whose default differs between run and serve); nothing that only
// decides where it runs or where its outputs go. A replay adopts them.
std::map<std::string, std::string> journaled_options(const Options& o, const std::vector<OptionSpec>& specs) {
  const std::vector<std::string> prefixes = {"network.", "stimulus.", "model.", "run.duration-ms", "run.trials", "run.seed",
                                             "restore", "plasticity.enabled", "plasticity.connections", "plasticity.pre-ids",
                                             "plasticity.post-ids", "plasticity.a-", "plasticity.tau-", "plasticity.w-",
                                             "plasticity.period-ms"};
  std::map<std::string, std::string> recorded;
  for (const OptionSpec& spec : specs)
    for (const std::string& key : o.keys_of(spec))
      for (const std::string& prefix : prefixes)
        if (key.rfind(prefix, 0) == 0 && key != "network.cache" && key != "network.cache-dir" &&
            (o.given(key) || key == "run.duration-ms"))
          // Paths absolute: a replay may run from another folder.
          recorded[key] = spec.type == OptionType::path && !o.text(key).empty()
                              ? std::filesystem::absolute(o.text(key)).lexically_normal().string()
                              : o.text(key);
  return recorded;
}

// What may differ between a live run and its replay: outputs, logs, the engine, the
// cache, checkpoints and the pace.
const std::vector<std::string> kReplayOverridable = {"replay", "output.", "log.", "engine.", "network.cache", "checkpoint.",
                                                     "run.pace", "plasticity.shards", "plasticity.nodes", "plasticity.weights-out"};

// The options of a run: from the command line, or for --replay=JOURNAL the journal's
// with the command line's outputs; `replay` gets the journal.
Options parse_run_options(const std::vector<OptionSpec>& specs, const std::vector<std::string>& args,
                          std::optional<ReplayJournal>& replay) {
  const Options first = Options::parse(specs, args);
  if (first.text("replay").empty()) return first;
  const std::string path = first.text("replay");
  replay = read_replay_journal(path);
  const auto& commands = replay->commands;
  const bool stops = std::any_of(commands.begin(), commands.end(),
                                 [](const PlacedCommand& c) { return std::holds_alternative<StopCommand>(c.command); });
  if (!stops) spdlog::warn("{}: the journal has no stop: the replay runs to the end of the plan", path);
  return Options::parse(specs, args, replay->contents.options, path, kReplayOverridable);
}

// The options `flysim run` or `flysim serve` refuses before anything loads.
struct RunChecks {
  int64_t threads = 1, keep = 3;
  bool checkpointing = false;
  double pace = 0.0;
  int64_t fault_after_epochs = 0;
  int cuda_device = 0;
  std::vector<int64_t> readouts;  // output.readouts as given; checked against the network later
};

RunChecks check_run_options(const Options& o) {
  RunChecks c;
  c.threads = o.integer("engine.threads");
  if (c.threads < 1 || c.threads > 1024) o.reject("engine.threads", "must be 1..1024");
  require_writable(o, "output.spikes");
  require_writable(o, "output.rates");
  require_writable(o, "output.summary");
  require_writable(o, "output.journal");
  c.keep = o.integer("checkpoint.keep");
  if (c.keep < 1) o.reject("checkpoint.keep", "must be at least 1");
  const double checkpoint_every = o.number("checkpoint.every-ms");
  if (checkpoint_every < 0) o.reject("checkpoint.every-ms", "must not be negative (0 turns checkpoints off)");
  c.checkpointing = checkpoint_every != 0;
  c.pace = pace_factor(o);
  if (o.number("engine.fallback-every-ms") < 0) o.reject("engine.fallback-every-ms", "must not be negative (0: no fallback)");
  c.fault_after_epochs = o.integer("engine.fault-after-epochs");
  if (c.fault_after_epochs < 0) o.reject("engine.fault-after-epochs", "must not be negative (0: never)");
  c.cuda_device = cuda_device(o);
  c.readouts = readout_ids(o);
  return c;
}

}  // namespace

int run_or_serve(const std::vector<std::string>& args, RunMode mode) {
  const bool serving = mode == RunMode::serve;
  const auto specs = serving ? serve_options() : run_options();
  if (serving ? print_help_if_asked(args, "flysim serve [--key=value ...]",
                                    "Runs the LIF model as a service: paced to real time, until stopped, steered through "
                                    "the control API (flysim ctl), every live command journaled (replay it with flysim run "
                                    "--replay=JOURNAL). The options of flysim run, with the defaults below.",
                                    specs)
              : print_help_if_asked(args, "flysim run [--key=value ...]",
                                    "Runs the LIF model of the fly brain (docs/MODEL.md). With no options: the canonical "
                                    "experiment, the 21 sugar GRNs at 150 Hz for 1 s on the synthetic FlyWire-scale network.",
                                    specs))
    return 0;
  catch_stop_signals();
  std::optional<ReplayJournal> replay;
  const Options o = parse_run_options(specs, args, replay);
  configure_logging(o);
  FileRoles files{{"network.neurons", "network.connectivity", "restore", "replay", "plasticity.pre-ids",
                   "plasticity.post-ids"},
                  {"output.spikes", "output.rates", "output.summary", "output.journal", "plasticity.weights-out"},
                  {}};
  if (o.number("checkpoint.every-ms") != 0) files.folder_keys.push_back("checkpoint.dir");
  for (const std::string& key : stimulus_file_keys(o)) files.input_keys.push_back(key);
  refuse_clashing_files(o, files);
  const RunChecks checks = check_run_options(o);
  const RealtimeSettings realtime = realtime_settings(o);
  // From here on every thread flysim starts is named and placed for its role; this one
  // first, so the threads it starts begin on cpus.other until they enter their own role.
  install_cpu_partition(realtime.cpus);
  enter_role(ThreadRole::main);
  if (!realtime.cpus.engine.empty() && static_cast<std::size_t>(checks.threads) > realtime.cpus.engine.size())
    spdlog::warn("engine.threads={} on {} CPUs of cpus.engine={}: the pool's threads will share CPUs", checks.threads,
                 realtime.cpus.engine.size(), o.text("cpus.engine"));
  if (serving && o.text("output.journal").empty()) o.reject("output.journal", "must name a file: a service always keeps its journal");
  ControlServerConfig control_config;
  if (serving) {  // before the network loads: a missing page costs no waiting
    control_config = control_server_config(o);
    control_config.page = page_files_from_options(o);
  }
  const OwnedFiles owned = claim_owned_files(o, serving);
  const std::vector<SwapRequest> swaps = swap_requests(o);
  // The model options once more, before the network loads, so that a plasticity.* typo
  // costs no waiting (the delay cell rounds the plasticity period).
  const LifParams early_params = model_params(o);
  const PlasticityRequest plasticity =
      plasticity_request(o, early_params.dt_ms, constants_from_options(early_params).delay_steps);
  if (!plasticity.weights_out.empty()) require_writable(o, "plasticity.weights-out");

  // A CUDA run creates the device's context (about 0.3 s on the H200) while the network
  // loads, instead of after it; the engine then finds it ready.
  std::future<CudaProbe> cuda_warm_up;
  if (engine_kind(o) == EngineKind::cuda)
    cuda_warm_up = std::async(std::launch::async, [device = checks.cuda_device] { return probe_cuda_backend(device); });
  RunInputs in = o.text("restore").empty() ? fresh_inputs(o) : restored_inputs(o);
  if (cuda_warm_up.valid()) cuda_warm_up.wait();
  const std::vector<int64_t> readouts = readouts_in(o, checks.readouts, *in.network);
  if (in.restored && !plasticity.enabled && !in.restored->plasticity.settings.empty())
    throw input_error(o.text("restore") + ": the checkpoint was written with plasticity (" + in.restored->plasticity.settings +
                      "); restore it with plasticity.enabled=true and the same plasticity.* options");
  std::shared_ptr<const std::vector<uint64_t>> plastic_edges;
  PlasticityState learned;
  if (plasticity.enabled) {
    plastic_edges = std::make_shared<const std::vector<uint64_t>>(plastic_edges_from_options(o, *in.network));
    learned = starting_plasticity(in, *plastic_edges, describe_plasticity(plasticity.params, *plastic_edges),
                                  plasticity.params.period_steps, o.text("restore"));
    spdlog::info("plasticity: {} plastic connections, {} shard(s), weights applied {} steps after each period", plastic_edges->size(),
                 plasticity.shards, plasticity.params.period_steps);
  }
  if (checks.checkpointing || serving) {  // a service takes checkpoints on command
    std::error_code ec;
    std::filesystem::create_directories(o.text("checkpoint.dir"), ec);
    if (ec) o.reject("checkpoint.dir", "cannot be created: " + ec.message());
  }
  clean_up_leftovers(o, files);
  throw_if_stopped("preparing the run");
  const auto net = in.network;
  const auto stimulus = std::make_shared<const StimulusPlan>(in.trial_plan.stimulus);
  const EngineKind first_kind = engine_kind(o);
  const std::string one_trial_only = plasticity.enabled ? "with plasticity each trial learns from the one before"
                                     : checks.pace > 0  ? "a paced run goes one trial at a time"
                                     : serving || !o.text("replay").empty()
                                         ? "live commands apply to one trial at a time"
                                         : "";
  const EngineWhere where{first_kind, checks.cuda_device, static_cast<unsigned>(checks.threads)};
  const int32_t batch = in.restored ? in.restored->batch
                                    : batch_option(o, in.trial_plan.trials, where, net->neuron_count(),
                                                   in.constants.delay_steps, one_trial_only,
                                                   checks.checkpointing || !swaps.empty());
  if (in.restored)
    if (const std::string problem = batch_beyond_memory(where, net->neuron_count(), in.constants.delay_steps, batch); !problem.empty())
      throw input_error(o.text("restore") + ": field batch: " + problem);
  // A paced run spends most of its time waiting: its engine naps while the GPU works.
  const EngineSetup setup{net, stimulus, in.constants, plastic_edges, checks.pace > 0 ? HostWait::nap : HostWait::poll,
                          checks.cuda_device, batch};
  const auto default_threads = static_cast<unsigned>(checks.threads);
  const double dt_ms = in.params.dt_ms;
  // An engine for the stimulus as it is now (a live command may have changed it).
  const auto build_engine = [setup, default_threads, dt_ms](EngineKind kind, unsigned threads,
                                                            const TrialPlan& now) -> std::shared_ptr<Engine> {
    EngineSetup current = setup;
    current.stimulus = std::make_shared<const StimulusPlan>(now.stimulus);
    current.constants.poisson_threshold = poisson_threshold(now.stimulus_rate_Hz, dt_ms);
    std::shared_ptr<Engine> engine = make_engine(kind, current, threads > 0 ? threads : default_threads);
    if (kind == EngineKind::cuda) {
      const CudaProbe p = probe_cuda_backend(current.cuda_device);
      spdlog::info("cuda backend attached: {} (compute capability {}.{}), driver {}, runtime {}", p.device_name, p.cc_major,
                   p.cc_minor, cuda_version_string(p.driver_version), cuda_version_string(p.runtime_version));
    }
    return engine;
  };
  std::shared_ptr<Engine> engine;
  if (checks.fault_after_epochs > 0) {
    engine = make_engine(first_kind, setup, default_threads, EngineFault{static_cast<uint64_t>(checks.fault_after_epochs), true});
    spdlog::warn("engine.fault-after-epochs={}: the engine fails after {} epochs (a test of the fallback)",
                 checks.fault_after_epochs, checks.fault_after_epochs);
  } else {
    engine = build_engine(first_kind, 0, in.trial_plan);
  }
  if (in.restored) engine->import_batch(batch_states(*in.restored));
  spdlog::info("engine: {}; {} Poisson neurons at {} Hz, {} kicks; {} trial(s) of {} steps{}", engine->describe(),
               stimulus->poisson_neurons.size(), in.trial_plan.stimulus_rate_Hz, stimulus->kicks.size(), in.trial_plan.trials,
               in.trial_plan.steps_per_trial, batch > 1 ? fmt::format(", {} at a time", batch) : std::string());

  RunPlan plan;
  plan.trials = in.trial_plan.trials;
  plan.steps_per_trial = in.trial_plan.steps_per_trial;
  plan.batch = batch;
  plan.delay_steps = in.constants.delay_steps;
  plan.dt_ms = in.params.dt_ms;
  plan.neurons = net->neuron_count();
  if (in.restored) plan.start = {in.restored->engine.trial, in.restored->engine.next_step};
  plan.checkpoint_granularity = plasticity.enabled ? plasticity.params.period_steps : plan.delay_steps;
  const ScheduleGeometry geometry = geometry_of(plan);
  plan.checkpoints = checkpoint_positions(o.number("checkpoint.every-ms"), geometry);
  plan.checkpoints_listed = static_cast<std::size_t>(checks.keep);
  if (checks.checkpointing && plan.checkpoints.empty() && o.text("run.duration-ms") != "forever")
    spdlog::warn("checkpoint.every-ms={} ms: no boundary of this run ({} steps apart) falls on it; no checkpoint will be written",
                 o.number("checkpoint.every-ms"), plan.checkpoint_granularity);
  plan.commands = scripted_swaps(swaps, geometry);
  if (replay) {
    check_replay(*replay, *net, in.trial_plan, geometry);
    plan.commands.insert(plan.commands.end(), replay->commands.begin(), replay->commands.end());
  }
  plan.pace = checks.pace;
  plan.pace_text = o.text("run.pace");
  plan.default_threads = default_threads;
  plan.fallback_every_steps = static_cast<int64_t>(std::ceil(o.number("engine.fallback-every-ms") / plan.dt_ms - 1e-9));
  plan.first_engine_may_fail = first_kind == EngineKind::cuda || checks.fault_after_epochs > 0;
  plan.network = net;
  plan.first_engine = engine->describe();
  plan.first_engine_threads = first_kind == EngineKind::cpu ? default_threads : 0;
  plan.first_engine_kind = first_kind;
  plan.status_window_s = realtime.window_s;
  plan.max_lag_ms = realtime.max_lag_ms;
  plan.pace_batch_ms = realtime.pace_batch_ms;
  plan.cpus = realtime.cpus;
  // A service reports the other processes on its GPU; NVML is loaded once, here.
  if (serving) plan.gpu = std::make_shared<const NvmlReader>();
  plan.trial_plan = in.trial_plan;
  plan.make_engine = build_engine;
  if (!o.text("output.journal").empty())
    plan.journal = std::make_shared<JournalWriter>(o.text("output.journal"), journaled_options(o, specs), net->content_hash());

  caf::actor_system_config cfg;
  register_message_types(cfg);
  // The network layer only when a shard lives elsewhere: nothing listens either way.
  // The credentials (with plasticity.token-file) must outlive the system.
  const bool remote =
      std::any_of(plasticity.places.begin(), plasticity.places.end(), [](const ShardPlace& p) { return !p.host.empty(); });
  const CredentialFiles credentials = remote ? load_network_layer(cfg, plasticity.token) : CredentialFiles{};
  // One scheduler thread: the sim loop, recorder and messages are light, and the cores
  // belong to the engine (its pool is engine.threads on top of this).
  cfg.set("scheduler.max-threads", std::size_t{1});
  if (plan.pace > 0) {
    // A paced run idles between batches of epochs. CAF's default idle polling (100
    // polls, then 500 naps of 50 us) never reaches its sleep when a message comes every
    // few ms: ~20,000 wake-ups a second, a tenth of a core. Sleep on the worker's
    // condition variable at once instead (an enqueue wakes it).
    cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{10});
    cfg.set("work-stealing.moderate-poll-attempts", std::size_t{0});
  }
  name_caf_threads(cfg);
  // Host cores per role from here on (host/THREADS.md), the actors' threads included.
  plan.cost = std::make_shared<CostSampler>(realtime.window_s);
  caf::actor_system system{cfg};
  RecorderConfig rc;
  rc.network = net;
  rc.spikes_path = o.text("output.spikes");
  rc.rates_path = o.text("output.rates");
  rc.trials = plan.trials;
  rc.steps_per_trial = plan.steps_per_trial;
  rc.dt_ms = plan.dt_ms;
  rc.readout_root_ids = readouts;
  rc.stream = plan.pace > 0 || o.text("run.duration-ms") == "forever";
  if (in.restored) rc.start = in.restored->recorder;
  if (serving) {  // the live page's window: only a service has a page to feed
    rc.activity = ActivitySettings{std::max(1, duration_to_steps(kActivityBinMs, plan.dt_ms)), kActivityBins, plan.dt_ms, plan.steps_per_trial};
    rc.stimulated = stimulated_neurons(in.trial_plan.stimulus);
  }
  auto recorder = spawn_recorder(system, rc);
  checkpointer_actor checkpointer;
  if (checks.checkpointing || serving)
    checkpointer = spawn_checkpointer(
        system,
        CheckpointerConfig{o.text("checkpoint.dir"), static_cast<std::size_t>(checks.keep),
                           {in.compatibility, kKernelVersion, net->content_hash()},
                           [constants = in.constants, hash = net->content_hash(), dt_ms](double rate_Hz) {
                             LifConstants c = constants;
                             c.poisson_threshold = poisson_threshold(rate_Hz, dt_ms);
                             return compatibility_string(c, hash);
                           }});
  caf::scoped_actor self{system};
  if (plasticity.enabled) {
    plan.plasticity.shards = spawn_shards(system, self,
                                          make_shard_setups(*net, *plastic_edges, plasticity.rule, plasticity.shards, learned),
                                          plasticity.places);
    for (const ShardPlace& place : plasticity.places) plan.plasticity.places.push_back(place.name());
    plan.plasticity.period_steps = plasticity.params.period_steps;
    plan.plasticity.plastic_count = plastic_edges->size();
    plan.plasticity.settings = learned.settings;
    if (in.restored) plan.plasticity.restored_pending = unapplied_weights(learned, in.restored->engine.plastic_weights);
    plan.plasticity.want_final_weights = !plasticity.weights_out.empty();
  }
  // The sim loop holds the only handle of the engine: a swap's old engine (its thread and
  // its pool's) ends once the sim loop lets it go.
  auto sim = spawn_sim_loop(system, std::move(plan), spawn_engine(system, std::move(engine), first_kind), recorder, checkpointer,
                            remote ? SimLoopThread::pool : SimLoopThread::own);
  // The control API: its HTTP threads only talk to the control actor, which asks the
  // sim loop. Stopped (below) before the actor system goes.
  std::unique_ptr<ControlServer> control;
  if (serving) {
    auto control_handle = system.spawn(control_behavior, live_actor{sim}, activity_actor{recorder}, kStatusTimeout);
    control = std::make_unique<ControlServer>(system, control_handle, control_config);
    // stdout carries the address (a script reads the chosen port from it); logs go to stderr.
    std::cout << "flysim serve: control API on http://" << control->address() << std::endl;
    spdlog::info("live page: http://{}/ (files from {})", control->address(), control_config.page.dir);
  }

  // A watcher thread turns a stop signal into a stop request (the epochs in flight
  // finish, what was recorded is committed) and a second one into an exit (nothing kept).
  std::atomic<bool> finished{false};
  std::thread watcher([&] {
    enter_role_as(ThreadRole::other, "fs-signals");
    while (!finished.load() && stop_signal() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (stop_signal() == 0) return;
    spdlog::warn("signal {}: stopping after the epochs in flight (a second signal stops at once, writing nothing)", stop_signal());
    caf::anon_send(sim, stop_atom::value);
    while (!finished.load() && stop_signal_count() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!finished.load()) caf::anon_send_exit(sim, caf::exit_reason::user_shutdown);
  });

  int exit_code = 0;
  std::exception_ptr output_failure;
  {
    self->request(sim, caf::infinite, run_atom::value)
        .receive([&](const RunSummary& summary) {
                   // A file that cannot be written ends the run with its error, once the
                   // actors are stopped (below).
                   try {
                     SummaryContext context{*net, *stimulus, in.trial_plan.stimulus_rate_Hz, in.compatibility, checks.pace > 0,
                                            {}, 0};
                     if (!plasticity.weights_out.empty()) {
                       write_plastic_weights_csv(plasticity.weights_out, *net, *plastic_edges, summary.final_weights);
                       context.weights_path = plasticity.weights_out;
                       context.plastic_connections = plastic_edges->size();
                     }
                     print_summary(summary, context);
                     if (!o.text("output.summary").empty()) write_summary_json(o.text("output.summary"), summary, context);
                   } catch (const std::exception&) {
                     output_failure = std::current_exception();
                   }
                   // Stopped by a signal: 128 + the signal; by a command: a normal end.
                   if (summary.stopped_early && stop_signal() != 0) exit_code = 128 + stop_signal();
                 },
                 [&](const caf::error& err) {
                   if (stop_signal_count() >= 2) {
                     spdlog::warn("stopped at once by a second signal; no output file was written");
                     exit_code = 128 + stop_signal();
                   } else {
                     spdlog::error("run failed: {}", describe_error(err));
                     exit_code = 1;
                   }
                 });
  }
  finished = true;
  watcher.join();
  if (control) control->stop();
  // The sim loop is linked to the engine, recorder and checkpointer: they end with it.
  caf::anon_send_exit(sim, caf::exit_reason::user_shutdown);
  if (output_failure) std::rethrow_exception(output_failure);
  return exit_code;
}

}  // namespace flysim::app
