#pragma once
// What the live page draws: the spikes of the last simulated seconds counted
// in time bins, so that a browser gets counts it can draw, never every spike (the dense
// scenario makes 840,000 spikes per simulated second). Fed with each epoch's spikes in
// order; answers the raster of the most active neurons, the population and readout
// rates per bin, and the top responders over the window. Plain data, no actors: the
// recorder of flysim serve owns one. Design notes: model/ACTIVITY.md.
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "model/network.hpp"
#include "model/spike.hpp"

namespace flysim {

struct ActivitySettings {
  int32_t bin_steps = 200;     // one bin: 20 ms at dt 0.1 ms
  std::size_t max_bins = 500;  // the window: the newest bins kept (10 s at 20 ms)
  double dt_ms = 0.1;
  int32_t steps_per_trial = 0;  // bin positions count steps across trials
};

// The most neurons one answer lists (a raster row or a top responder each).
inline constexpr uint32_t kMaxActivityNeurons = 1000;

// One neuron as the page labels it, with its activity over the window.
struct ActivityNeuron {
  int64_t root_id = 0;
  uint32_t index = 0;
  uint64_t spikes = 0;     // in the window
  double rate_Hz = 0.0;    // over the window
  bool stimulated = false;  // driven by the stimulus now (Poisson or timed kicks)
  bool readout = false;     // the readout neuron (MN9)
};

// The bins kept run from `first` to `next` - 1; a bin is reported once it is complete.
struct ActivitySpan {
  int64_t first = 0;  // the oldest bin kept
  int64_t next = 0;   // one past the newest complete bin: the `since` of the next request
  double bin_ms = 0.0;
  uint32_t window_bins = 0;  // how many bins are kept at most (a page sizes its time axis by it)
};

struct RasterBin {
  int64_t pos = 0;
  double t_ms = 0.0;            // simulated time at the bin's start
  std::vector<uint32_t> counts;  // spikes of each row in the bin, in the order of the rows
};

// The raster: the most active neurons of the window (most spikes first, ties by index),
// and their spike counts in every complete bin from `since` on.
struct RasterReport {
  ActivitySpan span;
  std::vector<ActivityNeuron> rows;
  std::vector<RasterBin> bins;
};

struct RateBin {
  int64_t pos = 0;
  double t_ms = 0.0;
  uint64_t spikes = 0;         // of every neuron
  uint32_t active = 0;         // neurons that spiked in the bin
  double population_Hz = 0.0;  // mean rate per neuron of the network
  double readout_Hz = 0.0;     // the readout neuron's rate (0 without one)
};

struct RatesReport {
  ActivitySpan span;
  uint32_t neurons = 0;          // of the network (population_Hz divides by it)
  bool has_readout = false;      // false: the network has no readout neuron
  ActivityNeuron readout;        // with its rate over the window
  std::vector<RateBin> bins;     // every complete bin from `since` on
};

// The top responders over the window, most spikes first (ties by index).
struct TopReport {
  ActivitySpan span;
  double window_ms = 0.0;  // what the rates are over: the complete bins kept
  std::vector<ActivityNeuron> top;
};

class ActivityWindow {
 public:
  // `readout_root_id` 0, or one the network lacks: no readout.
  ActivityWindow(std::shared_ptr<const Network> network, ActivitySettings settings, int64_t readout_root_id);

  // One epoch of `trial`: steps [first, first + steps) and their spikes, sorted by
  // (step, neuron). Epochs come in order; every bin the epoch's end passed is complete.
  void record(int32_t trial, int32_t first, int32_t steps, const std::vector<Spike>& spikes);
  // The neurons the stimulus drives now (model indices), marked in every answer.
  void set_stimulated(const std::vector<uint32_t>& neurons);

  // `since`: a bin position (an earlier one than the oldest kept means from the oldest);
  // `neurons`: 1..kMaxActivityNeurons (more is cut to that).
  RasterReport raster(int64_t since, uint32_t neurons) const;
  RatesReport rates(int64_t since) const;
  TopReport top(uint32_t neurons) const;

 private:
  // A complete bin: the neurons that spiked in it, ascending, and their counts.
  struct Bin {
    int64_t pos = 0;
    uint64_t spikes = 0;
    std::vector<uint32_t> neurons;
    std::vector<uint32_t> counts;
    uint32_t count_of(uint32_t neuron) const;
  };
  void close_bins_before(int64_t pos);
  ActivitySpan span() const;
  std::vector<ActivityNeuron> most_active(uint32_t neurons) const;
  ActivityNeuron describe(uint32_t neuron) const;
  double window_s() const;
  double bin_start_ms(int64_t pos) const;

  std::shared_ptr<const Network> network_;
  ActivitySettings settings_;
  int64_t readout_ = -1;                 // model index, or -1
  std::vector<bool> stimulated_;
  std::deque<Bin> bins_;                 // complete, oldest first
  std::vector<uint64_t> window_counts_;  // per neuron: spikes in the complete bins kept
  bool started_ = false;
  int64_t open_pos_ = 0;                 // the bin being filled
  uint64_t open_spikes_ = 0;
  std::vector<uint32_t> open_counts_;    // per neuron, in the open bin
  std::vector<uint32_t> open_neurons_;   // those with open_counts_ > 0
};

}  // namespace flysim
