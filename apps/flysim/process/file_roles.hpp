#pragma once
// The files a command reads and writes, checked against each other before any work:
// an output that is also an input (the connectivity file, the config, the checkpoint
// being restored...) would destroy that input, and two outputs on one path would keep
// only the last. Devices such as /dev/null may take several outputs.
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

// A file written under a name the command chooses inside a folder option (sweep's
// DIR/sweep.csv): refused like an output option, named by both.
struct FolderOutput {
  std::string folder_key;  // "output.dir"
  std::string name;        // "sweep.csv"
};

struct FileRoles {
  std::vector<std::string> input_keys;   // options naming files that are read
  std::vector<std::string> output_keys;  // options naming files that are written
  std::vector<std::string> folder_keys;  // options naming folders that are written into
  std::vector<FolderOutput> folder_outputs = {};
  // Inputs whose own reader opens them first thing and refuses a bad one naming the file
  // (a checkpoint, a journal): checked against the outputs only.
  std::vector<std::string> self_checked_input_keys = {};
};

// Throws input_error naming the option when an input option that was given names no
// regular file this process can read (before the network loads: a typo costs no wait),
// and naming both options when an output is an input, two outputs are the same file, or
// an output is one of the folders. Empty options are skipped; the config files
// (--config) count as inputs.
void check_file_roles(const Options& o, const FileRoles& roles);

// Removes the temporary files a killed writer left beside each output and in each
// folder (io/atomic_file.hpp) and says so in the log.
void clean_up_leftovers(const Options& o, const FileRoles& roles);

}  // namespace flysim::app
