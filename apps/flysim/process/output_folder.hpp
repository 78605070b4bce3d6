#pragma once
// A command's output folder (output.dir of sweep and screen), created before the network
// loads so that a folder that cannot be made costs no waiting; a command refused later,
// before it wrote anything there, leaves no empty folder behind.
#include <string>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

class OutputFolder {
 public:
  // Creates the folder of option `key` with its parents, or throws input_error naming it.
  OutputFolder(const Options& o, const std::string& key);
  // Removes the folder again when this created it and it is still empty.
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

 private:
  std::string path_;
  bool created_ = false;
};

}  // namespace flysim::app
