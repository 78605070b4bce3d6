#include "model/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "model/errors.hpp"

namespace flysim {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  temp_path_ = path_ + ".tmp-" + std::to_string(::getpid());
  file_ = std::fopen(temp_path_.c_str(), "wb");
  if (!file_) throw input_error(path_ + ": cannot write: " + std::strerror(errno));
  static constexpr std::size_t kBufferBytes = 1u << 20;
  std::setvbuf(file_, nullptr, _IOFBF, kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(temp_path_.c_str());
  }
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes) throw input_error(path_ + ": write failed: " + std::strerror(errno));
}

void AtomicFile::commit() {
  const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  const int saved_errno = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed) {
    std::remove(temp_path_.c_str());
    throw input_error(path_ + ": write failed: " + std::strerror(saved_errno));
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int rename_errno = errno;
    std::remove(temp_path_.c_str());
    throw input_error(path_ + ": cannot rename the finished file into place: " + std::strerror(rename_errno));
  }
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace flysim
