#pragma once
// flysim run and flysim serve: every option checked before anything loads, then the
// inputs loaded and the parts the actors start from built (README.md). Nothing here
// starts an actor: the command does, from ActorRunParts.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/checkpointer.hpp"
#include "actors/recorder.hpp"
#include "actors/sim_loop.hpp"
#include "apps/flysim/options/options.hpp"
#include "apps/flysim/options/plasticity_options.hpp"
#include "apps/flysim/options/realtime_options.hpp"
#include "apps/flysim/process/file_roles.hpp"
#include "apps/flysim/process/owned_files.hpp"
#include "apps/flysim/run/plasticity_start.hpp"
#include "apps/flysim/run/run_builder.hpp"
#include "apps/flysim/run/run_checks.hpp"
#include "apps/flysim/run/run_inputs.hpp"
#include "apps/flysim/run/run_mode.hpp"
#include "apps/flysim/run/run_outputs.hpp"
#include "apps/flysim/run/swap_schedule.hpp"
#include "apps/flysim/service/control_server.hpp"
#include "apps/flysim/service/replay_journal.hpp"
#include "model/shard_setup.hpp"

namespace flysim::app {

// What the actors of a run start from.
struct ActorRunParts {
  RunInputs inputs;
  std::shared_ptr<Engine> engine;  // the first engine, holding a restored run's state
  // The sim loop's plan, all but `cost` and `plasticity.shards`: the command sets those as
  // the actors start.
  RunPlan plan;
  RecorderConfig recorder;
  std::optional<CheckpointerConfig> checkpointer;  // checkpoint.every-ms, or a service (checkpoints on command)
  std::vector<ShardSetup> shard_setups;            // with plasticity: one per shard, where plasticity.nodes puts it
  RunOutputs outputs;
};

class ActorRunBuilder {
 public:
  // Checks every option that needs nothing loaded (a typo costs no waiting) and claims
  // the files the run owns. `realtime`: the real-time options, checked by the command,
  // which places its threads by them first. Throws input_error naming the option.
  ActorRunBuilder(const Options& o, const std::vector<OptionSpec>& specs, RunMode mode, std::optional<ReplayJournal> replay,
                  RealtimeSettings realtime);

  bool serving() const { return mode_ == RunMode::serve; }
  const RunBuilder& run() const { return run_; }
  const RunChecks& checks() const { return checks_; }
  const RealtimeSettings& realtime() const { return realtime_; }
  const PlasticityRequest& plasticity() const { return plasticity_; }
  // flysim serve: where the control API listens and the live page's files.
  const ControlServerConfig& control() const { return control_; }
  // A shard on a `flysim shard` node: the run needs CAF's network layer.
  bool remote_shards() const;

  // Loads the network (and a checkpoint to restore), checks what needs them, and builds
  // the parts; opens output.journal. Throws input_error.
  ActorRunParts build() const;

 private:
  bool takes_checkpoints() const { return checks_.checkpointing || serving(); }
  // Spikes written to output.spikes as the run goes (paced or endless), not at its end.
  bool streams_spikes() const;
  RunInputs load_inputs() const;
  // Why this run must go one trial at a time (empty: it need not).
  std::string one_trial_reason() const;
  // The trials each engine holds (run.batch; with several engines, its part of the run's).
  int32_t batch(const RunInputs& in) const;
  // The first engine, of `engine_batch` trials; with several devices (devices_) a group of
  // one such engine per device, holding `batch` trials together.
  std::shared_ptr<Engine> first_engine(const EngineBuilder& engines, const RunInputs& in, int32_t engine_batch) const;
  RunPlan run_plan(const RunInputs& in, const Engine& first, const EngineBuilder& engines, int32_t batch) const;
  RecorderConfig recorder_config(const RunInputs& in, const RunPlan& plan, const std::vector<int64_t>& readouts) const;
  std::optional<CheckpointerConfig> checkpointer_config(const RunInputs& in) const;

  const Options& o_;
  const std::vector<OptionSpec>& specs_;
  RunMode mode_;
  std::optional<ReplayJournal> replay_;
  RealtimeSettings realtime_;
  RunBuilder run_;
  FileRoles files_;
  RunChecks checks_;
  ControlServerConfig control_;
  OwnedFiles owned_;
  std::vector<SwapRequest> swaps_;
  PlasticityRequest plasticity_;
  // One CUDA device per engine (engine.cuda-devices, engine.per-device): several spread
  // the run's batches over a group of engines (kernels/engine_group.hpp).
  std::vector<int> devices_;
};

}  // namespace flysim::app
