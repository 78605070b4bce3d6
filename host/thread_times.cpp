#include "host/thread_times.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace flysim {

namespace {
// utime and stime are fields 14 and 15 of stat; after the name's ')' come fields 3 on.
constexpr int kUtimeAfterName = 14 - 3;

std::optional<std::string> first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}
}  // namespace

std::optional<StatLine> parse_stat_line(const std::string& line) {
  const std::size_t open = line.find('(');
  const std::size_t close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int k = 0; k < kUtimeAfterName; ++k)
    if (!(fields >> field)) return std::nullopt;
  uint64_t utime = 0, stime = 0;
  if (!(fields >> utime >> stime)) return std::nullopt;
  return StatLine{line.substr(open + 1, close - open - 1), utime + stime};
}

ProcessTimes read_process_times(const std::string& proc_dir) {
  ProcessTimes times;
  const auto own = first_line(proc_dir + "/stat");
  const auto process = own ? parse_stat_line(*own) : std::nullopt;
  if (!process) throw std::runtime_error("cannot read " + proc_dir + "/stat");
  times.ticks = process->ticks;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc_dir + "/task", ec)) {
    const std::string tid = entry.path().filename().string();
    const auto line = first_line(entry.path().string() + "/stat");
    const auto parsed = line ? parse_stat_line(*line) : std::nullopt;
    if (!parsed) continue;  // ended meanwhile
    times.threads.push_back({std::stoi(tid), parsed->name, parsed->ticks});
  }
  std::sort(times.threads.begin(), times.threads.end(), [](const ThreadTimes& a, const ThreadTimes& b) { return a.tid < b.tid; });
  return times;
}

double ticks_per_second() {
  static const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  return hz;
}

}  // namespace flysim
