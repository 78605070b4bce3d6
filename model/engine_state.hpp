#pragma once
// The complete state of an engine at an epoch boundary: what a snapshot, a checkpoint
// and a hot-swap carry. Independent of the engine that produced it.
#include <cstdint>
#include <vector>

#include "model/spike.hpp"

namespace flysim {

struct EngineState {
  int32_t trial = 0;
  int32_t next_step = 0;
  std::vector<double> v;             // mV
  std::vector<double> g;             // mV
  std::vector<int32_t> last_spike;   // step of the last spike, kNeverSpiked if none
  // Spikes of the current delay cell not yet delivered. At a boundary the delay ring
  // holds exactly these (every slot is consumed within the next cell), so they are
  // the ring's content; an engine rebuilds the ring by scattering them.
  std::vector<Spike> pending;
  // The weights of the plastic connections, by plastic index (model/plasticity.hpp),
  // as the engine applies them; empty when plasticity is off.
  std::vector<int32_t> plastic_weights;
  friend bool operator==(const EngineState&, const EngineState&) = default;
};

template <class F>
decltype(auto) fields(EngineState& x, F&& f) {
  return f(x.trial, x.next_step, x.v, x.g, x.last_spike, x.pending, x.plastic_weights);
}

// All neurons at rest (v = v_0, g = 0, never spiked), step 0 of `trial`.
EngineState resting_state(std::size_t neurons, double v0, int32_t trial);
// Trials [first, first + count) at rest: the start of a batch.
std::vector<EngineState> resting_batch(std::size_t neurons, double v0, int32_t first, int32_t count);

}  // namespace flysim
