#include "io/network_source.hpp"

#include <xxhash.h>

#include <chrono>
#include <cmath>
#include <algorithm>
#include <filesystem>

#include "io/csv_reader.hpp"
#include "model/errors.hpp"
#include "io/edge_list.hpp"
#include "io/flywire_csv.hpp"
#include "model/generator.hpp"
#include "io/network_cache.hpp"
#include "io/stimulus_files.hpp"
#include "model/stimulus.hpp"

namespace flysim {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The model indices of the IDs listed in `path` that exist among `ids` (the generator
// needs them before a Network exists).
std::vector<uint32_t> indices_of_listed_ids(const std::string& path, const std::vector<int64_t>& ids) {
  const auto index = index_of_ids(ids, path);
  std::vector<uint32_t> found;
  for (const ListedId& listed : read_id_list(path))
    if (const auto it = index.find(listed.id); it != index.end()) found.push_back(it->second);
  return found;
}

}  // namespace

GeneratorParams generator_params(const NetworkSource& source) {
  GeneratorParams params;
  params.root_ids = load_flywire_neurons(source.neurons);
  params.seed = source.generator_seed;
  if (!source.sugar_ids.empty()) params.sensory = indices_of_listed_ids(source.sugar_ids, params.root_ids);
  const auto index = index_of_ids(params.root_ids, source.neurons);
  if (const auto it = index.find(source.readout_id); it != index.end()) params.motor.push_back(it->second);
  return params;
}

// The neuron count the generator's default degree caps are fitted to (FlyWire v783).
constexpr double kFittedNeurons = 138639;

void restrict_generator(GeneratorParams& params, std::size_t neurons, uint64_t connections) {
  if (neurons > 0 && neurons < params.root_ids.size()) {
    params.root_ids.resize(neurons);
    const auto outside = [&](uint32_t i) { return i >= neurons; };
    std::erase_if(params.sensory, outside);
    std::erase_if(params.motor, outside);
  }
  const uint64_t n = params.root_ids.size();
  params.synapses = static_cast<uint64_t>(static_cast<double>(params.synapses) * static_cast<double>(connections) /
                                          static_cast<double>(params.connections));
  params.connections = connections;
  if (params.synapses < connections) params.synapses = connections;
  const uint64_t max_pairs = n * (n - 1);
  // At most a quarter of all pairs: the generator's rejection sampling of distinct pairs
  // still places that many quickly; far denser asks would stall it.
  if (params.connections > max_pairs / 4)
    throw input_error("a network of " + std::to_string(n) + " neurons cannot hold " + std::to_string(connections) +
                      " connections with a realistic sparsity; " +
                      (max_pairs / 4 > 0 ? "ask for at most " + std::to_string(max_pairs / 4)
                                         : std::string("ask for more neurons (a quarter of the n*(n-1) pairs at most)")));
  // The hubs shrink with the network (the largest FlyWire hub reaches 7% of all neurons):
  // a 2,000-neuron network with full-scale hubs would need rows longer than n - 1 once the
  // heavy tail is drawn, and could not place its connections without repeats. Never below
  // twice the mean degree, so the tail keeps its shape.
  const double scale = std::min(1.0, static_cast<double>(n) / kFittedNeurons);
  const auto scaled_cap = [&](uint32_t cap) {
    const double mean = static_cast<double>(params.connections) / static_cast<double>(n);
    const double wanted = std::max(std::ceil(static_cast<double>(cap) * scale), std::ceil(2.0 * mean));
    return static_cast<uint32_t>(std::min<double>({static_cast<double>(cap), wanted, static_cast<double>(n - 1)}));
  };
  params.max_out_degree = scaled_cap(params.max_out_degree);
  params.max_in_degree = scaled_cap(params.max_in_degree);
  // The largest connection holds at most a quarter of all synapses: a small network's total
  // cannot hold FlyWire's largest weight (2,405) beside its other connections.
  params.max_synapses_per_connection = static_cast<uint32_t>(
      std::clamp<uint64_t>(params.synapses / 4, 1, params.max_synapses_per_connection));
}

namespace {
std::string cache_path(const NetworkSource& source, const std::string& key) {
  const uint64_t hash = XXH3_64bits(key.data(), key.size());
  char name[64];
  std::snprintf(name, sizeof name, "network-%016llx.fsnet", static_cast<unsigned long long>(hash));
  return (std::filesystem::path(source.cache_dir) / name).string();
}

// The cache key of a source: what it was made from.
std::string source_key(const NetworkSource& source, const GeneratorParams& params) {
  if (source.connectivity.empty()) return generator_signature(params);
  std::string key;
  if (source.format == "flywire") {
    key = "flywire " + file_source_key({source.neurons, source.connectivity});
  } else {
    key = "edgelist " + file_source_key(source.neurons.empty() ? std::vector<std::string>{source.connectivity}
                                                             : std::vector<std::string>{source.connectivity, source.neurons}) +
          " inhibitory=" + std::to_string(source.inhibitory_fraction) + " seed=" + std::to_string(source.sign_seed);
  }
  return key;
}
}  // namespace

std::optional<Network> cached_network(const NetworkSource& source) {
  if (source.cache_dir.empty()) return std::nullopt;
  const GeneratorParams params = source.connectivity.empty() ? generator_params(source) : GeneratorParams{};
  const std::string key = source_key(source, params);
  return load_network_cache(cache_path(source, key), key);
}

std::shared_ptr<const Network> obtain_network(const NetworkSource& source, const std::function<void(const std::string&)>& log) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool synthetic = source.connectivity.empty();
  const GeneratorParams params = synthetic ? generator_params(source) : GeneratorParams{};
  const std::string key = source_key(source, params);

