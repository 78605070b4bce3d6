// CpuTrial's blocked sweep (kernels/README.md, "The blocked sweep"): a whole delay cell of
// the identity pool, worker by worker and block by block.
#include <algorithm>

#include "kernels/cpu/cpu_trial.hpp"
#include "kernels/cpu/packed_rows.hpp"
#include "kernels/cpu/path_pass.hpp"
#include "kernels/cpu/poisson_draws.hpp"
#include "kernels/cpu/step_lanes_avx512.hpp"
#include "kernels/cpu/thread_pool.hpp"

namespace flysim {
namespace {

constexpr uint64_t kConnectionsPerLine = 16;  // 4-byte words in a 64-byte line

// The scatter's rows as the network stores them: each row's targets are its keys (the
// array searched for a worker's stretch), the weights lie in an array beside.
class SplitRowReader {
 public:
  SplitRowReader(const uint32_t* targets, const int32_t* weights) : targets_(targets), weights_(weights) {}
  const uint32_t* keys() const { return targets_; }
  static uint32_t target(uint32_t key) { return key; }
  static uint32_t first_key_of(uint32_t target) { return target; }
  int32_t weight(const uint32_t* key_at, uint32_t) const { return weights_[key_at - targets_]; }
  void fetch_line(uint64_t edge) const {
    __builtin_prefetch(targets_ + edge);
    __builtin_prefetch(weights_ + edge);
  }

 private:
  const uint32_t* targets_;
  const int32_t* weights_;
};

// The same rows packed (PackedRows): each key holds its weight too.
class PackedRowReader {
 public:
  explicit PackedRowReader(const uint32_t* words) : words_(words) {}
  const uint32_t* keys() const { return words_; }
  static uint32_t target(uint32_t key) { return PackedRows::target(key); }
  static uint32_t first_key_of(uint32_t target) { return PackedRows::first_word_of(target); }
  static int32_t weight(const uint32_t*, uint32_t key) { return PackedRows::weight(key); }
  void fetch_line(uint64_t edge) const { __builtin_prefetch(words_ + edge); }

 private:
  const uint32_t* words_;
};

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

// n / d for any 32-bit n as a multiply (Lemire, Kaser and Kurz, "Faster remainder by direct
// computation", 2019): the scatter deals each connection to its block, and a division
// per connection cost more than the rest of the deal.
class DivideBy {
 public:
  explicit DivideBy(uint32_t d) : d_(d), magic_(d > 1 ? ~uint64_t{0} / d + 1 : 0) {}
  uint32_t quotient(uint32_t n) const {
    return d_ > 1 ? static_cast<uint32_t>((static_cast<unsigned __int128>(magic_) * n) >> 64) : n;
  }

 private:
  uint32_t d_;
  uint64_t magic_;
};

// The cell's deliveries onto each block of a worker's share. The room of each grows (out
// of line) only when a cell brings more than any before, so that adding one is two
// stores and a compare.
class BlockBuckets {
 public:
  void clear(std::size_t blocks) {
    if (room_.size() < blocks) {
      storage_.resize(blocks);
      room_.resize(blocks, 0);
      data_.resize(blocks, nullptr);
    }
    count_.assign(blocks, 0);
  }
  // Deals the connections [p, row_end) of a spike onto `slot` that lie in [lo, hi) (p
  // points into rows.keys(), ascending by target) to their blocks of `block` neurons.
  template <class Rows>
  void deal(const Rows& rows, const uint32_t* p, const uint32_t* row_end, uint32_t lo, uint32_t hi, uint32_t block,
            const DivideBy& per_block, uint32_t slot, const uint8_t* silenced_in) {
    BlockDelivery* const* const data = data_.data();
    const uint32_t* const room = room_.data();
    uint32_t* const count = count_.data();
    const uint32_t end_key = Rows::first_key_of(hi);
    for (; p < row_end && *p < end_key; ++p) {
      const uint32_t key = *p;
      const uint32_t post = Rows::target(key);
      if (silenced_in && silenced_in[post]) continue;
      const uint32_t local = post - lo;
      const uint32_t b = per_block.quotient(local);
      const uint32_t n = count[b];
      if (n == room[b]) [[unlikely]]
        grow(b);
      data[b][n] = BlockDelivery(local - b * block, slot, rows.weight(p, key));
      count[b] = n + 1;
    }
  }
  const BlockDelivery* begin(std::size_t b) const { return data_[b]; }
  const BlockDelivery* end(std::size_t b) const { return data_[b] + count_[b]; }

