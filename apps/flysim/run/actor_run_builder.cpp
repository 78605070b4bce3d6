#include "apps/flysim/run/actor_run_builder.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <future>

#include "apps/flysim/options/batch_option.hpp"
#include "apps/flysim/options/cuda_devices_option.hpp"
#include "apps/flysim/run/device_engines.hpp"
#include "kernels/engine_group.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/control_options.hpp"
#include "apps/flysim/options/readout_option.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "apps/flysim/run/replay_options.hpp"
#include "io/reference_spikes.hpp"
#include "kernels/version.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"

namespace flysim::app {

namespace {

// The live page's window (model/ACTIVITY.md): 20 ms bins, the newest 10 s of them.
constexpr double kActivityBinMs = 20.0;
constexpr std::size_t kActivityBins = 500;

// The files a run reads and writes; the checkpoint folder when checkpoints are asked for.
FileRoles run_file_roles(const Options& o) {
  FileRoles files{{"network.neurons", "network.connectivity", "plasticity.pre-ids", "plasticity.post-ids"},
                  {"output.spikes", "output.rates", "output.summary", "output.journal", "plasticity.weights-out"},
                  {},
                  {},
                  {"restore", "replay"}};
  if (checkpoints_asked(o)) files.folder_keys.push_back("checkpoint.dir");
  for (const std::string& key : stimulus_file_keys(o)) files.input_keys.push_back(key);
  return files;
}

// An engine for the stimulus as it is now (a live command may have changed it).
std::function<std::shared_ptr<Engine>(EngineKind, unsigned, const TrialPlan&)> engine_maker(const EngineBuilder& engines,
                                                                                             int cuda_device) {
  return [engines, cuda_device](EngineKind kind, unsigned threads, const TrialPlan& now) -> std::shared_ptr<Engine> {
    std::shared_ptr<Engine> engine =
        engines.make(kind, threads, std::make_shared<const StimulusPlan>(now.stimulus), now.stimulus_rate_Hz);
    if (kind == EngineKind::cuda) {
      const CudaProbe p = probe_cuda_backend(cuda_device);
      spdlog::info("cuda backend attached: {} (compute capability {}.{}), driver {}, runtime {}", p.device_name, p.cc_major,
                   p.cc_minor, cuda_version_string(p.driver_version), cuda_version_string(p.runtime_version));
    }
    return engine;
  };
}

}  // namespace

ActorRunBuilder::ActorRunBuilder(const Options& o, const std::vector<OptionSpec>& specs, RunMode mode,
                                 std::optional<ReplayJournal> replay, RealtimeSettings realtime)
    : o_(o), specs_(specs), mode_(mode), replay_(std::move(replay)), realtime_(std::move(realtime)), run_(o),
      files_(run_file_roles(o)) {
  check_file_roles(o, files_);
  checks_ = check_run_options(o);
  const unsigned threads = run_.engine().threads;
  if (!realtime_.cpus.engine.empty() && threads > realtime_.cpus.engine.size())
    spdlog::warn("engine.threads={} on {} CPUs of cpus.engine={}: the pool's threads will share CPUs", threads,
                 realtime_.cpus.engine.size(), o.text("cpus.engine"));
  if (serving() && o.text("output.journal").empty()) o.reject("output.journal", "must name a file: a service always keeps its journal");
  if (serving()) {  // before the network loads: a missing page costs no waiting
    control_ = control_server_config(o);
    control_.page = page_files_from_options(o);
    // Before the journal is created: a service that cannot listen leaves none behind.
    if (const ListenProblem problem = listen_problem(control_.bind, control_.port); !problem.message.empty())
      o.reject(problem.port_unavailable ? "control.port" : "control.bind", problem.message);
  }
  owned_ = claim_owned_files(o, serving(), takes_checkpoints(), streams_spikes());
  swaps_ = swap_requests(o, run_.engine().device);
  // The delay cell rounds the plasticity period.
  plasticity_ = plasticity_request(o, run_.params().dt_ms, run_.constants().delay_steps);
  if (!plasticity_.weights_out.empty()) require_writable(o, "plasticity.weights-out");
  devices_ = cuda_devices(o);
  if (devices_.size() > 1) {
    const char* key = o.given(kCudaDevicesKey) ? kCudaDevicesKey : kPerDeviceKey;
    const std::string devices = fmt::format("spreads a run's batches over {} engines", devices_.size());
    if (const std::string reason = one_trial_reason(); !reason.empty()) o.reject(key, devices + ", but " + reason);
    if (!o.text("restore").empty() || checks_.checkpointing || !swaps_.empty())
      o.reject(key, devices + ": not with restore, checkpoint.every-ms or run.swap-at, whose positions count one engine's "
                              "batches");
  }
}

bool ActorRunBuilder::streams_spikes() const { return checks_.pace > 0 || runs_forever(o_); }

bool ActorRunBuilder::remote_shards() const {
  return std::any_of(plasticity_.places.begin(), plasticity_.places.end(), [](const ShardPlace& p) { return !p.host.empty(); });
}

// A CUDA run creates the device's context (a noticeable part of a short run) while the
// network loads, instead of after it; the engine then finds it ready.
RunInputs ActorRunBuilder::load_inputs() const {
  std::future<CudaProbe> cuda_warm_up;
  if (run_.engine().kind == EngineKind::cuda)
    cuda_warm_up = std::async(std::launch::async, [device = run_.engine().device] { return probe_cuda_backend(device); });
  RunInputs in = load_run_inputs(run_);
  if (cuda_warm_up.valid()) cuda_warm_up.wait();
  return in;
}

// A restored run keeps its checkpoint's batch; a fresh one takes run.batch, one trial at a
// time where the run must go so.
int32_t ActorRunBuilder::batch(const RunInputs& in) const {
  const std::size_t neurons = in.network->neuron_count();
  const int32_t delay_steps = in.constants.delay_steps;
  if (in.restored) {
    if (const std::string problem = batch_beyond_memory(run_.engine().where(), neurons, delay_steps, in.restored->batch);
        !problem.empty())
      throw input_error(o_.text("restore") + ": field batch: " + problem);
    return in.restored->batch;
  }
  const int32_t trials = in.trial_plan.trials;
  const int32_t batch = batch_option(o_, trials, run_.engine().where(), neurons, delay_steps, one_trial_reason(),
                                     checks_.checkpointing || !swaps_.empty());
  if (devices_.size() < 2) return batch;
  // 'auto': the trials shared out over the engines, as many as fit beside the others on a device.
  const auto engines = static_cast<int32_t>(devices_.size());
  const int32_t share = batch_is_auto(o_) ? std::min(batch, (trials + engines - 1) / engines) : batch;
  return batch_beside_engines(o_, run_.engine().kind, devices_, share, neurons, delay_steps);
}

std::string ActorRunBuilder::one_trial_reason() const {
  return plasticity_.enabled         ? "with plasticity each trial learns from the one before"
         : checks_.pace > 0          ? "a paced run goes one trial at a time"
         : serving() || replay_      ? "live commands apply to one trial at a time"
                                     : "";
}

std::shared_ptr<Engine> ActorRunBuilder::first_engine(const EngineBuilder& engines, const RunInputs& in,
                                                      int32_t engine_batch) const {
  const EngineKind kind = run_.engine().kind;
  const EngineFault fault = checks_.fault_after_epochs > 0 ? EngineFault{static_cast<uint64_t>(checks_.fault_after_epochs), true}
                                                           : EngineFault{};
  if (fault.after_epochs > 0)
    spdlog::warn("engine.fault-after-epochs={}: the {}engine fails after {} epochs (a test of the fallback)",
                 checks_.fault_after_epochs, devices_.size() > 1 ? "group's first " : "", checks_.fault_after_epochs);
  const auto plan = std::make_shared<const StimulusPlan>(in.trial_plan.stimulus);
  std::shared_ptr<Engine> engine;
  if (devices_.size() > 1) {
    engine = std::make_shared<EngineGroup>(engines_on_devices(o_, devices_, kind, engines, engine_batch, in.network->neuron_count(),
                                                              in.constants.delay_steps, plan, in.trial_plan.stimulus_rate_Hz, fault));
  } else if (fault.after_epochs > 0) {
    engine = engines.make(kind, 0, plan, in.trial_plan.stimulus_rate_Hz, fault);
  } else {
    engine = engine_maker(engines, run_.engine().device)(kind, 0, in.trial_plan);
  }
  if (in.restored) engine->import_batch(batch_states(*in.restored));
  const StimulusPlan& stimulus = in.trial_plan.stimulus;
  const int32_t at_once = std::min(engine->batch_capacity(), in.trial_plan.trials);
  spdlog::info("engine: {}; {} Poisson neurons at {} Hz, {} kicks; {} trial(s) of {} steps{}", engine->describe(),
               stimulus.poisson_neurons.size(), in.trial_plan.stimulus_rate_Hz, stimulus.kicks.size(), in.trial_plan.trials,
               in.trial_plan.steps_per_trial, at_once > 1 ? fmt::format(", {} at a time", at_once) : std::string());
  return engine;
}

RunPlan ActorRunBuilder::run_plan(const RunInputs& in, const Engine& first, const EngineBuilder& engines, int32_t batch) const {
  RunPlan plan;
  plan.trials = in.trial_plan.trials;
  plan.steps_per_trial = in.trial_plan.steps_per_trial;
  plan.batch = batch;
  plan.delay_steps = in.constants.delay_steps;
  plan.dt_ms = in.params.dt_ms;
  plan.neurons = in.network->neuron_count();
  if (in.restored) plan.start = {in.restored->engine.trial, in.restored->engine.next_step};
  plan.checkpoint_granularity = plasticity_.enabled ? plasticity_.params.period_steps : plan.delay_steps;
  const ScheduleGeometry geometry = geometry_of(plan);
  plan.checkpoints = checkpoint_positions(checks_.checkpoint_every_ms, geometry);
  plan.checkpoints_listed = static_cast<std::size_t>(checks_.keep);
  if (checks_.checkpointing && plan.checkpoints.empty() && !runs_forever(o_))
    spdlog::warn("checkpoint.every-ms={} ms: no boundary of this run ({} steps apart) falls on it; no checkpoint will be written",
                 checks_.checkpoint_every_ms, plan.checkpoint_granularity);
  plan.commands = scripted_swaps(swaps_, geometry);
  if (replay_) {
    check_replay(*replay_, *in.network, in.trial_plan, geometry,
                 in.restored ? std::optional<uint64_t>(in.restored_checksum) : std::nullopt);
    plan.commands.insert(plan.commands.end(), replay_->commands.begin(), replay_->commands.end());
  }
  const EngineChoice& engine = run_.engine();
  plan.pace = checks_.pace;
  plan.pace_text = checks_.pace_text;
  plan.default_threads = engine.threads;
  plan.fallback_every_steps = static_cast<int64_t>(steps_at_least(checks_.fallback_every_ms, plan.dt_ms));
  plan.first_engine_may_fail = engine.kind == EngineKind::cuda || checks_.fault_after_epochs > 0;
  plan.network = in.network;
  plan.first_engine = first.describe();
  plan.first_engine_threads = engine.kind == EngineKind::cpu ? engine.threads : 0;
  plan.first_engine_kind = engine.kind;
  plan.status_window_s = realtime_.window_s;
  plan.max_lag_ms = realtime_.max_lag_ms;
  plan.pace_batch_ms = realtime_.pace_batch_ms;
  plan.cpus = realtime_.cpus;
  // A service reports the other processes on its GPU; NVML is loaded once, here.
  if (serving()) plan.gpu = std::make_shared<const NvmlReader>();
  plan.trial_plan = in.trial_plan;
  plan.make_engine = engine_maker(engines, engine.device);
  return plan;
}

RecorderConfig ActorRunBuilder::recorder_config(const RunInputs& in, const RunPlan& plan,
                                                const std::vector<int64_t>& readouts) const {
  RecorderConfig rc;
  rc.network = in.network;
  rc.spikes.path = o_.text("output.spikes");
  rc.spikes.format = o_.text("output.spikes-format");
  rc.spikes.experiment = experiment_of_file(rc.spikes.path);
  rc.rates.path = o_.text("output.rates");
  rc.trials = plan.trials;
  rc.steps_per_trial = plan.steps_per_trial;
  rc.dt_ms = plan.dt_ms;
  rc.readout_root_ids = readouts;
  rc.spikes.stream = streams_spikes();
  if (in.restored) rc.start = in.restored->recorder;
  if (serving()) {  // the live page's window: only a service has a page to feed
    rc.activity = ActivitySettings{std::max(1, duration_to_steps(kActivityBinMs, plan.dt_ms)), kActivityBins, plan.dt_ms,
                                   plan.steps_per_trial};
    rc.stimulated = stimulated_neurons(in.trial_plan.stimulus);
  }
  return rc;
}

std::optional<CheckpointerConfig> ActorRunBuilder::checkpointer_config(const RunInputs& in) const {
  if (!takes_checkpoints()) return std::nullopt;
  const uint64_t hash = in.network->content_hash();
  return CheckpointerConfig{o_.text("checkpoint.dir"), static_cast<std::size_t>(checks_.keep),
                            {in.compatibility, kKernelVersion, hash},
                            [constants = in.constants, hash, dt_ms = in.params.dt_ms](double rate_Hz) {
                              LifConstants c = constants;
                              c.poisson_threshold = poisson_threshold(rate_Hz, dt_ms);
                              return compatibility_string(c, hash);
                            }};
}

ActorRunParts ActorRunBuilder::build() const {
  ActorRunParts parts;
  parts.inputs = load_inputs();
  const RunInputs& in = parts.inputs;
  const std::vector<int64_t> readouts = readouts_in(o_, checks_.readouts, *in.network);
  const PlasticStart plastic = plasticity_start(o_, plasticity_, in);
  clean_up_leftovers(o_, files_);
  throw_if_stopped("preparing the run");
  const int32_t engine_batch = batch(in);
  // Several engines hold their batches together (a swap or a fallback builds one engine that holds them all).
  const int32_t batch_size = std::min<int64_t>(int64_t{engine_batch} * static_cast<int64_t>(devices_.size()), in.trial_plan.trials);
  if (devices_.size() > 1 && checks_.fallback_every_ms > 0)
    if (const std::string beyond = batch_beyond_memory({EngineKind::cpu, 0, 0}, in.network->neuron_count(), in.constants.delay_steps,
                                                       batch_size);
        !beyond.empty())
      spdlog::warn("a fallback to the CPU pool would hold the {} engines' {} trials: {}", devices_.size(), batch_size, beyond);
  // A paced run spends most of its time waiting: its engine naps while the GPU works.
  const EngineBuilder engines =
      run_.engines(in.network, batch_size, plastic.edges, checks_.pace > 0 ? HostWait::nap : HostWait::poll);
  parts.engine = first_engine(engines, in, engine_batch);
  parts.plan = run_plan(in, *parts.engine, engines, batch_size);
  parts.plan.plasticity = plasticity_plan(plasticity_, plastic, in);
  if (!o_.text("output.journal").empty())
    parts.plan.journal =
        std::make_shared<JournalWriter>(o_.text("output.journal"), journaled_options(o_, specs_), in.network->content_hash(),
                                        in.restored ? std::optional<uint64_t>(in.restored_checksum) : std::nullopt);
  parts.recorder = recorder_config(in, parts.plan, readouts);
  parts.checkpointer = checkpointer_config(in);
  if (plasticity_.enabled)
    parts.shard_setups = make_shard_setups(*in.network, *plastic.edges, plasticity_.rule, plasticity_.shards, plastic.learned);
  parts.outputs = {in.network, std::make_shared<const StimulusPlan>(in.trial_plan.stimulus), in.trial_plan.stimulus_rate_Hz,
                   in.compatibility, checks_.pace > 0, endless(in.trial_plan), o_.text("output.summary"), plasticity_.weights_out, plastic.edges,
                   serving() ? "serve" : "run"};
  return parts;
}

}  // namespace flysim::app
