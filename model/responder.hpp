#pragma once
// A neuron's spikes over a run and its mean rate: a row of the rate file and an entry of
// the summary's top responders and readouts.
#include <cstdint>

namespace flysim {

struct Responder {
  int64_t root_id = 0;
  uint32_t index = 0;
  uint64_t spikes = 0;
  double rate_Hz = 0.0;
};

}  // namespace flysim
