#pragma once
// The reference model's spike table (run_exp's files: one row per spike, columns t,
// trial, flywire_id, exp_name), written by flysim screen and output.spikes-format=reference.
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "io/table_numbers.hpp"
#include "model/lif_params.hpp"

namespace flysim {

inline constexpr const char* kReferenceSpikesHeader = "t,trial,flywire_id,exp_name\n";

// One spike's row: t in s as Brian2 records it (spike_time_s), written exactly.
inline void append_reference_spike(std::string& out, int32_t step, double dt_ms, int32_t trial, int64_t root_id,
                                   std::string_view exp_name) {
  fmt::format_to(std::back_inserter(out), "{},{},{},{}\n", table_number(spike_time_s(step, dt_ms)), trial, root_id, exp_name);
}

}  // namespace flysim
