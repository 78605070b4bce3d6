#include "messages/control_rules.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unordered_set>
#include <vector>

#include "io/input_file.hpp"
#include "model/stimulus.hpp"

namespace flysim {

namespace {
std::string problem(const SwapCommand& c) {
  if (c.threads && (*c.threads < 1 || *c.threads > kMaxPoolThreads))
    return fmt::format("threads must be 1..{}, got {}", kMaxPoolThreads, *c.threads);
  if (c.engine != "cpu" && c.engine != "cuda") return fmt::format("engine must be \"cpu\" or \"cuda\", got \"{}\"", c.engine);
  if (c.engine == "cuda" && c.threads) return "threads applies only to engine \"cpu\" (CUDA uses no thread pool)";
  return "";
}

bool changes_something(const StimulusCommand& c) {
  bool any = false;
  fields(c, [&](const auto&... field) { any = (field.value.has_value() || ...); });
  return any;
}

std::string problem(const StimulusCommand& c) {
  if (c.group && c.group->empty()) return "group must name a Poisson group; leave it out for the default group";
  if (c.group && !is_group_name(*c.group))
    return fmt::format("group '{}': a group's name has letters, digits, '_' and '-' only (as stimulus.group.NAME)",
                       printable(*c.group));
  if (c.rate_Hz && !std::isfinite(*c.rate_Hz)) return "rate_hz must be a finite number >= 0";
  if (c.rate_Hz && *c.rate_Hz < 0) return fmt::format("rate_hz must be a finite number >= 0, got {}", *c.rate_Hz);
  if (c.kicks && c.kicks->empty()) return "kicks is empty; give at least one kick or leave the field out";
  if (c.poisson_ids && c.poisson_ids->empty() && !c.group)
    return "poisson_ids is empty; to stop the Poisson input, set rate_hz to 0 (an empty list removes only a group)";
  std::unordered_set<int64_t> seen;
  for (int64_t id : c.poisson_ids ? *c.poisson_ids : std::vector<int64_t>{})
    if (!seen.insert(id).second) return fmt::format("poisson_ids lists {} twice", id);
  const std::vector<LiveKick>& kicks = c.kicks ? *c.kicks : std::vector<LiveKick>{};
  for (std::size_t k = 0; k < kicks.size(); ++k)
    if (!(kicks[k].after_ms >= 0 && kicks[k].after_ms <= kMaxKickAfterMs))
      return fmt::format("kicks[{}].after_ms must lie in 0..{} ms, got {}", k, kMaxKickAfterMs, kicks[k].after_ms);
  if (!changes_something(c)) return "stimulus needs at least one of rate_hz, poisson_ids, kicks, silence_ids, silence_mode";
  if (c.group && c.kicks) return "kicks belong to no group: send them without group";
  return "";
}

// A command without rules.
std::string problem(const live_command_type auto&) { return ""; }

std::string describe(const SwapCommand& c) {
  if (c.engine != "cpu") return "swap to " + c.engine;
  return fmt::format("swap to cpu, {}", c.threads ? fmt::format("{} threads", *c.threads) : std::string("engine.threads threads"));
}

std::string describe(const StimulusCommand& c) {
  std::vector<std::string> parts;
  if (c.rate_Hz) parts.push_back(fmt::format("rate {} Hz", *c.rate_Hz));
  if (c.poisson_ids) parts.push_back(fmt::format("Poisson set replaced by {} IDs", c.poisson_ids->size()));
  if (c.kicks) parts.push_back(fmt::format("{} kick{}", c.kicks->size(), c.kicks->size() == 1 ? "" : "s"));
  return fmt::format("stimulus: {}", fmt::join(parts, ", "));
}

template <live_command_type T>
std::string describe(const T&) {
  return T::action;
}
}  // namespace

std::string command_problem(const LiveCommand& command) {
  return std::visit([](const auto& c) { return problem(c); }, command);
}

std::string describe_command(const LiveCommand& command) {
  return std::visit([](const auto& c) { return describe(c); }, command);
}

}  // namespace flysim
