// Real-time operation end to end (host/THREADS.md): a running service names every
// thread for its role, pins the roles to their CPUs, and reports lag and host cores per
// role in status, in `flysim cost` and in its summary; a swap releases the old pool.
// Every wait is for a status field or a line of output, never a guessed duration.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "cli_support.hpp"
#include "host/cpu_list.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class RealtimeService : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<ScratchDir>("flysim-rt");
  }
  std::string path(const std::string& name) const { return dir_->path(name); }
  std::string network() const {
    return "--network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
           " --network.cache-dir=" + path("cache");
  }
  nlohmann::json status(const std::string& port) const {
    const CliResult r = run_flysim("ctl status --json --control.port=" + port, path("ctl.out"), path("ctl.err"));
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  // Polls status until `done` holds (each poll is an answer, not a sleep); at most 60 s.
  template <class Done>
  nlohmann::json status_when(const std::string& port, Done done) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    nlohmann::json s = status(port);
    while (!done(s) && std::chrono::steady_clock::now() < deadline) s = status(port);
    EXPECT_TRUE(done(s)) << s.dump();
    return s;
  }
  std::unique_ptr<ScratchDir> dir_;
};

// A status condition: the CPU pool has `threads` live threads (a swap's old pool is gone).
auto engine_threads_are(int threads) {
  return [threads](const nlohmann::json& j) {
    for (const auto& r : j["cost"]["roles"])
      if (r["role"] == "engine") return r["threads"] == threads;
    return false;
  };
}

const nlohmann::json& role(const nlohmann::json& status, const std::string& name) {
  for (const auto& r : status["cost"]["roles"])
    if (r["role"] == name) return r;
  static const nlohmann::json none;
  ADD_FAILURE() << "no role " << name << " in " << status["cost"].dump();
  return none;
}

int tid_named(const nlohmann::json& status, const std::string& name) {
  for (const auto& t : status["cost"]["threads"])
    if (t["name"] == name) return t["tid"].get<int>();
  return 0;
}

// The kernel's own view: the names of the process's threads.
std::multiset<std::string> thread_names(int pid) {
  std::multiset<std::string> names;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name)) names.insert(name);
  }
  return names;
}

