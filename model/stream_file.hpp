#pragma once
// An output a long run writes as it goes (flysim serve): the file is created at once and
// grows; what is written reaches the kernel only in whole pieces (each flush() is one
// run of write(2) calls over complete lines), so a service killed at any moment leaves a
// well-formed file up to its last flush. Devices, FIFOs and /dev/stdout are written in
// place, as by AtomicFile.
#include <string>

namespace flysim {

class StreamFile {
 public:
  explicit StreamFile(std::string path);
  ~StreamFile();
  StreamFile(const StreamFile&) = delete;
  StreamFile& operator=(const StreamFile&) = delete;

  // Appends to the pending buffer (callers append whole lines).
  void write(const void* data, std::size_t bytes);
  // Hands the pending buffer to the kernel.
  void flush();
  // Flushes, fsyncs (regular files) and closes.
  void commit();
  std::size_t pending_bytes() const { return pending_.size(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool regular_ = false;
  std::string pending_;
};

}  // namespace flysim
