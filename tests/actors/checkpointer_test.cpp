// The checkpointer actor keeps checkpoint.keep files, whatever the steps they land on.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <filesystem>

#include "actors/checkpointer.hpp"
#include "checkpoint_support.hpp"
#include "scratch_dir.hpp"
#include "messages/messages.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

// Two checkpoints on one step (a scheduled one and a commanded one, or two commanded
// while paused) write two files, the second named _2, and each reply names its own;
// the next ones still leave `keep` files, the newest.
TEST(Checkpointer, KeepsItsCountWhenTwoCheckpointsLandOnOneStep) {
  ScratchDir dir("flysim-checkpointer");
  caf::actor_system_config cfg;
  register_message_types(cfg);
  caf::actor_system system{cfg};
  const auto checkpointer = spawn_checkpointer(system, CheckpointerConfig{dir.path(""), 3, {"compat", "kernel", 1}, {}});
  caf::scoped_actor self{system};
  std::vector<std::string> replies;
  for (const int32_t step : {18, 36, 36, 54, 72}) {
    Snapshot s = realistic_snapshot(50, 5, 1);
    s.engine.next_step = step;
    self->request(checkpointer, caf::infinite, checkpoint_atom::value, std::move(s))
        .receive([&](const std::string& path) { replies.push_back(fs::path(path).filename().string()); },
                 [&](const caf::error& e) { ADD_FAILURE() << system.render(e); });
  }
  EXPECT_EQ(replies[1], checkpoint_file_name(1, 36));
  EXPECT_EQ(replies[2], "flysim-trial0001-step000000036_2.ckpt");
  std::vector<std::string> kept;
  for (const auto& entry : fs::directory_iterator(dir.path(""))) kept.push_back(entry.path().filename().string());
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{checkpoint_file_name(1, 36, 2), checkpoint_file_name(1, 54), checkpoint_file_name(1, 72)}));
  self->send_exit(checkpointer, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace flysim::test
