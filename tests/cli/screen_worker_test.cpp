// flysim screen over worker nodes (screen.nodes, flysim worker): the files equal a local
// screen's and a merged job array's, byte for byte; a worker killed or frozen mid-screen
// has its experiment run elsewhere, on loopback and between network namespaces; a
// worker refuses a different network and options that change results, and listens
// beyond loopback only with a token; strangers' bytes cost it nothing; SIGTERM stops
// workers and coordinators promptly.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <vector>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A worker's own bound on its shutdown is 5 s; a little more for a loaded machine.
constexpr double kStopLimitSeconds = 8.0;

std::string net2000_files() {
  return " --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
         data_path("net2000/connectivity.csv");
}

// A screen of 22 silence-each experiments and the baseline on net2000, 3 trials of
// `duration_ms`, with a seed other than the default (a worker's engines must take it).
std::string screen_args(const std::string& duration_ms = "300") {
  return "screen" + net2000_files() + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
         " --screen.silence-each=" + data_path("net2000/stimulated.txt") +
         " --screen.baseline=true --screen.spikes=true --screen.plot=false --run.trials=3 --run.batch=1 --run.seed=7 "
         "--run.duration-ms=" + duration_ms + " --engine.threads=1";
}

// A started worker: its port, or 0 when it did not come up.
unsigned port_of(const BackgroundFlysim& worker) {
  const std::string line = worker.wait_for_output("serving screens on", 30);
  return line.empty() ? 0 : static_cast<unsigned>(std::stoul(line.substr(line.rfind(':') + 1)));
}

class ScreenWorker : public ::testing::Test {
 protected:
  ScreenWorker() : d_("screen-worker") {}
  std::string path(const std::string& name) const { return d_.path(name); }
  CliResult flysim(const std::string& tag, const std::string& args) const {
    return run_flysim(args, path(tag + ".out"), path(tag + ".err"));
  }
  // A worker with one CPU thread and its own network cache; `extra` options and launcher.
  std::unique_ptr<BackgroundFlysim> worker(const std::string& tag, const std::string& extra = "",
                                           const std::string& launcher = "") const {
    return std::make_unique<BackgroundFlysim>("worker --port=0 --engine.threads=1 --network.cache-dir=" + path("cache-" + tag) +
                                                  " " + extra,
                                              path(tag + ".out"), path(tag + ".err"), launcher);
  }
  std::string nodes(const std::vector<unsigned>& ports, const std::string& host = "127.0.0.1") const {
    std::string text;
    for (unsigned p : ports) text += (text.empty() ? "" : ",") + host + ":" + std::to_string(p);
    return " --screen.nodes=" + text;
  }
  // Whether DIR's files are those of the local screen in `local`.
  void expect_files_of(const std::string& local, const std::string& dir) const {
    for (const std::string name : {"rates.csv", "readouts.csv", "spikes.csv"}) {
      SCOPED_TRACE(dir + "/" + name);
      EXPECT_TRUE(same_text(slurp(path(local + "/" + name)), slurp(path(dir + "/" + name))));
    }
  }
  // The screen on this process alone, into DIR `local`.
  void run_locally(const std::string& duration_ms = "300") const {
    const CliResult local = flysim("local", screen_args(duration_ms) + " --output.dir=" + path("local"));
    ASSERT_EQ(local.code, 0) << local.err;
    ASSERT_GT(count_of(slurp(path("local/spikes.csv")), "\n"), 1000u);
  }
  static std::pair<int, double> terminate(BackgroundFlysim& p) {
    const auto start = Clock::now();
    p.send(SIGTERM);
    const int code = p.wait_for(kStopLimitSeconds);
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    if (code == -2) p.stop(SIGKILL);
    return {code, took};
  }

  ScratchDir d_;
};

