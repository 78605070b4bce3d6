// flysim serve end to end: driven by flysim ctl, its journal replays to the same spikes
// byte for byte; a failing engine falls back without changing the spike file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <thread>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class Service : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flysim-svc-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string network() const {
    return "--network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
           " --network.cache-dir=" + path("cache");
  }
  CliResult ctl(const std::string& port, const std::string& args) const {
    return run_flysim("ctl " + args + " --control.port=" + port, path("ctl.out"), path("ctl.err"));
  }
  // GET /status through flysim ctl, parsed.
  nlohmann::json status(const std::string& port) const {
    const CliResult r = ctl(port, "status --json");
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  // `flysim run --replay` of journal.jsonl writes live.csv's spikes again, byte for byte.
  void expect_replay_gives_live_spikes() const {
    const CliResult replay = run_flysim("run --replay=" + path("journal.jsonl") + " --network.cache-dir=" + path("cache") +
                                            " --output.spikes=" + path("replay.csv"),
                                        path("replay.out"), path("replay.err"));
    ASSERT_EQ(replay.code, 0) << replay.err;
    const std::string live = slurp(path("live.csv"));
    EXPECT_GT(live.size(), 1000u);
    EXPECT_TRUE(same_text(live, slurp(path("replay.csv"))));
  }
  fs::path dir_;
};

