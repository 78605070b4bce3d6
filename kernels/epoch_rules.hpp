#pragma once
// The rules around the LIF step that every engine must apply identically: which delay
// ring slots an epoch consumes, which spikes a scatter skips, the generator key of a
// trial, the kicks of an epoch and how pending spikes split on import. Written once
// (FLYSIM_HD where a kernel needs them) so that a change reaches both engines.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/lif.hpp"
#include "model/spike.hpp"
#include "model/stimulus.hpp"

namespace flysim {
// Steps of a delay cell: cells are [kD, (k+1)D); an epoch never crosses one.
FLYSIM_HD inline int32_t cell_start(int32_t step, int32_t delay_steps) { return step - step % delay_steps; }
}  // namespace flysim

namespace flysim::kernels {

// The ring slots an epoch reads: bit s set for the slots of steps [first, first + steps).
FLYSIM_HD inline uint32_t consumed_slots(const LifConstants& c, EpochSpan span) {
  const uint32_t first_slot = static_cast<uint32_t>(span.first % c.delay_steps);
  return static_cast<uint32_t>(((uint64_t{1} << span.steps) - 1) << first_slot);
}

// A spike whose delivery step lies before `first_delivery` has been delivered already:
// a scatter that resumes mid-cell (after an import) skips it.
FLYSIM_HD inline bool already_delivered(const LifConstants& c, const Spike& spike, int32_t first_delivery) {
  return spike.step + c.delay_steps < first_delivery;
}

// The generator key of `trial` for a plan's seed (a batched kernel derives each of its
// trials' keys on the device).
FLYSIM_HD inline RngKey rng_key(uint64_t seed, int32_t trial) {
  return {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(trial)};
}

// The kicks of the plan (sorted by step) that fall in `span`: [first, last).
struct KickRange {
  std::vector<Kick>::const_iterator first, last;
};
inline KickRange kicks_in(const std::vector<Kick>& kicks, EpochSpan span) {
  const auto before = [](const Kick& k, int32_t step) { return k.step < step; };
  const auto first = std::lower_bound(kicks.begin(), kicks.end(), span.first, before);
  return {first, std::lower_bound(first, kicks.end(), span.first + span.steps, before)};
}

// The most spikes one trial can emit in a delay cell: a neuron spikes again only
// refractory_steps after a spike (kernels::advance_neuron), so at most ceil(D / ref) times
// in D steps, and a Poisson-driven one (refractory period 0) at every step. An engine
// that lets the device run several cells before the host reads their spikes sizes its
// buffers by this.
inline std::size_t max_spikes_per_cell(const LifConstants& c, std::size_t neurons, std::size_t poisson_neurons) {
  const auto delay = static_cast<std::size_t>(c.delay_steps);
  const auto ref = static_cast<std::size_t>(c.ref_steps > 1 ? c.ref_steps : 1);
  return (neurons - poisson_neurons) * ((delay + ref - 1) / ref) + poisson_neurons * delay;
}

// Pending spikes on import at `next_step`: mid-cell, the previous cell's spikes are
// still being delivered (scattered at once, from next_step on); the rest wait for the
// next cell's start.
inline bool still_delivering(const Spike& spike, int32_t next_step, int32_t delay_steps) {
  return next_step % delay_steps != 0 && spike.step < cell_start(next_step, delay_steps);
}

}  // namespace flysim::kernels
