#pragma once
// How many digits after the point print step * dt exactly (spike times in the spike files).
#include <cmath>

namespace flysim {

// Digits after the point that print step * dt_ms exactly enough (dt = 0.1 -> 1), at most 6.
inline int time_decimals(double dt_ms) {
  int decimals = 0;
  while (decimals < 6 && std::fabs(dt_ms * std::pow(10.0, decimals) - std::round(dt_ms * std::pow(10.0, decimals))) > 1e-9)
    ++decimals;
  return decimals;
}

}  // namespace flysim
