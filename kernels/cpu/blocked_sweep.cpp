// CpuTrial's blocked sweep (kernels/README.md, "The blocked sweep"): a whole delay cell of
// the identity pool, worker by worker and block by block.
#include <algorithm>

#include "kernels/cpu/cpu_trial.hpp"
#include "kernels/cpu/path_pass.hpp"
#include "kernels/cpu/thread_pool.hpp"

namespace flysim {
namespace {

constexpr uint64_t kConnectionsPerLine = 16;  // 4-byte targets or weights in a 64-byte line

// One delivery onto a block: the target's place in the block, the ring slot, the weight.
class BlockDelivery {
 public:
  BlockDelivery(uint32_t place, uint32_t slot, int32_t weight) : place_slot_(place * kMaxDelaySteps + slot), weight_(weight) {}
  uint32_t place() const { return place_slot_ / kMaxDelaySteps; }
  uint32_t slot() const { return place_slot_ % kMaxDelaySteps; }
  int32_t weight() const { return weight_; }

 private:
  uint32_t place_slot_;
  int32_t weight_;
};
static_assert(CpuTrial::kMaxBlockNeurons <= ~uint32_t{0} / kMaxDelaySteps, "a block's places and slots fit 32 bits");

// A worker thread's scratch, kept between cells (and trials): the cell's deliveries onto
// each block, and one block's delay ring, all zero between blocks.
struct BlockScratch {
  std::vector<std::vector<BlockDelivery>> buckets;
  std::vector<int64_t> ring;
};

}  // namespace

void CpuTrial::sweep_in_blocks(const CpuShared& shared, const std::vector<Spike>& delivering, kernels::EpochSpan span,
                               kernels::RngKey key, unsigned w, unsigned workers) {
  const Network& net = shared.network;
  const LifConstants& c = shared.constants;
  const uint32_t* const targets = net.out_targets.data();
  const uint64_t* const offsets = net.out_offsets.data();
  const uint64_t edges = offsets[n_];
  const int32_t* const weights = shared.weights;
  const uint8_t* const silenced_in = shared.silenced_in;
  const auto [lo, hi] = share_of(n_, w, workers);
  if (lo == hi) {
    worker_spikes_[w].clear();
    worker_leaving_[w].clear();
    return;
  }
  // A block larger than this worker's share would only take room.
  const std::size_t block = std::min<std::size_t>(block_neurons_, hi - lo);
  const std::size_t blocks = (hi - lo + block - 1) / block;
  thread_local BlockScratch scratch;
  if (scratch.buckets.size() < blocks) scratch.buckets.resize(blocks);
  if (scratch.ring.size() < d_ * block) scratch.ring.resize(d_ * block, 0);
  // The cell's deliveries onto this worker's neurons, row by row as they lie in memory
  // (rows are sorted by target: this worker's stretch of each is found by search), dealt
  // into one bucket per block.
  for (std::size_t b = 0; b < blocks; ++b) scratch.buckets[b].clear();
  for (std::size_t k = 0; k < delivering.size(); ++k) {
    // The rows ahead lie anywhere in the network: the offsets of the spike 2 kRowsAhead
    // on, the first lines of the row kRowsAhead on (the hardware streams the rest).
    if (k + 2 * kRowsAhead < delivering.size()) __builtin_prefetch(offsets + delivering[k + 2 * kRowsAhead].neuron);
    if (k + kRowsAhead < delivering.size()) {
      const uint64_t ahead = offsets[delivering[k + kRowsAhead].neuron];
      for (uint64_t line = ahead; line < std::min(ahead + kRowLinesAhead * kConnectionsPerLine, edges);
           line += kConnectionsPerLine) {
        __builtin_prefetch(targets + line);
        __builtin_prefetch(weights + line);
      }
    }
    const Spike& s = delivering[k];
    if (!delivers(shared, s, span.first)) continue;
    const uint32_t slot = static_cast<uint32_t>(kernels::delivery_slot(c, s.step));
    const uint32_t* const row_end = targets + offsets[s.neuron + 1];
    const uint32_t* p = targets + offsets[s.neuron];
    if (workers > 1) p = std::lower_bound(p, row_end, static_cast<uint32_t>(lo));
    for (; p < row_end && *p < hi; ++p) {
      const uint32_t post = *p;
      if (silenced_in && silenced_in[post]) continue;
      const std::size_t local = post - lo;
      scratch.buckets[local / block].emplace_back(static_cast<uint32_t>(local % block), slot, weights[p - targets]);
    }
  }
  // Block by block: its deliveries into the block's ring, then both passes of the sweep,
  // the second reading (and clearing) that ring.
  worker_spikes_[w].clear();
  worker_leaving_[w].clear();
  std::vector<uint32_t>& stepwise = worker_stepwise_[w];
  stepwise.resize(block);
  int64_t* const ring = scratch.ring.data();
  uint32_t* const slots_of = synaptic_slots_.data();
  const kernels::PoolArrays pool = pool_arrays();
  try {
    for (std::size_t b = 0; b < blocks; ++b) {
      const uint32_t begin = static_cast<uint32_t>(lo + b * block);
      const uint32_t end = static_cast<uint32_t>(std::min(begin + block, hi));
      for (const BlockDelivery& d : scratch.buckets[b]) {
        ring[d.slot() * block + d.place()] += d.weight();
        slots_of[begin + d.place()] |= 1u << d.slot();
      }
      const uint32_t count = kernels::sort_pool_paths(c, span, pool, begin, end, stepwise.data(), worker_leaving_[w]);
      step_entries(shared, span, key, stepwise.data(), count, {ring, block, begin, false}, w);
    }
  } catch (...) {
    // A block left half swept would leave input behind for the thread's next use.
    std::fill(scratch.ring.begin(), scratch.ring.end(), 0);
    throw;
  }
}

}  // namespace flysim