TEST_F(ScreenWorker, WorkersLocalEnginesAndPartsGiveTheSameFiles) {
  run_locally();
  auto w1 = worker("w1"), w2 = worker("w2");
  const unsigned p1 = port_of(*w1), p2 = port_of(*w2);
  ASSERT_NE(p1 * p2, 0u) << slurp(path("w1.err")) << slurp(path("w2.err"));
  const CliResult remote = flysim("remote", screen_args() + nodes({p1, p2}) + " --output.dir=" + path("remote"));
  ASSERT_EQ(remote.code, 0) << remote.err;
  EXPECT_NE(remote.out.find("on workers 127.0.0.1:"), std::string::npos) << remote.out;
  expect_files_of("local", "remote");
  // Both workers took experiments.
  EXPECT_GT(count_of(slurp(path("w1.err")), "done on engine 1"), 0u);
  EXPECT_GT(count_of(slurp(path("w2.err")), "done on engine 1"), 0u);
  const CliResult mixed =
      flysim("mixed", screen_args() + " --screen.nodes=127.0.0.1:" + std::to_string(p1) + ",local --output.dir=" + path("mixed"));
  ASSERT_EQ(mixed.code, 0) << mixed.err;
  EXPECT_NE(mixed.out.find("cpu pool, 1 thread and workers 127.0.0.1:"), std::string::npos) << mixed.out;
  expect_files_of("local", "mixed");
  // A job array of two parts, one of them on a worker, merges to the same files.
  ASSERT_EQ(flysim("part1", screen_args() + " --screen.part=1/2 --output.dir=" + path("part1")).code, 0);
  const CliResult part2 = flysim("part2", screen_args() + nodes({p2}) + " --screen.part=2/2 --output.dir=" + path("part2"));
  ASSERT_EQ(part2.code, 0) << part2.err;
  const CliResult merged =
      flysim("merge", "screen merge " + path("part1") + " " + path("part2") + " --screen.plot=false --output.dir=" + path("merged"));
  ASSERT_EQ(merged.code, 0) << merged.err;
  expect_files_of("local", "merged");
  EXPECT_EQ(terminate(*w1).first, 0) << slurp(path("w1.err"));
  EXPECT_EQ(terminate(*w2).first, 0) << slurp(path("w2.err"));
}

// Killed after its first experiment: the experiment it held runs on the other worker,
// and the files are the local screen's (none lost, none counted twice).
TEST_F(ScreenWorker, AKilledWorkersExperimentRunsElsewhere) {
  run_locally("2000");
  auto w1 = worker("w1"), w2 = worker("w2");
  const unsigned p1 = port_of(*w1), p2 = port_of(*w2);
  ASSERT_NE(p1 * p2, 0u);
  BackgroundFlysim screen(screen_args("2000") + nodes({p1, p2}) + " --output.dir=" + path("killed"), path("killed.out"),
                          path("killed.err"));
  ASSERT_NE(w1->wait_for_log("done on engine 1", 60), "") << slurp(path("w1.err"));
  EXPECT_EQ(w1->stop(SIGKILL), 128 + SIGKILL);
  EXPECT_EQ(screen.wait(), 0) << slurp(path("killed.err"));
  const std::string log = slurp(path("killed.err"));
  EXPECT_EQ(count_of(log, "127.0.0.1:" + std::to_string(p1) + " engine 1 went down"), 1u) << log;
  EXPECT_EQ(count_of(log, "goes to another engine"), 1u) << log;
  expect_files_of("local", "killed");
  EXPECT_EQ(terminate(*w2).first, 0);
}

// Frozen (SIGSTOP: its connection stays open, silent): given up after the silence limit.
TEST_F(ScreenWorker, AFrozenWorkersExperimentRunsElsewhere) {
  run_locally("2000");
  auto w1 = worker("w1"), w2 = worker("w2");
  const unsigned p1 = port_of(*w1), p2 = port_of(*w2);
  ASSERT_NE(p1 * p2, 0u);
  BackgroundFlysim screen(screen_args("2000") + nodes({p1, p2}) + " --output.dir=" + path("frozen"), path("frozen.out"),
                          path("frozen.err"));
  ASSERT_NE(w1->wait_for_log("done on engine 1", 60), "") << slurp(path("w1.err"));
  w1->send(SIGSTOP);
  EXPECT_EQ(screen.wait(), 0) << slurp(path("frozen.err"));
  EXPECT_NE(slurp(path("frozen.err")).find("127.0.0.1:" + std::to_string(p1) + " engine 1 went down"), std::string::npos);
  expect_files_of("local", "frozen");
  w1->send(SIGCONT);
  EXPECT_EQ(terminate(*w2).first, 0);
}

