#include "shard_fixtures.hpp"

#include "test_support.hpp"

namespace flysim::test {

std::vector<ShardSetup> small_shard_setups() {
  const auto net = tiny_network(6, {{0, 1, 2}, {0, 3, 1}, {1, 2, -1}, {2, 0, 3}, {3, 5, 1}, {4, 1, 2}, {5, 4, -2}});
  std::vector<uint64_t> edges(net->out_weights.size());
  for (std::size_t e = 0; e < edges.size(); ++e) edges[e] = e;
  StdpParams p;
  // Short decay tables: the bytes of a setup are then mostly its fields.
  p.tau_plus_ms = 0.5;
  p.tau_minus_ms = 0.8;
  PlasticityState learned{"test", 0, empty_traces(6), empty_traces(6), {}};
  for (uint64_t e : edges) learned.learned.push_back(net->out_weights[e]);
  learned.pre.value[1] = 0.5, learned.pre.step[1] = 3;
  learned.post.value[4] = 0.25, learned.post.step[4] = 7;
  return make_shard_setups(*net, edges, derive_stdp_rule(p, 0.1), 2, learned);
}

EpochSpikes small_epoch() { return {0, 180, 180, {{181, 0}, {181, 4}, {190, 1}, {200, 2}, {200, 3}, {210, 5}}}; }

}  // namespace flysim::test
