#pragma once
// Where a run's network comes from, and the one function that turns that into a
// Network: FlyWire CSV, an edge list, or the synthetic generator, through the cache.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "model/generator.hpp"
#include "model/network.hpp"

namespace flysim {

struct NetworkSource {
  std::string format = "flywire";  // flywire | edgelist (when connectivity is set)
  std::string neurons;             // FlyWire neurons file; the generator's ID list; edge-list nodes file
  std::string connectivity;        // empty: the synthetic FlyWire-scale network
  std::string sugar_ids;           // the generator's sensory neurons (IDs file)
  int64_t readout_id = 0;          // the generator's motor neuron (MN9), 0 for none
  uint64_t generator_seed = 1;
  double inhibitory_fraction = 0.4;  // edge lists: sign rule
  uint64_t sign_seed = 1;
  std::string cache_dir;           // empty: no cache
};

// The generator's parameters for a synthetic source: IDs from source.neurons, sensory
// neurons from source.sugar_ids, the readout neuron as its motor neuron.
GeneratorParams generator_params(const NetworkSource& source);

// Shrinks params to the first `neurons` IDs (0: all) and `connections` pairs, scaling
// the synapse total and capping degrees to what fits.
void restrict_generator(GeneratorParams& params, std::size_t neurons, uint64_t connections);

// The network from the cache alone (nothing is loaded or generated); nullopt when it
// is not cached.
std::optional<Network> cached_network(const NetworkSource& source);

// Logs what it does through `log` (one line per stage: loading, generating, caching).
std::shared_ptr<const Network> obtain_network(const NetworkSource& source, const std::function<void(const std::string&)>& log);

}  // namespace flysim
