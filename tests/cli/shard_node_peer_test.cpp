// A peer that sends a shard node bad work (a setup that cannot be a shard, or spikes
// that go back in time) gets an error, and the node lives on. The peer is a CAF client
// in a child process that ends with _exit: CAF 0.17's ~actor_system may wait forever
// after talking to a remote node (docs/CAF-0.17.md), which must not hang the tests.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apps/flysim/remote/network_layer.hpp"
#include "apps/flysim/remote/user_token.hpp"
#include "cli_support.hpp"
#include "messages/interfaces.hpp"
#include "shard_fixtures.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

// What the peer saw, one line each: the answer to a spawn with a broken rule, and why
// the shard that got spikes from before its traces ended.
void play_bad_peer(unsigned port, const std::string& report) {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  // This user's token, which the node took: a peer without it never reaches the node.
  const app::CredentialFiles credentials = app::load_network_layer(cfg, app::user_token());
  caf::actor_system system{cfg};
  std::ofstream out(report);
  auto node = app::reach_node<shard_node_actor>(system, "127.0.0.1", static_cast<uint16_t>(port));
  if (!node) {
    out << "unreachable\n";
    return;
  }
  caf::scoped_actor self{system};
  ShardSetup broken = small_shard_setups()[0];
  broken.rule.a_plus = -1;
  self->request(*node, std::chrono::seconds(10), spawn_atom::value, broken)
      .receive([&](plasticity_shard_actor&) { out << "accepted\n"; }, [&](caf::error& e) { out << describe_error(e) << "\n"; });

  ShardSetup later = small_shard_setups()[0];
  later.pre.step[1] = 1000;  // a trace from step 1000: spikes at step 5 would read it at age -995
  plasticity_shard_actor shard;
  self->request(*node, std::chrono::seconds(10), spawn_atom::value, later)
      .receive([&](plasticity_shard_actor& s) { shard = s; }, [&](caf::error& e) { out << describe_error(e) << "\n"; });
  if (!shard) return;
  self->monitor(shard);
  self->send(shard, learn_atom::value, EpochSpikes{0, 0, 18, {{5, 1}}});
  self->receive([&](caf::down_msg& d) { out << describe_error(d.reason) << "\n"; },
                caf::after(std::chrono::seconds(10)) >> [&] { out << "shard still running\n"; });
}

TEST(ShardNodePeer, BadWorkIsRefusedAndTheNodeLivesOn) {
  const fs::path dir = fs::temp_directory_path() / ("flysim-shard-peer-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  BackgroundFlysim node("shard --port=0", (dir / "node.out").string(), (dir / "node.err").string());
  const std::string serving = node.wait_for_output("serving plasticity shards on", 30);
  ASSERT_FALSE(serving.empty()) << slurp((dir / "node.err").string());
  const unsigned port = static_cast<unsigned>(std::stoul(serving.substr(serving.rfind(':') + 1)));
  const std::string report = (dir / "peer.txt").string();

  const pid_t peer = ::fork();
  if (peer == 0) {
    play_bad_peer(port, report);
    std::_Exit(0);
  }
  int status = -1;
  for (int k = 0; k < 3000 && ::waitpid(peer, &status, WNOHANG) == 0; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!WIFEXITED(status)) ::kill(peer, SIGKILL), ::waitpid(peer, &status, 0);
  const std::string seen = slurp(report);
  EXPECT_NE(seen.find("shard node: shard setup: amplitudes outside 0..1e9 units\n"), std::string::npos) << seen;
  EXPECT_NE(seen.find("plasticity shard: spike at step 5 of trial 0 after step 1000"), std::string::npos) << seen;
  EXPECT_EQ(node.wait_for(0), -2) << slurp((dir / "node.err").string());  // still running
  EXPECT_EQ(node.stop(SIGTERM), 0) << slurp((dir / "node.err").string());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace flysim::test
