#include "host/lag_watch.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace flysim {

std::optional<LagWatch::Line> LagWatch::observe(double now_s, double lag_ms, const std::string& cause_kind,
                                                const std::string& cause_text) {
  if (lag_ms > max_lag_ms_ / 2) low_since_s_ = -1.0;
  if (lag_ms > max_lag_ms_) {
    worst_ms_ = std::max(worst_ms_, lag_ms);
    if (behind_ && cause_kind == cause_kind_) return std::nullopt;
    const bool first = !behind_;
    behind_ = true;
    cause_kind_ = cause_kind;
    return Line{true, fmt::format("{} {:.1f} ms behind the pace (run.max-lag-ms={}); likely cause: {}",
                                  first ? "falling behind:" : "still behind, the cause changed:", lag_ms, max_lag_ms_, cause_text)};
  }
  if (!behind_ || lag_ms > max_lag_ms_ / 2) return std::nullopt;
  if (low_since_s_ < 0) low_since_s_ = now_s;
  if (now_s - low_since_s_ < kCaughtUpAfterS) return std::nullopt;
  behind_ = false;
  cause_kind_.clear();
  low_since_s_ = -1.0;
  const double worst = worst_ms_;
  worst_ms_ = 0.0;
  return Line{false, fmt::format("caught up with the pace: {:.1f} ms behind now, for {:.0f} s (at worst {:.1f} ms)", lag_ms,
                                   kCaughtUpAfterS, worst)};
}

}  // namespace flysim
