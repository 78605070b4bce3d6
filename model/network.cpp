#include "model/network.hpp"

#include <xxhash.h>

#include <algorithm>
#include <cstdlib>

#include "model/errors.hpp"
#include "model/lif_constants.hpp"

namespace flysim {

namespace {
template <class T>
void hash_vector(XXH3_state_t* state, const std::vector<T>& values) {
  const uint64_t size = values.size();
  XXH3_64bits_update(state, &size, sizeof size);
  XXH3_64bits_update(state, values.data(), values.size() * sizeof(T));
}
}  // namespace

std::string Network::short_description() const {
  // generator_signature lists "synthetic vV seed=S n=N" first, then the parameters that follow from them.
  const std::size_t cut = description.rfind("synthetic ", 0) == 0 ? description.find(" connections=") : std::string::npos;
  return cut == std::string::npos ? description : description.substr(0, cut);
}

uint64_t Network::content_hash() const {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  hash_vector(state, root_ids);
  hash_vector(state, out_offsets);
  hash_vector(state, out_targets);
  hash_vector(state, out_weights);
  const uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return hash;
}

uint64_t Network::synapse_count() const {
  uint64_t units = 0;
  for (int32_t w : out_weights) units += static_cast<uint64_t>(std::abs(static_cast<int64_t>(w)));
  return units / kUnitsPerSynapse;
}

void build_csr(Network& net, std::vector<Connection> connections, const std::string& source) {
  const std::size_t n = net.root_ids.size();
  std::sort(connections.begin(), connections.end(), [](const Connection& a, const Connection& b) {
    return a.pre != b.pre ? a.pre < b.pre : a.post < b.post;
  });
  net.out_offsets.assign(n + 1, 0);
  net.out_targets.resize(connections.size());
  net.out_weights.resize(connections.size());
  for (std::size_t e = 0; e < connections.size(); ++e) {
    const Connection& c = connections[e];
    if (e > 0 && connections[e - 1].pre == c.pre && connections[e - 1].post == c.post)
      throw input_error(source + ": connection " + std::to_string(net.root_ids[c.pre]) + " -> " +
                        std::to_string(net.root_ids[c.post]) + " appears more than once");
    ++net.out_offsets[c.pre + 1];
    net.out_targets[e] = c.post;
    net.out_weights[e] = c.signed_synapses * kUnitsPerSynapse;
  }
  for (std::size_t i = 0; i < n; ++i) net.out_offsets[i + 1] += net.out_offsets[i];
}

bool rows_sorted_by_target(const Network& net) {
  for (std::size_t pre = 0; pre < net.neuron_count(); ++pre)
    if (!std::is_sorted(net.out_targets.begin() + static_cast<std::ptrdiff_t>(net.out_offsets[pre]),
                        net.out_targets.begin() + static_cast<std::ptrdiff_t>(net.out_offsets[pre + 1])))
      return false;
  return true;
}

std::vector<uint32_t> mixed_sign_neurons(const Network& net) {
  std::vector<uint32_t> mixed;
  for (std::size_t pre = 0; pre < net.neuron_count(); ++pre) {
    bool excitatory = false, inhibitory = false;
    for (uint64_t e = net.out_offsets[pre]; e < net.out_offsets[pre + 1]; ++e) (net.out_weights[e] > 0 ? excitatory : inhibitory) = true;
    if (excitatory && inhibitory) mixed.push_back(static_cast<uint32_t>(pre));
  }
  return mixed;
}

std::unordered_map<int64_t, uint32_t> index_of_ids(const std::vector<int64_t>& ids, const std::string& source) {
  std::unordered_map<int64_t, uint32_t> index;
  index.reserve(ids.size() * 2);
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (!index.emplace(ids[i], static_cast<uint32_t>(i)).second)
      throw input_error(source + ": neuron ID " + std::to_string(ids[i]) + " appears more than once");
  return index;
}

}  // namespace flysim
