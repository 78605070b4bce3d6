#include "apps/flysim/service/page_files.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <system_error>

#include "model/errors.hpp"
#include "io/input_file.hpp"

namespace flysim::app {

namespace fs = std::filesystem;

namespace {
std::string content_type_of(const std::string& name) {
  const std::string ext = fs::path(name).extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  return "application/octet-stream";
}
}  // namespace

std::vector<std::string> web_dir_candidates(const std::string& executable) {
  std::vector<std::string> dirs;
  if (!executable.empty()) {
    const fs::path bin = fs::path(executable).parent_path();
    dirs.push_back((bin / "web").string());
    dirs.push_back((bin / ".." / FLYSIM_INSTALL_DATADIR / "flysim" / "web").lexically_normal().string());
  }
  dirs.push_back(FLYSIM_SOURCE_WEB_DIR);
  dirs.push_back(FLYSIM_INSTALL_WEB_DIR);
  return dirs;
}

std::string find_web_dir(const std::string& given, const std::vector<std::string>& candidates) {
  if (!given.empty()) return given;
  for (const std::string& dir : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(dir) / kPageFileNames.front(), ec)) return dir;
  }
  throw input_error(fmt::format("the live page's files ({}) are in none of {}; give their folder with control.web-dir "
                                "(apps/flysim/web in the source tree, share/flysim/web where flysim is installed)",
                                fmt::join(kPageFileNames, ", "), fmt::join(candidates, ", ")));
}

PageFiles load_page_files(const std::string& dir) {
  PageFiles page;
  page.dir = dir;
  for (const std::string& name : kPageFileNames) {
    const std::string path = (fs::path(dir) / name).string();
    std::error_code ec;
    if (!fs::exists(path, ec))
      throw input_error(fmt::format("control.web-dir={}: the live page's file {} is missing", dir, name));
    try {
      page.files.push_back({name, content_type_of(name), read_input_file(path, "the live page's file")});
    } catch (const input_error& e) {
      throw input_error(fmt::format("control.web-dir={}: {}", dir, e.what()));
    }
  }
  return page;
}

std::string running_executable() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "" : exe.string();
}

}  // namespace flysim::app
