#pragma once
// A network's connections by target (postsynaptic-major), for a device that pulls each
// neuron's input instead of pushing each spike's (kernels/cuda/README.md, "A pulled cell").
#include <cstdint>
#include <vector>

#include "model/network.hpp"

namespace flysim {

struct IncomingConnections {
  // Connections onto neuron i are [offsets[i], offsets[i+1]), their sources ascending.
  std::vector<uint64_t> offsets{0};
  std::vector<uint32_t> sources;
  std::vector<int32_t> weights;  // Network::out_weights of the same connection
};

// The transpose of net's CSR, every connection once.
IncomingConnections incoming_connections(const Network& net);

}  // namespace flysim
