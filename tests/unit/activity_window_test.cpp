// The live page's activity window (model/activity_window.hpp): spikes counted into time
// bins, a bounded number kept, answered as raster, rates and top responders.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "model/activity_window.hpp"
#include "model/stimulus.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

constexpr int32_t kBinSteps = 10;
constexpr double kDt = 0.1;  // so a bin is 1 ms

ActivitySettings settings(std::size_t max_bins, int32_t steps_per_trial = 1000) {
  return {kBinSteps, max_bins, kDt, steps_per_trial};
}

// Feeds `spikes` (sorted by step, neuron) of trial 0 to the window in epochs of
// `epoch_steps`, covering steps [0, end).
void feed(ActivityWindow& w, const std::vector<Spike>& spikes, int32_t end, int32_t epoch_steps) {
  std::size_t k = 0;
  for (int32_t first = 0; first < end; first += epoch_steps) {
    const int32_t steps = std::min(epoch_steps, end - first);
    std::vector<Spike> epoch;
    while (k < spikes.size() && spikes[k].step < first + steps) epoch.push_back(spikes[k++]);
    w.record(0, first, steps, epoch);
  }
}

// Random spikes of `n` neurons over [0, end): neuron i spikes with probability
// growing with i, so the ranking is mostly, but not entirely, by index.
std::vector<Spike> random_spikes(uint32_t n, int32_t end, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Spike> spikes;
  for (int32_t step = 0; step < end; ++step)
    for (uint32_t neuron = 0; neuron < n; ++neuron)
      if (std::uniform_int_distribution<uint32_t>(0, 4 * n)(rng) < neuron) spikes.push_back({step, neuron});
  return spikes;
}

// The count of each (bin, neuron) by brute force.
std::map<std::pair<int64_t, uint32_t>, uint32_t> counts_by_bin(const std::vector<Spike>& spikes) {
  std::map<std::pair<int64_t, uint32_t>, uint32_t> counts;
  for (const Spike& s : spikes) ++counts[{s.step / kBinSteps, s.neuron}];
  return counts;
}

TEST(ActivityWindow, ABinIsReportedOnceAnEpochHasPassedItsEnd) {
  ActivityWindow w(tiny_network(4, {}), settings(8), 0);
  w.record(0, 0, 18, {{2, 0}, {5, 0}, {12, 1}});
  RasterReport r = w.raster(0, 4);
  EXPECT_EQ(r.span.first, 0);
  EXPECT_EQ(r.span.next, 1) << "bin 1 (steps 10..19) is still open at step 18";
  EXPECT_EQ(r.span.bin_ms, 1.0);
  EXPECT_EQ(r.span.window_bins, 8u);
  ASSERT_EQ(r.bins.size(), 1u);
  ASSERT_EQ(r.rows.size(), 1u) << "only neuron 0 spiked in a complete bin";
  EXPECT_EQ(r.rows[0].root_id, 1000);
  EXPECT_EQ(r.bins[0].counts, std::vector<uint32_t>{2});
  w.record(0, 18, 2, {});
  r = w.raster(0, 4);
  EXPECT_EQ(r.span.next, 2);
  ASSERT_EQ(r.bins.size(), 2u);
  EXPECT_EQ(r.bins[1].pos, 1);
  EXPECT_EQ(r.bins[1].t_ms, 1.0);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.bins[1].counts, (std::vector<uint32_t>{0, 1}));
}

