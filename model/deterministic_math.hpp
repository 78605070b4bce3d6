#pragma once
// Natural logarithm and exponential written with IEEE +, -, *, / and exact scaling only:
// the same bits on every machine and C library (libm's log and exp may differ in the last
// bit between libraries, and the synthetic network, model/GENERATOR.md, must not).
// Within 1e-13 of the true value (relative); tests/unit/deterministic_math_test.cpp holds
// exact results that must never change.

#include <cstdint>

namespace flysim {

// SplitMix64's output function: a well-mixed 64-bit hash of x (the generator's streams,
// the edge lists' signs).
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// log(x) for x > 0 (finite, normal).
double det_log(double x);
// e^x for |x| < 700.
double det_exp(double x);

}  // namespace flysim
