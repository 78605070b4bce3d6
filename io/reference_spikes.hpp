#pragma once
// The reference model's spike table (run_exp's files: one row per spike, columns t,
// trial, flywire_id, exp_name), written by flysim screen and output.spikes-format=reference.
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "io/table_numbers.hpp"
#include "model/lif_params.hpp"

namespace flysim {

inline constexpr const char* kReferenceSpikesHeader = "t,trial,flywire_id,exp_name\n";

// Whether an experiment's name can stand unquoted as exp_name in the CSV tables: UTF-8
// text without a comma, a quote or a control character (any of which would split a row,
// open a quoted field or end a line; other bytes would not read back as text).
inline bool is_plain_name(std::string_view name) {
  for (std::size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c == ',' || c == '"' || c < 0x20 || c == 0x7f) return false;
    // the length of a UTF-8 sequence by its lead byte; continuation bytes are 10xxxxxx
    const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > name.size()) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(name[i + k]) >> 6) != 0x2) return false;
    i += length;
  }
  return true;
}

// The experiment a reference-format spike file names: its name without the extension
// ("stdout" for "-").
inline std::string experiment_of_file(const std::string& path) {
  return path == "-" ? "stdout" : std::filesystem::path(path).stem().string();
}

// One spike's row: t in s as Brian2 records it (spike_time_s), written exactly.
inline void append_reference_spike(std::string& out, int32_t step, double dt_ms, int32_t trial, int64_t root_id,
                                   std::string_view exp_name) {
  fmt::format_to(std::back_inserter(out), "{},{},{},{}\n", table_number(spike_time_s(step, dt_ms)), trial, root_id, exp_name);
}

}  // namespace flysim
