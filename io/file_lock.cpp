#include "io/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/errors.hpp"

namespace flysim {

std::string lock_holder(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  // Lines such as "1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF".
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string number, kind, advisory, mode, pid, device;
    fields >> number >> kind >> advisory >> mode >> pid >> device;
    unsigned major = 0, minor = 0;
    unsigned long long inode = 0;
    if (kind == "FLOCK" && std::sscanf(device.c_str(), "%x:%x:%llu", &major, &minor, &inode) == 3 &&
        makedev(major, minor) == st.st_dev && inode == st.st_ino)
      return " (held by pid " + pid + ")";
  }
  return "";
}

FileLock::FileLock(const std::string& path, const std::string& what, bool remove_if_unused, LockNeed need)
    : path_(path), remove_if_unused_(remove_if_unused) {
  while (true) {
    // Read-only: flock(2) needs no more, and a file the run will replace by rename may be write-protected.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    created_ = false;
    if (fd_ < 0 && errno == ENOENT) {
      fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      created_ = fd_ >= 0;
      struct stat link {};
      if (fd_ < 0 && errno == EEXIST && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
        throw input_error(path + ": " + what + " is a symbolic link to a file that does not exist; name the file itself");
      if (fd_ < 0 && errno == EEXIST) continue;
    }
    if (fd_ < 0) throw input_error(path + ": cannot open " + what + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw input_error(path + ": " + what + " must be a regular file");
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd_);
      const bool unsupported = error == ENOSYS || error == ENOLCK || error == EOPNOTSUPP || error == EINVAL;
      if (unsupported && need == LockNeed::where_supported) {
        if (created_) ::unlink(path.c_str());
        fd_ = -1;
        return;
      }
      if (error == EWOULDBLOCK)
        throw input_error(path + ": " + what + " is in use by another flysim process" + lock_holder(path) +
                          "; give this one its own file, or stop the other first");
      throw input_error(path + ": cannot lock " + what + ": " + std::strerror(error));
    }
    // The holder that just ended may have removed the file opened here: lock the one there now.
    struct stat now {};
    if (::stat(path.c_str(), &now) == 0 && now.st_ino == st.st_ino && now.st_dev == st.st_dev) {
      had_content_ = st.st_size > 0;
      return;
    }
    ::close(fd_);
  }
}

FileLock::~FileLock() {
  if (fd_ < 0) return;
  struct stat st {};
  struct stat now {};
  // Only the file this lock created, still empty and still under its name (not an output
  // renamed over it since).
  if (created_ && remove_if_unused_ && ::fstat(fd_, &st) == 0 && st.st_size == 0 && ::stat(path_.c_str(), &now) == 0 &&
      now.st_ino == st.st_ino && now.st_dev == st.st_dev)
    ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace flysim
