// Host cores per role (host/THREADS.md): the per-thread reader against a busy thread's
// own CPU clock, the meter's attribution on made-up readings, the sampler end to end.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <future>
#include <thread>

#include "host/cost_diagnosis.hpp"
#include "host/cost_meter.hpp"
#include "host/cost_sampler.hpp"
#include "host/thread_placement.hpp"
#include "host/thread_times.hpp"

namespace flysim::test {
namespace {

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// A thread with a role's name that burns `cpu_s` of CPU time (by its own CPU clock, not
// by a guess of wall time), reports its tid and what its clock says, then waits to be
// released, so that it is still alive when the test reads /proc.
class BusyThread {
 public:
  BusyThread(ThreadRole role, unsigned index, double cpu_s) {
    thread_ = std::thread([this, role, index, cpu_s] {
      enter_role(role, index);
      volatile double sink = 0;
      while (thread_cpu_s() < cpu_s) sink = sink + 1.0;
      used_.set_value({static_cast<int>(::syscall(SYS_gettid)), thread_cpu_s()});
      while (!release_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    const auto [tid, used] = used_.get_future().get();
    tid_ = tid;
    used_s_ = used;
  }
  ~BusyThread() {
    release_ = true;
    thread_.join();
  }
  int tid() const { return tid_; }
  double used_s() const { return used_s_; }

 private:
  std::promise<std::pair<int, double>> used_;
  std::atomic<bool> release_{false};
  std::thread thread_;
  int tid_ = 0;
  double used_s_ = 0;
};

// The kernel's counters tick 100 times a second: two ticks of rounding, and a little
// more for the moment between the thread's last look at its clock and the read.
constexpr double kTickSlackS = 0.03;

TEST(ThreadTimes, ParsesAStatLineWhoseNameHoldsSpacesAndParentheses) {
  const auto parsed = parse_stat_line("4242 (fs (odd) name) S 1 2 3 4 5 6 7 8 9 10 120 30 0 0 20 0 1 0");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->name, "fs (odd) name");
  EXPECT_EQ(parsed->ticks, 150u);
  EXPECT_FALSE(parse_stat_line("4242 fs-simloop S 1 2"));
  EXPECT_FALSE(parse_stat_line("4242 (fs-simloop) S 1 2 3"));
}

TEST(ThreadTimes, TheReaderSeesABusyThreadsCpuTimeUnderItsName) {
  BusyThread busy(ThreadRole::engine, 7, 0.3);
  const ProcessTimes times = read_process_times();
  const auto it = std::find_if(times.threads.begin(), times.threads.end(), [&](const ThreadTimes& t) { return t.tid == busy.tid(); });
  ASSERT_NE(it, times.threads.end());
  EXPECT_EQ(it->name, "fs-engine-7");
  EXPECT_NEAR(static_cast<double>(it->ticks) / ticks_per_second(), busy.used_s(), kTickSlackS);
  EXPECT_GE(static_cast<double>(times.ticks) / ticks_per_second(), busy.used_s() - kTickSlackS);
}

// Readings in ticks of the real clock rate, so the figures come out in round numbers.
uint64_t ticks(double s) { return static_cast<uint64_t>(s * ticks_per_second()); }

TEST(CostMeter, AttributesTimeToTheRoleEachThreadsNameStandsFor) {
  CostMeter meter(10.0);
  meter.add(0.0, {ticks(1.0), {{10, "fs-main", ticks(0.5)}, {11, "fs-engine-0", ticks(0.5)}}});
  // 10 s later: the engine used 5 s, a shard that started meanwhile 2 s, a thread of an
  // unknown name 1 s; the process 9 s, of which 1 s was a thread that ended.
  meter.add(10.0, {ticks(10.0),
                   {{10, "fs-main", ticks(0.5)}, {11, "fs-engine-0", ticks(5.5)}, {12, "fs-shard-0", ticks(2.0)},
                    {13, "python3", ticks(1.0)}}});
  const CostReport r = meter.report();
  EXPECT_DOUBLE_EQ(r.window_s, 10.0);
  EXPECT_NEAR(r.process_cores, 0.9, 1e-9);
  EXPECT_NEAR(cost_of(r, ThreadRole::engine).cores, 0.5, 1e-9);
  EXPECT_EQ(cost_of(r, ThreadRole::engine).threads, 1u);
  EXPECT_NEAR(cost_of(r, ThreadRole::plasticity).cores, 0.2, 1e-9);
  EXPECT_NEAR(cost_of(r, ThreadRole::other).cores, 0.1, 1e-9);
  EXPECT_NEAR(cost_of(r, ThreadRole::main).cores, 0.0, 1e-9);
  EXPECT_NEAR(r.exited_cores, 0.1, 1e-9);
  EXPECT_EQ(r.threads.size(), 4u);
  EXPECT_EQ(r.roles.size(), kThreadRoles.size());
}

TEST(CostMeter, TheWindowCoversTheLastSecondsAndTheRunCoversAll) {
  CostMeter meter(5.0);
  for (int s = 0; s <= 20; ++s)  // 1 core for 10 s, then 0.5
    meter.add(s, {ticks(s <= 10 ? s : 10 + 0.5 * (s - 10)), {{11, "fs-simloop", ticks(s <= 10 ? s : 10 + 0.5 * (s - 10))}}});
  const CostReport window = meter.report();
  EXPECT_DOUBLE_EQ(window.window_s, 5.0);
  EXPECT_NEAR(cost_of(window, ThreadRole::sim_loop).cores, 0.5, 1e-9);
  EXPECT_NEAR(cost_of(window, ThreadRole::sim_loop).busiest_thread_cores, 0.5, 1e-9);
  const CostReport run = meter.report_since_start();
  EXPECT_DOUBLE_EQ(run.window_s, 20.0);
  EXPECT_NEAR(cost_of(run, ThreadRole::sim_loop).cores, 0.75, 1e-9);
  EXPECT_NEAR(cost_of(run, ThreadRole::sim_loop).cpu_s, 15.0, 1e-9);
}

TEST(CostMeter, ATidReusedByANewThreadCountsTheNewThreadFromItsStart) {
  CostMeter meter(10.0);
  meter.add(0.0, {ticks(5.0), {{11, "fs-engine-1", ticks(5.0)}}});
  meter.add(10.0, {ticks(7.0), {{11, "fs-engine-1", ticks(1.0)}}});  // the old worker ended, a new one got its tid
  EXPECT_NEAR(cost_of(meter.report(), ThreadRole::engine).cores, 0.1, 1e-9);
}

TEST(CostMeter, TwoReportsOfAServiceGiveTheCostBetweenThem) {
  CostMeter service(10.0);
  service.add(0.0, {ticks(0.0), {{11, "fs-simloop", ticks(1.0)}, {12, "fs-engine-0", ticks(3.0)}}});
  service.add(4.0, {ticks(2.0), {{11, "fs-simloop", ticks(1.5)}, {12, "fs-engine-0", ticks(4.5)}}});
  const CostReport first = service.report();
  service.add(34.0, {ticks(32.0), {{11, "fs-simloop", ticks(4.5)}, {12, "fs-engine-0", ticks(30.5)}}});
  const CostReport second = service.report();
  // What flysim cost does with two status answers 30 s apart.
  CostMeter client(100.0);
  client.add(first.at_s, reading_of(first));
  client.add(second.at_s, reading_of(second));
  const CostReport between = client.report();
  EXPECT_DOUBLE_EQ(between.window_s, 30.0);
  EXPECT_NEAR(between.process_cores, 1.0, 1e-9);
  EXPECT_NEAR(cost_of(between, ThreadRole::sim_loop).cores, 0.1, 1e-9);
  EXPECT_NEAR(cost_of(between, ThreadRole::engine).cores, 26.0 / 30.0, 1e-9);
}

TEST(CostSampler, AReportIncludesABusyThreadOfARoleAsOfTheRequest) {
  CostSampler sampler(60.0);
  BusyThread busy(ThreadRole::plasticity, 3, 0.3);
  const CostReport r = sampler.report();
  const RoleCost& shards = cost_of(r, ThreadRole::plasticity);
  EXPECT_EQ(shards.threads, 1u);
  EXPECT_NEAR(shards.cpu_s, busy.used_s(), kTickSlackS);
  ASSERT_GT(r.window_s, 0.0);
  EXPECT_NEAR(shards.cores, shards.cpu_s / r.window_s, 1e-9);
  // The process's counter and the threads' are rounded to ticks apart: a tick or two.
  EXPECT_GE(r.process_cores + 2 * kTickSlackS / r.window_s, shards.cores);
  const auto sampler_thread = std::find_if(r.threads.begin(), r.threads.end(), [](const ThreadCost& t) { return t.name == "fs-cost"; });
  EXPECT_NE(sampler_thread, r.threads.end());
}

CostReport report_with(double engine_cores, uint32_t engine_threads, double simloop_busiest, double process) {
  CostMeter meter(10.0);
  std::vector<ThreadTimes> start, end;
  for (uint32_t k = 0; k < engine_threads; ++k) {
    start.push_back({static_cast<int>(20 + k), "fs-engine-" + std::to_string(k), 0});
    end.push_back({static_cast<int>(20 + k), "fs-engine-" + std::to_string(k), ticks(10.0 * engine_cores / engine_threads)});
  }
  start.push_back({11, "fs-simloop", 0});
  end.push_back({11, "fs-simloop", ticks(10.0 * simloop_busiest)});
  meter.add(0.0, {0, start});
  meter.add(10.0, {ticks(10.0 * process), end});
  return meter.report();
}

TEST(CostDiagnosis, TheCauseOfLagIsTheSaturatedRole) {
  const LagCause pool = cause_of_lag(report_with(1.96, 2, 0.1, 2.06), 8);
  EXPECT_EQ(pool.kind, "engine pool");
  EXPECT_NE(pool.text.find("the engine pool is saturated: 1.96 cores over its 2 threads"), std::string::npos) << pool.text;
  const LagCause loop = cause_of_lag(report_with(0.5, 2, 0.97, 1.5), 8);
  EXPECT_EQ(loop.kind, "simloop thread");
  EXPECT_NE(loop.text.find("simloop is saturated"), std::string::npos) << loop.text;
  EXPECT_EQ(cause_of_lag(report_with(0.5, 2, 0.2, 1.9), 2).kind, "host");
  const LagCause elsewhere = cause_of_lag(report_with(0.5, 2, 0.2, 0.7), 8);
  EXPECT_EQ(elsewhere.kind, "not flysim");
  EXPECT_NE(elsewhere.text.find("no flysim role is saturated"), std::string::npos);
  EXPECT_EQ(cause_of_lag(CostReport{}, 8).kind, "not measured");
}

TEST(CostDiagnosis, ACpuEngineBelowThePaceAndAPoolNextToCudaAreWarnedAbout) {
  // 2 threads holding 1.9 cores while running at half the pace: it needs 3.8 cores.
  const EngineVerdict slow = judge_engine(report_with(1.9, 2, 0.1, 2.0), {false, 2, 1.0, 2.0, false});
  EXPECT_NEAR(slow.cores_needed, 3.8, 1e-9);
  ASSERT_EQ(slow.warnings.size(), 1u);
  EXPECT_EQ(slow.warnings[0].kind, "threads-below-pace");
  EXPECT_NE(slow.warnings[0].text.find("3.80 cores needed"), std::string::npos) << slow.warnings[0].text;
  // Keeping the pace with room to spare: measured, no warning.
  const EngineVerdict fine = judge_engine(report_with(0.6, 2, 0.1, 0.7), {false, 2, 1.0, 1.0, false});
  EXPECT_NEAR(fine.cores_needed, 0.6, 1e-9);
  EXPECT_TRUE(fine.warnings.empty());
  // Unpaced: nothing to hold.
  EXPECT_EQ(judge_engine(report_with(1.9, 2, 0.1, 2.0), {false, 2, 0.0, 0.1, false}).cores_needed, 0.0);
  // CUDA with pool workers still alive.
  const EngineVerdict cuda = judge_engine(report_with(0.2, 2, 0.1, 0.3), {true, 0, 1.0, 1.0, false});
  ASSERT_EQ(cuda.warnings.size(), 1u);
  EXPECT_EQ(cuda.warnings[0].kind, "pool-on-cuda");
  EXPECT_TRUE(judge_engine(report_with(0.0, 0, 0.1, 0.1), {true, 0, 1.0, 1.0, false}).warnings.empty());
}

}  // namespace
}  // namespace flysim::test
