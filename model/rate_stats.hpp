#pragma once
// A neuron's rate, and its statistics over trials that the experiment tables print.
#include <cstdint>
#include <vector>

namespace flysim {

// Spikes per second over `seconds` of simulated time; 0 before any time has passed.
inline double rate_Hz(uint64_t spikes, double seconds) { return seconds > 0 ? static_cast<double>(spikes) / seconds : 0.0; }

struct RateStats {
  double mean = 0;
  double sd = 0;   // sample standard deviation (n - 1, pandas' default ddof=1); NaN for one trial
  double sem = 0;  // sd / sqrt(n); NaN for one trial
};

// The mean, sd and sem of per-trial rates (at least one).
RateStats rate_stats(const std::vector<double>& rates);

}  // namespace flysim
