#pragma once
// Where flysim finds its bundled data and cache, and the network.* options that turn
// into a NetworkSource: shared by the program and the Python module (python/).
#include <cstdint>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "io/network_source.hpp"

namespace flysim::app {

// The bundled data folder (data/ of the source tree); FLYSIM_DATA_DIR overrides it.
std::string data_dir();
// $XDG_CACHE_HOME/flysim, else $HOME/.cache/flysim, else .flysim-cache.
std::string default_cache_dir();
// The bundled sugar-sensing neurons (root IDs file): the default stimulus, and the
// synthetic network's sensory neurons.
std::string sugar_ids_file();
// sugar_ids_file() for the synthetic network, which wires them as its sensory neurons;
// missing, an error that names FLYSIM_DATA_DIR.
std::string synthetic_sensory_ids_file();
// Refuses option `key` when it was not given and its default, a file of the bundled data
// folder, cannot be read: the error names the option and FLYSIM_DATA_DIR.
void require_bundled_file(const Options& o, const std::string& key);

// The MN9 root ID (docs/MODEL.md's readout neuron): wired by the generator, the default of
// output.readouts.
inline constexpr int64_t kMn9RootId = 720575940660219265;

// network.* options.
std::vector<OptionSpec> network_options();
NetworkSource network_source(const Options& o);
// network.seed, checked (0..2^63-1): the synthetic network's seed and the edge-list sign rule's.
uint64_t network_seed(const Options& o);

}  // namespace flysim::app
