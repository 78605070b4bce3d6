#include "io/stream_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/atomic_file.hpp"
#include "model/errors.hpp"

namespace flysim {

StreamFile::StreamFile(std::string path) : path_(std::move(path)) {
  fd_ = open_in_place(path_, true);
  struct stat st {};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
}

StreamFile::~StreamFile() {
  if (fd_ >= 0) {
    try {
      flush();
    } catch (const input_error&) {
      // Destroyed while unwinding from a failure: the file keeps what reached the kernel.
    }
    ::close(fd_);
  }
}

void StreamFile::write(const void* data, std::size_t bytes) { pending_.append(static_cast<const char*>(data), bytes); }

void StreamFile::flush() {
  std::size_t done = 0;
  while (done < pending_.size()) {
    const ssize_t n = ::write(fd_, pending_.data() + done, pending_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw input_error(path_ + ": write failed: " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  pending_.clear();
  if (pending_.capacity() > kKeptBytes && pending_.capacity() > 4 * done) {
    std::string smaller;
    smaller.reserve(2 * done);
    pending_.swap(smaller);
  }
}

void StreamFile::commit() {
  flush();
  if (regular_ && ::fsync(fd_) != 0) throw input_error(path_ + ": write failed: " + std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw input_error(path_ + ": write failed: " + std::strerror(errno));
}

}  // namespace flysim
