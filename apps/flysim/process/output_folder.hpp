#pragma once
// A command's output folder (output.dir of sweep and screen, a run's checkpoint.dir),
// created before the network loads so that a folder that cannot be made costs no
// waiting; a command refused later, before it wrote anything there, leaves no empty
// folder behind, nor the parents it created for it.
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

class OutputFolder {
 public:
  // Creates the folder of option `key` with its parents, or throws input_error naming it.
  OutputFolder(const Options& o, const std::string& key);
  // Removes the folders this created, innermost first, each while it is empty.
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

 private:
  std::vector<std::string> created_;  // the folder and the parents made for it, innermost first
};

}  // namespace flysim::app
