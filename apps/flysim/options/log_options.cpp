#include "apps/flysim/options/log_options.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace flysim::app {

std::vector<OptionSpec> log_options() {
  return {{"log.level", OptionType::choice, "info", "how much to log (to stderr)", {"debug", "info", "warn", "error"}}};
}

void configure_logging(const Options& o) {
  auto logger = spdlog::stderr_color_mt("flysim");
  logger->set_pattern("[%H:%M:%S.%e] %^%l%$ %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(o.text("log.level")));
}

}  // namespace flysim::app
