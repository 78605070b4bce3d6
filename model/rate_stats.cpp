#include "model/rate_stats.hpp"

#include <cmath>
#include <limits>

namespace flysim {

RateStats rate_stats(const std::vector<double>& rates) {
  const auto n = static_cast<double>(rates.size());
  double sum = 0;
  for (double r : rates) sum += r;
  RateStats s;
  s.mean = sum / n;
  double squares = 0;
  for (double r : rates) squares += (r - s.mean) * (r - s.mean);
  s.sd = rates.size() > 1 ? std::sqrt(squares / (n - 1)) : std::numeric_limits<double>::quiet_NaN();
  s.sem = s.sd / std::sqrt(n);
  return s;
}

}  // namespace flysim
