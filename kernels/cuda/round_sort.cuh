#pragma once
// A round's spikes sorted on the device (kernels/cuda/README.md, "One round", step 5):
// packed as keys (PackedRoundKeys), sorted by CUB's radix sort over only the bits those
// keys use, and copied to pinned host memory, all queued on the engine's stream behind the
// round, so that the next round can be queued behind the sort at once. The host waits for
// the copy alone.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/epoch_kernels.cuh"
#include "kernels/cuda/round_keys.hpp"

namespace flysim::cuda {

class RoundSort {
 public:
  // For a network of `neurons`; `nap`: the host naps while it waits (Event).
  RoundSort(std::size_t neurons, bool nap);
  // Queues on `stream` the sort of spikes[0, count) (device), a round of `batch` trials
  // whose steps lie in [round_first, round_first + round_steps). Grows the buffers first
  // when they are too small (the only allocations: a run settles on its busiest round).
  void queue(cudaStream_t stream, const CellSpike* spikes, uint32_t count, int32_t round_first, int32_t round_steps,
             uint32_t batch);
  // Waits for the last queued sort; its keys in (trial, step, neuron) order, valid until
  // the next queue().
  std::span<const uint64_t> wait();
  const PackedRoundKeys& packing() const { return packed_; }

 private:
  void reserve(std::size_t count);

  PackedRoundKeys packed_;
  DeviceBuffer<uint64_t> keys_, other_;  // CUB's double buffer
  DeviceBuffer<unsigned char> temp_;     // CUB's room, as the largest sort so far asked
  MappedHostBuffer<uint64_t> host_;      // the sorted keys, copied in
  Event copied_;
  uint32_t count_ = 0;
};

}  // namespace flysim::cuda
