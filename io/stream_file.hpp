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
  // What the pending buffer holds on to. A flush keeps it for the next piece, unless it
  // is over kKeptBytes and over 4 times what that flush wrote: a burst (a paced run
  // catching up after a lag writes several times its usual share between flushes) would
  // otherwise keep its high-water mark resident for as long as the service runs.
  std::size_t buffer_capacity() const { return pending_.capacity(); }
  static constexpr std::size_t kKeptBytes = 64 * 1024;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool regular_ = false;
  std::string pending_;
};

}  // namespace flysim
