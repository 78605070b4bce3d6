#include "model/shard_setup.hpp"

#include <stdexcept>
#include <string>

namespace flysim {

std::vector<ShardSetup> make_shard_setups(const Network& net, const std::vector<uint64_t>& plastic_edges,
                                          const StdpRule& rule, uint32_t shards, const PlasticityState& learned) {
  if (shards < 1) throw std::invalid_argument("a plasticity run needs at least one shard");
  if (learned.learned.size() != plastic_edges.size())
    throw std::invalid_argument("the learned state holds " + std::to_string(learned.learned.size()) +
                                " weights for " + std::to_string(plastic_edges.size()) + " plastic connections");
  const std::vector<uint32_t> pre_of = presynaptic_of(net, plastic_edges);
  std::vector<ShardSetup> setups(shards);
  for (uint32_t s = 0; s < shards; ++s) {
    setups[s].shard = s;
    setups[s].shards = shards;
    setups[s].neurons = static_cast<uint32_t>(net.neuron_count());
    setups[s].rule = rule;
    setups[s].trial = learned.trial;
    setups[s].pre = learned.pre;
    setups[s].post = learned.post;
  }
  for (std::size_t p = 0; p < plastic_edges.size(); ++p) {
    const uint32_t post = net.out_targets[plastic_edges[p]];
    ShardConnections& c = setups[owner_shard(post, shards)].connections;
    c.plastic.push_back(static_cast<uint32_t>(p));
    c.pre.push_back(pre_of[p]);
    c.post.push_back(post);
    c.weight.push_back(learned.learned[p]);
    c.inhibitory.push_back(net.out_weights[plastic_edges[p]] < 0);
  }
  return setups;
}

PlasticityState merge_shard_states(const std::vector<ShardState>& states, std::size_t plastic_count,
                                   const std::string& settings) {
  if (states.empty()) throw std::invalid_argument("no shard state to merge");
  PlasticityState merged;
  merged.settings = settings;
  merged.trial = states.front().trial;
  merged.pre = states.front().pre;
  merged.post = states.front().post;
  merged.learned.assign(plastic_count, 0);
  std::size_t seen = 0;
  for (const ShardState& s : states) {
    for (const WeightChange& w : s.weights) {
      if (w.plastic >= plastic_count) throw std::invalid_argument("a shard reported plastic index " + std::to_string(w.plastic));
      merged.learned[w.plastic] = w.weight;
    }
    seen += s.weights.size();
  }
  if (seen != plastic_count)
    throw std::invalid_argument("the shards reported " + std::to_string(seen) + " of " + std::to_string(plastic_count) +
                                " plastic connections");
  return merged;
}

}  // namespace flysim
