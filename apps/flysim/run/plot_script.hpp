#pragma once
// The plots the experiment commands draw with a Python script and matplotlib (Debian's
// python3-matplotlib): their options, the check before any work, and the call.
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

// PREFIX.plot, PREFIX.python and PREFIX.plot-script (default scripts/SCRIPT); `what` says what is drawn.
std::vector<OptionSpec> plot_options(const std::string& prefix, const std::string& script, const std::string& what);

// True when PREFIX.plot is on; then refuses, naming the option, a Python without matplotlib or a missing script.
bool plot_wanted(const Options& o, const std::string& prefix);

// Runs the script with `args` (each quoted for the shell); throws input_error saying that `written` stays.
void draw_plot(const Options& o, const std::string& prefix, const std::vector<std::string>& args, const std::string& written);

}  // namespace flysim::app
