#pragma once
// What the sim loop watches of its own real-time operation (host/THREADS.md): the lag
// behind the pace, the samples of the status's windowed rates, and when the engine's
// cost is looked at again. It only observes: no decision of the schedule depends on it.
// Plain C++: the sim loop logs the lines it returns.
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host/cost_diagnosis.hpp"
#include "host/lag_watch.hpp"
#include "host/lag_window.hpp"

namespace flysim {

// A sample for the status window (rates over the last seconds, not since the start).
struct StatusSample {
  double wall_s = 0.0, cpu_s = 0.0;
  int64_t steps = 0;
  uint64_t spikes = 0;
};

// The rates over the status window (zero before two samples).
struct WindowRates {
  double wall_per_simulated = 0.0, host_cores = 0.0, spikes_per_simulated_s = 0.0;
};

class RealtimeMonitor {
 public:
  // `window_s`: the status window (status.window-s); a lag above `max_lag_ms` is logged
  // (run.max-lag-ms); `dt_ms`: a step's simulated time.
  RealtimeMonitor(double window_s, double max_lag_ms, double dt_ms);

  // The lag at wall time `now_s` (seconds since the run started). While it is over the
  // limit, `cause` (a cost reading of /proc) is asked again at most once a second. A line
  // to log when the lag watch has one.
  std::optional<LagWatch::Line> record_lag(double now_s, double lag_ms, const std::function<LagCause()>& cause);
  LagFigures lag_window(double now_s) const { return lag_.window(now_s); }
  LagFigures lag_whole_run() const { return lag_.whole_run(); }

  // Whether a status sample is due at `now_s` (at most two a second).
  bool sample_due(double now_s) const;
  // Adds a sample; those older than the window go, two always stay.
  void add_sample(const StatusSample& sample);
  WindowRates rates() const;

  // Whether the engine's cost is due a look at `now_s` (once a status window); true
  // marks it looked at.
  bool engine_judgement_due(double now_s);
  // The warnings of kinds not logged last time (to log); remembers the kinds.
  std::vector<std::string> new_warnings(const std::vector<CostWarning>& warnings);

  double window_s() const { return window_s_; }
  double max_lag_ms() const { return watch_.max_lag_ms(); }

 private:
  double window_s_, dt_ms_;
  LagWindow lag_;
  LagWatch watch_;
  double cause_checked_s_ = -1e9;
  LagCause cause_;  // as last looked at
  double engine_judged_s_ = 0.0;
  std::vector<std::string> warnings_logged_;  // their kinds
  std::deque<StatusSample> samples_;
};

}  // namespace flysim
