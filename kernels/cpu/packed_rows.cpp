#include "kernels/cpu/packed_rows.hpp"

namespace flysim {

namespace {
constexpr int32_t kMostSynapses = (1 << (PackedRows::kSynapseBits - 1)) - 1;

// Nonzero where weight w is not a whole number of synapses within +-kMostSynapses:
// branch-free, so that a check of every connection vectorizes.
uint32_t stray_bits(int32_t w) {
  const uint32_t fraction = static_cast<uint32_t>(w) & (uint32_t{kUnitsPerSynapse} - 1);
  const uint32_t shifted = static_cast<uint32_t>((w >> kWeightFractionBits) + kMostSynapses);
  return fraction | static_cast<uint32_t>(shifted > uint32_t{2 * kMostSynapses});
}
}  // namespace

bool PackedRows::targets_fit(const Network& network) {
  // Below 2^kTargetBits, so that the word of the first target past the last fits too.
  return network.neuron_count() < (std::size_t{1} << kTargetBits);
}

bool PackedRows::fit(const Network& network, const int32_t* weights) {
  if (!targets_fit(network)) return false;
  uint32_t stray = 0;
  const std::size_t edges = network.out_targets.size();
  for (std::size_t e = 0; e < edges; ++e) stray |= stray_bits(weights[e]);
  return stray == 0;
}

const uint32_t* PackedRows::words() const {
  std::call_once(built_, [this] {
    if (!targets_fit(network_)) return;
    // Packed and checked in one pass; dropped where a weight does not fit.
    const std::size_t edges = network_.out_targets.size();
    words_.resize(edges);
    const uint32_t* __restrict const targets = network_.out_targets.data();
    const int32_t* __restrict const weights = weights_;
    uint32_t* __restrict const words = words_.data();
    uint32_t stray = 0;
    for (std::size_t e = 0; e < edges; ++e) {
      stray |= stray_bits(weights[e]);
      words[e] = pack(targets[e], weights[e]);
    }
    fit_ = stray == 0;
    if (!fit_) HugeVector<uint32_t>().swap(words_);
  });
  return fit_ ? words_.data() : nullptr;
}

}  // namespace flysim
