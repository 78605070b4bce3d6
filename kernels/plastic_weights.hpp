#pragma once
// An engine's record of its plastic connections' current weights: the part of the
// weight table that observers change (model/plasticity.hpp). CpuEngine and CudaEngine
// both keep one, so validation, export and import are written once; each engine then
// writes the changed entries into its own weight table (host vector or device buffer).
#include <cstdint>
#include <memory>
#include <vector>

#include "model/plasticity.hpp"

namespace flysim {

class PlasticWeights {
 public:
  // `edges` may be null (no plasticity); `network_weights` are the initial weights.
  PlasticWeights(std::shared_ptr<const std::vector<uint64_t>> edges, const std::vector<int32_t>& network_weights);
  bool empty() const { return values_.empty(); }
  // Records the changes; throws std::invalid_argument on an index out of range or a
  // weight whose sign differs from the connection's (plasticity never flips a sign).
  void apply(const std::vector<WeightChange>& changes);
  // Replaces every weight (an imported state); throws on a size or sign mismatch.
  void assign(const std::vector<int32_t>& values);
  const std::vector<int32_t>& values() const { return values_; }
  uint64_t edge(uint32_t plastic) const { return (*edges_)[plastic]; }

 private:
  void check(uint32_t plastic, int32_t weight) const;

  std::shared_ptr<const std::vector<uint64_t>> edges_;
  std::vector<int32_t> values_;
  std::vector<uint8_t> inhibitory_;
};

}  // namespace flysim
