#pragma once
// The recorder: counts spikes per neuron and writes the spike and rate files. By default
// files appear under their names only when the run finishes (io/atomic_file.hpp): a
// run that fails leaves nothing that looks complete. A streamed spike file (flysim
// serve) grows as the run goes and is flushed at least every kStreamFlushEvery, in
// whole lines (io/stream_file.hpp). In flysim serve it also keeps the live page's
// activity window (model/activity_window.hpp): the spikes are already here, in order,
// so counting them into bins costs no copy and no other message.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/snapshot.hpp"
#include "messages/interfaces.hpp"
#include "model/activity_window.hpp"
#include "io/atomic_file.hpp"
#include "io/stream_file.hpp"
#include "model/network.hpp"
#include "io/trial_order.hpp"

namespace flysim {

struct RecorderConfig {
  std::shared_ptr<const Network> network;
  std::string spikes_path;  // empty: no spike file
  std::string rates_path;   // empty: no rate file
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  double dt_ms = 0.1;
  std::size_t top_count = 10;
  // Reported on their own (output.readouts, MN9 by default); the live page shows the first.
  std::vector<int64_t> readout_root_ids;
  RecorderPosition start;  // a restored run continues the counts of its checkpoint
  bool stream = false;     // the spike file grows as the run goes
  std::optional<ActivitySettings> activity;  // flysim serve: keep the live page's window
  std::vector<uint32_t> stimulated;          // the neurons the stimulus drives at the start
};

inline constexpr std::chrono::milliseconds kStreamFlushEvery{200};

struct recorder_state {
  RecorderConfig config;
  std::vector<uint64_t> counts;
  uint64_t total = 0;
  std::optional<AtomicFile> spikes_file;
  std::optional<StreamFile> spikes_stream;
  std::chrono::steady_clock::time_point last_flush;
  int time_decimals = 1;
  std::string line_buffer;
  TrialOrder order;  // a batch's trials written one after another
  std::optional<ActivityWindow> activity;
  // Why the spike file could not be opened; the recorder ends with it at its first
  // message, when the sim loop (linked) is waiting for the run and passes it on.
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
