#include "model/deterministic_math.hpp"

#include <cmath>

namespace flysim {

namespace {
constexpr double kLn2 = 0x1.62e42fefa39efp-1;
}  // namespace

// Natural logarithm of x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), then the
// atanh series log m = 2 (s + s^3/3 + ...), s = (m-1)/(m+1), |s| < 0.172.
double det_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);
  if (m < 0x1.6a09e667f3bcdp-1) {
    m *= 2.0;
    --e;
  }
  const double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double series = 0.0;
  for (int k = 25; k >= 1; k -= 2) series = series * s2 + 1.0 / k;
  return 2.0 * s * series + e * kLn2;
}

// e^x for |x| < 700: x = k ln2 + r with |r| <= ln2/2, then a Taylor series for e^r.
double det_exp(double x) {
  const double k = std::floor(x / kLn2 + 0.5);
  const double r = x - k * kLn2;
  double series = 1.0;
  for (int i = 22; i >= 1; --i) series = 1.0 + series * r / i;
  return std::ldexp(series, static_cast<int>(k));
}

}  // namespace flysim
