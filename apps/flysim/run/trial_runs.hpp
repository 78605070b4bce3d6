#pragma once
// What the commands that run many trials in one process share (flysim sweep, flysim
// screen): run's options that decide what a trial computes (RunBuilder,
// apps/flysim/run/run_builder.hpp, reads and checks them) and their readouts.
#include <cstdint>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "model/network.hpp"

namespace flysim::app {

// run's network.*, stimulus.*, model.*, run.duration-ms, run.trials (default 30),
// run.batch, run.seed, engine.kind/cuda-device/threads; then `own`; log.* last.
std::vector<OptionSpec> trial_run_options(const std::vector<OptionSpec>& own);

}  // namespace flysim::app
