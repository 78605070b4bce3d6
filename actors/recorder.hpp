#pragma once
// The recorder: counts spikes per neuron and hands the spikes and, at the end, the rates
// to their writers (io/output_writers.hpp), which own the formats and the files. By
// default files appear under their names only when the run finishes: a run that fails
// leaves nothing that looks complete. A streamed spike file (flysim serve) grows as the
// run goes, flushed at least every kStreamFlushEvery, in whole lines
// (io/output_file.hpp). In flysim serve it also keeps the live page's activity window
// (model/activity_window.hpp): the spikes are already here, in order, so counting them
// into bins costs no copy and no other message.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.hpp"
#include "messages/interfaces.hpp"
#include "model/activity_window.hpp"
#include "io/output_writers.hpp"
#include "model/network.hpp"

namespace flysim {

struct RecorderConfig {
  std::shared_ptr<const Network> network;
  OutputSpec spikes{"output.spikes"};  // empty path: no spike file
  OutputSpec rates{"output.rates"};    // empty path: no rate file
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  double dt_ms = 0.1;
  std::size_t top_count = 10;
  // Reported on their own (output.readouts, MN9 by default); the live page shows the first.
  std::vector<int64_t> readout_root_ids;
  RecorderPosition start;  // a restored run continues the counts of its checkpoint
  std::optional<ActivitySettings> activity;  // flysim serve: keep the live page's window
  std::vector<uint32_t> stimulated;          // the neurons the stimulus drives at the start
};

struct recorder_state {
  RecorderConfig config;
  std::vector<uint64_t> counts;
  uint64_t total = 0;
  std::unique_ptr<SpikeWriter> spikes;  // null: no spike file
  std::unique_ptr<RateWriter> rates;    // null: no rate file
  std::optional<ActivityWindow> activity;
  // Why a writer could not be made or the spike file opened; the recorder ends with it at
  // its first message, when the sim loop (linked) is waiting for the run and passes it on.
  std::string open_failure;
  static inline const char* name = "recorder";
};

// Runs on a thread of its own (fs-recorder): spawn it with spawn_recorder.
recorder_actor::behavior_type recorder_behavior(recorder_actor::stateful_pointer<recorder_state> self,
                                                RecorderConfig config);
// Detached: writing and flushing files is a role of its own, whose cost is its own.
recorder_actor spawn_recorder(caf::actor_system& system, RecorderConfig config);

// Rates of every neuron that spiked, highest first (ties by index).
std::vector<Responder> rank_responders(const Network& net, const std::vector<uint64_t>& counts, double seconds);

}  // namespace flysim
