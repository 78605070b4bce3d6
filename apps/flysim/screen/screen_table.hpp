#pragma once
// The experiments of a screen (flysim screen) as given: rows of the screen.experiments
// table and the generators' experiments, before they meet the network.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/stimulus.hpp"

namespace flysim::app {

// Root IDs with the file and lines they stand on (errors name FILE:LINE).
struct ScreenIds {
  std::string file;
  std::vector<ListedId> ids;
  std::string column;  // the table's column, or empty
};

struct ScreenExperiment {
  std::string name;
  std::string file;  // where the experiment is defined: the table, or a generator's list or option
  std::size_t line = 0;  // 0: defined by an option, not a file's line
  std::optional<ScreenIds> excite, excite2, silence;
  std::optional<double> rate_Hz, rate2_Hz;
  bool base_stimulus = true;    // false: only `excite` is driven (no stimulus.ids, groups or kicks)
  bool silence_adds = false;    // `silence` adds to stimulus.silence instead of replacing it
  // "FILE:LINE" or the option: for messages.
  std::string origin() const { return line ? file + ":" + std::to_string(line) : file; }
};

// Reads screen.experiments: a CSV with a header of `name` and any of excite, rate_hz,
// excite2, rate2_hz, silence; ID fields hold root IDs separated by ';' or '@FILE' (an ID
// list, relative to the table's folder). Errors name file:line and the column.
std::vector<ScreenExperiment> read_screen_table(const std::string& path);

// Throws input_error naming the second place when two experiments share a name.
void refuse_duplicate_names(const std::vector<ScreenExperiment>& experiments);

}  // namespace flysim::app
