#include "apps/flysim/screen/screen_outputs.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "apps/flysim/process/stop_signal.hpp"
#include "apps/flysim/run/plot_script.hpp"
#include "io/atomic_file.hpp"
#include "io/reference_spikes.hpp"
#include "model/errors.hpp"

namespace flysim::app {

ScreenFiles screen_files(const std::string& dir, const std::vector<std::string>& names, const std::vector<int64_t>& readouts,
                         double trial_s, bool spikes) {
  const bool has_baseline = std::find(names.begin(), names.end(), "baseline") != names.end();
  return {dir, names, readouts, trial_s, spikes, has_baseline};
}

std::string screen_plot_title(int32_t trials, double duration_ms) {
  return fmt::format("flysim screen: {} trials of {} ms per experiment", trials, duration_ms);
}

bool draw_screen_plot(const Options& o, const std::string& dir, const std::string& title, const std::vector<int64_t>& readouts) {
  if (readouts.empty()) {
    spdlog::warn("no readout neuron of screen.readouts is in the network: {}/screen.png is not drawn", dir);
    return false;
  }
  draw_plot(o, "screen", {dir + "/readouts.csv", dir + "/screen.png", title}, "the CSV files");
  return true;
}

void refuse_spikes_not_written(const Options& o, const std::string& key, const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::path(dir) / "spikes.csv", ec))
    o.reject(key, "holds a spikes.csv that this screen would not write (screen.spikes=false), beside tables of other "
                  "experiments: move it away, or give screen.spikes=true");
}

void warn_of_earlier_output(const std::string& dir, const std::string& name) {
  const std::string path = dir + "/" + name;
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec))
    spdlog::warn("{} is not this screen's (it writes none): delete it if an earlier screen left it", path);
}

void write_screen_files(const ScreenParts& parts, const ScreenFiles& f) {
  // Stopping here writes nothing: the parts stay, and a resume writes the files again.
  const auto stopped = [] { throw_if_stopped("writing the screen's files (the finished experiments are kept: --screen.resume=true writes them)"); };
  std::optional<std::vector<double>> baseline;
  if (f.has_baseline) {
    const auto at = std::find(f.names.begin(), f.names.end(), "baseline") - f.names.begin();
    baseline = readout_means(parts.counts(static_cast<std::size_t>(at)), f.readouts, f.trial_s);
  }
  std::string rates = kScreenRatesHeader, readouts = kScreenReadoutsHeader;
  std::vector<SpikePartSeal> seals;
  for (std::size_t i = 0; i < f.names.size(); ++i) {
    const CountsPart part = parts.counts_part(i);
    const ExperimentCounts& counts = part.counts;
    if (f.spikes) seals.push_back(parts.spike_seal(i, part));
    if (counts.name != f.names[i])
      throw input_error(parts.folder() + ": part " + std::to_string(i) + " holds experiment '" + counts.name + "', not '" +
                        f.names[i] + "': delete the folder to start over");
    rates += screen_rate_rows(counts, f.trial_s);
    readouts += screen_readout_rows(counts, f.readouts, f.trial_s, baseline);
  }
  // All three are written before any is committed: a full disk or a damaged part leaves
  // the folder's earlier files as they were.
  AtomicFile rates_file(f.dir + "/rates.csv"), readouts_file(f.dir + "/readouts.csv");
  rates_file.write(rates.data(), rates.size());
  readouts_file.write(readouts.data(), readouts.size());
  std::optional<AtomicFile> spikes_file;
  if (f.spikes) {
    spikes_file.emplace(f.dir + "/spikes.csv");
    spikes_file->write(kReferenceSpikesHeader, std::char_traits<char>::length(kReferenceSpikesHeader));
    for (std::size_t i = 0; i < f.names.size(); ++i) {
      stopped();
      const SpikePartSeal& recorded = seals[i];
      const SpikePartSeal read =
          read_spike_part(parts.spikes_path(i), [&](const char* data, std::size_t bytes) { spikes_file->write(data, bytes); });
      if (read != recorded) throw parts.spike_part_damaged(i, read, recorded);
    }
  }
  stopped();
  rates_file.finish();
  readouts_file.finish();
  if (spikes_file) spikes_file->finish();
  rates_file.publish();
  readouts_file.publish();
  if (spikes_file) spikes_file->publish();
}

}  // namespace flysim::app
