#pragma once
// An output file that never destroys what it does not own and never looks complete
// before it is (docs/OUTPUTS.md):
// - A regular file (or a new name) is written into an anonymous file in the same
//   folder (O_TMPFILE: it has no name, so a process killed with SIGKILL leaves nothing
//   behind), flushed and fsynced, then given a name and renamed over NAME. Where the
//   file system lacks O_TMPFILE, a named NAME.tmp-PID stands in (and
//   remove_stale_temporaries cleans up after a killed writer).
// - A symbolic link is followed: the file it points to is replaced, the link stays.
// - A device, FIFO or socket (/dev/null, a pipe), and anything named under /dev/ or
//   /proc/ (/dev/stdout redirected to a file), or "-" (standard output), is written
//   directly and never replaced;
//   write errors (/dev/full) are reported.
// If the writer fails or is destroyed without commit(), an earlier NAME is untouched.
#include <cstdio>
#include <string>
#include <vector>

namespace flysim {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::FILE* stream() { return file_; }
  void write(const void* data, std::size_t bytes);
  // finish() then publish().
  void commit();
  // Everything written reaches the disk (flushed, fsynced) under a temporary name; write
  // errors (a full disk) are thrown here. Destroyed unpublished, the file goes.
  void finish();
  // The finished file replaces NAME in one rename. Several files finished first and
  // published together leave either none or all of them replaced, but for a failing rename.
  void publish();
  const std::string& path() const { return path_; }

 private:
  void open_direct();
  void open_anonymous();
  void open_named_temporary();
  void give_name();
  std::string path_;    // as the user gave it (messages)
  std::string target_;  // with symbolic links followed: what commit() replaces
  std::string temp_path_;  // named temporary (fallback), else empty
  std::FILE* file_ = nullptr;
  bool direct_ = false;     // a device, FIFO or socket: written in place
  bool anonymous_ = false;  // O_TMPFILE
};

// Whether `path` names standard output: "-", /dev/stdout, /dev/fd/1 or /proc/self/fd/1.
bool names_standard_output(const std::string& path);

// Whether `path` is "-" or under /dev/ or /proc/ (/dev/stdout, /proc/self/fd/N): a view of
// a descriptor, which followed to a regular file would replace the file the shell
// redirected to; such paths are always written in place.
bool is_descriptor_view(const std::string& path);

// Writes `text` as the whole of `path` through an AtomicFile, committed.
void write_atomically(const std::string& path, const std::string& text);

// Opens `path` for writing in place, with its name and its kind kept: a descriptor
// (/dev/stdout, /dev/fd/N) is duplicated, a FIFO without a reader is an error rather than
// a hang, and a regular file is created or, with `truncate`, emptied. Throws input_error.
int open_in_place(const std::string& path, bool truncate);

// Removes the files PREFIX.tmp-PID in `dir` whose writer (process PID) no longer runs:
// what a writer killed before commit() left behind on a file system without O_TMPFILE,
// or an older flysim left. Returns the paths removed, for the caller to report.
std::vector<std::string> remove_stale_temporaries(const std::string& dir, const std::string& prefix);

}  // namespace flysim
