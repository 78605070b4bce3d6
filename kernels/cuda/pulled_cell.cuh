#pragma once
// A whole delay cell's input, pulled: each neuron of a batch sums in shared memory what
// its own incoming connections bring from the previous cell's spikes, and steps through
// the cell at once, so that a busy cell's deliveries never pass through the delay ring in
// device memory (README.md, "A pulled cell").
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/epoch_kernels.cuh"
#include "model/lif_constants.hpp"
#include "model/network.hpp"

namespace flysim::cuda {

// The spikes a neuron sent in the cell being delivered, as the pull reads them: per
// neuron and group of 32 trials of the batch, at most kMarks (16 bytes, one load), each
// ((trial within the group + 1) << 5) | its delivery slot, 0 where none. A neuron's
// further spikes in that group and cell are pushed into the ring instead (any split of
// the deliveries between the two gives the same integer sums).
inline constexpr uint32_t kMarks = 8;
static_assert(kMaxDelaySteps <= 32, "a mark holds its delivery slot in 5 bits");
struct SourceMarks {
  uint32_t* spiked;  // bit s % 32 of word s / 32: neuron s has marks
  uint32_t* counts;  // per neuron and group: its spikes marked, or pushed beyond kMarks
  uint16_t* marks;   // per neuron and group, kMarks
  uint32_t groups;   // per neuron: the groups of 32 trials of the engine's largest batch
};
// How many 32s it takes to hold n: a word holds 32 neurons' bits, a group 32 trials.
__host__ __device__ inline uint32_t thirty_twos_for(uint32_t n) { return (n + 31u) / 32u; }
// The words of SourceMarks::spiked for `neurons` neurons.
__host__ __device__ inline uint32_t words_for(uint32_t neurons) { return thirty_twos_for(neurons); }
// The groups of 32 trials of a batch of `trials` (SourceMarks::groups).
__host__ __device__ inline uint32_t groups_for(uint32_t trials) { return thirty_twos_for(trials); }
// The network by target (model/incoming.hpp), resident on the device.
struct DeviceIncoming {
  const uint64_t* offsets;
  const uint32_t* sources;
  const int32_t* weights;
};

class CellPull {
 public:
  // Nothing on the device: ready() is false.
  CellPull() = default;
  // For a batch of `trials` (at least 2) on the current device, when no connection
  // is plastic (its weights here are a copy) and a block's staging area and a bit per
  // neuron fit the device's shared memory; else an empty one. Copies the network by
  // target to the device, ordered on `stream`.
  CellPull(const Network& net, const LifConstants& c, uint32_t trials, bool plastic, cudaStream_t stream);
  bool ready() const { return blocks_ > 0; }
  // No neuron marked: so it is after every pulled epoch, and after this (a new batch,
  // where a failed round may have left marks).
  void clear(cudaStream_t stream) const;

  // Marks the spikes a whole-cell epoch pulls (the deliveries that round_start_scatter or
  // scatter_last_cell would push, kernels of epoch_kernels.cuh): at a round's start the
  // previous cell's, where the plan says; before epoch j >= 1 the last cell's, noting
  // where epoch j's spikes begin.
  void mark_round_start(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                        const CellSpike* cell_spikes, const RoundPlan* plan) const;
  void mark_last_cell(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                      const CellSpike* cell_spikes, RoundCounts* counts, const RoundPlan* plan, uint32_t j) const;
  // Epoch j, a whole cell, for every neuron of every trial (launch_advance's result): each
  // sums its pulled input with what its ring holds and takes its path; then the marks are
  // cleared for the next cell.
  void advance(cudaStream_t stream, const LifConstants& c, const RoundPlan* plan, uint32_t j, uint64_t seed,
               int32_t first_trial, DeviceState state, EpochOutput out) const;

 private:
  SourceMarks source_marks() const;

  uint32_t neurons_ = 0;
  uint32_t groups_ = 0;  // SourceMarks::groups (a later, smaller batch uses the first ones)
  DeviceBuffer<uint64_t> offsets_;
  DeviceBuffer<uint32_t> sources_;
  DeviceBuffer<int32_t> weights_;
  DeviceBuffer<uint32_t> spiked_, counts_;
  DeviceBuffer<uint16_t> marks_;
  std::size_t shared_bytes_ = 0;  // of the pulling launch: the staging area and the spiked bits
  uint32_t blocks_ = 0;           // of the pulling launch: as many as the device holds at once
  uint32_t mark_blocks_ = 0;      // of a marking launch: one wave
};

}  // namespace flysim::cuda
