#pragma once
// What CpuEngine and CudaEngine share about plastic connections (model/plasticity.hpp):
// the plastic index -> edge map, the checks on what arrives, and the host-side gather
// and scatter. Each engine keeps the weights themselves in its own weight table (host
// vector or device buffer), so a weight change is one write there and nothing else.
#include <cstdint>
#include <memory>
#include <vector>

#include "model/plasticity.hpp"

namespace flysim {

class PlasticEdges {
 public:
  // `edges` may be null (no plasticity); `network_weights` give each connection's sign.
  PlasticEdges(std::shared_ptr<const std::vector<uint64_t>> edges, const std::vector<int32_t>& network_weights);
  std::size_t size() const { return edges_ ? edges_->size() : 0; }
  bool empty() const { return size() == 0; }
  const std::vector<uint64_t>& edges() const { return *edges_; }
  // Throws std::invalid_argument on a plastic index out of range. Signs are not
  // checked here: the shards keep them by construction (kernels/stdp/README.md), and a
  // check would cost a random memory access per change on the engine's critical path.
  void check(const std::vector<WeightChange>& changes) const;
  // Throws on a size mismatch or a weight whose sign differs from its connection's (an
  // imported state comes from a file or another process).
  void check_all(const std::vector<int32_t>& values) const;
  // weights[edge(p)] for every plastic index p.
  std::vector<int32_t> gather(const int32_t* weights) const;

 private:
  std::shared_ptr<const std::vector<uint64_t>> edges_;
  const std::vector<int32_t>* network_weights_;
};

}  // namespace flysim