  std::string path;
  if (!source.cache_dir.empty()) {
    path = cache_path(source, key);
    if (auto cached = load_network_cache(path, key)) {
      // The cache is shared by content: the network is named by the files given now.
      if (!synthetic)
        cached->description = source.format == "flywire"
                                  ? flywire_description(source.connectivity)
                                  : edge_list_description(source.connectivity, SignRule{source.inhibitory_fraction, source.sign_seed});
      log("network: " + cached->description + " from cache " + path + " in " + std::to_string(seconds_since(t0)) + " s");
      return std::make_shared<const Network>(std::move(*cached));
    }
  }

  Network net;
  if (synthetic) {
    log("network: generating the synthetic FlyWire-scale network (" + key + "); once, then it is cached");
    net = generate_network(params, [&](uint64_t done, uint64_t total) {
      log("network: generating, " + std::to_string(100 * done / (total ? total : 1)) + "%");
    });
  } else if (source.format == "flywire") {
    log("network: reading " + source.connectivity);
    net = load_flywire(source.neurons, source.connectivity, [&](uint64_t done, uint64_t total) {
      log("network: read " + std::to_string(done >> 20) + " of " + std::to_string(total >> 20) + " MiB");
    });
  } else {
    net = load_edge_list(source.connectivity, source.neurons, SignRule{source.inhibitory_fraction, source.sign_seed});
  }
  log("network: " + std::to_string(net.neuron_count()) + " neurons, " + std::to_string(net.connection_count()) +
      " connections, " + std::to_string(net.synapse_count()) + " synapses, ready in " + std::to_string(seconds_since(t0)) + " s");
  if (!path.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(source.cache_dir, ec);
    if (ec) {
      log("network: cannot create cache directory " + source.cache_dir + " (" + ec.message() + "); not caching");
    } else {
      try {
        save_network_cache(net, path, key);
        log("network: cached in " + path);
      } catch (const input_error& e) {
        log(std::string("network: not cached (") + e.what() + ")");
      }
    }
  }
  return std::make_shared<const Network>(std::move(net));
}

}  // namespace flysim
