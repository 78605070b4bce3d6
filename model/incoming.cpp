#include "model/incoming.hpp"

namespace flysim {

IncomingConnections incoming_connections(const Network& net) {
  const std::size_t n = net.neuron_count(), edges = net.connection_count();
  IncomingConnections in;
  in.offsets.assign(n + 1, 0);
  for (const uint32_t post : net.out_targets) ++in.offsets[post + 1];
  for (std::size_t i = 0; i < n; ++i) in.offsets[i + 1] += in.offsets[i];
  in.sources.resize(edges);
  in.weights.resize(edges);
  // Sources in ascending order fill each target's range in ascending order.
  std::vector<uint64_t> next(in.offsets.begin(), in.offsets.end() - 1);
  for (std::size_t pre = 0; pre < n; ++pre)
    for (uint64_t e = net.out_offsets[pre]; e < net.out_offsets[pre + 1]; ++e) {
      const uint64_t to = next[net.out_targets[e]]++;
      in.sources[to] = static_cast<uint32_t>(pre);
      in.weights[to] = net.out_weights[e];
    }
  return in;
}

}  // namespace flysim
