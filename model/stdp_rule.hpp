#pragma once
// The STDP rule's derived constants (GeNN's habit: derived once on the host that starts
// the run, then shipped to every shard, local or remote). The tables hold the trace
// decay, so no shard calls exp() and every shard computes the same bits. The
// arithmetic that uses them is kernels/stdp/stdp_rule.hpp.
#include <cstdint>
#include <vector>

#include "model/plasticity.hpp"

namespace flysim {

struct StdpRule {
  double a_plus = 0.0, a_minus = 0.0;  // units per pairing at trace 1
  int32_t w_min = 0, w_max = 0;        // bounds of |w|, units
  // decay[k] = exp(-k dt / tau), k = 0..horizon; a trace older than its table is 0.
  std::vector<double> pre_decay, post_decay;
  friend bool operator==(const StdpRule&, const StdpRule&) = default;
};

// A trace is taken as 0 once it has decayed below e^-kHorizonTaus: at the largest
// amplitude that is allowed (kMaxAmplitude) that is far less than half a unit, so the
// cut changes no weight.
inline constexpr double kHorizonTaus = 40.0;
inline constexpr double kMaxAmplitude = 1e9;
inline constexpr double kMaxTableEntries = 1 << 20;

// Throws std::invalid_argument naming the parameter that is out of range.
StdpRule derive_stdp_rule(const StdpParams& p, double dt_ms);

}  // namespace flysim