TEST(ActivityWindow, RasterRatesAndTopMatchABruteForceCountOfTheBinsKept) {
  const uint32_t n = 40;
  const std::size_t kept = 12;
  const std::vector<Spike> spikes = random_spikes(n, 300, 3);
  ActivityWindow w(tiny_network(n, {}), settings(kept), 1000 + 7);
  feed(w, spikes, 300, 18);
  const auto counts = counts_by_bin(spikes);
  const RasterReport raster = w.raster(0, 10);
  EXPECT_EQ(raster.span.next, 30);
  EXPECT_EQ(raster.span.first, 30 - static_cast<int64_t>(kept));
  ASSERT_EQ(raster.bins.size(), kept);
  ASSERT_EQ(raster.rows.size(), 10u);
  std::map<uint32_t, uint64_t> window;
  for (const auto& [key, count] : counts)
    if (key.first >= raster.span.first && key.first < raster.span.next) window[key.second] += count;
  for (std::size_t row = 0; row < raster.rows.size(); ++row) {
    const ActivityNeuron& a = raster.rows[row];
    EXPECT_EQ(a.spikes, window[a.index]) << "neuron " << a.index;
    EXPECT_DOUBLE_EQ(a.rate_Hz, window[a.index] / (kept * 1e-3));
    if (row > 0) {  // most spikes first, ties by index
      const ActivityNeuron& above = raster.rows[row - 1];
      EXPECT_TRUE(above.spikes > a.spikes || (above.spikes == a.spikes && above.index < a.index));
    }
    for (const RasterBin& bin : raster.bins) {
      const auto it = counts.find({bin.pos, a.index});
      EXPECT_EQ(bin.counts[row], it == counts.end() ? 0u : it->second) << "bin " << bin.pos << " neuron " << a.index;
    }
  }
  for (uint32_t neuron = 0; neuron < n; ++neuron) {  // nobody left out ranks above the last row
    if (std::none_of(raster.rows.begin(), raster.rows.end(), [&](const ActivityNeuron& a) { return a.index == neuron; })) {
      EXPECT_LE(window[neuron], raster.rows.back().spikes);
    }
  }

  const RatesReport rates = w.rates(25);
  EXPECT_TRUE(rates.has_readout);
  EXPECT_EQ(rates.readout.index, 7u);
  EXPECT_TRUE(rates.readout.readout);
  ASSERT_EQ(rates.bins.size(), 5u);
  for (const RateBin& bin : rates.bins) {
    uint64_t total = 0;
    uint32_t active = 0;
    for (uint32_t neuron = 0; neuron < n; ++neuron)
      if (const auto it = counts.find({bin.pos, neuron}); it != counts.end()) {
        total += it->second;
        ++active;
      }
    EXPECT_EQ(bin.spikes, total);
    EXPECT_EQ(bin.active, active);
    EXPECT_DOUBLE_EQ(bin.population_Hz, total / (n * 1e-3));
    const auto mn = counts.find({bin.pos, 7u});
    EXPECT_DOUBLE_EQ(bin.readout_Hz, (mn == counts.end() ? 0 : mn->second) / 1e-3);
  }

  const TopReport top = w.top(3);
  EXPECT_EQ(top.window_ms, 12.0);
  ASSERT_EQ(top.top.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(top.top[k].index, raster.rows[k].index);
}

TEST(ActivityWindow, TheAnswersDoNotDependOnHowTheStepsWereCutIntoEpochs) {
  const std::vector<Spike> spikes = random_spikes(30, 200, 5);
  ActivityWindow by18(tiny_network(30, {}), settings(50), 0), by7(tiny_network(30, {}), settings(50), 0);
  feed(by18, spikes, 200, 18);
  feed(by7, spikes, 200, 7);
  const RasterReport a = by18.raster(0, 30), b = by7.raster(0, 30);
  EXPECT_EQ(a.span.next, 20);
  EXPECT_EQ(b.span.next, 20);
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t k = 0; k < a.rows.size(); ++k) EXPECT_EQ(a.rows[k].index, b.rows[k].index);
  ASSERT_EQ(a.bins.size(), b.bins.size());
  for (std::size_t k = 0; k < a.bins.size(); ++k) EXPECT_EQ(a.bins[k].counts, b.bins[k].counts);
}

TEST(ActivityWindow, SinceSelectsTheNewerBinsAndAnOldPositionMeansTheOldest) {
  ActivityWindow w(tiny_network(2, {}), settings(5), 0);
  std::vector<Spike> spikes;
  for (int32_t step = 0; step < 100; step += 3) spikes.push_back({step, 1});
  feed(w, spikes, 100, 18);
  EXPECT_EQ(w.rates(0).bins.front().pos, 5) << "bins 0..4 fell out of a 5-bin window";
  EXPECT_EQ(w.rates(0).bins.size(), 5u);
  EXPECT_EQ(w.rates(8).bins.size(), 2u);
  EXPECT_EQ(w.rates(8).bins.front().pos, 8);
  EXPECT_TRUE(w.rates(10).bins.empty()) << "10 is the next bin: nothing newer yet";
  EXPECT_TRUE(w.raster(1000, 2).bins.empty());
  EXPECT_EQ(w.raster(1000, 2).rows.size(), 1u) << "the rows still say who is active";
}