TEST_F(RealtimeService, StatusCostAndTheSummaryReportEveryRoleOnItsCpus) {
  const CpuList allowed = allowed_cpus();
  const int engine_cpu = allowed.back(), other_cpu = allowed.front();
  BackgroundFlysim serve("serve " + network() + " --engine.threads=2 --control.port=0 --checkpoint.dir=" + path("ck") +
                             " --output.journal=" + path("journal.jsonl") + " --cpus.engine=" + std::to_string(engine_cpu) +
                             " --cpus.other=" + std::to_string(other_cpu),
                         path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  const nlohmann::json s = status_when(port, [](const nlohmann::json& j) { return j["cost"]["window_s"].get<double>() >= 1.0; });

  EXPECT_EQ(s["max_lag_ms"], 100.0);
  EXPECT_EQ(s["window_s"], 10.0);
  EXPECT_GE(s["lag_max_ms"].get<double>(), s["lag_p99_ms"].get<double>());
  EXPECT_EQ(s["cpus_engine"], std::to_string(engine_cpu));
  EXPECT_EQ(s["cpus_other"], std::to_string(other_cpu));
  EXPECT_EQ(s["cpus_freed"], "");  // the CPU engine uses its CPUs
  EXPECT_EQ(s["gpu_note"].get<std::string>().empty(), false);
  EXPECT_EQ(role(s, "simloop")["threads"], 1);
  EXPECT_EQ(role(s, "engine")["threads"], 2);
  EXPECT_EQ(role(s, "recorder")["threads"], 1);
  EXPECT_EQ(role(s, "checkpointer")["threads"], 1);
  EXPECT_EQ(role(s, "main")["threads"], 1);
  EXPECT_GE(role(s, "http")["threads"].get<int>(), 1);
  EXPECT_GE(role(s, "caf")["threads"].get<int>(), 2);  // a worker and the clock
  EXPECT_GT(s["cost"]["process_cores"].get<double>(), 0.0);
  EXPECT_GE(s["cost"]["process_cores"].get<double>() + 1e-9, role(s, "engine")["cores"].get<double>());

  const std::multiset<std::string> names = thread_names(serve.pid());
  for (const std::string name : {"fs-main", "fs-simloop", "fs-engine-0", "fs-engine-1", "fs-recorder", "fs-ckpt", "fs-http",
                                 "fs-caf-0", "fs-caf-clock", "fs-cost", "fs-signals"})
    EXPECT_EQ(names.count(name) > 0, true) << name << " is not among the service's threads";
  EXPECT_EQ(names.count("caf.actor") + names.count("caf.multiplexer") + names.count("caf.clock"), 0u);
  EXPECT_EQ(thread_cpus(tid_named(s, "fs-engine-1")), CpuList{engine_cpu});
  EXPECT_EQ(thread_cpus(tid_named(s, "fs-simloop")), CpuList{other_cpu});
  EXPECT_EQ(thread_cpus(tid_named(s, "fs-http")), CpuList{other_cpu});

  // The pool is rebuilt with one thread and the old one's threads are gone.
  ASSERT_EQ(run_flysim("ctl swap cpu --threads=1 --control.port=" + port, path("ctl.out"), path("ctl.err")).code, 0);
  const nlohmann::json after = status_when(port, engine_threads_are(1));
  EXPECT_EQ(thread_cpus(tid_named(after, "fs-engine-0")), CpuList{engine_cpu});

  const CliResult cost = run_flysim("cost --url=http://127.0.0.1:" + port + " --window=1 --threads=true", path("cost.out"),
                                    path("cost.err"));
  EXPECT_EQ(cost.code, 0) << cost.err;
  EXPECT_NE(cost.out.find("two readings"), std::string::npos) << cost.out;
  EXPECT_NE(cost.out.find("simloop"), std::string::npos) << cost.out;
  EXPECT_NE(cost.out.find("fs-engine-0"), std::string::npos) << cost.out;

  ASSERT_EQ(run_flysim("ctl stop --control.port=" + port, path("ctl.out"), path("ctl.err")).code, 0);
  EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
  const std::string summary = slurp(path("serve.out"));
  EXPECT_NE(summary.find("  lag         now"), std::string::npos) << summary;
  EXPECT_NE(summary.find("host cores per role, over the whole run"), std::string::npos) << summary;
  EXPECT_NE(summary.find("simloop"), std::string::npos) << summary;
}

// Needs a GPU: skipped cleanly without one (doctor says whether the CUDA engine can run).
TEST_F(RealtimeService, OnCudaTheEngineCpusAreFreedAndASwapBackPinsANewPoolToThem) {
  if (run_flysim("doctor --engine.kind=cuda", path("doctor.out"), path("doctor.err")).code != 0)
    GTEST_SKIP() << "the CUDA engine cannot run here: " << slurp(path("doctor.err"));
  const CpuList allowed = allowed_cpus();
  if (allowed.size() < 2) GTEST_SKIP() << "one CPU: nothing to partition";
  const int engine_cpu = allowed.back(), other_cpu = allowed.front();
  BackgroundFlysim serve("serve " + network() + " --engine.kind=cuda --control.port=0 --output.journal=" + path("journal.jsonl") +
                             " --checkpoint.dir=" + path("ck") + " --cpus.engine=" + std::to_string(engine_cpu) +
                             " --cpus.other=" + std::to_string(other_cpu),
                         path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 120);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  const nlohmann::json s = status_when(port, [](const nlohmann::json& j) { return j["cost"]["window_s"].get<double>() >= 1.0; });
  EXPECT_EQ(s["cpus_freed"], std::to_string(engine_cpu)) << s.dump();
  EXPECT_EQ(role(s, "engine")["threads"], 0);
  EXPECT_GE(role(s, "gpu")["threads"].get<int>(), 1);
  EXPECT_TRUE(s["warnings"].empty()) << s["warnings"].dump();
  EXPECT_EQ(thread_cpus(tid_named(s, "fs-gpu")), CpuList{other_cpu});

  ASSERT_EQ(run_flysim("ctl swap cpu --threads=2 --control.port=" + port, path("ctl.out"), path("ctl.err")).code, 0);
  const nlohmann::json cpu = status_when(port, engine_threads_are(2));
  EXPECT_EQ(cpu["cpus_freed"], "");
  EXPECT_EQ(thread_cpus(tid_named(cpu, "fs-engine-1")), CpuList{engine_cpu});
  ASSERT_EQ(run_flysim("ctl stop --control.port=" + port, path("ctl.out"), path("ctl.err")).code, 0);
  EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
}

TEST_F(RealtimeService, ACpuListNamingACpuTheProcessMayNotUseIsRefused) {
  const int outside = allowed_cpus().back() + 1;
  const CliResult r = run_flysim("run " + network() + " --cpus.plasticity=0," + std::to_string(outside), path("out"), path("err"));
  expect_one_line_error(r, "command line: option cpus.plasticity=");
  EXPECT_NE(r.err.find("names CPU " + std::to_string(outside) + ", which this process may not use"), std::string::npos) << r.err;
}

TEST_F(RealtimeService, CostWithNothingListeningSaysSo) {
  const CliResult r = run_flysim("cost --url=http://127.0.0.1:1", path("out"), path("err"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("nothing listens on 127.0.0.1:1"), std::string::npos) << r.err;
  const CliResult bad = run_flysim("cost --url=localhost:7460", path("out"), path("err"));
  expect_one_line_error(bad, "option url: 'localhost:7460' is not a URL");
}

TEST_F(RealtimeService, DoctorListsTheGpusOtherProcessesOrSaysNvmlIsMissing) {
  const CliResult r = run_flysim("doctor " + network().substr(0, network().find(" --stimulus")), path("out"), path("err"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  gpu processes      "), std::string::npos) << r.out;
  if (!fs::exists("/dev/nvidiactl")) {
    EXPECT_NE(r.out.find("NVML not available"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace flysim::test
