#include "apps/flysim/process/output_folder.hpp"

#include <filesystem>
#include <system_error>

namespace flysim::app {

namespace fs = std::filesystem;

OutputFolder::OutputFolder(const Options& o, const std::string& key) {
  // The path as given, not normalized: the kernel resolves "link/.." through the link.
  fs::path path = o.text(key);
  if (!path.has_filename()) path = path.parent_path();  // "out/"
  std::vector<std::string> missing;
  std::error_code ec;
  for (fs::path p = path; p.has_filename() && p.filename() != "." && p.filename() != ".." && !fs::exists(p, ec);
       p = p.parent_path())
    missing.push_back(p.string());
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
