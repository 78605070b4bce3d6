// `flysim shard` as a server (README, "flysim shard"): it stops promptly on SIGTERM
// whether idle or serving shards, says plainly why it cannot listen, refuses IPv6 and
// unauthenticated listening beyond loopback, and with a token only peers holding the
// same token get through (TLS), so a stranger's bytes never reach CAF's message layer.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.hpp"
#include "file_events.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The node's own bound on its shutdown is 5 s; a little more for a loaded machine.
constexpr double kStopLimitSeconds = 8.0;

class ShardNode : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("flysim-shard-node-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  CliResult flysim(const std::string& tag, const std::string& args) const {
    return run_flysim(args, path(tag + ".out"), path(tag + ".err"));
  }
  // A token file with `token`, readable by its owner only.
  std::string token_file(const std::string& name, const std::string& token) const {
    spit(path(name), token + "\n");
    fs::permissions(path(name), fs::perms::owner_read | fs::perms::owner_write);
    return path(name);
  }
  std::string network_args() const {
    return "--network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " --network.cache-dir=" + path("cache");
  }
  // A plastic run of net2000 with two shards on the node at `port`.
  std::string run_args(unsigned port, const std::string& duration_ms, const std::string& extra = "") const {
    return "run " + network_args() + " --stimulus.ids=" + data_path("net2000/stimulated.txt") + " --run.duration-ms=" +
           duration_ms + " --engine.threads=1 --plasticity.enabled=true --plasticity.period-ms=3.6 --plasticity.shards=2 "
           "--plasticity.nodes=127.0.0.1:" + std::to_string(port) + " " + extra;
  }
  // Starts a node; its port, or 0 when it did not come up.
  static unsigned serving_port(const BackgroundFlysim& node) {
    const std::string line = node.wait_for_output("serving plasticity shards on", 30);
    return line.empty() ? 0 : static_cast<unsigned>(std::stoul(line.substr(line.rfind(':') + 1)));
  }
  // `signal` (SIGTERM or SIGINT), then the exit code and how long it took (the node is
  // killed if it hangs).
  static std::pair<int, double> terminate(BackgroundFlysim& node, int signal = SIGTERM) {
    const auto start = Clock::now();
    node.send(signal);
    int code = node.wait_for(kStopLimitSeconds);
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    if (code == -2) node.stop(SIGKILL);
    return {code, took};
  }

  fs::path dir_;
};

// SIGTERM and SIGINT (Ctrl-C) alike: exit code 0.
TEST_F(ShardNode, IdleNodeStopsPromptlyOnEverySigterm) {
  double slowest = 0;
  for (int k = 0; k < 10; ++k) {
    // Files of their own per try: a stale address line would name the last node.
    const std::string tag = std::to_string(k);
    BackgroundFlysim node("shard --port=0", path("node.out" + tag), path("node.err" + tag));
    ASSERT_NE(serving_port(node), 0u) << slurp(path("node.err" + tag));
    const auto [code, took] = terminate(node, k % 2 ? SIGINT : SIGTERM);
    EXPECT_EQ(code, 0) << "try " << k << ": " << slurp(path("node.err" + tag));
    EXPECT_NE(slurp(path("node.err" + tag)).find("shard node: stopping 0 running shard(s)"), std::string::npos)
        << slurp(path("node.err" + tag));
    slowest = std::max(slowest, took);
  }
  EXPECT_LT(slowest, 3.0);
  std::cerr << "slowest stop of an idle node: " << slowest << " s\n";
}

// SIGTERM while a run's shards are learning on the node: the node stops them, exits 0
// within its bound, and the run stops with exit code 1 (the node went away).
TEST_F(ShardNode, BusyNodeStopsPromptlyOnEverySigterm) {
  double slowest = 0;
  for (int k = 0; k < 10; ++k) {
    const std::string tag = std::to_string(k), node_err = path("node.err" + tag), run_err = path("run.err" + tag);
    BackgroundFlysim node("shard --port=0", path("node.out" + tag), node_err);
    const unsigned port = serving_port(node);
    ASSERT_NE(port, 0u) << slurp(node_err);
    BackgroundFlysim runner(run_args(port, "1000000"), path("run.out" + tag), run_err);
    ASSERT_TRUE(wait_in_folder(dir_.string(), [&] { return slurp(run_err).find("trial 1/1:") != std::string::npos; }, 30))
        << slurp(run_err);
    const auto [code, took] = terminate(node);
    EXPECT_EQ(code, 0) << "try " << k << ": " << slurp(node_err);
    EXPECT_NE(slurp(node_err).find("shard node: stopping 2 running shard(s)"), std::string::npos) << slurp(node_err);
    // The actor system itself shut down: the last-resort deadline (5 s) was not needed.
    EXPECT_EQ(slurp(node_err).find("did not shut down"), std::string::npos) << "try " << k << ": " << slurp(node_err);
    slowest = std::max(slowest, took);
    EXPECT_EQ(runner.wait_for(30), 1) << slurp(run_err);
  }
  EXPECT_LT(slowest, 3.0);
  std::cerr << "slowest stop of a busy node: " << slowest << " s\n";
}

TEST_F(ShardNode, PortInUseIsSaidPlainly) {
  BackgroundFlysim node("shard --port=0", path("node.out"), path("node.err"));
  const unsigned port = serving_port(node);
  ASSERT_NE(port, 0u) << slurp(path("node.err"));
  const CliResult r = flysim("second", "shard --port=" + std::to_string(port));
  expect_one_line_error(r, "cannot listen on 127.0.0.1:" + std::to_string(port) + ": the port is in use");
  EXPECT_EQ(terminate(node).first, 0);
}

