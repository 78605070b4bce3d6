#pragma once
// The options of flysim run and serve that are checked before anything loads, besides
// those every run shares (RunBuilder): outputs, checkpoints, pacing, the fallback and
// the readouts.
#include <cstdint>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

struct RunChecks {
  int64_t keep = 3;                  // checkpoint.keep
  bool checkpointing = false;        // checkpoint.every-ms > 0
  double checkpoint_every_ms = 0.0;
  double pace = 0.0;                 // run.pace: 0 as fast as it goes, else simulated s per wall s
  std::string pace_text = "off";     // run.pace as given, for the status
  int64_t fault_after_epochs = 0;    // engine.fault-after-epochs
  double fallback_every_ms = 0.0;    // engine.fallback-every-ms
  std::vector<int64_t> readouts;     // output.readouts as given; checked against the network later
};

// Throws input_error naming the first option that is wrong.
RunChecks check_run_options(const Options& o);

// checkpoint.every-ms asks for checkpoints (its folder is then an output).
bool checkpoints_asked(const Options& o);

}  // namespace flysim::app
