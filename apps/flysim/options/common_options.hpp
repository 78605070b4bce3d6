#pragma once
// The options of flysim run and serve (network, stimulus, run, engine, output, model, and
// the groups of their own files), and the check of an output path.
#include <string>
#include <vector>

#include "apps/flysim/options/engine_options.hpp"
#include "apps/flysim/options/log_options.hpp"
#include "apps/flysim/options/network_options.hpp"
#include "apps/flysim/options/options.hpp"
#include "apps/flysim/options/stimulus_options.hpp"
#include "io/network_source.hpp"
#include "model/lif_params.hpp"

namespace flysim::app {

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

// Throws input_error unless a file can be created at path (its folder exists and is
// writable). An output written to standard output takes it over from the program's own
// text (leave_standard_output_to_data).
void require_writable(const Options& o, const std::string& key);

}  // namespace flysim::app
