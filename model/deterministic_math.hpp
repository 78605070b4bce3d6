#pragma once
// Natural logarithm and exponential written with IEEE +, -, *, / and exact scaling only:
// the same bits on every machine and C library (libm's log and exp may differ in the last
// bit between libraries, and the synthetic network, model/GENERATOR.md, must not).
// Within 1e-13 of the true value (relative); tests/unit/deterministic_math_test.cpp holds
// exact results that must never change.

namespace flysim {

// log(x) for x > 0 (finite, normal).
double det_log(double x);
// e^x for |x| < 700.
double det_exp(double x);

}  // namespace flysim
