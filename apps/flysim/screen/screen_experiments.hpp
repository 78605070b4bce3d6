#pragma once
// A screen's experiment list from its options (screen.experiments, the generators
// screen.baseline, screen.activate-each, screen.silence-each, screen.rates x
// screen.rates2), and each experiment as the stimulus plan the engine runs.
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "apps/flysim/screen/screen_table.hpp"
#include "model/network.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

// The screen's own options that define experiments.
std::vector<OptionSpec> screen_experiment_options();

// Every experiment, in order: baseline, the table's rows, activate-each, silence-each,
// the rate grid. Names unique; at least one experiment.
std::vector<ScreenExperiment> screen_experiments(const Options& o);

// What the engine runs for one experiment.
struct ScreenRun {
  std::string name;
  StimulusPlan plan;
  double rate_Hz = 0;  // the default group's rate
  // One line that changes whenever the plan does (the resume manifest compares them).
  std::string description;
};

// The experiment on `net`: `base` (the run's stimulus options) with the experiment's
// changes. Errors name the experiment's file:line (and column) or option.
ScreenRun resolve_experiment(const ScreenExperiment& e, const StimulusPlan& base, double base_rate_Hz, const RootIdIndex& net,
                             double dt_ms);

}  // namespace flysim::app
