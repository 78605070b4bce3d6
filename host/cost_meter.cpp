#include "host/cost_meter.hpp"

#include <algorithm>
#include <cmath>

namespace flysim {

namespace {
std::size_t slot(ThreadRole role) {
  return static_cast<std::size_t>(std::find(kThreadRoles.begin(), kThreadRoles.end(), role) - kThreadRoles.begin());
}

// The thread `t` at an earlier reading (sorted by tid), if it is the same thread: a tid
// the kernel reused for a new thread has fewer ticks than the old one had.
const ThreadTimes* earlier(const std::vector<ThreadTimes>& before, const ThreadTimes& t) {
  const auto it = std::lower_bound(before.begin(), before.end(), t.tid,
                                   [](const ThreadTimes& a, int tid) { return a.tid < tid; });
  return it != before.end() && it->tid == t.tid && it->ticks <= t.ticks ? &*it : nullptr;
}

// Ticks `t` used since the reading `before` (all of them when it started after it).
uint64_t ticks_since(const std::vector<ThreadTimes>& before, const ThreadTimes& t) {
  const ThreadTimes* old = earlier(before, t);
  return old ? t.ticks - old->ticks : t.ticks;
}
}  // namespace

CostMeter::CostMeter(double window_s) : window_s_(window_s) {}

void CostMeter::add(double at_s, const ProcessTimes& reading) {
  Sample next;
  next.at_s = at_s;
  next.process_ticks = reading.ticks;
  next.threads = reading.threads;
  if (readings_++ == 0) {
    first_ = next;
    samples_.push_back(std::move(next));
    return;
  }
  const Sample& last = samples_.back();
  next.role_ticks = last.role_ticks;
  for (const ThreadTimes& t : next.threads) next.role_ticks[slot(role_of_thread(t.name))] += ticks_since(last.threads, t);
  samples_.push_back(std::move(next));
  // Keep the latest reading at least a window before the last one, and what follows.
  while (samples_.size() > 2 && samples_.back().at_s - samples_[1].at_s >= window_s_) samples_.pop_front();
}

CostReport CostMeter::report() const {
  if (samples_.empty()) return between(first_, first_);
  return between(samples_.front(), samples_.back());
}

CostReport CostMeter::report_since_start() const {
  if (samples_.empty()) return between(first_, first_);
  return between(first_, samples_.back());
}

CostReport CostMeter::between(const Sample& from, const Sample& to) const {
  CostReport r;
  const double hz = ticks_per_second();
  r.at_s = to.at_s - first_.at_s;
  r.window_s = to.at_s - from.at_s;
  const auto cores = [&](uint64_t ticks) { return r.window_s > 0 ? static_cast<double>(ticks) / hz / r.window_s : 0.0; };
  r.process_cores = cores(to.process_ticks - from.process_ticks);
  r.process_cpu_s = static_cast<double>(to.process_ticks - first_.process_ticks) / hz;
  uint64_t attributed = 0;
  for (std::size_t k = 0; k < kThreadRoles.size(); ++k) {
    RoleCost c;
    c.role = role_label(kThreadRoles[k]);
    const uint64_t used = to.role_ticks[k] - from.role_ticks[k];
    attributed += used;
    c.cores = cores(used);
    c.cpu_s = static_cast<double>(to.role_ticks[k]) / hz;
    for (const ThreadTimes& t : to.threads) {
      if (slot(role_of_thread(t.name)) != k) continue;
      ++c.threads;
      c.busiest_thread_cores = std::max(c.busiest_thread_cores, cores(ticks_since(from.threads, t)));
    }
    r.roles.push_back(c);
  }
  for (const ThreadTimes& t : to.threads)
    r.threads.push_back({t.tid, t.name, cores(ticks_since(from.threads, t)), static_cast<double>(t.ticks) / hz});
  const uint64_t process = to.process_ticks - from.process_ticks;
  r.exited_cores = cores(process > attributed ? process - attributed : 0);
  return r;
}

ProcessTimes reading_of(const CostReport& report) {
  const auto ticks = [](double cpu_s) { return static_cast<uint64_t>(std::llround(cpu_s * ticks_per_second())); };
  ProcessTimes reading;
  reading.ticks = ticks(report.process_cpu_s);
  for (const ThreadCost& t : report.threads) reading.threads.push_back({t.tid, t.name, ticks(t.cpu_s)});
  return reading;
}

const RoleCost& cost_of(const CostReport& report, ThreadRole role) { return report.roles.at(slot(role)); }

}  // namespace flysim
