// A screen's coordinator and a plastic run ask each worker and shard node which flysim it
// is, and refuse another build by name before any work goes there. The other build is a
// peer in a child process that answers the real actor interfaces with another version
// (a second build of flysim cannot be made here); it ends with _exit (docs/CAF-0.17.md:
// ~actor_system may wait forever after remote traffic).
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "apps/flysim/remote/network_layer.hpp"
#include "apps/flysim/remote/user_token.hpp"
#include "cli_support.hpp"
#include "messages/interfaces.hpp"
#include "scratch_dir.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOtherBuild = "0.0.1 (commit 0123456789ab)";

// Publishes a screen worker and a shard node that answer version requests with
// kOtherBuild and nothing else; writes "WORKER_PORT NODE_PORT" to `ports`, then waits.
void play_other_build(const std::string& ports) {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  const app::CredentialFiles credentials = app::load_network_layer(cfg, app::user_token());
  caf::actor_system system{cfg};
  auto worker = system.spawn([]() -> screen_worker_actor::behavior_type {
    return {[](hello_atom, ScreenWorkerSetup&) {}, [](version_atom) { return std::string(kOtherBuild); }};
  });
  auto node = system.spawn([]() -> shard_node_actor::behavior_type {
    return {[](spawn_atom, ShardSetup&) -> caf::result<plasticity_shard_actor> { return caf::sec::unexpected_message; },
            [](version_atom) { return std::string(kOtherBuild); }};
  });
  auto worker_port = app::publish_node(system, worker, 0, "127.0.0.1");
  auto node_port = app::publish_node(system, node, 0, "127.0.0.1");
  if (!worker_port || !node_port) return;
  std::ofstream(ports + ".tmp") << *worker_port << " " << *node_port << "\n";
  fs::rename(ports + ".tmp", ports);
  std::this_thread::sleep_for(std::chrono::seconds(120));
}

TEST(PeerBuild, VersionNamesTheBuild) {
  const ScratchDir d("peer-build-version");
  const CliResult version = run_flysim("version", d.path("v.out"), d.path("v.err"));
  ASSERT_EQ(version.code, 0) << version.err;
  EXPECT_TRUE(std::regex_match(version.out, std::regex("flysim [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit [0-9a-z-]+\\)\n"))) << version.out;
  const CliResult dashed = run_flysim("--version", d.path("d.out"), d.path("d.err"));
  EXPECT_EQ(dashed.code, 0);
  EXPECT_EQ(dashed.out, version.out);
}

TEST(PeerBuild, AWorkerOrShardNodeOfAnotherBuildIsRefusedByName) {
  const ScratchDir d("peer-build");
  const std::string ports_file = d.path("ports.txt");
  const pid_t peer = ::fork();
  if (peer == 0) {
    play_other_build(ports_file);
    std::_Exit(0);
  }
  unsigned worker_port = 0, node_port = 0;
  for (int k = 0; k < 3000 && !fs::exists(ports_file); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::ifstream(ports_file) >> worker_port >> node_port;
  const std::string ours = run_flysim("version", d.path("v.out"), d.path("v.err")).out;
  const std::string net = " --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                          data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
                          " --run.duration-ms=100 --engine.threads=1 --network.cache-dir=" + d.path("cache");
  const CliResult screen = run_flysim("screen" + net + " --screen.silence-each=" + data_path("net2000/stimulated.txt") +
                                          " --screen.plot=false --screen.nodes=127.0.0.1:" + std::to_string(worker_port) +
                                          " --output.dir=" + d.path("screen"),
                                      d.path("screen.out"), d.path("screen.err"));
  const CliResult run = run_flysim("run" + net + " --plasticity.enabled=true --plasticity.nodes=127.0.0.1:" + std::to_string(node_port),
                                   d.path("run.out"), d.path("run.err"));
  ::kill(peer, SIGKILL);
  ::waitpid(peer, nullptr, 0);
  ASSERT_NE(worker_port * node_port, 0u);
  ASSERT_EQ(ours.rfind("flysim ", 0), 0u) << ours;
  const std::string this_build = ours.substr(7, ours.size() - 8);  // "flysim X\n" -> X
  EXPECT_EQ(screen.code, 2) << screen.err;
  EXPECT_NE(screen.err.find("screen.nodes: this process is flysim " + this_build + ", and the worker 127.0.0.1:" +
                            std::to_string(worker_port) + " is flysim " + kOtherBuild + ": run the same build of flysim on both"),
            std::string::npos)
      << screen.err;
  EXPECT_FALSE(fs::exists(d.path("screen/rates.csv")));
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_NE(run.err.find("plasticity.nodes: this process is flysim " + this_build + ", and the shard node 127.0.0.1:" +
                         std::to_string(node_port) + " is flysim " + kOtherBuild),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace flysim::test
