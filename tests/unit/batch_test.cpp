// Batched trials: a batch advances several trials over one network, each with
// its own state and generator key. Every trial's spikes must be those of the trial run
// alone, whatever the batch size, thread count, or where the batch was exported and
// imported; a spike file must be the same bytes whatever run.batch is.
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_engine.hpp"
#include "kernels/trial_batches.hpp"
#include "io/trial_order.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

constexpr int32_t kTrials = 7;
constexpr int32_t kSteps = 1000;  // 100 ms: 55 delay cells and a partial one

EngineSetup batch_setup(int32_t batch) {
  EngineSetup setup = net2000_setup();
  setup.batch = batch;
  return setup;
}

// Trial `trial` alone: an engine of one trial, from rest, epoch by epoch.
std::vector<Spike> alone(int32_t trial) {
  const EngineSetup setup = batch_setup(1);
  CpuEngine engine(setup, 1);
  engine.import_state(resting_state(setup.network->neuron_count(), setup.constants.v0, trial));
  return run_until(engine, 0, kSteps);
}

// Every trial of the plan in batches of `batch` on `threads` threads: [trial] spikes.
std::vector<std::vector<Spike>> batched(int32_t batch, unsigned threads) {
  const EngineSetup setup = batch_setup(batch);
  CpuEngine engine(setup, threads);
  const std::size_t n = setup.network->neuron_count();
  std::vector<std::vector<Spike>> trials(kTrials);
  for (int32_t first = 0; first < kTrials; first += batch) {
    engine.import_batch(resting_batch(n, setup.constants.v0, first, std::min(batch, kTrials - first)));
    for (int32_t step = 0; step < kSteps;) {
      const kernels::EpochSpan span = next_epoch(step, kSteps, setup.constants.delay_steps);
      BatchSpikes spikes = engine.advance_batch(span);
      for (std::size_t k = 0; k < spikes.size(); ++k)
        trials[first + k].insert(trials[first + k].end(), spikes[k].begin(), spikes[k].end());
      step += span.steps;
    }
  }
  return trials;
}

class Batch : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (int32_t t = 0; t < kTrials; ++t) alone_.push_back(alone(t));
  }
  static inline std::vector<std::vector<Spike>> alone_;
};

TEST_F(Batch, EveryTrialEqualsTheTrialAloneAtAnyBatchSizeAndThreadCount) {
  ASSERT_GT(alone_[0].size(), 100u) << "the plan must make spikes to compare";
  ASSERT_NE(alone_[0], alone_[1]) << "trials draw their own Poisson input";
  for (const int32_t batch : {1, 2, 3, 7})
    for (const unsigned threads : {1u, 2u, 3u, 5u}) {
      SCOPED_TRACE("batch " + std::to_string(batch) + ", " + std::to_string(threads) + " threads");
      const auto trials = batched(batch, threads);
      for (int32_t t = 0; t < kTrials; ++t) EXPECT_EQ(trials[t], alone_[t]) << "trial " << t;
    }
}

// A batch exported in the middle of a delay cell and of the run, imported into a new
// engine (another thread count: the other way of spreading the work) and continued,
// gives the spikes of the batch that never stopped: what a checkpoint or a swap does.
TEST_F(Batch, ExportAndImportMidBatchChangeNothing) {
  const int32_t batch = 4, stop = 18 * 20 + 7;
  const EngineSetup setup = batch_setup(batch);
  const std::size_t n = setup.network->neuron_count();
  CpuEngine first(setup, 1);
  first.import_batch(resting_batch(n, setup.constants.v0, 2, batch));
  std::vector<std::vector<Spike>> trials(batch);
  const auto append = [&](const BatchSpikes& spikes) {
    for (int32_t k = 0; k < batch; ++k) trials[k].insert(trials[k].end(), spikes[k].begin(), spikes[k].end());
  };
  for (int32_t step = 0; step < stop;) {
    const kernels::EpochSpan span = next_epoch(step, stop, setup.constants.delay_steps);
    append(first.advance_batch(span));
    step += span.steps;
  }
  const std::vector<EngineState> states = first.export_batch();
  ASSERT_EQ(states.size(), static_cast<std::size_t>(batch));
  for (int32_t k = 0; k < batch; ++k) EXPECT_EQ(states[k].trial, 2 + k);
  CpuEngine second(setup, 3);
  second.import_batch(states);
  EXPECT_EQ(second.export_batch(), states);
  for (int32_t step = stop; step < kSteps;) {
    const kernels::EpochSpan span = next_epoch(step, kSteps, setup.constants.delay_steps);
    append(second.advance_batch(span));
    step += span.steps;
  }
  for (int32_t k = 0; k < batch; ++k) EXPECT_EQ(trials[k], alone_[2 + k]) << "trial " << 2 + k;
}

