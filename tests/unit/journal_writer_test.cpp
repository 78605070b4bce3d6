// The journal's writer keeps the file replayable when a line cannot be written whole.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>

#include "io/journal.hpp"
#include "model/errors.hpp"

namespace flysim {
namespace {

namespace fs = std::filesystem;

// Limits the size of files this process writes (RLIMIT_FSIZE) while it lives: a write
// beyond it fails with EFBIG, as on a full disk, instead of raising SIGXFSZ.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = nullptr;
};

TEST(JournalWriter, ALineThatCannotBeWrittenWholeIsCutOffAndTheNextOneAppends) {
  const fs::path path = fs::temp_directory_path() / ("flysim_journal_writer_" + std::to_string(::getpid()) + ".jsonl");
  {
    JournalWriter journal(path.string(), {{"run.trials", "1"}}, 0x1234);
    journal.append({0, 18, R"({"action":"pause","body":{}})"});
    const auto whole = static_cast<rlim_t>(fs::file_size(path));
    {
      const FileSizeLimit limit(whole + 100);
      const std::string name(4000, 'a');
      EXPECT_THROW(journal.append({0, 36, R"({"action":"stimulus","body":{"group":")" + name + R"("}})"}), input_error);
    }
    EXPECT_EQ(fs::file_size(path), whole) << "the piece of the line that did not fit is cut off";
    journal.append({0, 54, R"({"action":"stop","body":{}})"});
  }
  std::size_t torn = 0;
  const JournalContents contents = read_journal(path.string(), &torn);
  EXPECT_EQ(torn, 0u);
  ASSERT_EQ(contents.lines.size(), 2u);
  EXPECT_NE(contents.lines[0].text.find(R"("pause")"), std::string::npos);
  EXPECT_NE(contents.lines[1].text.find(R"("stop")"), std::string::npos);
  EXPECT_NE(contents.lines[1].text.find(R"("seq":2)"), std::string::npos) << "the refused entry takes no number";
  fs::remove(path);
}

// An empty line (an edit's) is named by its number, not read as a command without fields.
TEST(JournalWriter, AnEmptyLineIsNamed) {
  const fs::path path = fs::temp_directory_path() / ("flysim_journal_empty_" + std::to_string(::getpid()) + ".jsonl");
  {
    JournalWriter journal(path.string(), {{"run.trials", "1"}}, 0x1234);
    journal.append({0, 18, R"({"action":"pause","body":{}})"});
  }
  {
    std::FILE* f = std::fopen(path.c_str(), "a");
    std::fputs("\n", f);
    std::fclose(f);
  }
  try {
    read_journal(path.string());
    ADD_FAILURE() << "an empty line was read";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()).find(path.string() + ":3: an empty line"), 0u) << e.what();
  }
  fs::remove(path);
}

TEST(JournalWriter, AJournalThroughADescriptorIsNeverCut) {
  // As `flysim ... --output.journal=/dev/stdout >> earlier.log`: the bytes before are the user's.
  const fs::path path = fs::temp_directory_path() / ("flysim_journal_append_" + std::to_string(::getpid()) + ".log");
  const std::string earlier(1000, 'x');
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, earlier.data(), earlier.size()), static_cast<ssize_t>(earlier.size()));
    const FileSizeLimit limit(earlier.size() + 20);
    EXPECT_THROW(JournalWriter("/dev/fd/" + std::to_string(fd), {{"run.trials", "1"}}, 0x1234), input_error);
    ::close(fd);
  }
  const std::string kept = [&] {
    std::string text(fs::file_size(path), '\0');
    std::FILE* f = std::fopen(path.c_str(), "rb");
    text.resize(std::fread(text.data(), 1, text.size(), f));
    std::fclose(f);
    return text;
  }();
  EXPECT_EQ(kept.substr(0, earlier.size()), earlier) << "the bytes before the journal are kept";
  EXPECT_EQ(kept.size(), earlier.size() + 20) << "the piece written stays: a shared descriptor is not cut";
  fs::remove(path);
}

}  // namespace
}  // namespace flysim
