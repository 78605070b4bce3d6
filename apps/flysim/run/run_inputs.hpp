#pragma once
// What a run of flysim run or serve is made from: the network and the trial plan, fresh
// from the options or continued from a checkpoint (restore=FILE).
#include <memory>
#include <optional>
#include <string>

#include "apps/flysim/run/run_builder.hpp"
#include "model/lif_params.hpp"
#include "model/network.hpp"
#include "model/snapshot.hpp"

namespace flysim::app {

struct RunInputs {
  LifParams params;
  LifConstants constants;
  std::shared_ptr<const Network> network;
  TrialPlan trial_plan;
  std::optional<Snapshot> restored;
  uint64_t restored_checksum = 0;  // the restored checkpoint's payload checksum
  std::string compatibility;
};

// A fresh run: run.trials trials of run.duration-ms on the network with the stimulus of
// the options. A restored run continues its checkpoint's plan (trials, duration,
// stimulus; those options are ignored with a warning); the network and the model come
// from the options and must match the checkpoint's, and so must any silencing or groups
// given. Throws input_error.
RunInputs load_run_inputs(const RunBuilder& run);

}  // namespace flysim::app
