#pragma once
// The checkpoints a run has on their way to disk and the newest files written, for the
// status, the summary and the messages that say where to continue. Plain C++.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

namespace flysim {

class CheckpointFiles {
 public:
  // Remembers the newest `listed` files (checkpoint.keep: those still on disk; a service
  // writes them without end).
  explicit CheckpointFiles(std::size_t listed = 3) : listed_(listed) {}

  // A snapshot went to the checkpointer.
  void writing() { ++writing_; }
  // It is on disk as `path`.
  void written(std::string path);
  // It could not be written (a full disk, a folder gone): the run goes on without it.
  void failed() {
    --writing_;
    ++failed_;
  }
  // Checkpoints sent but not yet on disk: the run does not finish before they are.
  int32_t being_written() const { return writing_; }
  uint64_t count() const { return written_; }
  uint64_t failures() const { return failed_; }
  // The newest files, oldest first.
  const std::deque<std::string>& newest() const { return files_; }
  // The newest file; empty when none was written.
  std::string last() const { return files_.empty() ? std::string() : files_.back(); }

 private:
  std::size_t listed_;
  int32_t writing_ = 0;
  uint64_t written_ = 0;
  uint64_t failed_ = 0;
  std::deque<std::string> files_;
};

}  // namespace flysim