TEST_F(ScreenWorker, ADifferentNetworkIsRefusedByName) {
  // net2000 less its last connection: another network under the same neuron list.
  std::string connectivity = slurp(data_path("net2000/connectivity.csv"));
  connectivity.erase(connectivity.rfind('\n', connectivity.size() - 2) + 1);
  const std::string other = d_.write("other.csv", connectivity);
  auto w = worker("w", "--network.connectivity=" + other);
  const unsigned p = port_of(*w);
  ASSERT_NE(p, 0u);
  const CliResult r = flysim("refused", screen_args() + nodes({p}) + " --output.dir=" + path("refused"));
  expect_one_line_error(r, "screen.nodes: the worker 127.0.0.1:" + std::to_string(p) + " refused the screen: network mismatch");
  EXPECT_NE(r.err.find(other), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("refused"))) << "a screen refused before its first experiment leaves nothing to resume";
  // The worker lives on and serves a screen of its own network.
  EXPECT_EQ(w->wait_for(0), -2);
  EXPECT_EQ(terminate(*w).first, 0);
}

TEST_F(ScreenWorker, OptionsThatChangeResultsAndOpenListeningAreRefused) {
  expect_one_line_error(flysim("trials", "worker --run.trials=5"), "command line: option run.trials cannot change");
  expect_one_line_error(flysim("open", "worker --bind=0.0.0.0"), "command line: option bind='0.0.0.0' is reachable from other machines");
  // Its own options are checked as it starts, not when the first screen arrives.
  expect_one_line_error(flysim("threads", "worker --engine.threads=0"), "command line: option engine.threads='0' must be 1..1024");
  expect_one_line_error(flysim("neurons", "worker --network.neurons=" + path("none.csv")),
                        "command line: option network.neurons='" + path("none.csv") + "' names a file flysim cannot open");
  expect_one_line_error(flysim("nodes", screen_args() + " --screen.nodes=::1:7000 --output.dir=" + path("x")),
                        "command line: option screen.nodes");
  expect_one_line_error(flysim("twice", screen_args() + " --screen.nodes=127.0.0.1:7000,local,127.0.0.1:7000 --output.dir=" + path("x")),
                        "command line: option screen.nodes='127.0.0.1:7000,local,127.0.0.1:7000' lists '127.0.0.1:7000' twice");
  EXPECT_FALSE(fs::exists(path("x")));
}

TEST_F(ScreenWorker, TokensAuthenticateAndStrangersCostNothing) {
  const std::string good = d_.write("good", "0123456789abcdef-the-shared-secret\n");
  const std::string bad = d_.write("bad", "0123456789abcdef-some-other-secret\n");
  auto w = worker("w", "--token-file=" + good);
  const unsigned p = port_of(*w);
  ASSERT_NE(p, 0u);
  const long before = resident_kib(w->pid());
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(poke(p, basp_header(0xffffffffu))) << "the worker kept a stranger's connection open";
  EXPECT_LT(resident_kib(w->pid()) - before, 64 * 1024);
  const CliResult wrong = flysim("wrong", screen_args("100") + nodes({p}) + " --screen.token-file=" + bad + " --output.dir=" + path("wrong"));
  expect_one_line_error(wrong, "screen.nodes: cannot reach the worker 127.0.0.1:" + std::to_string(p));
  EXPECT_NE(wrong.err.find("screen.token-file differ"), std::string::npos) << wrong.err;
  // Nothing of the refused screen stays: the same command with the right token starts afresh.
  const CliResult ok = flysim("ok", screen_args("100") + nodes({p}) + " --screen.token-file=" + good + " --output.dir=" + path("wrong"));
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(terminate(*w).first, 0);
}

