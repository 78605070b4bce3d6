#pragma once
// One part of a screen split for a job array (--screen.part=K/N or auto from Slurm's
// SLURM_ARRAY_TASK_* variables): which experiments it runs, and the lines its manifest
// adds to the whole screen's so that `flysim screen merge` can check and join the parts.
#include <cstddef>
#include <string>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

struct ScreenPart {
  int k = 1, n = 1;  // part k of n, 1-based
  bool whole = true;  // no screen.part given: the screen runs at once
  // Experiment `index` (0-based) belongs to this part: every n-th, from the (k-1)-th.
  bool has(std::size_t index) const { return whole || index % static_cast<std::size_t>(n) == static_cast<std::size_t>(k - 1); }
};

// screen.part: empty (the whole screen), "K/N", or "auto" (SLURM_ARRAY_TASK_ID,
// SLURM_ARRAY_TASK_COUNT and, when set, SLURM_ARRAY_TASK_MIN). Errors name the option or variable.
ScreenPart screen_part(const Options& o, const std::string& key);

// What `flysim screen merge` needs besides the parts' counts and spikes.
struct ScreenPartFacts {
  double trial_s = 1;
  bool spikes = false;
  std::string plot_title;
};

// The manifest of a part: the whole screen's, then "parts = N", the facts, and "part = K" last.
std::string part_manifest(const std::string& whole_manifest, const ScreenPart& part, const ScreenPartFacts& facts);

// A part's manifest read back. Throws input_error naming `path` when it is not a part's.
struct ReadPartManifest {
  std::string whole;     // the whole screen's manifest
  std::string identity;  // everything but the "part = K" line: equal for the parts of one screen
  ScreenPart part;
  ScreenPartFacts facts;
};
ReadPartManifest read_part_manifest(const std::string& path, const std::string& text);

}  // namespace flysim::app
