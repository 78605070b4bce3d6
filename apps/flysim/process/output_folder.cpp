#include "apps/flysim/process/output_folder.hpp"

#include <filesystem>
#include <system_error>

namespace flysim::app {

namespace fs = std::filesystem;

namespace {
// Removes `folders` (innermost first), each while it is empty.
void remove_empty(const std::vector<std::string>& folders) {
  for (const std::string& folder : folders) {
    std::error_code ec;
    if (!fs::is_empty(folder, ec) || ec || !fs::remove(folder, ec)) return;
  }
}
}  // namespace

OutputFolder::OutputFolder(const Options& o, const std::string& key) {
  // Each prefix of the path as given (the kernel resolves "link/.." through the link),
  // made one at a time: what mkdir made here, and only that, is this folder's to remove.
  const fs::path path = o.text(key);
  if (path.empty()) o.reject(key, "cannot be created: it is empty");
  fs::path prefix;
  for (const fs::path& part : path) {
    prefix /= part;
    if (part.empty() || part == "." || part == ".." || part == path.root_name() || part == path.root_directory()) continue;
    std::error_code ec;
    const bool made = fs::create_directory(prefix, ec);
    if (ec) {
      remove_empty(created_);
      o.reject(key, "cannot be created: " + ec.message());
    }
    if (made) created_.insert(created_.begin(), prefix.string());
  }
}

OutputFolder::~OutputFolder() { remove_empty(created_); }

}  // namespace flysim::app
