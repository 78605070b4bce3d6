#include "io/journal.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

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

void put_line(std::FILE* file, const std::string& path, const std::string& line, const char* what) {
  const std::string text = line + "\n";
  if (std::fputs(text.c_str(), file) < 0 || std::fflush(file) != 0)
    throw input_error(path + ": cannot " + what + " the journal: " + std::strerror(errno));
}

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
  const int fd = open_in_place(path, true);
  file_ = ::fdopen(fd, "w");
  if (!file_) {
    const int error = errno;
    ::close(fd);
    throw input_error(path + ": cannot write the journal: " + std::strerror(error));
  }
  nlohmann::json header = {
      {"flysim_journal", kJournalVersion}, {"options", options}, {"network_hash", fmt::format("{:016x}", network_hash)}};
  if (restored_checksum) header["restored_checksum"] = fmt::format("{:016x}", *restored_checksum);
  put_line(file_, path_, header.dump(), "write");
}

JournalWriter::~JournalWriter() {
  if (file_) std::fclose(file_);
}

void JournalWriter::append(const JournalEntry& entry) {
  const nlohmann::json line = {{"seq", appended_ + 1}, {"trial", entry.trial}, {"step", entry.step},
                               {"command", nlohmann::json::parse(entry.command_json)}};
  put_line(file_, path_, line.dump(), "append to");
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
    else contents.lines.push_back({number, std::move(line)});
  }
  return contents;
}

}  // namespace flysim
