#include "apps/flysim/screen/screen_outputs.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

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
  std::optional<std::vector<double>> baseline;
  if (f.has_baseline) {
    const auto at = std::find(f.names.begin(), f.names.end(), "baseline") - f.names.begin();
    baseline = readout_means(parts.counts(static_cast<std::size_t>(at)), f.readouts, f.trial_s);
  }
  std::string rates = kScreenRatesHeader, readouts = kScreenReadoutsHeader;
  for (std::size_t i = 0; i < f.names.size(); ++i) {
    const ExperimentCounts counts = parts.counts(i);
    if (counts.name != f.names[i])
      throw input_error(parts.folder() + ": part " + std::to_string(i) + " holds experiment '" + counts.name + "', not '" +
                        f.names[i] + "': delete the folder to start over");
    rates += screen_rate_rows(counts, f.trial_s);
    readouts += screen_readout_rows(counts, f.readouts, f.trial_s, baseline);
  }
  write_atomically(f.dir + "/rates.csv", rates);
  write_atomically(f.dir + "/readouts.csv", readouts);
  if (!f.spikes) return;
  AtomicFile out(f.dir + "/spikes.csv");
  out.write(kReferenceSpikesHeader, std::char_traits<char>::length(kReferenceSpikesHeader));
  std::vector<char> block(1 << 20);
  for (std::size_t i = 0; i < f.names.size(); ++i) {
    std::ifstream in(parts.spikes_path(i), std::ios::binary);
    if (!in) throw input_error(parts.spikes_path(i) + ": cannot be read");
    while (in.read(block.data(), static_cast<std::streamsize>(block.size())) || in.gcount() > 0)
      out.write(block.data(), static_cast<std::size_t>(in.gcount()));
  }
  out.commit();
}

}  // namespace flysim::app
