#pragma once
// The STDP arithmetic (README.md here): trace decay by table lookup and the bounded,
// sign-preserving weight step. Host code only: the observers run on the CPU whichever
// engine runs the neurons.
#include <cmath>
#include <cstdint>
#include <vector>

#include "model/lif_constants.hpp"
#include "model/stdp_rule.hpp"

namespace flysim::stdp {

// The value of a trace that was `value` just after step `since`, read at `step`
// (before any spike at `step` adds to it).
inline double trace_at(const std::vector<double>& decay, double value, int32_t since, int32_t step) {
  if (since == kNeverSpiked) return 0.0;
  const int64_t age = int64_t{step} - since;
  return age < static_cast<int64_t>(decay.size()) ? value * decay[static_cast<std::size_t>(age)] : 0.0;
}

// Weight w after a pairing that adds `delta` units to its magnitude: the sign of the
// connection (from the network, since a weight can reach 0) stays, the magnitude is
// clamped to [w_min, w_max].
inline int32_t step_weight(int32_t w, bool inhibitory, int64_t delta, int32_t w_min, int32_t w_max) {
  const int64_t magnitude = (w < 0 ? -int64_t{w} : int64_t{w}) + delta;
  const int64_t bounded = magnitude < w_min ? w_min : (magnitude > w_max ? w_max : magnitude);
  return static_cast<int32_t>(inhibitory ? -bounded : bounded);
}

// The units one pairing moves: amplitude x trace, rounded to the nearest unit.
inline int64_t pairing_units(double amplitude, double trace) { return std::llround(amplitude * trace); }

}  // namespace flysim::stdp
