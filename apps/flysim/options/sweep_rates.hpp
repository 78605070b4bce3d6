#pragma once
// sweep.rates: the stimulus rates of a dose-response sweep, in Hz.
#include <string>
#include <vector>

namespace flysim::app {

// "FROM:TO:STEP" (FROM, FROM + STEP, ... up to TO inclusive) or "R1,R2,...". Every rate
// is a finite number >= 0 (0 Hz: no input), listed once, at most 10,000 of them. Throws
// std::invalid_argument saying what is wrong (the caller names the option).
std::vector<double> parse_sweep_rates(const std::string& text);

}  // namespace flysim::app
