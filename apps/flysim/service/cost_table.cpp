#include "apps/flysim/service/cost_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace flysim::app {

std::string cost_table(const CostReport& r, const std::string& indent) {
  std::string text = fmt::format("{}{:<13}{:>8}{:>9}{:>16}\n", indent, "role", "threads", "cores", "busiest thread");
  for (const RoleCost& c : r.roles)
    if (c.threads > 0 || c.cores > 0)
      text += fmt::format("{}{:<13}{:>8}{:>9.3f}{:>16.3f}\n", indent, c.role, c.threads, c.cores, c.busiest_thread_cores);
  if (r.exited_cores > 0) text += fmt::format("{}{:<13}{:>8}{:>9.3f}\n", indent, "(ended)", "", r.exited_cores);
  text += fmt::format("{}{:<13}{:>8}{:>9.3f}   over {:.1f} s\n", indent, "process", r.threads.size(), r.process_cores, r.window_s);
  return text;
}

std::string thread_table(const CostReport& r, const std::string& indent) {
  std::vector<ThreadCost> threads = r.threads;
  std::stable_sort(threads.begin(), threads.end(), [](const ThreadCost& a, const ThreadCost& b) { return a.cores > b.cores; });
  std::string text = fmt::format("{}{:>8}  {:<16}{:<13}{:>8}{:>12}\n", indent, "tid", "name", "role", "cores", "cpu s");
  for (const ThreadCost& t : threads)
    text += fmt::format("{}{:>8}  {:<16}{:<13}{:>8.3f}{:>12.2f}\n", indent, t.tid, t.name, role_label(role_of_thread(t.name)),
                        t.cores, t.cpu_s);
  return text;
}

std::string lag_text(double now_ms, double p99_ms, double max_ms, double max_lag_ms) {
  return fmt::format("now {:.1f} ms, p99 {:.1f} ms, max {:.1f} ms (run.max-lag-ms={})", now_ms, p99_ms, max_ms, max_lag_ms);
}

}  // namespace flysim::app
