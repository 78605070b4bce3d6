// Poisson groups at their own rates and silenced neurons: the CPU pool against the plain
// engine (which silences as the reference model does, by weight 0), for any thread count,
// through imports, and with the batch's trials alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "kernels/cpu/cpu_engine.hpp"
#include "model/lif_params.hpp"
#include "plain_engine.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

std::vector<Spike> plain_run(const EngineSetup& setup, int32_t steps) {
  PlainEngine engine(setup);
  std::vector<Spike> spikes;
  for (int32_t step = 0; step < steps;) {
    const kernels::EpochSpan span = next_epoch(step, steps, setup.constants.delay_steps);
    const std::vector<Spike> part = engine.advance(span);
    spikes.insert(spikes.end(), part.begin(), part.end());
    step += span.steps;
  }
  return spikes;
}

// The `count` neurons that spike most in `spikes`, ascending, none of `excluded`.
std::vector<uint32_t> busiest(const std::vector<Spike>& spikes, std::size_t count, const std::vector<uint32_t>& excluded) {
  std::map<uint32_t, int> per_neuron;
  for (const Spike& s : spikes) per_neuron[s.neuron] += 1;
  std::vector<std::pair<int, uint32_t>> ranked;
  for (const auto& [neuron, n] : per_neuron)
    if (std::find(excluded.begin(), excluded.end(), neuron) == excluded.end()) ranked.push_back({-n, neuron});
  std::sort(ranked.begin(), ranked.end());
  std::vector<uint32_t> out;
  for (std::size_t k = 0; k < std::min(count, ranked.size()); ++k) out.push_back(ranked[k].second);
  std::sort(out.begin(), out.end());
  return out;
}

// net2000 with a second group (neurons 100..139 at 80 Hz, 140..149 at 0 Hz: driven,
// refractory period 0, no events) and its busiest non-driven neurons silenced.
EngineSetup experiment_setup(SilenceMode mode) {
  EngineSetup setup = net2000_setup();
  auto plan = std::make_shared<StimulusPlan>(*setup.stimulus);
  PoissonGroup fast{"fast", {}, 80.0, poisson_threshold(80.0, LifParams{}.dt_ms)};
  for (uint32_t i = 100; i < 140; ++i)
    if (!std::binary_search(plan->poisson_neurons.begin(), plan->poisson_neurons.end(), i)) fast.neurons.push_back(i);
  PoissonGroup quiet{"quiet", {}, 0.0, 0u};
  for (uint32_t i = 140; i < 150; ++i)
    if (!std::binary_search(plan->poisson_neurons.begin(), plan->poisson_neurons.end(), i)) quiet.neurons.push_back(i);
  plan->groups = {fast, quiet};
  plan->silenced = busiest(run_cpu(setup, 3000), 25, driven_neurons(*plan));
  plan->silence_mode = mode;
  setup.stimulus = plan;
  return setup;
}

TEST(SilenceAndGroups, CpuPoolSpikesAreThePlainEnginesForAnyThreadCount) {
  const std::vector<Spike> unsilenced = run_cpu(net2000_setup(), 3000);
  for (const SilenceMode mode : {SilenceMode::outgoing, SilenceMode::both}) {
    const EngineSetup setup = experiment_setup(mode);
    const std::vector<Spike> plain = plain_run(setup, 3000);
    ASSERT_GT(plain.size(), 1000u);
    EXPECT_NE(plain, unsilenced) << "silencing and the groups change the spikes";
    for (const unsigned threads : {1u, 2u, 3u})
      EXPECT_EQ(run_cpu(setup, 3000, threads), plain) << silence_mode_name(mode) << ", " << threads << " threads";
    // Every neuron listed, whole cells swept in blocks of 64 (the blocked sweep's scatter).
    EngineSetup blocked = setup;
    blocked.cpu_list_all_from = 0.0;
    blocked.cpu_block_neurons = 64;
    for (const unsigned threads : {1u, 2u})
      EXPECT_EQ(run_cpu(blocked, 3000, threads), plain) << silence_mode_name(mode) << ", blocked, " << threads << " threads";
  }
}

// A silenced neuron still spikes and is recorded; in both modes it also receives nothing.
TEST(SilenceAndGroups, SilencedNeuronsStillSpikeButReachNoOne) {
  EngineSetup setup = net2000_setup();
  auto plan = std::make_shared<StimulusPlan>(*setup.stimulus);
  plan->silenced = plan->poisson_neurons;  // the driven neurons: they fire whatever reaches them
  setup.stimulus = plan;
  const std::vector<Spike> spikes = run_cpu(setup, 3000, 2);
  std::size_t driven_spikes = 0;
  for (const Spike& s : spikes) driven_spikes += std::binary_search(plan->silenced.begin(), plan->silenced.end(), s.neuron);
  EXPECT_GT(driven_spikes, 500u) << "silenced neurons keep spiking";
  EXPECT_EQ(spikes, plain_run(setup, 3000));
}

TEST(SilenceAndGroups, ExportImportAndBatchesChangeNoSpike) {
  const EngineSetup setup = experiment_setup(SilenceMode::both);
  const std::vector<Spike> alone = run_cpu(setup, 3000, 2);
  CpuEngine first(setup, 1);
  std::vector<Spike> got = run_until(first, 0, 18 * 80 + 5);
  CpuEngine second(setup, 3);
  second.import_state(first.export_state());
  const std::vector<Spike> rest = run_until(second, 18 * 80 + 5, 3000);
  got.insert(got.end(), rest.begin(), rest.end());
  EXPECT_EQ(got, alone);

  EngineSetup batched = setup;
  batched.batch = 3;
  CpuEngine batch(batched, 2);
  batch.start_at_rest(0, 3);
  BatchSpikes per_trial(3);
  for (int32_t step = 0; step < 3000;) {
    const kernels::EpochSpan span = next_epoch(step, 3000, setup.constants.delay_steps);
    const BatchSpikes part = batch.advance_batch(span);
    for (std::size_t k = 0; k < 3; ++k) per_trial[k].insert(per_trial[k].end(), part[k].begin(), part[k].end());
    step += span.steps;
  }
  EXPECT_EQ(per_trial[0], alone);
  EXPECT_NE(per_trial[1], alone) << "trial 1 draws its own Poisson events";
}

// A neuron in two groups, or a silenced set out of order, is refused by the engine.
TEST(SilenceAndGroups, EnginesRefuseOverlappingGroupsAndBadSilencedSets) {
  EngineSetup setup = net2000_setup();
  auto plan = std::make_shared<StimulusPlan>(*setup.stimulus);
  plan->groups = {{"again", {plan->poisson_neurons.front()}, 10.0, 1000u}};
  setup.stimulus = plan;
  EXPECT_THROW(CpuEngine(setup, 1), std::invalid_argument);
  auto silenced = std::make_shared<StimulusPlan>(*net2000_setup().stimulus);
  silenced->silenced = {5, 3};
  setup.stimulus = silenced;
  EXPECT_THROW(CpuEngine(setup, 1), std::invalid_argument);
}

}  // namespace
}  // namespace flysim::test
