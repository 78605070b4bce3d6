#pragma once
// The CPU epoch's second pass in AVX-512 lanes (kernels/README.md, "The stepwise lanes"):
// advance_neuron_drawn for eight stepwise entries at once, each lane refilled with the
// next entry of the list as soon as its own is through the epoch, so that one neuron
// near threshold, which steps one by one, holds up no other. Every lane takes exactly
// the scalar loop's iterations, with kernels/lif.hpp's templates instantiated for vector
// types, so the bits are the scalar pass's. Built and called as path_pass_avx512.hpp.
#include <cstddef>
#include <cstdint>

#include "kernels/cpu/cpu_features.hpp"
#include "kernels/cpu/path_pass.hpp"
#include "model/spike.hpp"

namespace flysim::kernels {

// The entries to step and, per list position, what the caller derived for each (the
// lanes hold no generator and no NeuronInputs): its Poisson draws (poisson_steps; 0 when
// not driven), its refractory period (refractory_steps) and whether it is Poisson-driven.
struct StepwiseList {
  const uint32_t* entries;  // every one's choose_path is stepwise
  const uint32_t* draws;
  const int32_t* refractory;
  const uint32_t* driven;  // 1 or 0
  std::size_t count;
  uint32_t consumed;  // consumed_slots(c, span): the slot flags the epoch clears
};

// A delay ring as the lanes read it: slot s of entry e at base[(e - first) + s * stride].
// Offsets must fit 31 bits (lanes_reach).
struct LaneRing {
  const int64_t* base;
  std::size_t stride;
  uint32_t first;
};

// Room the lanes work in, each array for the list's count plus kAvx512Lanes: the listed
// entries' state by list position (staged: read with gathers eight at a time, so that
// refilling a lane is a load), and the state of each entry through the epoch, in the
// order they finish (stored back into the pool at the end).
struct LaneRoom {
  double *staged_v, *staged_g;
  int32_t* staged_last_spike;
  uint32_t *staged_slots, *staged_kicks;
  uint32_t* finished_entry;
  double *finished_v, *finished_g;
  int32_t* finished_last_spike;
  uint32_t* finished_slots;
};

// Where the lanes put what they find. Spikes go out in batches through `spikes` (a
// function of the caller's, so that this file instantiates no container code); the
// entries that leave (exactly at rest afterwards, without input and not driven) to
// leaving[0, leaving_count), which has room for the list's count plus kAvx512Lanes.
struct LaneFindings {
  void* context;
  void (*spikes)(void* context, const Spike* spikes, std::size_t count);
  uint32_t* leaving;
  std::size_t leaving_count;
};

// Whether a ring of `stride` entries a slot over `delay_steps` slots, and `entries` pool
// entries, lie within the lanes' 31-bit offsets.
inline bool lanes_reach(std::size_t stride, int32_t delay_steps, std::size_t entries) {
  return stride * static_cast<std::size_t>(delay_steps) < (std::size_t{1} << 31) && entries < (std::size_t{1} << 31);
}

// Steps every listed entry of `pool` through `span` as advance_neuron_drawn does, with
// `index` mapping entries to model indices for the spikes (null: entry i is neuron i),
// and stores its v, g, last spike, its slot flags less the span's and no kicks. It reads
// the ring and does not clear it: the caller clears the span's slots.
void step_lanes_avx512(const LifConstants& c, EpochSpan span, const PoolArrays& pool, const uint32_t* index,
                       const StepwiseList& list, const LaneRing& ring, const LaneRoom& room, LaneFindings& found);

}  // namespace flysim::kernels
