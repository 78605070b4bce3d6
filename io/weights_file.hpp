#pragma once
// The learned weights file (plasticity.weights-out): the plastic connections' weights
// before and after a run, as CSV.
#include <cstdint>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace flysim {

// Writes 'pre_id,post_id,initial_units,final_units' per plastic connection, atomically
// (the file appears complete or not at all). `final_weights` is by plastic index.
void write_plastic_weights_csv(const std::string& path, const Network& net, const std::vector<uint64_t>& edges,
                               const std::vector<int32_t>& final_weights);

}  // namespace flysim