 private:
  [[gnu::noinline]] void grow(std::size_t b) {
    storage_[b].resize(std::max<std::size_t>(2 * storage_[b].size(), 1024), BlockDelivery(0, 0, 0));
    data_[b] = storage_[b].data();
    room_[b] = static_cast<uint32_t>(storage_[b].size());
  }
  std::vector<std::vector<BlockDelivery>> storage_;
  std::vector<BlockDelivery*> data_;
  std::vector<uint32_t> room_, count_;
};

// A worker thread's scratch, kept between cells (and trials): the cell's deliveries onto
// each block, and one block's delay ring, all zero between blocks.
struct BlockScratch {
  BlockBuckets buckets;
  std::vector<int64_t> ring;
};

// What the stepwise lanes take per list position, and room for the entries that leave.
struct LaneScratch {
  std::vector<uint32_t> draws, driven, leaving, staged_slots, staged_kicks, finished_entry, finished_slots;
  std::vector<int32_t> refractory, staged_last_spike, finished_last_spike;
  std::vector<double> staged_v, staged_g, finished_v, finished_g;

  // Every array with room for `count` entries and a vector's lanes past them.
  kernels::LaneRoom room(std::size_t count) {
    const std::size_t size = count + kernels::kAvx512Lanes;
    for (auto* words : {&draws, &driven, &leaving, &staged_slots, &staged_kicks, &finished_entry, &finished_slots})
      words->resize(size);
    for (auto* steps : {&refractory, &staged_last_spike, &finished_last_spike}) steps->resize(size);
    for (auto* reals : {&staged_v, &staged_g, &finished_v, &finished_g}) reals->resize(size);
    return {staged_v.data(),       staged_g.data(),   staged_last_spike.data(), staged_slots.data(),
            staged_kicks.data(),   finished_entry.data(), finished_v.data(),    finished_g.data(),
            finished_last_spike.data(), finished_slots.data()};
  }
};

void append_spikes(void* to, const Spike* spikes, std::size_t count) {
  auto& out = *static_cast<std::vector<Spike>*>(to);
  out.insert(out.end(), spikes, spikes + count);
}

}  // namespace

void CpuTrial::step_in_lanes(const CpuShared& shared, kernels::EpochSpan span, kernels::RngKey key,
                             const uint32_t* list, std::size_t count, const RingView& ring, unsigned w) {
  thread_local LaneScratch scratch;
  const kernels::LaneRoom room = scratch.room(count);
  for (std::size_t k = 0; k < count; ++k) {
    const uint32_t e = list[k], i = index_[e];
    const bool driven = poisson_[e] != 0;
    scratch.draws[k] = driven ? kernels::poisson_draws(shared.thresholds[i], key, i, span) : 0u;
    scratch.driven[k] = driven;
    scratch.refractory[k] = kernels::refractory_steps(shared.constants, {0u, 0u, driven});
  }
  kernels::LaneFindings found{&worker_spikes_[w], append_spikes, scratch.leaving.data(), 0};
  kernels::step_lanes_avx512(shared.constants, span, pool_arrays(), identity_ ? nullptr : index_.data(),
                             {list, scratch.draws.data(), scratch.refractory.data(), scratch.driven.data(), count,
                              kernels::consumed_slots(shared.constants, span)},
                             {ring.base, ring.stride, ring.first}, room, found);
  worker_leaving_[w].insert(worker_leaving_[w].end(), scratch.leaving.begin(),
                            scratch.leaving.begin() + static_cast<std::ptrdiff_t>(found.leaving_count));
}

void CpuTrial::sweep_in_blocks(const CpuShared& shared, const std::vector<Spike>& delivering, kernels::EpochSpan span,
                               kernels::RngKey key, unsigned w, unsigned workers) {
  const Network& net = shared.network;
  const LifConstants& c = shared.constants;
  const uint64_t* const offsets = net.out_offsets.data();
  const uint64_t edges = offsets[n_];
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
  thread_local BlockScratch thread_scratch;
  BlockScratch& scratch = thread_scratch;
  BlockBuckets& buckets = scratch.buckets;
  if (scratch.ring.size() < d_ * block) scratch.ring.resize(d_ * block, 0);
  const DivideBy per_block(static_cast<uint32_t>(block));
  // The cell's deliveries onto this worker's neurons, row by row as they lie in memory
  // (rows are sorted by target: this worker's stretch of each is found by search), dealt
  // into one bucket per block.
  buckets.clear(blocks);
  const auto deal_cell = [&](const auto& rows) {
    const uint32_t* const keys = rows.keys();
    for (std::size_t k = 0; k < delivering.size(); ++k) {
      // The rows ahead lie anywhere in the network: the offsets of the spike 2 kRowsAhead
      // on, the first lines of the row kRowsAhead on (the hardware streams the rest).
      if (k + 2 * kRowsAhead < delivering.size()) __builtin_prefetch(offsets + delivering[k + 2 * kRowsAhead].neuron);
      if (k + kRowsAhead < delivering.size()) {
        const uint64_t ahead = offsets[delivering[k + kRowsAhead].neuron];
        for (uint64_t line = ahead; line < std::min(ahead + kRowLinesAhead * kConnectionsPerLine, edges);
             line += kConnectionsPerLine)
          rows.fetch_line(line);
      }
      const Spike& s = delivering[k];
      if (!delivers(shared, s, span.first)) continue;
      const uint32_t slot = static_cast<uint32_t>(kernels::delivery_slot(c, s.step));
      const uint32_t* const row_end = keys + offsets[s.neuron + 1];
      const uint32_t* p = keys + offsets[s.neuron];
      if (workers > 1) p = std::lower_bound(p, row_end, rows.first_key_of(static_cast<uint32_t>(lo)));
      buckets.deal(rows, p, row_end, static_cast<uint32_t>(lo), static_cast<uint32_t>(hi), static_cast<uint32_t>(block),
                   per_block, slot, silenced_in);
    }
  };
  // Packed rows come from memory in half the lines; the network's own where the weights
  // change or do not pack.
  if (const uint32_t* packed = shared.packed_rows ? shared.packed_rows->words() : nullptr)
    deal_cell(PackedRowReader(packed));
  else
    deal_cell(SplitRowReader(net.out_targets.data(), shared.weights));
  // Block by block: its deliveries into the block's ring, then both passes of the sweep,
  // the second reading (and clearing) that ring.
  worker_spikes_[w].clear();
  worker_leaving_[w].clear();
  std::vector<uint32_t>& stepwise = worker_stepwise_[w];
  stepwise.resize(block + kernels::kAvx512Lanes);  // the lanes read a vector past the list
  int64_t* const ring = scratch.ring.data();
  uint32_t* const slots_of = synaptic_slots_.data();
  const kernels::PoolArrays pool = pool_arrays();
  // The lanes read the block's ring without clearing it: its slots are cleared below.
  static const bool avx512 = kernels::cpu_has_avx512();
  const bool lanes = avx512 && kernels::lanes_reach(block, c.delay_steps, n_);
  try {
    for (std::size_t b = 0; b < blocks; ++b) {
      const uint32_t begin = static_cast<uint32_t>(lo + b * block);
      const uint32_t end = static_cast<uint32_t>(std::min(begin + block, hi));
      for (const BlockDelivery* d = buckets.begin(b); d != buckets.end(b); ++d) {
        ring[d->slot() * block + d->place()] += d->weight();
        slots_of[begin + d->place()] |= 1u << d->slot();
      }
      const uint32_t count = kernels::sort_pool_paths(c, span, pool, begin, end, stepwise.data(), worker_leaving_[w]);
      const RingView view{ring, block, begin, false};
      if (lanes) {
        step_in_lanes(shared, span, key, stepwise.data(), count, view, w);
        for (const BlockDelivery* d = buckets.begin(b); d != buckets.end(b); ++d) ring[d->slot() * block + d->place()] = 0;
      } else {
        step_entries(shared, span, key, stepwise.data(), count, view, w);
      }
    }
  } catch (...) {
    // A block left half swept would leave input behind for the thread's next use.
    std::fill(scratch.ring.begin(), scratch.ring.end(), 0);
    throw;
  }
}

}  // namespace flysim
