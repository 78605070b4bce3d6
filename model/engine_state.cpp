#include "model/engine_state.hpp"

#include "model/lif_constants.hpp"

namespace flysim {

EngineState resting_state(std::size_t neurons, double v0, int32_t trial) {
  EngineState s;
  s.trial = trial;
  s.v.assign(neurons, v0);
  s.g.assign(neurons, 0.0);
  s.last_spike.assign(neurons, kNeverSpiked);
  return s;
}

std::vector<EngineState> resting_batch(std::size_t neurons, double v0, int32_t first, int32_t count) {
  std::vector<EngineState> batch;
  for (int32_t k = 0; k < count; ++k) batch.push_back(resting_state(neurons, v0, first + k));
  return batch;
}

}  // namespace flysim
