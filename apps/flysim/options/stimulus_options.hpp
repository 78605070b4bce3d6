#pragma once
// The stimulus.* options: Poisson groups, kicks and silencing, and the stimulus plan they make.
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "model/network.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

// The stimulus.* option specs (part of run_options).
std::vector<OptionSpec> stimulus_options();
// The stimulus of stimulus.ids (unless only stimulus.kicks is given), stimulus.kicks,
// stimulus.group.NAME.*, stimulus.silence[-mode] and run.seed, on `net`.
StimulusPlan stimulus_plan(const Options& o, const Network& net);
// The part of it that a restored run keeps from its checkpoint and compares with the
// options: the Poisson groups beside stimulus.ids and the silenced set (no ids, kicks or seed).
StimulusPlan stimulus_condition(const Options& o, const Network& net);
// The NAMEs of the stimulus.group.NAME.ids options given, sorted.
std::vector<std::string> poisson_group_names(const Options& o);

// run.seed: the seed of every Poisson draw of the run (StimulusPlan::seed).
uint64_t stimulus_seed(const Options& o);
// The keys of every stimulus input file the options may name (groups included): for the
// output-over-input check.
std::vector<std::string> stimulus_file_keys(const Options& o);

}  // namespace flysim::app
