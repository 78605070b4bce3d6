#pragma once
// flysim screen's final files, assembled from its progress folder: DIR/rates.csv,
// DIR/readouts.csv and (screen.spikes) DIR/spikes.csv, each written atomically.
#include <string>
#include <vector>

#include "apps/flysim/commands/screen_parts.hpp"

namespace flysim::app {

struct ScreenFiles {
  std::string dir;
  std::vector<std::string> names;  // experiment names, in order
  std::vector<int64_t> readouts;   // root IDs, ascending
  double trial_s = 1;
  bool spikes = false;
  bool has_baseline = false;       // experiment `baseline` is in the list
};

// Writes the files from every experiment's part.
void write_screen_files(const ScreenParts& parts, const ScreenFiles& files);

}  // namespace flysim::app
