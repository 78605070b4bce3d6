#pragma once
// A test's own files: a scratch folder removed after the test, and whole files read and
// written as bytes.
#include <string>

namespace flysim::test {

std::string slurp(const std::string& path);
void spit(const std::string& path, const std::string& bytes);

// A fresh folder under the system's temporary one, named after the running test and
// this process, removed with everything in it when destroyed.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string path(const std::string& name) const;
  // Writes `text` to `name`, readable and writable by its owner only; returns its path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string dir_;
};

}  // namespace flysim::test
