#include "apps/flysim/options/sweep_rates.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace flysim::app {

namespace {
constexpr std::size_t kMaxRates = 10000;

double rate_number(const std::string& text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    throw std::invalid_argument("'" + text + "' is not a number");
  return value;
}

// Digits after the point in a plain decimal ("0.25": 2), or -1 for one with an exponent.
int decimals_of(const std::string& text) {
  if (text.find_first_of("eE") != std::string::npos) return -1;
  const std::size_t point = text.find('.');
  return point == std::string::npos ? 0 : static_cast<int>(text.size() - point - 1);
}

// `value` as the nearest double to its decimal of `decimals` digits after the point:
// 0.7 + 1 * 0.1 is 0.7999999999999999, and the rate asked for is 0.8.
double to_decimals(double value, int decimals) {
  if (decimals < 0 || decimals > 15) return value;
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return std::strtod(text, nullptr);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t next = text.find(separator, pos);
    parts.push_back(text.substr(pos, next - pos));
    if (next == std::string::npos) return parts;
    pos = next + 1;
  }
}
}  // namespace

std::vector<double> parse_sweep_rates(const std::string& text) {
  std::vector<double> rates;
  const std::vector<std::string> range = split(text, ':');
  if (range.size() == 3) {
    const double from = rate_number(range[0]), to = rate_number(range[1]), step = rate_number(range[2]);
    if (!(step > 0) || to < from) throw std::invalid_argument("FROM:TO:STEP needs TO >= FROM and STEP > 0");
    // Counted in whole steps (FROM + k * STEP), so 10:200:10 ends at 200 exactly, each the
    // decimal written with the digits FROM and STEP have (0.7:0.9:0.1 is 0.7, 0.8, 0.9).
    const double count = std::floor((to - from) / step + 1e-9) + 1;
    if (count > kMaxRates) throw std::invalid_argument("more than " + std::to_string(kMaxRates) + " rates");
    const int decimals = std::min(decimals_of(range[0]), decimals_of(range[2])) < 0
                             ? -1
                             : std::max(decimals_of(range[0]), decimals_of(range[2]));
    for (int k = 0; k < static_cast<int>(count); ++k) rates.push_back(to_decimals(from + k * step, decimals));
  } else if (range.size() == 1) {
    for (const std::string& item : split(text, ',')) {
      const double rate = rate_number(item);
      if (std::find(rates.begin(), rates.end(), rate) != rates.end()) throw std::invalid_argument("lists the rate " + item + " twice");
      rates.push_back(rate);
    }
    if (rates.size() > kMaxRates) throw std::invalid_argument("more than " + std::to_string(kMaxRates) + " rates");
  } else {
    throw std::invalid_argument("expected FROM:TO:STEP or a list R1,R2,...");
  }
  for (const double rate : rates)
    if (!(rate >= 0)) throw std::invalid_argument("rates must be 0 Hz or more");
  return rates;
}

}  // namespace flysim::app
