#pragma once
// plasticity.* options of `flysim run`: the STDP parameters, which connections learn,
// how many shards and where they run (kernels/stdp/README.md).
#include <cstdint>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "apps/flysim/remote/node_list.hpp"
#include "model/network.hpp"
#include "model/plasticity.hpp"
#include "model/stdp_rule.hpp"

namespace flysim::app {

std::vector<OptionSpec> plasticity_options();

// Where a shard runs: in this process, or on a `flysim shard` node.
using ShardPlace = NodeAddress;

struct PlasticityRequest {
  bool enabled = false;
  StdpParams params;
  StdpRule rule;  // derived from params
  uint32_t shards = 1;
  std::vector<ShardPlace> places;  // per shard
  std::string token;               // plasticity.token-file's secret; empty: none
  std::string weights_out;
};

// Checks every plasticity.* option (before the network loads, so a typo costs no
// waiting); period-ms is rounded up to whole delay cells of `delay_steps` steps.
PlasticityRequest plasticity_request(const Options& o, double dt_ms, int32_t delay_steps);

// plasticity.connections, plasticity.pre-ids and plasticity.post-ids on the loaded
// network: the plastic edges (errors name the ID file and line).
std::vector<uint64_t> plastic_edges_from_options(const Options& o, const Network& net);

}  // namespace flysim::app