TEST(ActivityWindow, MarksStimulatedNeuronsAndTheReadoutAndRanksTiesByIndex) {
  ActivityWindow w(tiny_network(5, {}), settings(10), 1003);
  w.set_stimulated({4, 1});
  w.record(0, 0, 10, {{1, 1}, {1, 3}, {2, 4}, {4, 2}, {6, 1}, {6, 3}});
  TopReport top = w.top(10);
  ASSERT_EQ(top.top.size(), 4u) << "neuron 0 never spiked";
  EXPECT_EQ(top.top[0].index, 1u);
  EXPECT_EQ(top.top[1].index, 3u);
  EXPECT_EQ(top.top[2].index, 2u);
  EXPECT_EQ(top.top[3].index, 4u);
  EXPECT_TRUE(top.top[0].stimulated);
  EXPECT_FALSE(top.top[1].stimulated);
  EXPECT_TRUE(top.top[1].readout);
  EXPECT_FALSE(top.top[0].readout);
  EXPECT_TRUE(top.top[3].stimulated);
  w.set_stimulated({3});
  top = w.top(2);
  ASSERT_EQ(top.top.size(), 2u);
  EXPECT_FALSE(top.top[0].stimulated);
  EXPECT_TRUE(top.top[1].stimulated);
}

TEST(ActivityWindow, WithoutTheReadoutNeuronTheRatesSaySo) {
  ActivityWindow w(tiny_network(3, {}), settings(4), 720575940660219265);
  w.record(0, 0, 10, {{0, 0}});
  const RatesReport r = w.rates(0);
  EXPECT_FALSE(r.has_readout);
  ASSERT_EQ(r.bins.size(), 1u);
  EXPECT_EQ(r.bins[0].readout_Hz, 0.0);
  EXPECT_EQ(r.neurons, 3u);
}

TEST(ActivityWindow, PositionsContinueAcrossTrials) {
  ActivityWindow w(tiny_network(2, {}), settings(10, 30), 0);
  w.record(0, 0, 30, {{25, 0}});
  w.record(1, 0, 18, {{3, 1}});
  const RasterReport r = w.raster(0, 2);
  EXPECT_EQ(r.span.next, 4) << "trial 1 step 18 is step 48 of the run: bins 0..3 complete";
  ASSERT_EQ(r.bins.size(), 4u);
  EXPECT_EQ(r.bins[2].t_ms, 2.0);
  EXPECT_EQ(r.bins[3].t_ms, 3.0);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.bins[2].counts, (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(r.bins[3].counts, (std::vector<uint32_t>{0, 1}));
}

TEST(ActivityWindow, ARestoredRunStartsAtItsPosition) {
  ActivityWindow w(tiny_network(2, {}), settings(10), 0);
  w.record(0, 90, 18, {{95, 1}});
  const RatesReport r = w.rates(0);
  EXPECT_EQ(r.span.first, 9);
  EXPECT_EQ(r.span.next, 10);
  ASSERT_EQ(r.bins.size(), 1u);
  EXPECT_EQ(r.bins[0].spikes, 1u);
}

TEST(ActivityWindow, AJumpBeyondTheWindowLeavesOnlyEmptyBins) {
  ActivityWindow w(tiny_network(2, {}), settings(4), 0);
  w.record(0, 0, 20, {{1, 0}, {12, 1}});
  w.record(0, 500, 10, {});
  const RasterReport r = w.raster(0, 2);
  EXPECT_EQ(r.span.first, 47);
  EXPECT_EQ(r.span.next, 51);
  EXPECT_TRUE(r.rows.empty());
  ASSERT_EQ(r.bins.size(), 4u);
  EXPECT_EQ(w.top(5).top.size(), 0u);
}

TEST(ActivityWindow, AskingForMoreNeuronsThanAreActiveGivesTheActiveOnes) {
  ActivityWindow w(tiny_network(3, {}), settings(4), 0);
  w.record(0, 0, 10, {{1, 2}});
  EXPECT_EQ(w.raster(0, kMaxActivityNeurons).rows.size(), 1u);
  EXPECT_EQ(w.top(0).top.size(), 0u);
}

TEST(ActivityWindow, StimulatedNeuronsArePoissonAndKickedOnesOnce) {
  StimulusPlan plan;
  plan.poisson_neurons = {5, 2};
  plan.kicks = {{10, 7}, {20, 2}, {30, 7}};
  EXPECT_EQ(stimulated_neurons(plan), (std::vector<uint32_t>{2, 5, 7}));
}

}  // namespace
}  // namespace flysim::test
