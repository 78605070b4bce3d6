#pragma once
// How far a paced run is behind the wall clock: now, and the 99th percentile and
// maximum over a fixed window and over the whole run (host/THREADS.md, "Lag"). The sim
// loop records the lag at every epoch it receives (~550 a second at real time), so the
// figures are kept as histograms (per second of the window, and one for the whole run),
// never as a list that grows with the run. A percentile is exact to one bin: 16 bins per
// doubling, 4.4% apart; a maximum is exact.
#include <array>
#include <cstdint>
#include <deque>

namespace flysim {

struct LagFigures {
  double now_ms = 0.0;   // the last value recorded
  double p99_ms = 0.0;   // 99% of the values were at or below it (to one bin)
  double max_ms = 0.0;
  uint64_t samples = 0;
};

// Counts of values in log-spaced bins: [0, 0.01 ms), then 16 bins per doubling up to
// ~300 s; larger values fall in the last bin (the maximum is kept apart, exactly).
class LagHistogram {
 public:
  static constexpr int kBins = 400;
  void add(double lag_ms);
  void merge(const LagHistogram& other);
  // The upper edge of the bin that holds the q-quantile (0 < q <= 1), capped at max_ms().
  double quantile(double q) const;
  double max_ms() const { return max_ms_; }
  uint64_t count() const { return count_; }
  // The bin a value falls in, and a bin's upper edge (exposed for the tests).
  static int bin_of(double lag_ms);
  static double upper_edge(int bin);

 private:
  std::array<uint32_t, kBins> counts_{};
  uint64_t count_ = 0;
  double max_ms_ = 0.0;
};

class LagWindow {
 public:
  explicit LagWindow(double window_s);
  // The lag at wall time `at_s` (seconds since the run started; never decreasing).
  void record(double at_s, double lag_ms);
  // Over the window ending at `at_s` (the last second may be partial).
  LagFigures window(double at_s) const;
  // Over the whole run.
  LagFigures whole_run() const;

 private:
  struct Second {
    int64_t index = 0;  // floor(at_s)
    LagHistogram histogram;
  };
  double window_s_;
  double now_ms_ = 0.0;
  std::deque<Second> seconds_;
  LagHistogram run_;
};

}  // namespace flysim
