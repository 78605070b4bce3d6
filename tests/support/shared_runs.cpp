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
  for (const fs::path& binary : {fs::path(FLYSIM_BINARY), fs::read_symlink("/proc/self/exe")})
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

CliResult run_flysim_kept(const std::string& args, const fs::path& folder, const std::string& tag) {
  const std::string out = (folder / (tag + ".out")).string(), err = (folder / (tag + ".err")).string();
  const fs::path code_path = folder / (tag + ".code");
  if (fs::exists(code_path)) {
    int code = -1;
    std::ifstream(code_path) >> code;
    return {code, slurp(out), slurp(err)};
  }
  const CliResult r = run_flysim(args, out, err);
  spit(code_path.string() + ".tmp", std::to_string(r.code));
  fs::rename(code_path.string() + ".tmp", code_path);
  return r;
}

fs::path empty_process_folder(const std::string& prefix) {
  const fs::path folder = fs::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

}  // namespace flysim::test
