#pragma once
// A screen's progress folder, DIR/.screen-parts: the manifest (the screen's options and
// experiment list) and one part per finished experiment, each written atomically, so an
// interrupted screen resumes from the experiments already committed
// (--screen.resume=true) and its final files equal an uninterrupted run's.
#include <cstddef>
#include <functional>
#include <string>

#include "apps/flysim/screen/screen_manifest.hpp"
#include "io/screen_results.hpp"
#include "model/errors.hpp"

namespace flysim::app {

// Reads the spike part at `path` a block at a time, handing each block to `take`, and
// returns the seal of what it read.
SpikePartSeal read_spike_part(const std::string& path, const std::function<void(const char*, std::size_t)>& take);

class ScreenParts {
 public:
  // `manifest`: "key = value" lines. A fresh screen refuses a folder that holds an earlier
  // screen's progress (naming `resume_key`); a resumed one refuses a manifest that differs,
  // naming the first option or experiment that does.
  ScreenParts(const std::string& dir, const std::string& manifest, bool resume, const std::string& resume_key);

  // DIR's progress folder as it stands, for reading (flysim screen merge); its manifest is not checked.
  static ScreenParts existing(const std::string& dir);
  // The text of DIR/.screen-parts/manifest.txt; the error names DIR when there is none.
  static std::string manifest_of(const std::string& dir);

  const std::string& folder() const { return folder_; }
  // Removes the progress folder when this screen wrote it and committed nothing to it: a
  // screen that failed before its first experiment (a node unreachable, a token refused)
  // leaves nothing a plain retry would have to resume.
  void discard_if_unused() const;
  // Whether experiment `index` is committed (with its spike lines, when `with_spikes`).
  bool done(std::size_t index, bool with_spikes) const;
  // Refuses a committed experiment's parts as damaged, naming the file: a counts part
  // whose checksum fails, a spike part of another size than its counts part records, or
  // (`read_spikes`) other bytes.
  void check(std::size_t index, bool with_spikes, bool read_spikes) const;
  // Commits experiment `index`: its spike lines first (when kept), then its counts.
  void commit(std::size_t index, const ExperimentCounts& counts, const std::string* spike_lines) const;
  // Commits experiment `index` as `from` holds it (a hard link where the file system allows).
  void adopt(std::size_t index, const ScreenParts& from, bool with_spikes) const;
  ExperimentCounts counts(std::size_t index) const;
  // Experiment `index`'s counts part as read back: its counts and its spike part's seal.
  CountsPart counts_part(std::size_t index) const;
  // What experiment `index`'s counts part (`part`) records of its spike part; refused as damaged when nothing.
  SpikePartSeal spike_seal(std::size_t index, const CountsPart& part) const;
  // The error for experiment `index`'s spike part, found to be `found` where its counts part records `seal`.
  input_error spike_part_damaged(std::size_t index, const SpikePartSeal& found, const SpikePartSeal& seal) const;
  // The file of experiment `index`'s spike lines (t,trial,flywire_id,exp_name; no header).
  std::string spikes_path(std::size_t index) const;

 private:
  ScreenParts() = default;
  std::string counts_path(std::size_t index) const;
  std::string folder_;
  bool created_ = false;  // the manifest is this screen's, written now
};

}  // namespace flysim::app
