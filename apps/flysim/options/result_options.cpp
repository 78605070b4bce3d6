#include "apps/flysim/options/result_options.hpp"

#include <fmt/format.h>

#include <vector>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

namespace {
// A key changes the result when it starts with one of these and with none of the exceptions.
const std::vector<std::string> kResultPrefixes = {
    "network.",           "stimulus.",           "model.",           "run.duration-ms", "run.trials",
    "run.seed",           "restore",             "plasticity.enabled", "plasticity.connections",
    "plasticity.pre-ids", "plasticity.post-ids", "plasticity.a-",    "plasticity.tau-", "plasticity.w-",
    "plasticity.period-ms"};
// Where the network's cache lives changes nothing the network holds.
const std::vector<std::string> kExceptions = {"network.cache"};
}  // namespace

bool changes_result(const std::string& key) { return starts_with_any(key, kResultPrefixes) && !starts_with_any(key, kExceptions); }

std::string result_options_text() {
  std::vector<std::string> shown;
  for (const std::string& prefix : kResultPrefixes) shown.push_back(prefix.back() == '.' || prefix.back() == '-' ? prefix + "*" : prefix);
  return fmt::format("{} (but {}*)", fmt::join(shown, ", "), fmt::join(kExceptions, "*, "));
}

}  // namespace flysim::app