// SIGTERM: a worker in the middle of an experiment and the coordinator waiting for it
// both stop within the bound; an idle worker too.
TEST_F(ScreenWorker, SigtermStopsWorkersAndCoordinatorsPromptly) {
  auto idle = worker("idle");
  ASSERT_NE(port_of(*idle), 0u);
  const auto [idle_code, idle_took] = terminate(*idle);
  EXPECT_EQ(idle_code, 0) << slurp(path("idle.err"));
  EXPECT_LT(idle_took, kStopLimitSeconds);

  auto busy = worker("busy");
  const unsigned p = port_of(*busy);
  ASSERT_NE(p, 0u);
  BackgroundFlysim screen(screen_args("20000") + nodes({p}) + " --output.dir=" + path("long"), path("long.out"), path("long.err"));
  ASSERT_NE(busy->wait_for_log("session ready", 60), "") << slurp(path("busy.err"));
  const auto [busy_code, busy_took] = terminate(*busy);
  EXPECT_EQ(busy_code, 0) << slurp(path("busy.err"));
  EXPECT_LT(busy_took, kStopLimitSeconds);
  // Its only worker gone, the coordinator stops with one error line.
  EXPECT_EQ(screen.wait_for(30), 2) << slurp(path("long.err"));
  EXPECT_NE(slurp(path("long.err")).find("every node of the screen was lost"), std::string::npos) << slurp(path("long.err"));

  auto other = worker("other");
  const unsigned q = port_of(*other);
  ASSERT_NE(q, 0u);
  BackgroundFlysim waiting(screen_args("20000") + nodes({q}) + " --output.dir=" + path("waiting"), path("waiting.out"),
                           path("waiting.err"));
  ASSERT_NE(other->wait_for_log("session ready", 60), "") << slurp(path("other.err"));
  const auto [code, took] = terminate(waiting);
  EXPECT_EQ(code, 128 + SIGTERM) << slurp(path("waiting.err"));
  EXPECT_LT(took, kStopLimitSeconds);
  // The worker ends the session of the coordinator that went away and serves on.
  EXPECT_NE(other->wait_for_log("ended", 30), "") << slurp(path("other.err"));
  EXPECT_EQ(terminate(*other).first, 0);
}

// Two network namespaces joined by a veth pair (root only): the workers listen on one
// side's address with a token, the coordinator runs on the other side, and one worker
// is killed mid-screen.
class Namespaces {
 public:
  Namespaces() : a_("fsa" + std::to_string(::getpid())), b_("fsb" + std::to_string(::getpid())) {
    const std::string va = "va" + std::to_string(::getpid()), vb = "vb" + std::to_string(::getpid());
    ok_ = ::geteuid() == 0 &&
          sh("ip netns add " + a_ + " && ip netns add " + b_ + " && ip link add " + va + " type veth peer name " + vb +
             " && ip link set " + va + " netns " + a_ + " && ip link set " + vb + " netns " + b_ + " && ip -n " + a_ +
             " addr add 10.231.0.1/24 dev " + va + " && ip -n " + b_ + " addr add 10.231.0.2/24 dev " + vb + " && ip -n " + a_ +
             " link set " + va + " up && ip -n " + b_ + " link set " + vb + " up && ip -n " + a_ + " link set lo up && ip -n " +
             b_ + " link set lo up");
  }
  ~Namespaces() { sh("ip netns del " + a_ + "; ip netns del " + b_); }
  bool ok() const { return ok_; }
  std::string in_a() const { return "ip netns exec " + a_; }
  std::string in_b() const { return "ip netns exec " + b_; }

 private:
  static bool sh(const std::string& cmd) { return std::system((cmd + " > /dev/null 2>&1").c_str()) == 0; }
  std::string a_, b_;
  bool ok_ = false;
};

TEST_F(ScreenWorker, BetweenNetworkNamespacesAKilledWorkersExperimentRunsElsewhere) {
  const Namespaces ns;
  if (!ns.ok()) GTEST_SKIP() << "needs root and `ip netns` to make two network namespaces";
  run_locally("2000");
  const std::string token = d_.write("token", "0123456789abcdef-the-shared-secret\n");
  auto w1 = worker("w1", "--bind=10.231.0.1 --token-file=" + token, ns.in_a());
  auto w2 = worker("w2", "--bind=10.231.0.1 --token-file=" + token, ns.in_a());
  const unsigned p1 = port_of(*w1), p2 = port_of(*w2);
  ASSERT_NE(p1 * p2, 0u) << slurp(path("w1.err"));
  // Not reachable from this namespace: the workers listen on the other side only.
  BackgroundFlysim screen(screen_args("2000") + nodes({p1, p2}, "10.231.0.1") + " --screen.token-file=" + token + " --output.dir=" +
                              path("ns"),
                          path("ns.out"), path("ns.err"), ns.in_b());
  ASSERT_NE(w1->wait_for_log("done on engine 1", 60), "") << slurp(path("w1.err")) << slurp(path("ns.err"));
  EXPECT_EQ(w1->stop(SIGKILL), 128 + SIGKILL);
  EXPECT_EQ(screen.wait(), 0) << slurp(path("ns.err"));
  EXPECT_EQ(count_of(slurp(path("ns.err")), "10.231.0.1:" + std::to_string(p1) + " engine 1 went down"), 1u) << slurp(path("ns.err"));
  expect_files_of("local", "ns");
  EXPECT_EQ(terminate(*w2).first, 0);
}

}  // namespace
}  // namespace flysim::test
