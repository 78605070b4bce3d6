#include "model/activity_window.hpp"

#include <algorithm>
#include <stdexcept>

#include "model/lif_params.hpp"
#include "model/rate_stats.hpp"

namespace flysim {

ActivityWindow::ActivityWindow(std::shared_ptr<const Network> network, ActivitySettings settings, int64_t readout_root_id)
    : network_(std::move(network)), settings_(settings) {
  if (settings_.bin_steps < 1 || settings_.max_bins < 1) throw std::invalid_argument("activity window: empty bins or window");
  const std::size_t n = network_->neuron_count();
  const auto& ids = network_->root_ids;
  if (const auto it = std::find(ids.begin(), ids.end(), readout_root_id); readout_root_id != 0 && it != ids.end())
    readout_ = it - ids.begin();
  stimulated_.assign(n, false);
  window_counts_.assign(n, 0);
  open_counts_.assign(n, 0);
}

uint32_t ActivityWindow::Bin::count_of(uint32_t neuron) const {
  const auto it = std::lower_bound(neurons.begin(), neurons.end(), neuron);
  return it != neurons.end() && *it == neuron ? counts[it - neurons.begin()] : 0;
}

void ActivityWindow::record(int32_t trial, int32_t first, int32_t steps, const std::vector<Spike>& spikes) {
  const int64_t trial_start = int64_t{trial} * settings_.steps_per_trial;
  if (!started_) {
    open_pos_ = (trial_start + first) / settings_.bin_steps;
    started_ = true;
  }
  for (const Spike& s : spikes) {
    const int64_t pos = (trial_start + s.step) / settings_.bin_steps;
    if (pos != open_pos_) close_bins_before(pos);
    if (open_counts_[s.neuron]++ == 0) open_neurons_.push_back(s.neuron);
    ++open_spikes_;
  }
  close_bins_before((trial_start + first + steps) / settings_.bin_steps);
}

// Completes the open bin and the empty ones up to `pos`, which becomes the open one.
void ActivityWindow::close_bins_before(int64_t pos) {
  while (open_pos_ < pos) {
    Bin bin;
    bin.pos = open_pos_;
    bin.spikes = open_spikes_;
    // Sorted once here, so that a query finds a neuron's count by binary search.
    std::sort(open_neurons_.begin(), open_neurons_.end());
    bin.neurons.swap(open_neurons_);
    bin.counts.reserve(bin.neurons.size());
    for (uint32_t neuron : bin.neurons) {
      bin.counts.push_back(open_counts_[neuron]);
      window_counts_[neuron] += open_counts_[neuron];
      open_counts_[neuron] = 0;
    }
    open_spikes_ = 0;
    bins_.push_back(std::move(bin));
    if (bins_.size() > settings_.max_bins) {
      const Bin& oldest = bins_.front();
      for (std::size_t k = 0; k < oldest.neurons.size(); ++k) window_counts_[oldest.neurons[k]] -= oldest.counts[k];
      bins_.pop_front();
    }
    ++open_pos_;
    // A jump further than the window (no epoch ever skips steps, but the bound holds
    // whatever the input): the bins left to close are empty and push out every bin kept.
    if (pos - open_pos_ > static_cast<int64_t>(settings_.max_bins)) {
      bins_.clear();
      std::fill(window_counts_.begin(), window_counts_.end(), 0);
      open_pos_ = pos - static_cast<int64_t>(settings_.max_bins);
    }
  }
}

void ActivityWindow::set_stimulated(const std::vector<uint32_t>& neurons) {
  std::fill(stimulated_.begin(), stimulated_.end(), false);
  for (uint32_t neuron : neurons)
    if (neuron < stimulated_.size()) stimulated_[neuron] = true;
}

ActivitySpan ActivityWindow::span() const {
  ActivitySpan s;
  s.bin_ms = settings_.bin_steps * settings_.dt_ms;
  s.window_bins = static_cast<uint32_t>(settings_.max_bins);
  s.next = open_pos_;
  s.first = bins_.empty() ? open_pos_ : bins_.front().pos;
  return s;
}

double ActivityWindow::window_s() const { return steps_to_seconds(static_cast<double>(bins_.size()) * settings_.bin_steps, settings_.dt_ms); }

double ActivityWindow::bin_start_ms(int64_t pos) const { return static_cast<double>(pos) * settings_.bin_steps * settings_.dt_ms; }

ActivityNeuron ActivityWindow::describe(uint32_t neuron) const {
  ActivityNeuron a;
  a.root_id = network_->root_ids[neuron];
  a.index = neuron;
  a.spikes = window_counts_[neuron];
  const double seconds = window_s();
  a.rate_Hz = rate_Hz(a.spikes, seconds);
  a.stimulated = stimulated_[neuron];
  a.readout = static_cast<int64_t>(neuron) == readout_;
  return a;
}

std::vector<ActivityNeuron> ActivityWindow::most_active(uint32_t neurons) const {
  std::vector<uint32_t> active;
  for (uint32_t k = 0; k < window_counts_.size(); ++k)
    if (window_counts_[k] > 0) active.push_back(k);
  const std::size_t keep = std::min<std::size_t>({active.size(), neurons, kMaxActivityNeurons});
  std::partial_sort(active.begin(), active.begin() + static_cast<std::ptrdiff_t>(keep), active.end(),
                    [&](uint32_t a, uint32_t b) { return window_counts_[a] != window_counts_[b] ? window_counts_[a] > window_counts_[b] : a < b; });
  std::vector<ActivityNeuron> ranked;
  for (std::size_t k = 0; k < keep; ++k) ranked.push_back(describe(active[k]));
  return ranked;
}

RasterReport ActivityWindow::raster(int64_t since, uint32_t neurons) const {
  RasterReport r;
  r.span = span();
  r.rows = most_active(neurons);
  for (const Bin& bin : bins_) {
    if (bin.pos < since) continue;
    RasterBin out;
    out.pos = bin.pos;
    out.t_ms = bin_start_ms(bin.pos);
    out.counts.reserve(r.rows.size());
    for (const ActivityNeuron& row : r.rows) out.counts.push_back(bin.count_of(row.index));
    r.bins.push_back(std::move(out));
  }
  return r;
}

RatesReport ActivityWindow::rates(int64_t since) const {
  RatesReport r;
  r.span = span();
  r.neurons = static_cast<uint32_t>(window_counts_.size());
  r.has_readout = readout_ >= 0;
  if (r.has_readout) r.readout = describe(static_cast<uint32_t>(readout_));
  const double bin_s = steps_to_seconds(settings_.bin_steps, settings_.dt_ms);
  for (const Bin& bin : bins_) {
    if (bin.pos < since) continue;
    RateBin out;
    out.pos = bin.pos;
    out.t_ms = bin_start_ms(bin.pos);
    out.spikes = bin.spikes;
    out.active = static_cast<uint32_t>(bin.neurons.size());
    out.population_Hz = r.neurons > 0 ? static_cast<double>(bin.spikes) / (r.neurons * bin_s) : 0.0;
    out.readout_Hz = r.has_readout ? bin.count_of(static_cast<uint32_t>(readout_)) / bin_s : 0.0;
    r.bins.push_back(out);
  }
  return r;
}

TopReport ActivityWindow::top(uint32_t neurons) const {
  TopReport r;
  r.span = span();
  r.window_ms = window_s() * 1e3;
  r.top = most_active(neurons);
  return r;
}

}  // namespace flysim
