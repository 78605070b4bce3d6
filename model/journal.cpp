#include "model/journal.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>

#include "model/errors.hpp"
#include "model/input_file.hpp"

namespace flysim {

namespace {
constexpr int kJournalVersion = 1;
}

JournalWriter::JournalWriter(const std::string& path, const std::map<std::string, std::string>& options) : path_(path) {
  file_ = std::fopen(path.c_str(), "w");
  if (!file_) throw input_error(path + ": cannot write the journal: " + std::strerror(errno));
  const nlohmann::json header = {{"flysim_journal", kJournalVersion}, {"options", options}};
  const std::string line = header.dump() + "\n";
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0)
    throw input_error(path + ": cannot write the journal: " + std::strerror(errno));
}

JournalWriter::~JournalWriter() {
  if (file_) std::fclose(file_);
}

void JournalWriter::append(const JournalEntry& entry) {
  const nlohmann::json line = {{"trial", entry.trial}, {"step", entry.step},
                               {"command", nlohmann::json::parse(entry.command_json)}};
  const std::string text = line.dump() + "\n";
  if (std::fputs(text.c_str(), file_) < 0 || std::fflush(file_) != 0)
    throw input_error(path_ + ": cannot append to the journal: " + std::strerror(errno));
}

JournalContents read_journal(const std::string& path, std::size_t* torn_line) {
  const std::string bytes = read_input_file(path, "the journal");
  if (torn_line) *torn_line = 0;
  JournalContents contents;
  std::size_t pos = 0, number = 0;
  while (pos < bytes.size()) {
    ++number;
    const std::size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) {
      if (torn_line) *torn_line = number;
      break;
    }
    const std::string line = bytes.substr(pos, end - pos);
    pos = end + 1;
    const auto fail = [&](const std::string& what) -> input_error { return input_error_at(path, number, what); };
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw fail(std::string("not JSON: ") + e.what());
    }
    try {
      if (number == 1) {
        if (!j.contains("flysim_journal")) throw fail("not a flysim journal (the first line lacks 'flysim_journal')");
        if (j.at("flysim_journal").get<int>() != kJournalVersion)
          throw fail("journal version " + j.at("flysim_journal").dump() + "; this flysim reads " + std::to_string(kJournalVersion));
        contents.options = j.at("options").get<std::map<std::string, std::string>>();
        continue;
      }
      JournalEntry entry;
      entry.trial = j.at("trial").get<int32_t>();
      entry.step = j.at("step").get<int32_t>();
      if (entry.trial < 0 || entry.step < 0) throw fail("negative trial or step");
      entry.command_json = j.at("command").dump();
      if (!contents.entries.empty()) {
        const JournalEntry& last = contents.entries.back();
        if (entry.trial < last.trial || (entry.trial == last.trial && entry.step < last.step))
          throw fail("entries go back in time (trial " + std::to_string(entry.trial) + " step " + std::to_string(entry.step) + ")");
      }
      contents.entries.push_back(std::move(entry));
    } catch (const nlohmann::json::exception& e) {
      throw fail(std::string("malformed entry: ") + e.what());
    }
  }
  if (number == 0) throw input_error(path + ": empty file, expected a flysim journal");
  return contents;
}

}  // namespace flysim
