#pragma once
// The stimulus files: ID lists and kick tables, read into the model's stimulus types
// (model/stimulus.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "model/network.hpp"
#include "model/stimulus.hpp"

namespace flysim {

// Reads an ID list: one root ID per line, '#' starts a comment (a line's or after the ID),
// blank lines ignored.
// Errors (a field that is not an integer) name file:line.
// A first line of letters and underscores only (a column's name, as pandas writes it) is skipped.
std::vector<ListedId> read_id_list(const std::string& path);

// Reads an ID list (read_id_list) and maps its root IDs to model indices, ascending: the
// neurons of stimulus.ids, plasticity.pre-ids and plasticity.post-ids. Unknown or
// repeated IDs are input_errors naming file:line.
std::vector<uint32_t> load_id_list_as_indices(const std::string& path, const Network& net);

// Reads a CSV with header `step,neuron_id`. Errors name file:line.
std::vector<Kick> load_kicks(const std::string& path, const Network& net);

}  // namespace flysim
