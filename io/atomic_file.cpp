#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "model/errors.hpp"

namespace flysim {

namespace {
constexpr std::size_t kBufferBytes = 1u << 20;
constexpr const char* kTempInfix = ".tmp-";

std::string parent_folder(const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  return dir.empty() ? "." : dir.string();
}

// The file a path ends at once its symbolic links are followed, existing or not: a
// dangling link is kept and the file it names is created.
std::string follow_links(const std::string& path) {
  std::filesystem::path at = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && std::filesystem::is_symlink(at, ec); ++hops) {
    const std::filesystem::path next = std::filesystem::read_symlink(at, ec);
    if (ec) return at.string();
    at = next.is_absolute() ? next : at.parent_path() / next;
  }
  return at.string();
}

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw input_error(path + ": " + what + ": " + std::strerror(err));
}

// The descriptor a path names ("-" or /dev/stdout, /dev/fd/3, /proc/self/fd/3), or -1. It is
// written through a duplicate: opening the path anew would start at offset 0 of a
// redirected file and overwrite what the process has written there.
int descriptor_named(const std::string& path) {
  if (path == "/dev/stdin") return 0;
  if (path == "/dev/stdout" || path == "-") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::size_t n = std::strlen(prefix);
    if (path.rfind(prefix, 0) != 0) continue;
    int fd = -1;
    const auto [end, err] = std::from_chars(path.data() + n, path.data() + path.size(), fd);
    if (err == std::errc() && end == path.data() + path.size()) return fd;
  }
  return -1;
}

}  // namespace

bool names_standard_output(const std::string& path) { return descriptor_named(path) == 1; }

bool is_descriptor_view(const std::string& path) {
  return path == "-" || path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
}

namespace {

void fsync_folder(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  target_ = is_descriptor_view(path_) ? path_ : follow_links(path_);
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw input_error(path_ + ": is a folder; give a file name");
  if (descriptor_named(path_) >= 0 ||
      (::stat(target_.c_str(), &st) == 0 && (!S_ISREG(st.st_mode) || is_descriptor_view(path_))))
    open_direct();
  else
    open_anonymous();
  std::setvbuf(file_, nullptr, _IOFBF, kBufferBytes);
}

int open_in_place(const std::string& path, bool truncate) {
  if (const int named = descriptor_named(path); named >= 0) {
    const int fd = ::fcntl(named, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) fail(path, "cannot write", errno);
    return fd;
  }
  // O_NONBLOCK: a FIFO without a reader is an error now, not a hang.
  const int fd = ::open(follow_links(path).c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0666);
  if (fd < 0) fail(path, errno == ENXIO ? "cannot write (a FIFO with no reader)" : "cannot write", errno);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  struct stat st {};
  if (truncate && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) ::ftruncate(fd, 0);
  return fd;
}

void AtomicFile::open_direct() {
  direct_ = true;
  const int fd = open_in_place(target_, false);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int saved = errno;
    ::close(fd);
    fail(path_, "cannot write", saved);
  }
}

void AtomicFile::open_anonymous() {
  const int fd = ::open(parent_folder(target_).c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) {
    // Not every file system offers O_TMPFILE (EOPNOTSUPP, EISDIR on old kernels).
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) return open_named_temporary();
    fail(path_, "cannot write in " + parent_folder(target_), errno);
  }
  // O_TMPFILE ignores the umask's effect on the mode given; apply it as open(O_CREAT) would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  anonymous_ = true;
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int saved = errno;
    ::close(fd);
    fail(path_, "cannot write", saved);
  }
}

void AtomicFile::open_named_temporary() {
  temp_path_ = target_ + kTempInfix + std::to_string(::getpid());
  ::unlink(temp_path_.c_str());  // a leftover of an earlier process that had this PID
  const int fd = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail(path_, "cannot write", errno);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int saved = errno;
    ::close(fd);
    ::unlink(temp_path_.c_str());
    fail(path_, "cannot write", saved);
  }
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes) fail(path_, "write failed", errno);
}

// The anonymous file gets a temporary name (linkat cannot replace a name), which rename
// then moves over the target in one step.
void AtomicFile::give_name() {
  temp_path_ = target_ + kTempInfix + std::to_string(::getpid());
  ::unlink(temp_path_.c_str());
  const std::string self_fd = "/proc/self/fd/" + std::to_string(::fileno(file_));
  if (::linkat(AT_FDCWD, self_fd.c_str(), AT_FDCWD, temp_path_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
    const int saved = errno;
    const std::string name = temp_path_;
    temp_path_.clear();
    fail(path_, "cannot write the finished file as " + name, saved);
  }
}

void AtomicFile::commit() {
  finish();
  publish();
}

void AtomicFile::finish() {
  bool flushed = std::fflush(file_) == 0;
  int saved_errno = errno;
  // fsync means nothing for a device or a FIFO (and fails with EINVAL on some).
  if (flushed && !direct_ && ::fsync(::fileno(file_)) != 0) flushed = false, saved_errno = errno;
  if (flushed && anonymous_) give_name();
  const bool closed = std::fclose(file_) == 0;
  if (flushed && !closed) saved_errno = errno;
  file_ = nullptr;
  if (!flushed || !closed) fail(path_, "write failed", saved_errno);
}

void AtomicFile::publish() {
  if (direct_) return;
  if (std::rename(temp_path_.c_str(), target_.c_str()) != 0)
    fail(path_, "cannot rename the finished file into place", errno);
  temp_path_.clear();
  fsync_folder(parent_folder(target_));
}

std::vector<std::string> remove_stale_temporaries(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::size_t infix = name.rfind(kTempInfix);
    if (infix == std::string::npos || infix < prefix.size()) continue;
    const std::string digits = name.substr(infix + std::strlen(kTempInfix));
    pid_t pid = 0;
    const auto [end_ptr, err] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (err != std::errc() || end_ptr != digits.data() + digits.size() || pid <= 0) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // its writer may still be at work
    if (it->is_regular_file(ec) && std::filesystem::remove(it->path(), ec)) removed.push_back(it->path().string());
  }
  return removed;
}

void write_atomically(const std::string& path, const std::string& text) {
  AtomicFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

}  // namespace flysim
