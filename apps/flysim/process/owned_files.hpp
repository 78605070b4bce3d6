#pragma once
// What a run owns while it runs, claimed before the network loads: the journal it
// writes (refused when it holds an earlier run's journal, which its replay needs, unless
// output.journal-overwrite says so), its spike file (written as the run goes by a
// service or a paced run; replaced at the end by any other)
// and, for a service or a run with checkpoint.every-ms, its checkpoint folder. Locked,
// so a second flysim in the same folder is refused with the file and the pid holding it.
#include <memory>

#include "apps/flysim/options/options.hpp"
#include "apps/flysim/process/output_folder.hpp"
#include "io/file_lock.hpp"

namespace flysim::app {

// The name of the lock file a service (or a checkpointing run) keeps in its checkpoint.dir.
inline constexpr const char* kCheckpointLockName = "flysim.lock";

struct OwnedFiles {
  // Declared first, so ended last (after the lock file in it is gone): removed again
  // when this run created it and wrote nothing there.
  std::unique_ptr<OutputFolder> checkpoint_dir;
  std::unique_ptr<FileLock> journal, spikes, checkpoints;
};

// Locks output.journal (when set), output.spikes (when `streams_spikes`, or when the file
// exists) and, for a run that `takes_checkpoints` (a service
// always does), checkpoint.dir (created if missing; on a file system that cannot lock
// files a run goes on unlocked, with a warning, and a service is refused); throws
// input_error naming the option, or the file and its holder.
OwnedFiles claim_owned_files(const Options& o, bool serving, bool takes_checkpoints, bool streams_spikes);

}  // namespace flysim::app
