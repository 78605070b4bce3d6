#pragma once
// The kernel's per-thread CPU counters, as pidstat -t reads them: for every thread of
// a process, its name and utime + stime from /proc/PID/task/TID/stat, in clock ticks
// (sysconf(_SC_CLK_TCK), 100 per second on Linux), and the process's own total from
// /proc/PID/stat, which also holds the time of threads that have ended.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace flysim {

struct ThreadTimes {
  int tid = 0;
  std::string name;     // comm: at most 15 characters
  uint64_t ticks = 0;   // utime + stime
};

struct ProcessTimes {
  uint64_t ticks = 0;   // the whole process: utime + stime of /proc/PID/stat
  std::vector<ThreadTimes> threads;  // the threads alive when read, by tid
};

// One line of a stat file: "TID (NAME) STATE ... utime stime ...". The name may hold
// spaces and parentheses: it ends at the last ')'. Nothing when the line is not one.
struct StatLine {
  std::string name;
  uint64_t ticks = 0;
};
std::optional<StatLine> parse_stat_line(const std::string& line);

// Reads `proc_dir` (e.g. "/proc/self", "/proc/1234"): the process and each of its
// threads. A thread that ends while it is read is left out. Throws std::runtime_error
// when the process's own stat file cannot be read.
ProcessTimes read_process_times(const std::string& proc_dir = "/proc/self");

// Clock ticks per second of the counters.
double ticks_per_second();

}  // namespace flysim
