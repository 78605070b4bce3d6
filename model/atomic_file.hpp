#pragma once
// A file that appears under its name only when complete: written to NAME.tmp-PID,
// flushed and fsynced, then renamed over NAME (and the directory fsynced). If the
// writer fails or is destroyed without commit(), the temporary file is removed and
// any earlier NAME is left untouched.
#include <cstdio>
#include <string>

namespace flysim {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::FILE* stream() { return file_; }
  void write(const void* data, std::size_t bytes);
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_path_;
  std::FILE* file_ = nullptr;
};

}  // namespace flysim
