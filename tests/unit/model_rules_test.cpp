// One test per rule of docs/MODEL.md, each on a tiny hand-built network, each failing when
// its rule is implemented wrongly.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/cpu_engine.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

std::vector<int32_t> steps_of(const std::vector<Spike>& spikes, uint32_t neuron) {
  std::vector<int32_t> steps;
  for (const Spike& s : spikes)
    if (s.neuron == neuron) steps.push_back(s.step);
  return steps;
}

StimulusPlan kicks_at(std::vector<Kick> kicks) {
  StimulusPlan plan;
  plan.kicks = std::move(kicks);
  return plan;
}

TEST(ModelRules, KickFiresTheNeuronAtTheNextStep) {
  const auto setup = setup_for(tiny_network(2, {}), kicks_at({{5, 0}}));
  EXPECT_EQ(steps_of(run_cpu(setup, 60), 0), (std::vector<int32_t>{6}));
}

TEST(ModelRules, RefractoryPeriodIs22StepsAndDiscardsKicks) {
  std::vector<Kick> every_step;
  for (int32_t k = 0; k < 80; ++k) every_step.push_back({k, 0});
  const auto setup = setup_for(tiny_network(1, {}), kicks_at(every_step));
  // Spike at 1; refractory while k - 1 < 22; the kick at 23 lands, spike at 24; ...
  EXPECT_EQ(steps_of(run_cpu(setup, 80), 0), (std::vector<int32_t>{1, 24, 47, 70}));
}

TEST(ModelRules, StimulatedNeuronsHaveNoRefractoryPeriod) {
  StimulusPlan plan;
  plan.poisson_neurons = {0};
  LifParams params;
  params.r_poi_Hz = 10000.0;  // an event every step (probability 1 - 2^-32)
  const auto setup = setup_for(tiny_network(1, {}), plan, params);
  // Event at 0 -> spike at 1 (its own event discarded: it spiked) -> event at 2 -> spike at 3 ...
  const auto steps = steps_of(run_cpu(setup, 40), 0);
  ASSERT_EQ(steps.size(), 20u);
  for (std::size_t k = 0; k < steps.size(); ++k) EXPECT_EQ(steps[k], static_cast<int32_t>(2 * k + 1));
}

TEST(ModelRules, ThresholdIsStrict) {
  const LifConstants c = derive_constants({});
  // Find g so that one update from rest lands exactly on v_th, and the next g above it.
  const auto updated_v = [&](double g) {
    double v = c.v0;
    kernels::decay(c, 1, v, g);
    return v;
  };
  double g = (c.v_threshold - c.v0) / c.evg_epoch[1];
  while (updated_v(g) > c.v_threshold) g = std::nextafter(g, 0.0);
  while (updated_v(g) < c.v_threshold) g = std::nextafter(g, 1e9);
  ASSERT_EQ(updated_v(g), c.v_threshold);
  double g_above = g;
  while (updated_v(g_above) == c.v_threshold) g_above = std::nextafter(g_above, 1e9);

  for (const auto& [g0, expect_spike] : {std::pair{g, false}, std::pair{g_above, true}}) {
    const auto setup = setup_for(tiny_network(1, {}), {});
    CpuEngine engine(setup, 1);
    EngineState s = engine.export_state();
    s.g[0] = g0;
    engine.import_state(s);
    EXPECT_EQ(!engine.advance({0, 1}).empty(), expect_spike) << "g = " << g0;
  }
}

// Neuron 0 kicked at step 0 spikes at 1; its 2000-synapse connection to neuron 1
// arrives 18 steps later, at step 19.
TEST(ModelRules, SynapticInputArrivesAfter18Steps) {
  const auto setup = setup_for(tiny_network(2, {{0, 1, 2000}}), kicks_at({{0, 0}}));
  CpuEngine engine(setup, 1);
  run_until(engine, 0, 19);
  EXPECT_EQ(engine.export_state().g[1], 0.0) << "input arrived before step 19";
  engine.advance({19, 1});
  EXPECT_EQ(engine.export_state().g[1], 2000.0 * kUnitsPerSynapse * setup.constants.mV_per_unit);
}

