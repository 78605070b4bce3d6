#include "shared_runs.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>

namespace flysim::test {

namespace fs = std::filesystem;

namespace {
// The binaries' sizes and modification times: what changes when either is rebuilt.
std::string binaries_stamp() {
  std::string stamp;
  for (const fs::path binary : {fs::path(FLYSIM_BINARY), fs::read_symlink("/proc/self/exe")})
    stamp += std::to_string(fs::file_size(binary)) + "-" +
             std::to_string(fs::last_write_time(binary).time_since_epoch().count()) + ";";
  return std::to_string(std::hash<std::string>{}(stamp));
}

// An exclusive flock on a file, released when destroyed.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) throw std::runtime_error("cannot lock " + path.string());
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};
}  // namespace

fs::path with_shared_runs(const std::string& name, const std::function<void(const fs::path&)>& fill) {
  const fs::path root = FLYSIM_TEST_SHARED_RUNS;
  fs::create_directories(root);
  const FileLock lock(root / (name + ".lock"));
  const fs::path folder = root / (name + "-" + binaries_stamp());
  // The folders of earlier builds are of no use any more.
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory() && entry.path() != folder && entry.path().filename().string().rfind(name + "-", 0) == 0)
      fs::remove_all(entry.path());
  fs::create_directories(folder);
  fill(folder);
  return folder;
}

CliResult run_flysim_kept(const std::string& args, const std::string& out_path, const std::string& err_path) {
  const std::string code_path = out_path + ".code";
  if (fs::exists(code_path)) {
    int code = -1;
    std::ifstream(code_path) >> code;
    return {code, slurp(out_path), slurp(err_path)};
  }
  const CliResult r = run_flysim(args, out_path, err_path);
  spit(code_path + ".tmp", std::to_string(r.code));
  fs::rename(code_path + ".tmp", code_path);
  return r;
}

}  // namespace flysim::test
