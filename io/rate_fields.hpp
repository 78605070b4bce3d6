#pragma once
// How the experiment tables write a spread over trials (sd, sem).
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace flysim {

// Six significant digits; empty where the spread is undefined (NaN: one trial), which
// pandas' read_csv reads back as NaN, as its .std() gives for one value.
inline std::string spread_field(double value) { return std::isnan(value) ? std::string() : fmt::format("{:.6g}", value); }

}  // namespace flysim
