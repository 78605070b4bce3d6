#pragma once
// One output file in one of the two modes of docs/OUTPUTS.md: atomic (io/atomic_file.hpp:
// it appears under its name, complete, at commit) or streamed (io/stream_file.hpp: it
// grows as the run goes, handed to the kernel at least every kStreamFlushEvery, in the
// whole pieces it was given). Destroyed before commit, an atomic file leaves nothing (an
// earlier file stays) and a streamed one keeps what it was given.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "io/atomic_file.hpp"
#include "io/stream_file.hpp"

namespace flysim {

inline constexpr std::chrono::milliseconds kStreamFlushEvery{200};

class OutputFile {
 public:
  // Opens `path` (throws input_error).
  OutputFile(const std::string& path, bool stream);

  // Callers write whole lines (a streamed file hands them on in those pieces).
  void write(std::string_view text);
  // Streamed: hands what was written to the kernel once kStreamFlushEvery has passed
  // since the last flush. Atomic: nothing.
  void flush_if_due();
  // Streamed: hands what was written to the kernel now. Atomic: nothing.
  void flush();
  void commit();

 private:
  std::optional<AtomicFile> atomic_;
  std::optional<StreamFile> stream_;
  std::chrono::steady_clock::time_point last_flush_;
};

}  // namespace flysim
