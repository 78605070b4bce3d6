#pragma once
// A rate output, whatever its format: the table of every neuron that spiked, written once
// at the end of a run. make_rate_writer (io/output_writers.hpp) makes one by format name.
#include <vector>

#include "model/responder.hpp"

namespace flysim {

class RateWriter {
 public:
  virtual ~RateWriter() = default;
  // Writes `ranked` (highest spike count first) as the whole output, atomically
  // (io/atomic_file.hpp). Throws input_error.
  virtual void write(const std::vector<Responder>& ranked) = 0;
};

}  // namespace flysim
