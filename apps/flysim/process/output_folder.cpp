#include "apps/flysim/process/output_folder.hpp"

#include <filesystem>
#include <system_error>

namespace flysim::app {

namespace fs = std::filesystem;

OutputFolder::OutputFolder(const Options& o, const std::string& key) {
  fs::path path = fs::path(o.text(key)).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();  // "out/"
  std::vector<std::string> missing;
  std::error_code ec;
  for (fs::path p = path; !p.empty() && p != p.root_path() && !fs::exists(p, ec); p = p.parent_path()) {
    if (p.filename().empty() || p.filename() == "..") break;
    missing.push_back(p.string());
  }
  if (fs::create_directories(path, ec); ec) o.reject(key, "cannot be created: " + ec.message());
  created_ = std::move(missing);
}

OutputFolder::~OutputFolder() {
  for (const std::string& folder : created_) {
    std::error_code ec;
    if (!fs::is_empty(folder, ec) || ec || !fs::remove(folder, ec)) return;
  }
}

}  // namespace flysim::app
