#pragma once
// The statistics of a neuron's rate over trials that the experiment tables print.
#include <vector>

namespace flysim {

struct RateStats {
  double mean = 0;
  double sd = 0;   // sample standard deviation (n - 1, pandas' default ddof=1); NaN for one trial
  double sem = 0;  // sd / sqrt(n); NaN for one trial
};

// The mean, sd and sem of per-trial rates (at least one).
RateStats rate_stats(const std::vector<double>& rates);

}  // namespace flysim
