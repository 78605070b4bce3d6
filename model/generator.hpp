#pragma once
// `flysim generate`: a synthetic stand-in for the FlyWire v783 connectome with its
// published statistics (docs/MODEL.md) and a documented sensory-to-motor pathway, so the
// canonical sugar experiment has something to drive. Design and measurements:
// model/GENERATOR.md.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace flysim {

struct GeneratorParams {
  std::vector<int64_t> root_ids;        // neuron IDs; the app passes the 138,639 IDs of Completeness_783.csv
  uint64_t connections = 15'091'983;    // target number of connected pairs
  uint64_t synapses = 54'492'922;       // target total synapse count
  double excitatory_fraction = 0.60;    // fraction of connections that are excitatory; sign set per presynaptic neuron
  uint32_t max_out_degree = 9'783, max_in_degree = 10'356, max_synapses_per_connection = 2'405;
  uint64_t seed = 1;
  std::vector<uint32_t> sensory;        // model indices of the pathway's input neurons (the 21 sugar GRNs)
  std::vector<uint32_t> motor;          // model indices that must be in the pathway's last layer (MN9), may be empty
};

// Deterministic from params (same params -> bit-identical Network, any machine): only
// std::mt19937_64 and IEEE +, -, *, /, sqrt are used. progress(done, total) now and then.
// Throws input_error when the parameters cannot be met (too dense, caps too small...).
Network generate_network(const GeneratorParams& params, const std::function<void(uint64_t, uint64_t)>& progress = {});

// A short text that identifies params and the algorithm version, for cache keys and
// Network::description: "synthetic v1 seed=1 n=138639 connections=... ids=<hash> ...".
std::string generator_signature(const GeneratorParams& params);

}  // namespace flysim
