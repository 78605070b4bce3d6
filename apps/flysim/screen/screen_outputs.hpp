#pragma once
// flysim screen's final files, assembled from its progress folder: DIR/rates.csv,
// DIR/readouts.csv and (screen.spikes) DIR/spikes.csv, each written atomically, and DIR/screen.png.
#include <string>
#include <vector>

#include "apps/flysim/screen/screen_parts.hpp"
#include "apps/flysim/options/options.hpp"

namespace flysim::app {

struct ScreenFiles {
  std::string dir;
  std::vector<std::string> names;  // experiment names, in order
  std::vector<int64_t> readouts;   // root IDs, ascending
  double trial_s = 1;
  bool spikes = false;
  bool has_baseline = false;       // experiment `baseline` is in the list
};

// The files of the screen of experiments `names` in DIR (has_baseline from the names).
ScreenFiles screen_files(const std::string& dir, const std::vector<std::string>& names, const std::vector<int64_t>& readouts,
                         double trial_s, bool spikes);

// Writes the files from every experiment's part.
void write_screen_files(const ScreenParts& parts, const ScreenFiles& files);

// Throws input_error (blaming option `key`) when DIR holds a spikes.csv that a screen
// without spikes would leave beside its new tables as if it were theirs.
void refuse_spikes_not_written(const Options& o, const std::string& key, const std::string& dir);

// Warns when DIR/NAME, one of the screen's files that this screen does not write, is
// there: it would pass for this screen's. It is left as it is.
void warn_of_earlier_output(const std::string& dir, const std::string& name);

// The title of screen.png.
std::string screen_plot_title(int32_t trials, double duration_ms);

// Draws DIR/screen.png from DIR/readouts.csv with the screen.plot options; true when it did.
// Without readout neurons in the network there is nothing to draw: it says so and draws none.
bool draw_screen_plot(const Options& o, const std::string& dir, const std::string& title, const std::vector<int64_t>& readouts);

}  // namespace flysim::app
