#pragma once
// The checkpointer: writes snapshots (checkpoint/checkpoint_file.hpp) in its own actor,
// spawned detached, so the sim loop goes on while a file is written and fsynced.
#include <deque>
#include <functional>
#include <string>

#include "checkpoint/checkpoint_file.hpp"
#include "messages/interfaces.hpp"

namespace flysim {

struct CheckpointerConfig {
  std::string dir;
  std::size_t keep = 3;  // newest scheduled files kept; older ones written by this run are removed
  CheckpointIdentity identity;
  // The compatibility string for a stimulus rate: a live rate change changes the Poisson
  // threshold, which the string names (null: identity.compatibility always).
  std::function<std::string(double rate_Hz)> compatibility_for_rate;
};

struct checkpointer_state {
  CheckpointerConfig config;
  std::deque<std::string> written;  // the scheduled files kept, oldest first
  // The position of the last file written and its copy there: positions only grow in a
  // run, so a name is never used twice.
  int32_t last_trial = -1, last_step = -1;
  int last_copy = 0;
  static inline const char* name = "checkpointer";
};

// Runs on a thread of its own (fs-ckpt): spawn it with spawn_checkpointer.
checkpointer_actor::behavior_type checkpointer_behavior(checkpointer_actor::stateful_pointer<checkpointer_state> self,
                                                        CheckpointerConfig config);
checkpointer_actor spawn_checkpointer(caf::actor_system& system, CheckpointerConfig config);

// "flysim-trial0000-step000005004.ckpt": sorts by position. A further checkpoint at the
// same position in one run (`copy` 2, 3, ...: the stimulus may have changed while paused)
// is "...step000005004_2.ckpt", sorting after the first, so that no reply names a file
// that a later checkpoint replaced; so is one whose name an earlier run's file holds.
std::string checkpoint_file_name(int32_t trial, int32_t step, int copy = 1);

}  // namespace flysim
