#include "apps/flysim/process/output_folder.hpp"

#include <filesystem>
#include <system_error>

namespace flysim::app {

OutputFolder::OutputFolder(const Options& o, const std::string& key) : path_(o.text(key)) {
  std::error_code ec;
  created_ = std::filesystem::create_directories(path_, ec);
  if (ec) o.reject(key, "cannot be created: " + ec.message());
}

OutputFolder::~OutputFolder() {
  std::error_code ec;
  if (created_ && std::filesystem::is_empty(path_, ec) && !ec) std::filesystem::remove(path_, ec);
}

}  // namespace flysim::app
