#include "io/journal.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

#include "model/errors.hpp"
#include "io/atomic_file.hpp"
#include "io/json_depth.hpp"
#include "io/input_file.hpp"

namespace flysim {

namespace {
// 2: numbered entries of {"action", "body"} commands, and the network's content hash.
// 3: a restored run's header holds its checkpoint's checksum; 2 (without it) is read too.
constexpr int kJournalVersion = 3;
constexpr int kOldestJournalVersion = 2;

// The header line: exactly its three fields.
void read_header(const std::string& path, const std::string& line, JournalContents& contents) {
  const auto fail = [&](const std::string& what) { return input_error_at(path, 1, what); };
  if (const std::string problem = json_depth_problem(line); !problem.empty()) throw fail("not a journal header: " + problem);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    throw fail("not JSON: " + printable(e.what()));
  }
  if (!j.is_object() || !j.contains("flysim_journal")) throw fail("not a flysim journal (the first line lacks 'flysim_journal')");
  if (!j.at("flysim_journal").is_number_integer() || j.at("flysim_journal").get<int>() < kOldestJournalVersion ||
      j.at("flysim_journal").get<int>() > kJournalVersion)
    throw fail("journal version " + j.at("flysim_journal").dump() + "; this flysim reads " +
               std::to_string(kOldestJournalVersion) + " to " + std::to_string(kJournalVersion) +
               " (a newer one needs a newer flysim; an older one, the live run again)");
  for (const auto& [key, value] : j.items())
    if (key != "flysim_journal" && key != "options" && key != "network_hash" && key != "restored_checksum")
      throw fail("unknown field '" + printable(key) + "' in the header");
  // A 64-bit value written as 16 hex digits.
  const auto hex16 = [&](const char* key) -> uint64_t {
    const std::string hash = j.at(key).get<std::string>();
    std::size_t used = 0;
    uint64_t value = 0;
    try {
      value = std::stoull(hash, &used, 16);
    } catch (const std::logic_error&) {
      used = 0;
    }
    if (used != hash.size() || hash.size() != 16) throw fail(std::string(key) + " '" + printable(hash) + "' is not 16 hex digits");
    return value;
  };
  try {
    contents.options = j.at("options").get<std::map<std::string, std::string>>();
    contents.network_hash = hex16("network_hash");
    if (j.contains("restored_checksum")) contents.restored_checksum = hex16("restored_checksum");
  } catch (const nlohmann::json::exception& e) {
    throw fail("malformed header: " + printable(e.what()));
  }
}
}  // namespace

JournalWriter::JournalWriter(const std::string& path, const std::map<std::string, std::string>& options, uint64_t network_hash,
                             std::optional<uint64_t> restored_checksum)
    : path_(path) {
  // "-" and /dev/stdout are the process's standard output, written in place (io/atomic_file.hpp).
  fd_ = open_in_place(path, true);
  struct stat st {};
  cuttable_ = !is_descriptor_view(path) && ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  // Nor through a link to a standard stream's file: its bytes are not all the journal's.
  for (int standard = 0; standard <= 2 && cuttable_; ++standard) {
    struct stat other {};
    if (::fstat(standard, &other) == 0 && other.st_ino == st.st_ino && other.st_dev == st.st_dev) cuttable_ = false;
  }
  nlohmann::json header = {
      {"flysim_journal", kJournalVersion}, {"options", options}, {"network_hash", fmt::format("{:016x}", network_hash)}};
  if (restored_checksum) header["restored_checksum"] = fmt::format("{:016x}", *restored_checksum);
  try {
    put_line(header.dump(), "write");
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::put_line(const std::string& line, const char* what) {
  const auto fail = [&](const std::string& why) { return input_error(path_ + ": cannot " + what + " the journal: " + why); };
  if (!broken_.empty()) throw fail(broken_);
  const std::string text = line + "\n";
  const off_t before = cuttable_ ? ::lseek(fd_, 0, SEEK_CUR) : -1;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    const std::string why = n < 0 ? std::strerror(errno) : "nothing written";
    // A piece of a line would join the next one: cut it off, or append nothing more.
    if (done > 0 && (before < 0 || ::ftruncate(fd_, before) != 0 || ::lseek(fd_, before, SEEK_SET) != before))
      broken_ = "its last line is cut short (" + why + "); it replays up to the line before";
    throw fail(why);
  }
}

void JournalWriter::append(const JournalEntry& entry) {
  const nlohmann::json line = {{"seq", appended_ + 1}, {"trial", entry.trial}, {"step", entry.step},
                               {"command", nlohmann::json::parse(entry.command_json)}};
  put_line(line.dump(), "append to");
  ++appended_;
}

JournalContents read_journal(const std::string& path, std::size_t* torn_line) {
  const std::string bytes = read_input_file(path, "the journal");
  if (torn_line) *torn_line = 0;
  if (bytes.empty()) throw input_error(path + ": empty file, expected a flysim journal");
  JournalContents contents;
  std::size_t pos = 0, number = 0;
  while (pos < bytes.size()) {
    ++number;
    const std::size_t end = bytes.find('\n', pos);
    if (end == std::string::npos && number == 1)
      throw input_error_at(path, 1, "the header line is cut short (the service was killed while writing it): nothing to replay");
    if (end == std::string::npos) {
      if (torn_line) *torn_line = number;
      break;
    }
    std::string line = bytes.substr(pos, end - pos);
    pos = end + 1;
    if (number == 1) read_header(path, line, contents);
    else if (line.empty())
      throw input_error_at(path, number, "an empty line: a journal holds one command a line, and flysim writes no empty one "
                                         "(delete the line if an edit left it)");
    else contents.lines.push_back({number, std::move(line)});
  }
  return contents;
}

}  // namespace flysim
