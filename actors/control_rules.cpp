#include "actors/control_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace flysim {

namespace {
bool has_stimulus_fields(const LiveCommand& c) {
  return c.rate_Hz >= 0 || std::isnan(c.rate_Hz) || c.replace_ids || !c.poisson_ids.empty() || !c.kicks.empty() ||
         c.replace_silenced || !c.silenced_ids.empty() || !c.silence_mode.empty();
}

std::string swap_problem(const LiveCommand& c) {
  if (c.engine != "cpu" && c.engine != "cuda") return fmt::format("engine must be \"cpu\" or \"cuda\", got \"{}\"", c.engine);
  if (c.engine == "cuda" && c.threads != 0) return "threads applies only to engine \"cpu\" (CUDA uses no thread pool)";
  // 0 stands for engine.threads; the API refuses an explicit 0 itself.
  if (c.threads < 0 || c.threads > kMaxLiveThreads) return fmt::format("threads must be 1..{}, got {}", kMaxLiveThreads, c.threads);
  return "";
}

std::string stimulus_problem(const LiveCommand& c) {
  if (!std::isfinite(c.rate_Hz)) return "rate_hz must be a finite number >= 0";
  if (c.replace_ids && c.poisson_ids.empty()) return "poisson_ids is empty; to stop the Poisson input, set rate_hz to 0";
  if (!c.replace_ids && !c.poisson_ids.empty()) return "poisson_ids is given without replace_ids";
  std::unordered_set<int64_t> seen;
  for (int64_t id : c.poisson_ids)
    if (!seen.insert(id).second) return fmt::format("poisson_ids lists {} twice", id);
  for (std::size_t k = 0; k < c.kicks.size(); ++k)
    if (!(c.kicks[k].after_ms >= 0 && c.kicks[k].after_ms <= kMaxKickAfterMs))
      return fmt::format("kicks[{}].after_ms must lie in 0..{} ms, got {}", k, kMaxKickAfterMs, c.kicks[k].after_ms);
  if (!has_stimulus_fields(c)) return "stimulus needs at least one of rate_hz, poisson_ids, kicks, silence_ids, silence_mode";
  if (!c.group.empty() && !c.kicks.empty()) return "kicks belong to no group: send them without group";
  return "";
}
}  // namespace

std::string command_problem(const LiveCommand& c) {
  if (std::find(kLiveActions.begin(), kLiveActions.end(), c.action) == kLiveActions.end())
    return fmt::format("action \"{}\" is not one of swap, checkpoint, stimulus, pause, resume, stop", c.action);
  if (c.action != "swap" && (!c.engine.empty() || c.threads != 0))
    return fmt::format("engine and threads belong to swap, not to {}", c.action);
  if (c.action != "stimulus" && has_stimulus_fields(c))
    return fmt::format("rate_hz, poisson_ids, kicks, silence_ids and silence_mode belong to stimulus, not to {}", c.action);
  if (c.action == "swap") return swap_problem(c);
  if (c.action == "stimulus") return stimulus_problem(c);
  return "";
}

std::string describe_command(const LiveCommand& c) {
  if (c.action == "swap")
    return c.engine == "cpu" ? fmt::format("swap to cpu, {}", c.threads > 0 ? fmt::format("{} threads", c.threads)
                                                                            : std::string("engine.threads threads"))
                             : "swap to " + c.engine;
  if (c.action != "stimulus") return c.action;
  std::vector<std::string> parts;
  if (c.rate_Hz >= 0) parts.push_back(fmt::format("rate {} Hz", c.rate_Hz));
  if (c.replace_ids) parts.push_back(fmt::format("Poisson set replaced by {} IDs", c.poisson_ids.size()));
  if (!c.kicks.empty()) parts.push_back(fmt::format("{} kick{}", c.kicks.size(), c.kicks.size() == 1 ? "" : "s"));
  return fmt::format("stimulus: {}", fmt::join(parts, ", "));
}

}  // namespace flysim
