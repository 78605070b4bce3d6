// CPU lists and partitions (host/THREADS.md): the cpus.* options' syntax, a list that
// names a CPU this process may not use refused by option and CPU, a thread pinned to its
// role's CPUs, and NVML missing said cleanly.
#include <gtest/gtest.h>

#include <unistd.h>

#include <thread>

#include "apps/flysim/options/options.hpp"
#include "apps/flysim/options/realtime_options.hpp"
#include "model/errors.hpp"
#include "host/gpu_processes.hpp"
#include "host/thread_placement.hpp"

namespace flysim::test {
namespace {

TEST(CpuList, ParsesRangesAndSinglesAndFormatsThemCompactly) {
  EXPECT_EQ(parse_cpu_list("2-5,8"), (CpuList{2, 3, 4, 5, 8}));
  EXPECT_EQ(parse_cpu_list("8,2-3,3"), (CpuList{2, 3, 8}));
  EXPECT_EQ(parse_cpu_list(""), CpuList{});
  EXPECT_EQ(format_cpu_list({2, 3, 4, 5, 8}), "2-5,8");
  EXPECT_EQ(format_cpu_list({0, 2, 4}), "0,2,4");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(cpus_without({1, 2, 3, 4}, {2, 4}), (CpuList{1, 3}));
  EXPECT_EQ(cpus_union({1, 3}, {2, 3}), (CpuList{1, 2, 3}));
  EXPECT_EQ(first_cpu_outside({0, 1, 7}, {0, 1, 2}), 7);
  EXPECT_EQ(first_cpu_outside({0, 1}, {0, 1, 2}), -1);
}

TEST(CpuList, RefusesWhatIsNotAList) {
  for (const std::string bad : {"a", "1-", "-3", "5-2", "1,,2", "1,", "2-x", "4096", "1.5"})
    EXPECT_THROW(parse_cpu_list(bad), input_error) << bad;
  try {
    parse_cpu_list("5-2");
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("runs backwards"), std::string::npos) << e.what();
  }
}

app::Options realtime_options_from(const std::vector<std::string>& args) {
  return app::Options::parse(app::realtime_options(), args);
}

TEST(CpuPartition, AListNamingACpuThisProcessMayNotUseIsRefusedByOptionAndCpu) {
  const CpuList allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  const int outside = allowed.back() + 1;
  ASSERT_LE(outside, kMaxCpu) << "every CPU is allowed: nothing to refuse on this machine";
  for (const std::string key : {"cpus.engine", "cpus.plasticity", "cpus.other"}) {
    try {
      realtime_settings(realtime_options_from({"--" + key + "=" + std::to_string(allowed.front()) + "," + std::to_string(outside)}));
      ADD_FAILURE() << key << " was accepted";
    } catch (const input_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(key), std::string::npos) << what;
      EXPECT_NE(what.find("CPU " + std::to_string(outside)), std::string::npos) << what;
    }
  }
  EXPECT_THROW(realtime_settings(realtime_options_from({"--cpus.engine=2-"})), input_error);
  EXPECT_THROW(realtime_settings(realtime_options_from({"--run.max-lag-ms=0"})), input_error);
  EXPECT_THROW(realtime_settings(realtime_options_from({"--status.window-s=0.5"})), input_error);
  EXPECT_THROW(realtime_settings(realtime_options_from({"--run.pace-batch-ms=0.5"})), input_error);
  EXPECT_THROW(realtime_settings(realtime_options_from({"--run.pace-batch-ms=1001"})), input_error);
  EXPECT_DOUBLE_EQ(realtime_settings(realtime_options_from({"--run.pace-batch-ms=50"})).pace_batch_ms, 50.0);
  const app::RealtimeSettings fine = realtime_settings(realtime_options_from({"--cpus.other=" + std::to_string(allowed.front())}));
  EXPECT_EQ(fine.cpus.other, CpuList{allowed.front()});
  EXPECT_EQ(fine.cpus.allowed, allowed);
  EXPECT_DOUBLE_EQ(fine.max_lag_ms, 100.0);
  EXPECT_DOUBLE_EQ(fine.pace_batch_ms, 10.0);
}

// Restores "no partition" however the test ends: the partition is process-wide.
struct PartitionInstalled {
  explicit PartitionInstalled(const CpuPartition& p) { install_cpu_partition(p); }
  ~PartitionInstalled() { install_cpu_partition({}); }
};

