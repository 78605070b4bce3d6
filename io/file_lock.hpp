#pragma once
// An exclusive lock on a file for as long as this object lives: what a running service
// owns (its journal, its checkpoint folder) cannot be taken by a second one. flock(2):
// the kernel drops the lock when the process ends, however it ends.
#include <string>

namespace flysim {

// Whether a file system that cannot lock files (flock(2) unsupported: some NFS, Lustre or
// FUSE mounts) refuses the lock, or leaves it unheld (held() false) for the caller to say so.
enum class LockNeed { required, where_supported };

class FileLock {
 public:
  // Opens `path` (creating it when missing, never truncating it) and locks it. Throws
  // input_error naming the file, `what` it is and the process holding it when another
  // process has it locked. `remove_if_unused`: a file this lock created and that is
  // still empty when the lock ends is removed again.
  FileLock(const std::string& path, const std::string& what, bool remove_if_unused = false,
           LockNeed need = LockNeed::required);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  // Whether the file had bytes before this lock was taken.
  bool had_content() const { return had_content_; }
  // False only where the file system cannot lock and the lock was LockNeed::where_supported.
  bool held() const { return fd_ >= 0; }

 private:
  std::string path_;
  int fd_ = -1;
  bool created_ = false, had_content_ = false, remove_if_unused_ = false;
};

// The process that holds a flock(2) lock on `path`, from /proc/locks: " (held by pid N)",
// or "" when it cannot be told.
std::string lock_holder(const std::string& path);

}  // namespace flysim
