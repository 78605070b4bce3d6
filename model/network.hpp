#pragma once
// The connectome as the engines use it: presynaptic-major CSR with fixed-point weights.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace flysim {

struct Network {
  // FlyWire root ID (or another stable 64-bit ID) of each model index.
  std::vector<int64_t> root_ids;
  // Outgoing connections of neuron i are [out_offsets[i], out_offsets[i+1]).
  std::vector<uint64_t> out_offsets{0};
  std::vector<uint32_t> out_targets;
  // Signed weight in fixed-point units (kUnitsPerSynapse per synapse).
  std::vector<int32_t> out_weights;
  // Where it came from, for logs and summaries ("flywire csv: path", "synthetic seed=1").
  std::string description;

  std::size_t neuron_count() const { return root_ids.size(); }
  std::size_t connection_count() const { return out_targets.size(); }

  // The description as an error message names the network: a file's path, or the
  // generator's name, seed and size without the rest of its parameters.
  std::string short_description() const;
  // 64-bit hash of everything that changes the dynamics (IDs, topology, weights).
  uint64_t content_hash() const;
  // Total synapse count (sum of |weight| in synapses).
  uint64_t synapse_count() const;
};

// Whether every neuron's outgoing connections are in ascending target order (build_csr
// and the generator make them so; a hand-built Network need not be).
bool rows_sorted_by_target(const Network& net);

// Presynaptic neurons with both excitatory and inhibitory connections, in index order.
// The model allows them (each connection has its own sign), but in FlyWire data a neuron
// has one transmitter, so they usually mean a damaged or hand-edited table.
std::vector<uint32_t> mixed_sign_neurons(const Network& net);

// One connection as read from a file, before it is placed in the CSR.
struct Connection {
  uint32_t pre;
  uint32_t post;
  int32_t signed_synapses;  // Excitatory x Connectivity
};

// Builds the CSR from connections (any order; sorted here by pre, then post).
// Throws input_error when a (pre, post) pair occurs twice, naming the source.
void build_csr(Network& net, std::vector<Connection> connections, const std::string& source);

// root ID -> model index; throws input_error naming `source` on a repeated ID.
std::unordered_map<int64_t, uint32_t> index_of_ids(const std::vector<int64_t>& ids, const std::string& source);

// A network's root IDs -> model indices, built once for many lookups (a screen resolves
// thousands of experiments' ID lists). Holds a reference: the network must outlive it.
class RootIdIndex {
 public:
  explicit RootIdIndex(const Network& net) : net_(net), index_(index_of_ids(net.root_ids, "network")) {}
  const Network& network() const { return net_; }
  // The model index of `id`, or nullptr when the network lacks it.
  const uint32_t* find(int64_t id) const {
    const auto it = index_.find(id);
    return it == index_.end() ? nullptr : &it->second;
  }

 private:
  const Network& net_;
  std::unordered_map<int64_t, uint32_t> index_;
};

}  // namespace flysim
