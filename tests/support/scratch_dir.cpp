#include "scratch_dir.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace flysim::test {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

ScratchDir::ScratchDir(const std::string& prefix) {
  namespace fs = std::filesystem;
  dir_ = (fs::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name()))
             .string();
  fs::remove_all(dir_);
  fs::create_directories(dir_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string ScratchDir::path(const std::string& name) const { return dir_ + "/" + name; }

std::string ScratchDir::write(const std::string& name, const std::string& text) const {
  spit(path(name), text);
  std::filesystem::permissions(path(name), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  return path(name);
}

}  // namespace flysim::test
