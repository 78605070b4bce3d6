// A live stimulus change (Engine::set_stimulus) on the CPU pool: it equals handing the
// state to an engine built with the new plan, for any thread count, and changes nothing
// before it. The CUDA engine's version is in cuda_engine_test.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/cpu_engine.hpp"
#include "model/errors.hpp"
#include "stimulus_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

constexpr int32_t kEnd = 4000;

std::vector<Spike> before_step(const std::vector<Spike>& spikes, int32_t step) {
  std::vector<Spike> kept;
  std::copy_if(spikes.begin(), spikes.end(), std::back_inserter(kept), [&](const Spike& s) { return s.step < step; });
  return kept;
}

TEST(StimulusChange, PoissonThresholdIsDeriveConstantsFormula) {
  for (double rate : {0.0, 10.0, 150.0, 200.0, 10000.0}) {
    LifParams params;
    params.r_poi_Hz = rate;
    EXPECT_EQ(poisson_threshold(rate, params.dt_ms), derive_constants(params).poisson_threshold) << rate << " Hz";
  }
  EXPECT_EQ(poisson_threshold(0.0, 0.1), 0u);
  EXPECT_EQ(poisson_threshold(10000.0, 0.1), 0xffffffffu);
  for (double bad : {-1.0, 10000.5, std::nan("")}) {
    try {
      poisson_threshold(bad, 0.1);
      FAIL() << "rate " << bad << " accepted";
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find("stimulus rate"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(fmt::format("got {} Hz", bad)), std::string::npos) << e.what();
    }
  }
}

// (a) Changing the stimulus at a step equals exporting the state there and importing it
// into a new engine built with the new plan and threshold: same spikes, same state.
TEST(StimulusChange, EqualsANewEngineBuiltWithTheNewPlan) {
  const EngineSetup before = net2000_setup();
  for (int32_t at : {18 * 100, 18 * 100 + 7}) {  // at a cell boundary and inside a cell
    const StimulusChange change = stimulus_change(before, at, 80.0);
    CpuEngine changed(before, 1);
    const std::vector<Spike> spikes = run_with_change(changed, 0, at, change, kEnd);

    CpuEngine first(before, 1);
    std::vector<Spike> expected = run_until(first, 0, at);
    CpuEngine rebuilt(with_change(before, change), 1);
    rebuilt.import_state(first.export_state());
    const std::vector<Spike> rest = run_until(rebuilt, at, kEnd);
    expected.insert(expected.end(), rest.begin(), rest.end());

    EXPECT_GT(spikes.size(), 1000u);
    EXPECT_EQ(spikes, expected) << "change at step " << at;
    EXPECT_EQ(changed.export_state(), rebuilt.export_state()) << "change at step " << at;
  }
}

// (b) The thread count does not matter.
TEST(StimulusChange, SameSpikesAndStateFor1And2Threads) {
  const EngineSetup before = net2000_setup();
  const StimulusChange change = stimulus_change(before, 1800, 80.0);
  CpuEngine one(before, 1), two(before, 2);
  EXPECT_EQ(run_with_change(one, 0, 1800, change, kEnd), run_with_change(two, 0, 1800, change, kEnd));
  EXPECT_EQ(one.export_state(), two.export_state());
}

// (c) The steps before the change are those of a run without it; the change changes
// the spikes after it (so the tests above can fail).
TEST(StimulusChange, ChangesOnlyWhatComesAfter) {
  const EngineSetup before = net2000_setup();
  const int32_t at = 1800;
  CpuEngine unchanged(before, 2);
  const std::vector<Spike> plain = run_until(unchanged, 0, kEnd);
  CpuEngine changed(before, 2);
  const std::vector<Spike> spikes = run_with_change(changed, 0, at, stimulus_change(before, at, 80.0), kEnd);
  EXPECT_EQ(before_step(spikes, at), before_step(plain, at));
  EXPECT_GT(before_step(plain, at).size(), 100u);
  EXPECT_NE(spikes, plain);
  // The threshold alone changes the draws.
  CpuEngine silenced(before, 2);
  const std::vector<Spike> quiet = run_with_change(silenced, 0, at, {before.stimulus, 0u}, kEnd);
  EXPECT_EQ(before_step(quiet, at), before_step(plain, at));
  EXPECT_NE(quiet, plain);
}

// Setting the plan and threshold the engine already has, mid-cell, changes nothing.
// The reference is cut at the same step: an epoch cut itself may change the last bits
// of a quiet stretch (kernels/cuda/README.md, "Epoch cuts"), and this is about the change.
TEST(StimulusChange, SettingTheSameStimulusChangesNothing) {
  const EngineSetup before = net2000_setup();
  CpuEngine unchanged(before, 2), same(before, 2);
  std::vector<Spike> plain = run_until(unchanged, 0, 1807);
  const std::vector<Spike> rest = run_until(unchanged, 1807, kEnd);
  plain.insert(plain.end(), rest.begin(), rest.end());
  EXPECT_EQ(run_with_change(same, 0, 1807, {before.stimulus, before.constants.poisson_threshold}, kEnd), plain);
  EXPECT_EQ(same.export_state(), unchanged.export_state());
}

// A plan that does not fit is refused and the old one stays.
TEST(StimulusChange, RefusesABadPlanAndKeepsTheOldOne) {
  const EngineSetup before = net2000_setup();
  const uint32_t n = static_cast<uint32_t>(before.network->neuron_count());
  CpuEngine unchanged(before, 1), engine(before, 1);
  const std::vector<Spike> plain = run_until(unchanged, 0, kEnd);
  std::vector<Spike> spikes = run_until(engine, 0, 1800);

  auto reseeded = std::make_shared<StimulusPlan>(*before.stimulus);
  reseeded->seed += 1;
  auto outside = std::make_shared<StimulusPlan>(*before.stimulus);
  outside->poisson_neurons.push_back(n);
  auto kick_outside = std::make_shared<StimulusPlan>(*before.stimulus);
  kick_outside->kicks.push_back({9000, n});
  auto unsorted = std::make_shared<StimulusPlan>(*before.stimulus);
  std::swap(unsorted->kicks.front(), unsorted->kicks.back());
  for (const auto& bad : {reseeded, outside, kick_outside, unsorted})
    EXPECT_THROW(engine.set_stimulus(bad, 0u), std::invalid_argument);
  EXPECT_THROW(engine.set_stimulus(nullptr, 0u), std::invalid_argument);

  const std::vector<Spike> rest = run_until(engine, 1800, kEnd);
  spikes.insert(spikes.end(), rest.begin(), rest.end());
  EXPECT_EQ(spikes, plain);
  EXPECT_EQ(engine.export_state(), unchanged.export_state());
}

}  // namespace
}  // namespace flysim::test
