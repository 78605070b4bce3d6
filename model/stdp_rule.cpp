#include "model/stdp_rule.hpp"

#include <cmath>

#include <stdexcept>
#include <string>

namespace flysim {

namespace {
// The last age a trace table covers: kHorizonTaus time constants, in steps.
double horizon_steps(double tau_ms, double dt_ms) { return std::ceil(kHorizonTaus * tau_ms / dt_ms); }

std::vector<double> decay_table(double tau_ms, double dt_ms) {
  const auto horizon = static_cast<std::size_t>(horizon_steps(tau_ms, dt_ms));
  std::vector<double> table(horizon + 1);
  for (std::size_t k = 0; k <= horizon; ++k) table[k] = std::exp(-static_cast<double>(k) * dt_ms / tau_ms);
  return table;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}
}  // namespace

StdpRule derive_stdp_rule(const StdpParams& p, double dt_ms) {
  require(p.a_plus >= 0 && p.a_plus <= kMaxAmplitude, "a-plus must lie in 0..1e9 units");
  require(p.a_minus >= 0 && p.a_minus <= kMaxAmplitude, "a-minus must lie in 0..1e9 units");
  // Up to 1 s: the decay table (40 tau of steps) then stays below 4 MB at dt 0.1 ms.
  require(p.tau_plus_ms >= dt_ms && p.tau_plus_ms <= 1e3, "tau-plus-ms must lie in model.dt-ms..1000 ms");
  require(p.tau_minus_ms >= dt_ms && p.tau_minus_ms <= 1e3, "tau-minus-ms must lie in model.dt-ms..1000 ms");
  require(p.w_min >= 0 && p.w_min <= p.w_max, "w-min must lie in 0..plasticity.w-max");
  // Every shard gets the tables: keep each within kMaxTableEntries (8 MB).
  for (const auto& [tau, name] : {std::pair{p.tau_plus_ms, "tau-plus-ms"}, std::pair{p.tau_minus_ms, "tau-minus-ms"}})
    require(horizon_steps(tau, dt_ms) < kMaxTableEntries,
            std::string(name) + " / model.dt-ms is too large: the trace table would exceed " +
                std::to_string(static_cast<long long>(kMaxTableEntries)) + " entries (40 tau of steps)");
  StdpRule rule;
  rule.a_plus = p.a_plus;
  rule.a_minus = p.a_minus;
  rule.w_min = p.w_min;
  rule.w_max = p.w_max;
  rule.pre_decay = decay_table(p.tau_plus_ms, dt_ms);
  rule.post_decay = decay_table(p.tau_minus_ms, dt_ms);
  return rule;
}

}  // namespace flysim
