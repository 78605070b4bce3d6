#pragma once
// The journal of a live run (output.journal): one JSON object per line. The first line
// holds the options the run was started with (all but outputs, control and pacing) and
// the content hash of its network (and a restored run's checkpoint checksum), so `flysim run --replay=FILE` can rebuild the same
// plan and refuse another network; every later line is one live command, numbered, and
// the boundary where the sim loop applied it, written and flushed before the command
// takes effect. A replay applies the same commands at the same boundaries and gives the
// same spikes (docs/SERVICE.md).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flysim {

struct JournalEntry {
  int32_t trial = 0, step = 0;
  std::string command_json;  // the LiveCommand as JSON (messages/control_json.hpp)
};

// A line after the header, as read: its number in the file and its text. What it holds
// is checked where commands are understood (apps/flysim/service/replay_journal.hpp).
struct JournalLine {
  std::size_t number = 0;
  std::string text;
};

struct JournalContents {
  std::map<std::string, std::string> options;
  uint64_t network_hash = 0;
  // A restored run's: the payload checksum of the checkpoint it started from, which a
  // replay reads under the same name.
  std::optional<uint64_t> restored_checksum;
  std::vector<JournalLine> lines;
};

class JournalWriter {
 public:
  // Creates (truncates) `path` and writes the header line with `options`, `network_hash`
  // and, for a restored run, the checkpoint's payload checksum.
  JournalWriter(const std::string& path, const std::map<std::string, std::string>& options, uint64_t network_hash,
                std::optional<uint64_t> restored_checksum = std::nullopt);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  // Appends one entry, numbered from 1, written straight to the kernel (a killed service
  // keeps it). An entry that cannot be written whole (a full disk) is cut off again, so
  // the journal ends with its last whole line and replays; where that cannot be done (a
  // pipe, or a descriptor the journal shares, as standard output), every later append is
  // refused. Throws input_error.
  void append(const JournalEntry& entry);
  const std::string& path() const { return path_; }

 private:
  void put_line(const std::string& line, const char* what);

  std::string path_;
  int fd_ = -1;
  bool cuttable_ = false;  // a regular file this writer opened and emptied, no standard stream's
  uint64_t appended_ = 0;
  std::string broken_;  // why no line can be appended any more; empty: none
};

// Reads a journal's header (throws input_error naming FILE:1 for anything malformed,
// a header cut short included) and splits the rest into lines. A last line without its
// newline (a service killed while writing it) is ignored with its line number in
// `torn_line` (0: none).
JournalContents read_journal(const std::string& path, std::size_t* torn_line = nullptr);

}  // namespace flysim
