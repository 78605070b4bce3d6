#pragma once
// What a run owns while it runs, claimed before the network loads: the journal it
// writes (refused when it holds an earlier run's journal, which its replay needs, unless
// output.journal-overwrite says so) and, for a service or a run with checkpoint.every-ms,
// its checkpoint folder. Locked,
// so a second flysim in the same folder is refused with the file and the pid holding it.
#include <memory>

#include "apps/flysim/options/options.hpp"
#include "io/file_lock.hpp"

namespace flysim::app {

// The name of the lock file a service (or a checkpointing run) keeps in its checkpoint.dir.
inline constexpr const char* kCheckpointLockName = "flysim.lock";

struct OwnedFiles {
  std::unique_ptr<FileLock> journal, checkpoints;
};

// Locks output.journal (when set) and, when `serving` or checkpoints are asked,
// checkpoint.dir (created if missing); throws input_error naming the option, or the file
// and its holder.
OwnedFiles claim_owned_files(const Options& o, bool serving);

// Creates checkpoint.dir with its parents, or throws input_error naming the option and why.
void create_checkpoint_dir(const Options& o);

}  // namespace flysim::app