TEST_F(Service, CtlDrivesTheServiceAndTheJournalReplaysByteForByte) {
  BackgroundFlysim serve("serve " + network() + " --run.pace=5 --control.port=0 --output.spikes=" + path("live.csv") +
                             " --output.journal=" + path("journal.jsonl") + " --checkpoint.dir=" + path("ck"),
                         path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  EXPECT_EQ(ctl(port, "swap cpu --threads=1").code, 0);
  EXPECT_EQ(ctl(port, "stimulus --rate=300").code, 0);
  const CliResult checkpoint = ctl(port, "checkpoint");
  EXPECT_EQ(checkpoint.code, 0);
  EXPECT_NE(checkpoint.out.find("checkpoint written"), std::string::npos) << checkpoint.out;
  EXPECT_EQ(ctl(port, "pause").code, 0);
  EXPECT_NE(ctl(port, "status").out.find("paused"), std::string::npos);
  EXPECT_EQ(ctl(port, "resume").code, 0);
  EXPECT_EQ(ctl(port, "stimulus --kick=820475940600072650@5").code, 0);
  EXPECT_EQ(ctl(port, "swap cpu --threads=2").code, 0);
  const CliResult status = ctl(port, "status");
  EXPECT_NE(status.out.find("cpu pool, 2 threads"), std::string::npos) << status.out;
  EXPECT_EQ(ctl(port, "stop").code, 0);
  EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
  expect_replay_gives_live_spikes();
}

// Groups and silencing live: a new group, silencing then unsilencing, each at a boundary,
// journaled; the replay gives the same spikes, and the changes mattered.
TEST_F(Service, LiveGroupsAndSilencingAreJournaledAndReplayIdentically) {
  const std::string group = path("group.txt"), silence = path("silence.txt"), none = path("none.txt");
  spit(group, "820475940600081522\n");
  spit(silence, slurp(data_path("net2000/stimulated.txt")));
  spit(none, "# nobody\n");
  const std::string removed = path("removed.txt");
  spit(removed, "820475940600081543\n");
  const std::string plain = "serve " + network() + " --run.pace=5 --control.port=0 --run.duration-ms=30000 --checkpoint.dir=" + path("ck");
  BackgroundFlysim serve(plain + " --output.spikes=" + path("live.csv") + " --output.journal=" + path("journal.jsonl"),
                         path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  const CliResult refused = ctl(port, "stimulus --group=extra --rate=80");
  EXPECT_EQ(refused.code, 1) << "a new group needs its neurons";
  EXPECT_NE((refused.out + refused.err).find("group 'extra' is new"), std::string::npos) << refused.out << refused.err;
  const CliResult shared = ctl(port, "stimulus --group=extra --rate=80 --ids=" + data_path("net2000/stimulated.txt"));
  EXPECT_EQ(shared.code, 1) << "a neuron in two groups is refused";
  EXPECT_NE((shared.out + shared.err).find("two Poisson groups of the stimulus: neuron ID 8204759406"), std::string::npos)
      << "named by its root ID: " << shared.out << shared.err;
  // A group added and removed again (--ids= with no file); an empty file says how.
  EXPECT_EQ(ctl(port, "stimulus --group=brief --rate=200 --ids=" + removed).code, 0);
  const nlohmann::json with_group = status(port);
  ASSERT_EQ(with_group["groups"].size(), 1u) << with_group.dump();
  EXPECT_EQ(with_group["groups"][0]["name"], "brief");
  EXPECT_EQ(with_group["groups"][0]["neurons"], 1);
  EXPECT_EQ(with_group["groups"][0]["rate_hz"], 200.0);
  EXPECT_NE(ctl(port, "status").out.find("; group brief: 1 at 200 Hz"), std::string::npos);
  const CliResult empty = ctl(port, "stimulus --group=brief --ids=" + none);
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("to remove a group, --group=NAME --ids= with no file"), std::string::npos) << empty.err;
  EXPECT_EQ(ctl(port, "stimulus --group=brief --ids=").code, 0);
  const CliResult gone = ctl(port, "stimulus --group=brief --ids=");
  EXPECT_EQ(gone.code, 1);
  EXPECT_NE((gone.out + gone.err).find("there is no group 'brief' to remove"), std::string::npos) << gone.out << gone.err;
  EXPECT_EQ(ctl(port, "stimulus --group=bad.name --rate=5 --ids=" + removed).code, 2) << "a group name as the options take";
  EXPECT_EQ(ctl(port, "stimulus --silence=" + silence + " --silence-mode=both").code, 0);
  EXPECT_EQ(ctl(port, "stimulus --silence=").code, 0);
  EXPECT_EQ(ctl(port, "stimulus --silence=" + silence).code, 0);
  EXPECT_EQ(status(port)["silenced_neurons"], 21);
  EXPECT_EQ(status(port)["groups"].size(), 0u);
  // A checkpoint says what it silences.
  const CliResult written = ctl(port, "checkpoint");
  ASSERT_EQ(written.code, 0) << written.err;
  const std::string file = written.out.substr(written.out.find("file        ") + 12);
  const CliResult inspect = run_flysim("checkpoint inspect " + file.substr(0, file.find('\n')), path("inspect.out"), path("inspect.err"));
  EXPECT_NE(inspect.out.find("silenced        21 neurons (both)"), std::string::npos) << inspect.out << inspect.err;
  EXPECT_NE(slurp(path("journal.jsonl")).find("\"silence_ids\""), std::string::npos);
  EXPECT_EQ(ctl(port, "stop").code, 0);
  EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
  expect_replay_gives_live_spikes();
}

// A live command drops the kicks that have fired from the plan; a service restored from
// its checkpoint with the options it started with (stimulus.kicks among them) is not
// refused for the kicks the checkpoint no longer holds.
TEST_F(Service, ARestoreWithTheStartOptionsTakesAPlanWithoutItsFiredKicks) {
  const std::string start = "serve " + network() + " --stimulus.kicks=" + data_path("net2000/kicks.csv") +
                            " --run.pace=5 --control.port=0 --checkpoint.dir=" + path("ck");
  std::string file;
  {
    BackgroundFlysim serve(start + " --output.journal=" + path("first.jsonl"), path("serve.out"), path("serve.err"));
    const std::string line = serve.wait_for_output("control API on http://", 60);
    ASSERT_NE(line, "") << slurp(path("serve.err"));
    const std::string port = line.substr(line.rfind(':') + 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past the first kicks
    EXPECT_EQ(ctl(port, "stimulus --rate=100").code, 0);
    const CliResult written = ctl(port, "checkpoint");
    ASSERT_EQ(written.code, 0) << written.err;
    file = written.out.substr(written.out.find("file        ") + 12);
    file = file.substr(0, file.find('\n'));
    EXPECT_EQ(ctl(port, "stop").code, 0);
    EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
  }
  const CliResult inspect = run_flysim("checkpoint inspect " + file, path("inspect.out"), path("inspect.err"));
  ASSERT_NE(inspect.out.find(" timed kicks"), std::string::npos) << inspect.out;
  EXPECT_EQ(inspect.out.find(" 12000 timed kicks"), std::string::npos) << inspect.out;  // the fired ones left the plan
  BackgroundFlysim restored(start + " --restore=" + file + " --output.journal=" + path("second.jsonl"), path("restored.out"),
                            path("restored.err"));
  const std::string line = restored.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("restored.err"));
  EXPECT_EQ(ctl(line.substr(line.rfind(':') + 1), "stop").code, 0);
  EXPECT_EQ(restored.wait(), 0) << slurp(path("restored.err"));
}

// A checkpoint that cannot be written (its folder gone) is refused in the reply and
// counted; the service goes on, writes the next one and ends as asked.
TEST_F(Service, AFailedCheckpointEndsNothing) {
  BackgroundFlysim serve("serve " + network() + " --run.pace=5 --control.port=0 --checkpoint.dir=" +
                             path("ck") + " --output.summary=" + path("summary.json") + " --output.journal=" + path("journal.jsonl"),
                         path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  fs::remove_all(path("ck"));
  const CliResult failed = ctl(port, "checkpoint");
  EXPECT_NE(failed.code, 0);
  EXPECT_NE((failed.out + failed.err).find("checkpoint not written"), std::string::npos) << failed.out << failed.err;
  EXPECT_EQ(ctl(port, "status").code, 0);
  fs::create_directories(path("ck"));
  const CliResult written = ctl(port, "checkpoint");
  EXPECT_EQ(written.code, 0) << written.out << written.err;
  // The summary tells the live stimulus at the end besides the start's.
  EXPECT_EQ(ctl(port, "stimulus --rate=75").code, 0);
  ASSERT_EQ(ctl(port, "stop").code, 0);
  ASSERT_EQ(serve.wait_for(60), 0) << slurp(path("serve.err"));
  const nlohmann::json summary = nlohmann::json::parse(slurp(path("summary.json")));
  EXPECT_EQ(summary["checkpoints_failed"], 1);
  EXPECT_EQ(summary["checkpoints_written"], 1);
  EXPECT_EQ(summary["stimulus_changes"], 1);
  EXPECT_NE(summary["last_stimulus_change"].get<std::string>().find("at 75 Hz"), std::string::npos) << summary.dump();
  const std::string printed = slurp(path("serve.out"));
  EXPECT_NE(printed.find("checkpoints 1 could not be written"), std::string::npos);
  EXPECT_NE(printed.find("live        1 stimulus change(s) after the start above; the last: stimulus from trial 0 step "), std::string::npos) << printed;
}

TEST_F(Service, AFailingEngineFallsBackAndTheSpikesDoNotChange) {
  const std::string common = "run " + network() + " --run.duration-ms=400 --engine.threads=1 ";
  ASSERT_EQ(run_flysim(common + "--output.spikes=" + path("plain.csv"), path("a.out"), path("a.err")).code, 0);
  // Paced, an epoch crosses cells (up to 10 ms): the recomputed epochs then end at other
  // steps than the failed engine's, and what was recorded must still not be written twice.
  // A failure after 100 epochs falls back to an exported snapshot; one after 3, before
  // the first export (every 1000 ms), to the trial's start at rest, which needs none.
  for (const std::string fault : {"--engine.fault-after-epochs=100 --engine.fallback-every-ms=50",
                                  "--engine.fault-after-epochs=3 --engine.fallback-every-ms=1000"}) {
    for (const std::string pace : {"off", "20"}) {
      const CliResult failing = run_flysim(common + "--run.pace=" + pace + " " + fault + " --output.spikes=" + path("fallback.csv"),
                                           path("b.out"), path("b.err"));
      ASSERT_EQ(failing.code, 0) << failing.err;
      EXPECT_NE(failing.err.find("ENGINE FAILURE"), std::string::npos) << failing.err;
      EXPECT_NE(failing.out.find("fell back to cpu pool"), std::string::npos) << failing.out;
      EXPECT_TRUE(same_text(slurp(path("plain.csv")), slurp(path("fallback.csv")))) << fault << ", pace " << pace;
    }
  }
}

// A service swaps engines for hours: each swap frees the old engine's delay ring and
// state (tens of MiB on the FlyWire-scale network), and that memory must go back to the
// system, not stay in the heap (apps/flysim/main.cpp: the malloc threshold).
TEST_F(Service, SwappedOutEnginesGiveTheirMemoryBack) {
  BackgroundFlysim serve("serve --run.pace=0.2 --engine.threads=1 --control.port=0 --network.cache-dir=" + path("cache") +
                             " --output.spikes=" + path("spikes.csv") + " --output.journal=" + path("journal.jsonl") +
                             " --checkpoint.dir=" + path("ck"),
                         path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 120);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  // A swap is answered once the new engine holds the state; the old one may still be
  // going, so each figure is the least of three readings, one after each of 3 swaps.
  const auto least_after_3_swaps = [&] {
    long least = -1;
    for (int swap = 0; swap < 3; ++swap) {
      EXPECT_EQ(ctl(port, "swap cpu --threads=1").code, 0);
      const long kib = resident_kib(serve.pid());
      least = least < 0 ? kib : std::min(least, kib);
    }
    return least;
  };
  const long first = least_after_3_swaps();
  for (int swap = 0; swap < 10; ++swap) ASSERT_EQ(ctl(port, "swap cpu --threads=1").code, 0);
  const long last = least_after_3_swaps();
  // Far above a sound service's growth, far below a leaking one's (docs/BENCHMARKS.md, "Memory").
  EXPECT_LT(last - first, 20 * 1024) << first << " KiB after swaps 1-3, " << last << " KiB after swaps 14-16";
  EXPECT_EQ(ctl(port, "stop").code, 0);
  EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
}

// A long service (bench/watch.sh) swaps, checkpoints and answers the control API for
// hours: once the first swaps are behind it, its heap (anonymous memory; the binary's
// pages come in as code first runs) must stop growing (docs/WATCH.md, "Memory").
TEST_F(Service, MemoryStaysFlatOverSwapsCheckpointsAndRequests) {
  BackgroundFlysim serve("serve " + network() + " --run.pace=2 --engine.threads=2 --control.port=0 --checkpoint.every-ms=100" +
                             " --checkpoint.dir=" + path("ck") + " --output.spikes=" + path("spikes.csv") +
                             " --output.journal=" + path("journal.jsonl"),
                         path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  int swaps = 0;
  // A swap to the other thread count, checkpoints and a status request; resident memory
  // after them.
  const auto swap_and_read = [&] {
    EXPECT_EQ(ctl(port, "swap cpu --threads=" + std::to_string(1 + swaps++ % 2)).code, 0);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(ctl(port, "checkpoint").code, 0);
    status(port);
    return resident_kib(serve.pid(), "RssAnon");
  };
  // The least of 3 readings: a swap's old engine may still be going when it is answered.
  const auto least_of_3 = [&] { return std::min({swap_and_read(), swap_and_read(), swap_and_read()}); };
  for (int k = 0; k < 4; ++k) swap_and_read();
  const long first = least_of_3();
  const auto checkpoints_written = [&] { return count_of(slurp(path("serve.err")), "checkpoint written"); };
  const std::size_t checkpoints_before = checkpoints_written();
  for (int k = 0; k < 14; ++k) swap_and_read();
  const long last = least_of_3();
  const std::size_t checkpoints = checkpoints_written() - checkpoints_before;
  EXPECT_GE(checkpoints, 14u * 3);
  // Above a sound service's growth, below what per-thread arenas add (docs/WATCH.md).
  EXPECT_LT(last - first, 1024) << first << " KiB after swaps 5-7, " << last << " KiB after swaps 22-24, " << checkpoints
                               << " checkpoints between";
  EXPECT_EQ(ctl(port, "stop").code, 0);
  EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
}

// A journal is what a replay needs: a service never starts over one, unless told to, and
// a second service in the same folder (same journal or same checkpoint folder) is refused
// with the file and the pid of the one running, before it loads anything.
TEST_F(Service, ASecondServiceInTheFolderIsRefusedAndAJournalIsReplacedOnlyWhenAsked) {
  const std::string journal = path("journal.jsonl"), owned = " --output.journal=" + journal + " --checkpoint.dir=" + path("ck");
  BackgroundFlysim serve("serve " + network() + " --control.port=0" + owned, path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  // `flysim serve ARGS`, which must end at once (a service that starts is killed, and fails the test).
  const auto refused = [&](const std::string& tag, const std::string& args) {
    BackgroundFlysim other("serve " + network() + " --control.port=0" + args, path(tag + ".out"), path(tag + ".err"));
    const int code = other.wait_for(30);
    return CliResult{code, slurp(path(tag + ".out")), slurp(path(tag + ".err"))};
  };
  const std::string holder = "is in use by another flysim process (held by pid " + std::to_string(serve.pid()) + ")";
  expect_one_line_error(refused("same", owned), journal + ": the journal (output.journal) " + holder);
  expect_one_line_error(refused("ck", " --output.journal=" + path("other.jsonl") + " --checkpoint.dir=" + path("ck")),
                        path("ck") + "/flysim.lock: the lock of checkpoint.dir " + holder);
  EXPECT_FALSE(fs::exists(path("other.jsonl"))) << "a refused service left its journal";
  EXPECT_EQ(ctl(line.substr(line.rfind(':') + 1), "stop").code, 0);
  ASSERT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
  EXPECT_FALSE(fs::exists(path("ck/flysim.lock")));

  const std::string before = slurp(journal);
  ASSERT_NE(before.find("flysim_journal"), std::string::npos) << before;
  expect_one_line_error(refused("again", owned), "command line: option output.journal='" + journal + "' holds the journal of an earlier run");
  EXPECT_EQ(slurp(journal), before);
  BackgroundFlysim replaced("serve " + network() + " --control.port=0 --output.journal-overwrite=true" + owned,
                            path("replaced.out"), path("replaced.err"));
  const std::string started = replaced.wait_for_output("control API on http://", 60);
  ASSERT_NE(started, "") << slurp(path("replaced.err"));
  EXPECT_EQ(ctl(started.substr(started.rfind(':') + 1), "stop").code, 0);
  EXPECT_EQ(replaced.wait(), 0) << slurp(path("replaced.err"));
  // A device keeps no journal: it takes one as it takes any output.
  const CliResult discarded = run_flysim("run " + network() + " --run.duration-ms=10 --output.journal=/dev/null",
                                         path("null.out"), path("null.err"));
  EXPECT_EQ(discarded.code, 0) << discarded.err;
}

// A service runs without glibc's per-thread caches of freed blocks, which held memory for
// good (apps/flysim/process/thread_caches.cpp): flysim serve re-executes itself with the tunable
// put before those the caller set. (The dynamic loader cuts the variable at the first
// ':' in what /proc shows; the program itself sees all of it.)
TEST_F(Service, RunsWithoutThreadCachesWhateverTunablesTheCallerSet) {
  ::setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=131072", 1);
  BackgroundFlysim serve("serve " + network() + " --control.port=0 --output.spikes=" + path("spikes.csv") +
                             " --output.journal=" + path("journal.jsonl") + " --checkpoint.dir=" + path("ck"),
                         path("serve.out"), path("serve.err"));
  ::unsetenv("GLIBC_TUNABLES");
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  const std::string environment = slurp("/proc/" + std::to_string(serve.pid()) + "/environ");
  EXPECT_NE(environment.find(std::string("GLIBC_TUNABLES=glibc.malloc.tcache_count=0") + '\0'), std::string::npos);
  EXPECT_EQ(ctl(port, "stop").code, 0);
  EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
}

// Pacing to real time: over 10 s of wall time, simulated time advances by the same
// amount within 1%. Each sample is a status answer, taken every 50 ms.
TEST_F(Service, RealTimePacingKeepsSimulatedTimeWithinOnePercentOfWallTimeOver10s) {
  BackgroundFlysim serve("serve " + network() + " --control.port=0 --output.spikes=" + path("paced.csv") +
                             " --output.journal=" + path("journal.jsonl") + " --checkpoint.dir=" + path("ck"),
                         path("serve.out"), path("serve.err"));
  const std::string line = serve.wait_for_output("control API on http://", 60);
  ASSERT_NE(line, "") << slurp(path("serve.err"));
  const std::string port = line.substr(line.rfind(':') + 1);
  nlohmann::json first = status(port);
  while (first["simulated_s"].get<double>() < 0.5) {  // past the start-up
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first = status(port);
  }
  nlohmann::json last = first;
  while (last["wall_s"].get<double>() - first["wall_s"].get<double>() < 10.0) {
    // A pause between requests: asking in a loop would hold a core the measured service needs.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    last = status(port);
    EXPECT_LT(last["lag_ms"].get<double>(), 100.0) << last.dump();
  }
  const double wall = last["wall_s"].get<double>() - first["wall_s"].get<double>();
  const double simulated = last["simulated_s"].get<double>() - first["simulated_s"].get<double>();
  EXPECT_LE(std::abs(simulated - wall), 0.01 * wall) << "over " << wall << " s of wall time, " << simulated
                                                     << " s simulated";
  EXPECT_EQ(last["pace"], "realtime");
  EXPECT_EQ(ctl(port, "stop").code, 0);
  EXPECT_EQ(serve.wait(), 0) << slurp(path("serve.err"));
}

}  // namespace
}  // namespace flysim::test
