#pragma once
// CPU lists as Linux writes them (cpuset, taskset -c, /sys/devices/system/cpu/online):
// "2-5,8" is CPUs 2, 3, 4, 5 and 8. The cpus.* options are such lists (host/THREADS.md).
#include <string>
#include <vector>

namespace flysim {

// CPU numbers, ascending, each once.
using CpuList = std::vector<int>;

// Parses "2-5,8"; "" is the empty list. Throws input_error saying what is wrong (the
// caller names the option): a malformed item, a range that runs backwards, a CPU number
// out of 0..kMaxCpu.
CpuList parse_cpu_list(const std::string& text);
// The compact form: {2,3,4,5,8} -> "2-5,8"; {} -> "".
std::string format_cpu_list(const CpuList& cpus);
// The CPUs in `a` that are not in `b`.
CpuList cpus_without(const CpuList& a, const CpuList& b);
// The first CPU of `cpus` that is not in `allowed`; -1 when there is none.
int first_cpu_outside(const CpuList& cpus, const CpuList& allowed);
// Both lists' CPUs, ascending, each once.
CpuList cpus_union(const CpuList& a, const CpuList& b);

// The CPUs the calling thread may run on (sched_getaffinity). Called before flysim pins
// any thread, it is the set the process was started with (taskset, a cgroup's cpuset).
CpuList allowed_cpus();
// The CPUs thread `tid` may run on (sched_getaffinity; 0: the calling thread).
CpuList thread_cpus(int tid);

// The largest CPU number a list may hold (glibc's cpu_set_t holds 1024).
inline constexpr int kMaxCpu = 1023;

}  // namespace flysim
