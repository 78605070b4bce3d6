#pragma once
// Host cores per role, like pidstat -t but grouped by what the threads are for
// (host/THREADS.md). Fed readings of the per-thread CPU counters (thread_times.hpp),
// it attributes the CPU time between two readings to the role each thread's name
// stands for, and reports cores (CPU seconds per wall second) over a fixed window.
// A plain class: the sampler (cost_sampler.hpp) feeds it on a clock; tests feed it
// made-up readings.
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "host/thread_role.hpp"
#include "host/thread_times.hpp"
#include "model/named_field.hpp"

namespace flysim {

struct RoleCost {
  std::string role;                   // role_label()
  uint32_t threads = 0;               // alive at the last reading
  double cores = 0.0;                 // CPU s per wall s over the window
  double busiest_thread_cores = 0.0;  // the busiest of its threads over the window
  double cpu_s = 0.0;                 // since the first reading (a client differences two reports)
};
// Its one field list, with the JSON keys (model/FIELDS.md).
template <same_unqualified<RoleCost> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("role", x.role), named("threads", x.threads), named("cores", x.cores),
           named("busiest_thread_cores", x.busiest_thread_cores), named("cpu_s", x.cpu_s));
}

// One thread, as pidstat -t shows it.
struct ThreadCost {
  int32_t tid = 0;
  std::string name;
  double cores = 0.0;  // over the window
  double cpu_s = 0.0;  // since the thread started (the kernel's counter)
};
template <same_unqualified<ThreadCost> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("tid", x.tid), named("name", x.name), named("cores", x.cores), named("cpu_s", x.cpu_s));
}

struct CostReport {
  double at_s = 0.0;           // when the last reading was taken, s after the first
  double window_s = 0.0;       // the span the cores cover (shorter than asked for early on)
  double process_cores = 0.0;  // the whole process, every thread, over the window
  double process_cpu_s = 0.0;  // the whole process since the first reading
  // Time of threads that ended between two readings, after the earlier one: the kernel
  // adds it to the process's total but no live thread holds it any more.
  double exited_cores = 0.0;
  std::vector<RoleCost> roles;  // one per role, in kThreadRoles order
  std::vector<ThreadCost> threads;  // alive at the last reading, by tid
};
template <same_unqualified<CostReport> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("at_s", x.at_s), named("window_s", x.window_s), named("process_cores", x.process_cores),
           named("process_cpu_s", x.process_cpu_s), named("exited_cores", x.exited_cores), named("roles", x.roles),
           named("threads", x.threads));
}

// The reading a report stands for at its end: the process's CPU time since the first
// reading and each thread's since it started, in ticks. Two reports of a service taken
// some time apart, fed to a CostMeter, give the cost over that time (flysim cost).
ProcessTimes reading_of(const CostReport& report);

class CostMeter {
 public:
  // `window_s`: the span report() covers (it uses the readings of the last window_s).
  explicit CostMeter(double window_s);

  // A reading taken at `at_s` (seconds, any origin, later than the last one). The first
  // reading is the baseline: time used before it is not counted.
  void add(double at_s, const ProcessTimes& reading);

  // Over the last window (from the latest reading at least window_s before the last
  // one, or from the first). Zero figures before two readings.
  CostReport report() const;
  // Since the first reading.
  CostReport report_since_start() const;

  double window_s() const { return window_s_; }
  std::size_t readings() const { return readings_; }

 private:
  using RoleTicks = std::array<uint64_t, kThreadRoles.size()>;
  struct Sample {
    double at_s = 0.0;
    uint64_t process_ticks = 0;
    RoleTicks role_ticks{};  // attributed since the first reading
    std::vector<ThreadTimes> threads;
  };
  CostReport between(const Sample& from, const Sample& to) const;

  double window_s_;
  std::size_t readings_ = 0;
  Sample first_;
  std::deque<Sample> samples_;  // the window's readings, and the one just before it
};

// The report's row for `role`.
const RoleCost& cost_of(const CostReport& report, ThreadRole role);

}  // namespace flysim
