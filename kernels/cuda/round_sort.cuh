#pragma once
// A round's spikes in (trial, step, neuron) order for the host (kernels/cuda/README.md,
// "One round", step 5). A large round's are sorted on the device: packed as keys
// (PackedRoundKeys), sorted by CUB's radix sort over only the bits those keys use, and
// copied to pinned host memory, all queued on the engine's stream behind the round, so
// that the next round can be queued behind the sort at once; the host waits for the copy
// alone. A small round's keys the advance kernel wrote to mapped memory as it went
// (EpochOutput::host_keys), and the host sorts them.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/epoch_kernels.cuh"
#include "kernels/cuda/round_keys.hpp"

namespace flysim::cuda {

// The most spikes a round may have for the host to sort them: the device's sort costs a
// few launches and a second wait, about 20 us, which a paced or plastic run (a cell or a
// few per round) would pay every round; std::sort of 2,048 keys takes about as long.
inline constexpr uint32_t kHostSortKeys = 2048;

class RoundSort {
 public:
  // For a network of `neurons`; `nap`: the host naps while it waits (Event).
  RoundSort(std::size_t neurons, bool nap);
  // Where the advance kernel writes a small round's first kHostSortKeys keys (mapped).
  uint64_t* small_round_keys() const { return small_.device(); }
  // Takes the round's spikes, spikes[0, count) (device), of a round of `batch` trials
  // whose steps lie in [round_first, round_first + round_steps): a small round's keys
  // from mapped memory at once, or a large round's sort queued on `stream`, whose
  // buffers grow first when they are too small (the only allocations: a run settles on
  // its busiest round).
  void queue(cudaStream_t stream, const CellSpike* spikes, uint32_t count, int32_t round_first, int32_t round_steps,
             uint32_t batch);
  // The last round's keys in (trial, step, neuron) order, once sorted; valid until the
  // next queue().
  std::span<const uint64_t> wait();
  const PackedRoundKeys& packing() const { return packed_; }

 private:
  void reserve(std::size_t count);

  PackedRoundKeys packed_;
  DeviceBuffer<uint64_t> keys_, other_;  // CUB's double buffer
  DeviceBuffer<unsigned char> temp_;     // CUB's room, as the largest sort so far asked
  MappedHostBuffer<uint64_t> host_;      // the sorted keys, copied in
  Event copied_;
  MappedHostBuffer<uint64_t> small_;     // written by the advance kernel
  std::vector<uint64_t> small_copy_;     // a small round's keys, sorted by the host
  uint32_t count_ = 0;
  bool on_host_ = false;
};

}  // namespace flysim::cuda
