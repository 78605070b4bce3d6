#pragma once
// Times as flysim's files and summaries print them.
#include <cmath>

namespace flysim {

// Digits after the point that print step * dt_ms exactly enough (dt = 0.1 -> 1), at most 6
// (the spike files' t_ms).
inline int time_decimals(double dt_ms) {
  int decimals = 0;
  while (decimals < 6 && std::fabs(dt_ms * std::pow(10.0, decimals) - std::round(dt_ms * std::pow(10.0, decimals))) > 1e-9)
    ++decimals;
  return decimals;
}

// Simulated seconds in ms as summaries report them: whole steps times dt carry binary noise
// (2999.2000000000007 for 29,992 steps of 0.1 ms), so rounded to the nanosecond, far below
// any step.
inline double reported_ms(double seconds) { return std::round(seconds * 1e9) / 1e6; }

}  // namespace flysim
