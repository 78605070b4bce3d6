#pragma once
// log.level, and logging set up from it.
#include <vector>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

// log.level.
std::vector<OptionSpec> log_options();
// Applies log.level to spdlog (logs go to stderr; stdout carries results).
void configure_logging(const Options& o);

}  // namespace flysim::app