// Delays in steps as Brian2's spike queue rounds them, (int)(delay / dt + 0.5); the
// refractory period as its timestep(), int((t + 1e-3 dt) / dt).
TEST(ModelRules, DelaysRoundToTheNearestStepAsBrian2sSpikeQueue) {
  LifParams p;
  EXPECT_EQ(derive_constants(p).delay_steps, 18);
  for (const auto& [delay_ms, steps] : {std::pair{1.84, 18}, std::pair{1.85, 19}, std::pair{1.87, 19}, std::pair{0.05, 1}}) {
    p.delay_ms = delay_ms;
    EXPECT_EQ(derive_constants(p).delay_steps, steps) << delay_ms << " ms";
  }
  p.delay_ms = 0.04;
  EXPECT_THROW(derive_constants(p), input_error);
  p.delay_ms = 1.8;
  p.t_ref_ms = 2.27;
  EXPECT_EQ(derive_constants(p).ref_steps, 22);
}

TEST(ModelRules, InputToARefractoryNeuronIsDiscarded) {
  const auto net = tiny_network(2, {{0, 1, 2000}});
  // Control: neuron 1 at rest receives the input at step 19 and fires from it.
  const auto control = run_cpu(setup_for(net, kicks_at({{0, 0}})), 200);
  ASSERT_FALSE(steps_of(control, 1).empty());
  EXPECT_GT(steps_of(control, 1)[0], 19);
  // Neuron 1 kicked at 10 spikes at 11 and is refractory until step 33: the input of
  // step 19 is discarded, not queued, so neuron 1 never fires again.
  const auto setup = setup_for(net, kicks_at({{0, 0}, {10, 1}}));
  CpuEngine engine(setup, 1);
  const auto spikes = run_until(engine, 0, 200);
  EXPECT_EQ(steps_of(spikes, 1), (std::vector<int32_t>{11}));
  EXPECT_EQ(engine.export_state().g[1], 0.0);
}

// Neuron 1 gets synaptic input first (neuron 0 spikes at 1, its input lands at 19), then
// a kick at 19 that fires it at 20: the reset must clear the g it had.
TEST(ModelRules, ResetSetsVToResetAndGToZero) {
  LifParams params;
  params.v_reset_mV = -60.0;
  const auto setup = setup_for(tiny_network(2, {{0, 1, 50}}), kicks_at({{0, 0}, {19, 1}}), params);
  CpuEngine engine(setup, 1);
  const auto before = run_until(engine, 0, 20);
  EXPECT_TRUE(steps_of(before, 1).empty());
  ASSERT_GT(engine.export_state().g[1], 0.0) << "the input has not arrived";
  EXPECT_EQ(steps_of(run_until(engine, 20, 21), 1), (std::vector<int32_t>{20}));
  const EngineState s = engine.export_state();
  EXPECT_EQ(s.v[1], -60.0);
  EXPECT_EQ(s.g[1], 0.0);
  EXPECT_EQ(s.last_spike[1], 20);
}

TEST(ModelRules, QuietBoundIsConservative) {
  const LifConstants c = derive_constants({});
  uint64_t x = 12345;
  const auto uniform = [&](double lo, double hi) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * static_cast<double>(x >> 11) / 9007199254740992.0;
  };
  int quiet = 0;
  for (int trial = 0; trial < 100000; ++trial) {
    double v = uniform(-70.0, -44.0), g = uniform(-50.0, 400.0);
    if (!kernels::provably_below_threshold(c, v, g)) continue;
    ++quiet;
    for (int32_t t = 0; t < c.delay_steps; ++t) {
      kernels::decay(c, 1, v, g);
      ASSERT_LE(v, c.v_threshold) << "a quiet neuron crossed threshold";
    }
  }
  EXPECT_GT(quiet, 1000);
}

}  // namespace
}  // namespace flysim::test
