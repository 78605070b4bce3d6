#pragma once
// The engines of a screen in this process: one per entry of engine.cuda-devices, each a
// slot (screen_slots.hpp) beside those of worker nodes. Which engine ran an experiment
// shows in no file: each experiment is committed on its own and the screen's files are
// joined in experiment order (screen_parts.hpp).
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "apps/flysim/screen/screen_experiments.hpp"
#include "apps/flysim/screen/screen_slots.hpp"
#include "apps/flysim/options/options.hpp"
#include "apps/flysim/run/engine_builder.hpp"
#include "kernels/trial_batches.hpp"
#include "kernels/engine.hpp"

namespace flysim::app {

// Runs run_one(engine, to_run[n]) for every n on these engines and `more` slots
// (run_on_slots). `run_one` is called concurrently for different experiments on
// different engines. The first exception of any slot stops the others at their next
// experiment or batch (their `run_one` sees stopping() true) and is rethrown here once
// all have returned.
class ScreenEngines {
 public:
  explicit ScreenEngines(std::vector<std::unique_ptr<Engine>> engines);

  std::size_t size() const { return engines_.size(); }
  Engine& front() { return *engines_.front(); }
  Engine& engine(std::size_t k) { return *engines_[k]; }
  // True once an engine failed or was stopped: the others stop at their next batch.
  bool stopping() const;
  void run(const std::vector<std::size_t>& to_run, const std::function<void(Engine&, std::size_t)>& run_one,
           std::vector<ScreenSlot> more = {});

 private:
  std::vector<std::unique_ptr<Engine>> engines_;
  std::shared_ptr<std::atomic<bool>> stopping_;
};

// The engines of `devices` (cuda_devices: engine.cuda-devices), each holding plan.batch
// trials and `first`'s stimulus. A device listed k times must hold k batches: otherwise
// an input_error names the option and what the batches need.
ScreenEngines screen_engines(const Options& o, const std::vector<int>& devices, EngineKind kind, const EngineBuilder& builder,
                             const TrialBatches& plan, const ScreenRun& first);

}  // namespace flysim::app
