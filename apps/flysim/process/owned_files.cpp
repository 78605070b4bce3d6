#include "apps/flysim/process/owned_files.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>

#include "io/atomic_file.hpp"
#include "io/input_file.hpp"

namespace flysim::app {

namespace {
// A device or FIFO (/dev/null, standard output) holds nothing to keep: written in place, unlocked.
bool lockable(const std::string& path) { return !path.empty() && special_file_kind(path).empty() && !names_standard_output(path); }
}  // namespace

OwnedFiles claim_owned_files(const Options& o, bool serving, bool takes_checkpoints, bool streams_spikes) {
  OwnedFiles owned;
  const std::string& journal = o.text("output.journal");
  if (lockable(journal)) {
    owned.journal = std::make_unique<FileLock>(journal, "the journal (output.journal)", true);
    if (owned.journal->had_content() && !o.boolean("output.journal-overwrite"))
      o.reject("output.journal", "holds the journal of an earlier run, which its replay needs; move it away, name another "
                                 "file, or set output.journal-overwrite=true to replace it");
  }
  // Spikes written in place as the run goes: a second run would write into them, or
  // replace them at its end. A run that writes at its end locks only a file already
  // there (its output appears when complete).
  const std::string& spikes = o.text("output.spikes");
  std::error_code ec;
  if (lockable(spikes) && (streams_spikes || std::filesystem::exists(spikes, ec))) {
    owned.spikes = std::make_unique<FileLock>(spikes, "the spike file (output.spikes)", true, LockNeed::where_supported);
    if (!owned.spikes->held())
      spdlog::warn("{}: this file system cannot lock files, so output.spikes is not locked: a second flysim writing "
                   "it at the same time goes unnoticed",
                   spikes);
  }
  // One writer a checkpoint folder: a name free when looked at stays free until written.
  if (serving || takes_checkpoints) {
    owned.checkpoint_dir = std::make_unique<OutputFolder>(o, "checkpoint.dir");
    const std::string lock = (std::filesystem::path(o.text("checkpoint.dir")) / kCheckpointLockName).string();
    owned.checkpoints = std::make_unique<FileLock>(lock, "the lock of checkpoint.dir", true,
                                                   serving ? LockNeed::required : LockNeed::where_supported);
    if (!owned.checkpoints->held())
      spdlog::warn("{}: this file system cannot lock files, so checkpoint.dir is not locked: a second flysim writing "
                   "checkpoints there at the same time could take the same names",
                   lock);
  }
  return owned;
}

}  // namespace flysim::app
