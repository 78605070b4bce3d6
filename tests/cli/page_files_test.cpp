// Finding and reading the live page's static files (apps/flysim/service/page_files.hpp).
#include <gtest/gtest.h>

#include <filesystem>

#include "apps/flysim/service/page_files.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

TEST(PageFiles, CandidatesGoFromBesideTheBinaryToTheSourceTreeToTheInstallPrefix) {
  const std::vector<std::string> dirs = app::web_dir_candidates("/opt/flysim/bin/flysim");
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/opt/flysim/bin/web");
  EXPECT_EQ(dirs[1], "/opt/flysim/share/flysim/web");
  EXPECT_EQ(dirs[2], FLYSIM_WEB_DIR);
  EXPECT_NE(dirs[3].find("/share/flysim/web"), std::string::npos);
  EXPECT_EQ(app::web_dir_candidates("").size(), 2u) << "without the binary's path: the source tree and the prefix";
}

TEST(PageFiles, TheFirstCandidateWithTheIndexWinsAndAGivenFolderIsTakenAsIs) {
  ScratchDir dir("flysim-web");
  fs::create_directories(dir.path("b"));
  dir.write("b/index.html", "<html>");
  EXPECT_EQ(app::find_web_dir("", {dir.path("a"), dir.path("b"), FLYSIM_WEB_DIR}), dir.path("b"));
  EXPECT_EQ(app::find_web_dir(dir.path("a"), {FLYSIM_WEB_DIR}), dir.path("a"));
  const std::string missing = input_error_of([&] { app::find_web_dir("", {dir.path("a"), dir.path("c")}); });
  EXPECT_NE(missing.find("are in none of " + dir.path("a") + ", " + dir.path("c") + "; give their folder with control.web-dir"),
            std::string::npos)
      << missing;
}

TEST(PageFiles, LoadsEveryFileAndNamesAMissingOne) {
  const app::PageFiles page = app::load_page_files(FLYSIM_WEB_DIR);
  ASSERT_EQ(page.files.size(), 3u);
  EXPECT_EQ(page.files[0].name, "index.html");
  EXPECT_FALSE(page.files[1].body.empty());
  ScratchDir dir("flysim-web");
  dir.write("index.html", "<html>");
  dir.write("page.js", "");
  EXPECT_EQ(input_error_of([&] { app::load_page_files(dir.path("")); }),
            "control.web-dir=" + dir.path("") + ": the live page's file page.css is missing");
}

TEST(PageFiles, ServeWithoutItsPageRefusesToStartNamingTheFolder) {
  ScratchDir dir("flysim-web");
  const CliResult r = run_flysim("serve --control.port=0 --control.web-dir=" + dir.path("none"), dir.path("out"), dir.path("err"));
  expect_one_line_error(r, "control.web-dir=" + dir.path("none") + ": the live page's file index.html is missing");
}

}  // namespace
}  // namespace flysim::test