TEST_F(ShardNode, Ipv6IsRefusedWithWhatToUse) {
  for (const char* bind : {"::1", "[::1]"}) {
    const CliResult r = flysim("bind", std::string("shard --bind=") + bind);
    expect_one_line_error(r, std::string("command line: option bind='") + bind + "' is an IPv6 address");
    EXPECT_NE(r.err.find("give 127.0.0.1"), std::string::npos) << r.err;
  }
  for (const char* nodes : {"[::1]:7000", "::1:7000"}) {
    const CliResult r = flysim("nodes", std::string("run --plasticity.enabled=true --plasticity.nodes=") + nodes);
    expect_one_line_error(r, "command line: option plasticity.nodes");
    EXPECT_NE(r.err.find("IPv6 addresses are not supported"), std::string::npos) << r.err;
  }
}

TEST_F(ShardNode, ListeningBeyondLoopbackNeedsAToken) {
  expect_one_line_error(flysim("open", "shard --bind=0.0.0.0"), "command line: option bind='0.0.0.0' is reachable from other machines");
  expect_one_line_error(flysim("short", "shard --bind=0.0.0.0 --token-file=" + token_file("short", "abc")),
                        "option token-file: " + path("short") + " holds a token of 3 characters");
  expect_one_line_error(flysim("missing", "shard --token-file=" + path("none")), "option token-file: " + path("none"));
  expect_one_line_error(flysim("name", "shard --bind=localhost"), "command line: option bind='localhost' is not an IPv4 address");
}

// Same token: the run's shards live on the node and the run ends normally. Another
// token, or none: the run stops with one error line (exit 2), and the node lives on.
TEST_F(ShardNode, TokenAuthenticatesRunsAndRefusesOthers) {
  const std::string good = token_file("good", "0123456789abcdef-the-shared-secret");
  const std::string bad = token_file("bad", "0123456789abcdef-some-other-secret");
  BackgroundFlysim node("shard --port=0 --token-file=" + good, path("node.out"), path("node.err"));
  const unsigned port = serving_port(node);
  ASSERT_NE(port, 0u) << slurp(path("node.err"));
  // Logged just after the serving line the port came from: waited for, not read at once.
  EXPECT_NE(node.wait_for_log("shard node: TLS; only runs that give the token in " + good, 30), "") << slurp(path("node.err"));

  const CliResult ok = flysim("ok", run_args(port, "50", "--plasticity.token-file=" + good));
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(count_of(ok.err, "on 127.0.0.1:" + std::to_string(port)), 2u) << ok.err;

  const auto start = Clock::now();
  const CliResult wrong = flysim("wrong", run_args(port, "50", "--plasticity.token-file=" + bad));
  expect_one_line_error(wrong, "plasticity.nodes: cannot reach the shard node 127.0.0.1:" + std::to_string(port));
  EXPECT_NE(wrong.err.find("plasticity.token-file differ"), std::string::npos) << wrong.err;
  const CliResult none = flysim("none", run_args(port, "50"));
  expect_one_line_error(none, "plasticity.nodes: cannot reach the shard node 127.0.0.1:" + std::to_string(port));
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 60.0);

  const CliResult again = flysim("again", run_args(port, "50", "--plasticity.token-file=" + good));
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(terminate(node).first, 0) << slurp(path("node.err"));
}

// With a token, a stranger's header that announces 3 GiB costs the node nothing: the
// bytes are not a TLS handshake, so CAF never reads them as a header.
TEST_F(ShardNode, StrangersCannotMakeATokenNodeAllocate) {
  BackgroundFlysim node("shard --port=0 --token-file=" + token_file("t", "0123456789abcdef-the-shared-secret"), path("node.out"),
                        path("node.err"));
  const unsigned port = serving_port(node);
  ASSERT_NE(port, 0u) << slurp(path("node.err"));
  const long before = resident_kib(node.pid());
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(poke(port, basp_header(3u << 30))) << "the node kept a stranger's connection open";
  const long after = resident_kib(node.pid());
  EXPECT_LT(after - before, 64 * 1024) << before << " KiB -> " << after << " KiB";
  EXPECT_EQ(node.wait_for(0), -2) << slurp(path("node.err"));  // still running
  EXPECT_EQ(terminate(node).first, 0) << slurp(path("node.err"));
}

// Without a token file the node takes this user's token, so a header announcing 4 GiB
// from a peer without it is not a TLS handshake either: the node hangs up, allocates
// nothing, and goes on serving this user's runs.
TEST_F(ShardNode, AHeaderAnnouncing4GiBLeavesANodeWithoutATokenServing) {
  BackgroundFlysim node("shard --port=0", path("node.out"), path("node.err"));
  const unsigned port = serving_port(node);
  ASSERT_NE(port, 0u) << slurp(path("node.err"));
  const long before = resident_kib(node.pid());
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(poke(port, basp_header(0xffffffffu))) << "the node kept a stranger's connection open";
  EXPECT_LT(resident_kib(node.pid()) - before, 64 * 1024);
  ASSERT_EQ(node.wait_for(0), -2) << "the node died: " << slurp(path("node.err"));
  const CliResult run = flysim("run", run_args(port, "50"));
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(count_of(run.err, "on 127.0.0.1:" + std::to_string(port)), 2u) << run.err;
  EXPECT_EQ(terminate(node).first, 0) << slurp(path("node.err"));
}

}  // namespace
}  // namespace flysim::test
