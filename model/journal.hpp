#pragma once
// The journal of a live run (output.journal): one JSON object per line. The first line
// holds the options the run was started with (all but outputs, control and pacing), so
// `flysim run --replay=FILE` can rebuild the same plan; every later line is one live
// command and the boundary where the sim loop applied it, written and flushed before the
// command takes effect. A replay applies the same commands at the same boundaries and
// gives the same spikes (docs/SERVICE.md).
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace flysim {

struct JournalEntry {
  int32_t trial = 0, step = 0;
  std::string command_json;  // the LiveCommand as JSON (actors/ encodes and decodes it)
};

struct JournalContents {
  std::map<std::string, std::string> options;
  std::vector<JournalEntry> entries;
};

class JournalWriter {
 public:
  // Creates (truncates) `path` and writes the header line with `options`.
  JournalWriter(const std::string& path, const std::map<std::string, std::string>& options);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  // Appends one entry and flushes it to the kernel (a killed service keeps it).
  void append(const JournalEntry& entry);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

// Reads a journal; throws input_error naming FILE:LINE for anything malformed. A last
// line without its newline (a service killed while writing it) is ignored with its
// line number in `torn_line` (0: none).
JournalContents read_journal(const std::string& path, std::size_t* torn_line = nullptr);

}  // namespace flysim
