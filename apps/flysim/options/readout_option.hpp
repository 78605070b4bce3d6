#pragma once
// output.readouts: the neurons the summary reports on their own (their mean rate over
// the trials), MN9 by default (docs/MODEL.md's readout). The live page shows the first.
#include <cstdint>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "model/network.hpp"

namespace flysim::app {

// The root IDs of option `key` ("ID,ID,..."; empty: none): output.readouts of run,
// sweep.readouts of sweep. Throws input_error naming the option for an item that is not
// a positive integer or is listed twice.
std::vector<int64_t> readout_ids(const Options& o, const std::string& key = "output.readouts");

// Those of `ids` (option `key`) in the network. A given ID the network lacks is an
// input_error naming the option; the default (MN9) is skipped on a network without it
// (net2000, edge lists).
std::vector<int64_t> readouts_in(const Options& o, const std::vector<int64_t>& ids, const Network& net,
                                 const std::string& key = "output.readouts");

// The model index of each of readouts_in's IDs, in their order.
std::vector<uint32_t> readout_indices(const std::vector<int64_t>& present, const Network& net);

}  // namespace flysim::app
