#pragma once
// The small sampler behind the cost figures: a thread of its own (fs-cost) reads this
// process's per-thread CPU counters every `every` into a CostMeter, and a report asks
// for a fresh reading first, so what status says is as of the request. One reading of
// ~20 threads costs ~0.1 ms: at one per second the sampler holds ~0.0001 cores.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "host/cost_meter.hpp"

namespace flysim {

class CostSampler {
 public:
  // Takes the baseline reading now. `window_s`: the span of report().
  explicit CostSampler(double window_s, std::chrono::milliseconds every = std::chrono::seconds(1));
  ~CostSampler();
  CostSampler(const CostSampler&) = delete;
  CostSampler& operator=(const CostSampler&) = delete;

  // Over the last window, including a reading taken now (unless one was taken in the
  // last kFreshEnough).
  CostReport report();
  // Since the sampler started, including a reading taken now.
  CostReport report_since_start();
  double window_s() const { return meter_.window_s(); }

  // Readings closer together than this add nothing: a client polling status fast
  // gets the last one.
  static constexpr std::chrono::milliseconds kFreshEnough{100};

 private:
  void read_now(bool force);
  void run();
  std::chrono::steady_clock::time_point started_, last_reading_;
  std::chrono::milliseconds every_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  CostMeter meter_;
  std::thread thread_;
};

}  // namespace flysim
