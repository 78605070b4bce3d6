#include "kernels/engine.hpp"

#include <stdexcept>

namespace flysim {

void check_span(kernels::EpochSpan span, int32_t next_step, int32_t delay_steps) {
  if (span.first != next_step || span.steps < 1 || span.first % delay_steps + span.steps > delay_steps)
    throw std::logic_error("epoch [" + std::to_string(span.first) + ", +" + std::to_string(span.steps) +
                           ") does not continue step " + std::to_string(next_step) + " within one delay cell of " +
                           std::to_string(delay_steps) + " steps");
}

std::vector<Spike> run_until(Engine& engine, int32_t next_step, int32_t end_step, int32_t delay_steps) {
  std::vector<Spike> all;
  while (next_step < end_step) {
    const kernels::EpochSpan span = next_epoch(next_step, end_step, delay_steps);
    const std::vector<Spike> spikes = engine.advance(span);
    all.insert(all.end(), spikes.begin(), spikes.end());
    next_step += span.steps;
  }
  return all;
}

}  // namespace flysim
