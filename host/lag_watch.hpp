#pragma once
// Decides when falling behind the pace is worth a log line (host/THREADS.md, "Lag"):
// once when the lag first exceeds run.max-lag-ms, with the figure and the likely cause;
// again only when the cause changes while behind, and once when the run has caught up,
// that is, when the lag has stayed at or below half the limit for kCaughtUpAfterS (so
// a lag that hovers at the limit, or a run starved now and then by other work, is not
// logged at every epoch). A plain class: the sim loop logs what it returns.
#include <optional>
#include <string>

namespace flysim {

class LagWatch {
 public:
  explicit LagWatch(double max_lag_ms) : max_lag_ms_(max_lag_ms) {}

  struct Line {
    bool warning = false;  // true: falling behind (warn); false: caught up (info)
    std::string text;
  };
  // The lag now and what the cost figures say is saturated (cause_of_lag(): its kind,
  // which is compared, and its text, which is logged); a line to log when something
  // changed, else nothing.
  // `now_s`: wall time (seconds, any origin, never decreasing).
  std::optional<Line> observe(double now_s, double lag_ms, const std::string& cause_kind, const std::string& cause_text);

  bool behind() const { return behind_; }
  static constexpr double kCaughtUpAfterS = 5.0;
  double max_lag_ms() const { return max_lag_ms_; }

 private:
  double max_lag_ms_;
  bool behind_ = false;
  std::string cause_kind_;
  double worst_ms_ = 0.0;  // while behind
  double low_since_s_ = -1.0;  // while behind: since when the lag has been at most half the limit (-1: it is not)
};

}  // namespace flysim
