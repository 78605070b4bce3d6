#pragma once
// How the experiment tables write their numbers: exactly, as pandas reads them back.
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace flysim {

// The shortest decimal that reads back to the same double (pandas:
// read_csv(float_precision="round_trip")), with a point where it would have none, so
// that a column of whole numbers still reads as float ("40.0", not "40").
inline std::string table_number(double value) {
  std::string text = fmt::format("{}", value);
  if (std::isfinite(value) && text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// table_number, empty where the spread is undefined (NaN: one trial), which pandas'
// read_csv reads back as NaN, as its .std() gives for one value.
inline std::string spread_field(double value) { return std::isnan(value) ? std::string() : table_number(value); }

}  // namespace flysim
