// The checkpointer actor keeps checkpoint.keep scheduled files, whatever the steps they
// land on, and every file asked for.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "actors/checkpointer.hpp"
#include "checkpoint_support.hpp"
#include "scratch_dir.hpp"
#include "messages/messages.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

// The file names a checkpointer in `dir` keeping `keep` files replies for snapshots at
// `steps` (trial 1), in order; those at `asked` (places in `steps`) asked for.
std::vector<std::string> checkpoints_at(const std::string& dir, std::size_t keep, const std::vector<int32_t>& steps,
                                        const std::vector<std::size_t>& asked = {}) {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  caf::actor_system system{cfg};
  const auto checkpointer = spawn_checkpointer(system, CheckpointerConfig{dir, keep, {"compat", "kernel", 1}, {}});
  caf::scoped_actor self{system};
  std::vector<std::string> replies;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    Snapshot s = realistic_snapshot(50, 5, 1);
    s.engine.next_step = steps[k];
    const bool asked_for = std::find(asked.begin(), asked.end(), k) != asked.end();
    self->request(checkpointer, caf::infinite, checkpoint_atom::value, std::move(s), asked_for)
        .receive([&](const std::string& path) { replies.push_back(fs::path(path).filename().string()); },
                 [&](const caf::error& e) { ADD_FAILURE() << system.render(e); });
  }
  self->send_exit(checkpointer, caf::exit_reason::user_shutdown);
  return replies;
}

// Two checkpoints on one step (a scheduled one and a commanded one, or two commanded
// while paused) write two files, the second named _2, and each reply names its own;
// the next ones still leave `keep` files, the newest.
TEST(Checkpointer, KeepsItsCountWhenTwoCheckpointsLandOnOneStep) {
  ScratchDir dir("flysim-checkpointer");
  const std::vector<std::string> replies = checkpoints_at(dir.path(""), 3, {18, 36, 36, 54, 72});
  EXPECT_EQ(replies[1], checkpoint_file_name(1, 36));
  EXPECT_EQ(replies[2], "flysim-trial0001-step000000036_2.ckpt");
  std::vector<std::string> kept;
  for (const auto& entry : fs::directory_iterator(dir.path(""))) kept.push_back(entry.path().filename().string());
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{checkpoint_file_name(1, 36, 2), checkpoint_file_name(1, 54), checkpoint_file_name(1, 72)}));
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A file asked for (its path handed to the asker) stays; the scheduled ones rotate.
TEST(Checkpointer, KeepsEveryFileAskedFor) {
  ScratchDir dir("flysim-checkpointer-asked");
  checkpoints_at(dir.path(""), 2, {18, 36, 54, 72, 90, 108}, {1, 3});
  EXPECT_EQ(files_in(dir.path("")), (std::vector<std::string>{checkpoint_file_name(1, 36), checkpoint_file_name(1, 72),
                                                               checkpoint_file_name(1, 90), checkpoint_file_name(1, 108)}));
}

TEST(Checkpointer, LeavesAnotherRunsFileOfTheSameNameAlone) {
  ScratchDir dir("flysim-checkpointer-other-run");
  const std::string theirs = dir.path(checkpoint_file_name(1, 36));
  { std::ofstream(theirs) << "an earlier run's checkpoint"; }
  const std::vector<std::string> replies = checkpoints_at(dir.path(""), 1, {36, 54});
  EXPECT_EQ(replies, (std::vector<std::string>{checkpoint_file_name(1, 36, 2), checkpoint_file_name(1, 54)}));
  // keep=1 removed this run's first file, never the other run's.
  std::ifstream in(theirs);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "an earlier run's checkpoint");
  EXPECT_FALSE(fs::exists(dir.path(checkpoint_file_name(1, 36, 2))));
}

}  // namespace
}  // namespace flysim::test
