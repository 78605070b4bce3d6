#include "apps/flysim/options/network_options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "model/errors.hpp"

namespace flysim::app {

std::string data_dir() {
  if (const char* env = std::getenv("FLYSIM_DATA_DIR"); env && *env) return env;
  return FLYSIM_SOURCE_DATA_DIR;
}

std::string default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/flysim";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/flysim";
  return ".flysim-cache";
}

std::string sugar_ids_file() { return data_dir() + "/sugar_grn_783.txt"; }

namespace {

// Where a missing bundled file came from, and what to do about it (`key`: the option
// whose default it is, or empty).
std::string bundled_hint(const std::string& key) {
  const char* env = std::getenv("FLYSIM_DATA_DIR");
  const std::string give = key.empty() ? "" : "give --" + key + "=FILE, or ";
  if (env && *env)
    return fmt::format("from FLYSIM_DATA_DIR={}; {}point FLYSIM_DATA_DIR at a folder that holds flysim's data/ files", env, give);
  return "from the data/ folder of the source tree flysim was built from; " + give +
         "set FLYSIM_DATA_DIR to a folder that holds flysim's data/ files";
}

}  // namespace

std::string synthetic_sensory_ids_file() {
  const std::string path = sugar_ids_file();
  if (::access(path.c_str(), R_OK) != 0) {
    const std::string why = std::strerror(errno);
    throw input_error(
        fmt::format("{}: cannot be opened: {} (the synthetic network's sensory neurons, {})", path, why, bundled_hint("")));
  }
  return path;
}

void require_bundled_file(const Options& o, const std::string& key) {
  const std::string& path = o.text(key);
  if (o.given(key) || path.empty() || ::access(path.c_str(), R_OK) == 0) return;
  const std::string why = std::strerror(errno);
  o.reject(key, fmt::format("names a file flysim cannot open: {} ({})", why, bundled_hint(key)));
}

std::vector<OptionSpec> network_options() {
  return {
      {"network.neurons", OptionType::path, data_dir() + "/Completeness_783.csv",
       "neurons file (',Completed' header, root ID first; row = model index); for the synthetic network, its IDs; "
       "for network.format=edgelist, an optional nodes file with a node_id column"},
      {"network.connectivity", OptionType::path, "",
       "connectivity CSV (the seven FlyWire columns) or edge list; empty: the synthetic FlyWire-scale network"},
      {"network.format", OptionType::choice, "flywire", "format of network.connectivity", {"flywire", "edgelist"}},
      {"network.seed", OptionType::integer, "1", "seed of the synthetic network"},
      {"network.inhibitory-fraction", OptionType::number, "0.4",
       "edge lists carry no signs: this fraction of presynaptic neurons is made inhibitory (seeded by network.seed)"},
      {"network.cache", OptionType::boolean, "true", "keep a binary copy of the loaded network so the next load is fast"},
      {"network.cache-dir", OptionType::path, default_cache_dir(), "folder of the network cache"},
  };
}

uint64_t network_seed(const Options& o) {
  const int64_t seed = o.integer("network.seed");
  if (seed < 0) o.reject("network.seed", "must not be negative");
  return static_cast<uint64_t>(seed);
}

NetworkSource network_source(const Options& o) {
  NetworkSource s;
  s.format = o.text("network.format");
  s.neurons = o.text("network.neurons");
  s.connectivity = o.text("network.connectivity");
  if (!s.connectivity.empty() && s.format == "edgelist" && !o.given("network.neurons")) s.neurons.clear();
  if (!s.neurons.empty()) require_bundled_file(o, "network.neurons");
  // One's own neurons file without its connectivity is a forgotten option, not a request
  // for the synthetic network over those IDs (flysim generate makes that on purpose).
  if (s.connectivity.empty() && o.given("network.neurons"))
    o.reject("network.neurons", "is given without network.connectivity: give your connectome's connectivity CSV as "
                                "network.connectivity=FILE (without both, flysim runs its synthetic FlyWire-scale network; "
                                "flysim generate --network.neurons=FILE makes a synthetic one over these neurons)");
  s.sugar_ids = s.connectivity.empty() ? synthetic_sensory_ids_file() : sugar_ids_file();
  s.readout_id = kMn9RootId;
  s.generator_seed = network_seed(o);
  s.sign_seed = s.generator_seed;
  s.inhibitory_fraction = o.number("network.inhibitory-fraction");
  if (s.inhibitory_fraction < 0.0 || s.inhibitory_fraction > 1.0) o.reject("network.inhibitory-fraction", "must lie in 0..1");
  if (o.boolean("network.cache")) s.cache_dir = o.text("network.cache-dir");
  return s;
}

}  // namespace flysim::app
