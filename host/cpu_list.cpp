#include "host/cpu_list.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <iterator>

#include "model/errors.hpp"

namespace flysim {

namespace {
int cpu_number(const std::string& text, const std::string& item) {
  int cpu = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), cpu);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw input_error(fmt::format("'{}' is not a CPU number or a range FIRST-LAST", item));
  if (cpu < 0 || cpu > kMaxCpu) throw input_error(fmt::format("CPU {} is out of 0..{}", text, kMaxCpu));
  return cpu;
}
}  // namespace

CpuList parse_cpu_list(const std::string& text) {
  CpuList cpus;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    const std::size_t dash = item.find('-');
    const int first = cpu_number(item.substr(0, dash), item);
    const int last = dash == std::string::npos ? first : cpu_number(item.substr(dash + 1), item);
    if (last < first) throw input_error(fmt::format("the range '{}' runs backwards", item));
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    pos = comma + 1;
    if (comma + 1 == text.size()) throw input_error("the list ends with a comma");
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(const CpuList& cpus) {
  std::string text;
  for (std::size_t k = 0; k < cpus.size();) {
    std::size_t end = k;
    while (end + 1 < cpus.size() && cpus[end + 1] == cpus[end] + 1) ++end;
    if (!text.empty()) text += ',';
    text += end == k ? std::to_string(cpus[k]) : fmt::format("{}-{}", cpus[k], cpus[end]);
    k = end + 1;
  }
  return text;
}

CpuList cpus_without(const CpuList& a, const CpuList& b) {
  CpuList out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

int first_cpu_outside(const CpuList& cpus, const CpuList& allowed) {
  const CpuList outside = cpus_without(cpus, allowed);
  return outside.empty() ? -1 : outside.front();
}

CpuList cpus_union(const CpuList& a, const CpuList& b) {
  CpuList out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

CpuList allowed_cpus() { return thread_cpus(0); }

CpuList thread_cpus(int tid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CpuList cpus;
  if (sched_getaffinity(tid, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu <= kMaxCpu && cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

}  // namespace flysim
