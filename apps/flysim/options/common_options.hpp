#pragma once
// Option groups more than one command uses, and the places flysim finds its data.
#include <string>
#include <vector>

#include "apps/flysim/options/network_options.hpp"
#include "apps/flysim/options/options.hpp"
#include "kernels/engine_factory.hpp"
#include "model/lif_params.hpp"
#include "io/network_source.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

// log.level.
std::vector<OptionSpec> log_options();
// Applies log.level to spdlog (logs go to stderr; stdout carries results).
void configure_logging(const Options& o);

// Every option of `flysim run` (also accepted by `flysim doctor`, so one config file
// serves both).
std::vector<OptionSpec> run_options();
// `flysim serve`: the options of run, with the service's defaults (endless, real time,
// journal on).
std::vector<OptionSpec> serve_options();
// The model.* options (part of run_options).
std::vector<OptionSpec> model_options();
// model.* and stimulus.rate as model parameters.
LifParams model_params(const Options& o);
// The stimulus of stimulus.ids (unless only stimulus.kicks is given), stimulus.kicks,
// stimulus.group.NAME.*, stimulus.silence[-mode] and run.seed, on `net`.
StimulusPlan stimulus_plan(const Options& o, const Network& net);
// The part of it that a restored run keeps from its checkpoint and compares with the
// options: the Poisson groups beside stimulus.ids and the silenced set (no ids, kicks or seed).
StimulusPlan stimulus_condition(const Options& o, const Network& net);
// The NAMEs of the stimulus.group.NAME.ids options given, sorted.
std::vector<std::string> poisson_group_names(const Options& o);
// The keys of every stimulus input file the options may name (groups included): for the
// output-over-input check.
std::vector<std::string> stimulus_file_keys(const Options& o);
// engine.kind, overridden by FLY_LIF_CUDA=1|0 (any other value is an error).
EngineKind engine_kind(const Options& o);
// engine.cuda-device, checked to be a device number (whether it exists, the CUDA probe
// says: kernels/cuda/cuda_probe.hpp).
int cuda_device(const Options& o);

// Throws input_error unless a file can be created at path (its folder exists and is writable).
void require_writable(const Options& o, const std::string& key);

}  // namespace flysim::app