TEST_F(Batch, CountsPerTrialAreTheAloneTrialsCounts) {
  const std::vector<uint32_t> neurons = {alone_[0][0].neuron, alone_[0][alone_[0].size() / 2].neuron};
  const EngineSetup setup = batch_setup(3);
  CpuEngine engine(setup, 2);
  TrialBatches plan;
  plan.trials = kTrials;
  plan.steps_per_trial = kSteps;
  plan.batch = 3;
  plan.delay_steps = setup.constants.delay_steps;
  plan.neurons = setup.network->neuron_count();
  std::vector<int32_t> done;
  const TrialCounts counts = count_spikes_per_trial(engine, plan, neurons, [&](int32_t d) { done.push_back(d); });
  EXPECT_EQ(done, (std::vector<int32_t>{3, 6, 7}));
  for (int32_t t = 0; t < kTrials; ++t)
    for (std::size_t k = 0; k < neurons.size(); ++k)
      EXPECT_EQ(counts[t][k], static_cast<uint64_t>(std::count_if(alone_[t].begin(), alone_[t].end(),
                                                                  [&](const Spike& s) { return s.neuron == neurons[k]; })))
          << "trial " << t << " neuron " << neurons[k];
}

// Starting trials at rest in place (what the sim loop and flysim sweep do at each batch)
// is importing resting states: after a batch left in the middle of a cell, with its
// pool, ring and queue full, both leave the same state and the trials alone's spikes.
TEST_F(Batch, StartingAtRestIsImportingRestingStates) {
  const int32_t batch = 4, stop = 18 * 20 + 7;
  const EngineSetup setup = batch_setup(batch);
  const std::size_t n = setup.network->neuron_count();
  CpuEngine in_place(setup, 2), imported(setup, 2);
  for (CpuEngine* engine : {&in_place, &imported}) {
    engine->import_batch(resting_batch(n, setup.constants.v0, 0, batch));
    for (int32_t step = 0; step < stop;) {
      const kernels::EpochSpan span = next_epoch(step, stop, setup.constants.delay_steps);
      engine->advance_batch(span);
      step += span.steps;
    }
  }
  ASSERT_FALSE(in_place.export_batch().front().pending.empty()) << "the batch must leave spikes in flight";
  in_place.start_at_rest(4, 3);
  imported.import_batch(resting_batch(n, setup.constants.v0, 4, 3));
  EXPECT_EQ(in_place.export_batch(), imported.export_batch());
  EXPECT_EQ(in_place.export_batch(), resting_batch(n, setup.constants.v0, 4, 3));
  std::vector<std::vector<Spike>> trials(3);
  for (int32_t step = 0; step < kSteps;) {
    const kernels::EpochSpan span = next_epoch(step, kSteps, setup.constants.delay_steps);
    const BatchSpikes spikes = in_place.advance_batch(span);
    EXPECT_EQ(spikes, imported.advance_batch(span)) << "epoch at step " << step;
    for (int32_t k = 0; k < 3; ++k) trials[k].insert(trials[k].end(), spikes[k].begin(), spikes[k].end());
    step += span.steps;
  }
  for (int32_t k = 0; k < 3; ++k) EXPECT_EQ(trials[k], alone_[4 + k]) << "trial " << 4 + k;
}

TEST(BatchChecks, ABatchMustBeConsecutiveTrialsAtOneStepWithinTheCapacity) {
  const EngineSetup setup = batch_setup(3);
  const std::size_t n = setup.network->neuron_count();
  CpuEngine engine(setup, 1);
  EXPECT_THROW(engine.import_batch(resting_batch(n, setup.constants.v0, 0, 4)), std::invalid_argument);
  EXPECT_THROW(engine.import_batch({}), std::invalid_argument);
  std::vector<EngineState> gap = resting_batch(n, setup.constants.v0, 0, 2);
  gap[1].trial = 5;
  EXPECT_THROW(engine.import_batch(gap), std::invalid_argument);
  std::vector<EngineState> apart = resting_batch(n, setup.constants.v0, 0, 2);
  apart[1].next_step = 18;
  EXPECT_THROW(engine.import_batch(apart), std::invalid_argument);
  engine.import_batch(resting_batch(n, setup.constants.v0, 0, 2));
  EXPECT_THROW(engine.advance({0, 18}), std::logic_error) << "the one-trial call on a batch of two";
  EXPECT_THROW(engine.start_at_rest(0, 4), std::invalid_argument);
  EXPECT_THROW(engine.start_at_rest(0, 0), std::invalid_argument);
  EXPECT_THROW(engine.start_at_rest(-1, 1), std::invalid_argument);
  EXPECT_EQ(engine.export_batch().size(), 2u) << "a refused start changes nothing";
}

TEST(TrialOrderTest, LaterTrialsWaitForEveryTrialBeforeThem) {
  TrialOrder order;
  EXPECT_EQ(order.add(4, "a4 ", false), "a4 ");
  EXPECT_EQ(order.add(5, "a5 ", false), "");
  EXPECT_EQ(order.add(6, "a6 ", false), "");
  EXPECT_EQ(order.add(4, "b4 ", false), "b4 ");
  EXPECT_EQ(order.add(5, "b5 ", true), "");
  EXPECT_EQ(order.add(6, "b6 ", true), "");
  EXPECT_EQ(order.add(4, "c4 ", true), "c4 a5 b5 a6 b6 ");
  EXPECT_EQ(order.add(7, "a7 ", false), "a7 ");
  EXPECT_EQ(order.add(8, "a8 ", false), "");
  EXPECT_EQ(order.drain(), "a8 ");
}

}  // namespace
}  // namespace flysim::test
