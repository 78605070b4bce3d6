#include "host/thread_placement.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace flysim {

namespace {
std::mutex partition_mutex;
CpuPartition& partition_slot() {
  static CpuPartition installed;
  return installed;
}
}  // namespace

const CpuList& CpuPartition::cpus_for(ThreadRole role) const {
  const CpuList& own = role == ThreadRole::engine ? engine : role == ThreadRole::plasticity ? plasticity : other;
  return own.empty() ? allowed : own;
}

void install_cpu_partition(const CpuPartition& partition) {
  std::lock_guard lock(partition_mutex);
  partition_slot() = partition;
}

CpuPartition installed_cpu_partition() {
  std::lock_guard lock(partition_mutex);
  return partition_slot();
}

std::string enter_role(ThreadRole role, unsigned index) { return enter_role_as(role, thread_name(role, index)); }

std::string enter_role_as(ThreadRole role, const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
  const CpuPartition partition = installed_cpu_partition();
  if (!partition.pins_anything()) return "";
  const CpuList& cpus = partition.cpus_for(role);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) == 0) return "";
  return fmt::format("{} could not be pinned to CPUs {}: {}", name, format_cpu_list(cpus),
                     std::strerror(errno));
}

std::string current_thread_name() {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

}  // namespace flysim