TEST(CpuPartition, AThreadEnteringARoleIsNamedAndPinnedToTheRolesCpus) {
  const CpuList allowed = allowed_cpus();
  CpuPartition partition;
  partition.allowed = allowed;
  partition.engine = {allowed.back()};
  partition.other = {allowed.front()};
  const PartitionInstalled installed(partition);
  std::string name, problem;
  CpuList engine_cpus, shard_cpus;
  std::thread([&] {
    problem = enter_role(ThreadRole::engine, 2);
    name = current_thread_name();
    engine_cpus = thread_cpus(0);
    // A role without a list of its own gets every allowed CPU, not its starter's.
    enter_role(ThreadRole::plasticity, 0);
    shard_cpus = thread_cpus(0);
  }).join();
  EXPECT_EQ(problem, "");
  EXPECT_EQ(name, "fs-engine-2");
  EXPECT_EQ(engine_cpus, CpuList{allowed.back()});
  EXPECT_EQ(shard_cpus, allowed);
}

TEST(CpuPartition, TheCudaEngineFreesTheEngineCpusNoOtherRoleUses) {
  CpuPartition p;
  p.engine = {2, 3, 4, 5};
  p.other = {0, 1, 5};
  p.plasticity = {4};
  EXPECT_EQ(p.freed_by_gpu(), (CpuList{2, 3}));
  EXPECT_EQ(CpuPartition{}.freed_by_gpu(), CpuList{});
}

TEST(ThreadRoles, NamesAndRolesAreInverse) {
  for (ThreadRole role : kThreadRoles) {
    EXPECT_EQ(role_of_thread(thread_name(role, 12)), role) << role_label(role);
    EXPECT_LE(thread_name(role, 1023).size(), 15u);
  }
  EXPECT_EQ(role_of_thread("fs-caf-clock"), ThreadRole::caf);
  EXPECT_EQ(role_of_thread("caf.actor"), ThreadRole::other);
  EXPECT_EQ(role_of_thread("fs-simloopx"), ThreadRole::other);
}

TEST(GpuProcesses, WithoutNvmlTheReaderSaysSoAndListsNothing) {
  const NvmlReader nvml("libnvidia-ml-that-does-not-exist.so.1");
  EXPECT_FALSE(nvml.available());
  EXPECT_EQ(nvml.problem().rfind("NVML not available", 0), 0u) << nvml.problem();
  EXPECT_TRUE(nvml.devices().empty());
  const GpuNeighbours n = gpu_neighbours(nvml, 1);
  EXPECT_EQ(n.note, nvml.problem());
  EXPECT_TRUE(n.processes.empty());
}

TEST(GpuProcesses, TheNeighboursAreTheOtherProcessesOnTheGpuThisProcessUses) {
  const NvmlReader nvml(FLYSIM_FAKE_NVML);
  ASSERT_TRUE(nvml.available()) << nvml.problem();
  const std::vector<GpuDevice> devices = nvml.devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].name, "Fake GPU");
  EXPECT_DOUBLE_EQ(devices[0].total_MiB, 80 * 1024.0);
  EXPECT_EQ(devices[0].processes.size(), 3u);
  const GpuNeighbours n = gpu_neighbours(nvml, static_cast<uint32_t>(::getpid()));
  EXPECT_EQ(n.note, "on the GPU flysim uses: GPU 0 (Fake GPU, 3072 of 81920 MiB used)");
  ASSERT_EQ(n.processes.size(), 2u);
  EXPECT_EQ(n.processes[0].pid, 4242u);
  EXPECT_EQ(n.processes[0].name, "neighbour");
  EXPECT_DOUBLE_EQ(n.processes[0].used_MiB, 2048.0);
  EXPECT_EQ(n.processes[1].pid, 4243u);
  EXPECT_LT(n.processes[1].used_MiB, 0.0);  // not reported by the driver
  // A process the driver does not list (the CPU engine): every GPU's processes.
  const GpuNeighbours elsewhere = gpu_neighbours(nvml, 1);
  EXPECT_EQ(elsewhere.note.rfind("flysim uses no GPU now", 0), 0u) << elsewhere.note;
  EXPECT_EQ(elsewhere.processes.size(), 3u);
}

}  // namespace
}  // namespace flysim::test
