// EngineGroup: a batch split over several engines gives what one engine holding the whole
// batch gives, spike for spike and state for state (the CPU pool stands in for the CUDA
// devices of flysim run --engine.cuda-devices).
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "kernels/cpu/cpu_engine.hpp"
#include "kernels/engine_group.hpp"
#include "kernels/fault_injecting_engine.hpp"
#include "stimulus_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

EngineSetup with_batch(EngineSetup setup, int32_t batch) {
  setup.batch = batch;
  return setup;
}

// A group of CPU engines holding `batches` trials each (one thread each).
std::unique_ptr<EngineGroup> group_of(const EngineSetup& setup, const std::vector<int32_t>& batches) {
  std::vector<std::unique_ptr<Engine>> engines;
  for (const int32_t b : batches) engines.push_back(std::make_unique<CpuEngine>(with_batch(setup, b), 1));
  return std::make_unique<EngineGroup>(std::move(engines));
}

// Runs `count` trials from `first` for `steps` steps: epoch by epoch to step 100 (inside a
// cell), then the rest in one advance_cells; every trial's spikes and the states at the end.
struct BatchRun {
  BatchSpikes spikes;
  std::vector<EngineState> states;
};
BatchRun run_batch(Engine& engine, int32_t first, int32_t count, int32_t steps) {
  engine.start_at_rest(first, count);
  BatchRun r;
  r.spikes.resize(static_cast<std::size_t>(count));
  const auto keep = [&](const BatchSpikes& part) {
    EXPECT_EQ(part.size(), static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < part.size() && k < r.spikes.size(); ++k)
      r.spikes[k].insert(r.spikes[k].end(), part[k].begin(), part[k].end());
  };
  for (int32_t step = 0; step < 100;) {
    const kernels::EpochSpan span = next_epoch(step, 100, engine.cell_steps());
    keep(engine.advance_batch(span));
    step += span.steps;
  }
  keep(engine.advance_cells({100, steps - 100}));
  r.states = engine.export_batch();
  return r;
}

TEST(EngineGroup, ABatchSplitOverEnginesEqualsOneEngineHoldingIt) {
  const EngineSetup setup = net2000_setup();
  CpuEngine one(with_batch(setup, 7), 2);
  const auto group = group_of(setup, {3, 2, 2});
  EXPECT_EQ(group->batch_capacity(), 7);
  EXPECT_EQ(group->describe().rfind("3 engines: cpu pool, 1 thread, batches of 3 trials; ", 0), 0u) << group->describe();
  // A full batch, a partial one that leaves the last engine idle, and one of a single trial.
  for (const auto& [first, count] : std::vector<std::pair<int32_t, int32_t>>{{0, 7}, {7, 4}, {11, 1}}) {
    const BatchRun expected = run_batch(one, first, count, 400);
    const BatchRun got = run_batch(*group, first, count, 400);
    std::size_t spikes = 0;
    for (const auto& trial : expected.spikes) spikes += trial.size();
    EXPECT_GT(spikes, 100u) << "trials " << first << " + " << count;
    EXPECT_EQ(got.spikes, expected.spikes) << "trials " << first << " + " << count;
    EXPECT_EQ(got.states, expected.states) << "trials " << first << " + " << count;
  }
}

// Engines that could each hold the whole batch share it out (4, 3, 3 of 10 here: which
// engine holds which trials changes nothing); so do engines of different capacities.
TEST(EngineGroup, SharesABatchOutOverEnginesOfAnyCapacity) {
  const EngineSetup setup = net2000_setup();
  CpuEngine one(with_batch(setup, 10), 1);
  const BatchRun expected = run_batch(one, 0, 10, 200);
  for (const std::vector<int32_t>& batches : {std::vector<int32_t>{10, 10, 10}, {6, 1, 3}, {1, 9}}) {
    const auto group = group_of(setup, batches);
    const BatchRun got = run_batch(*group, 0, 10, 200);
    EXPECT_EQ(got.spikes, expected.spikes) << batches.size() << " engines";
    EXPECT_EQ(got.states, expected.states) << batches.size() << " engines";
  }
}

TEST(EngineGroup, ImportsExportsAndStimulusChangesAsOneEngine) {
  const EngineSetup setup = net2000_setup();
  CpuEngine one(with_batch(setup, 5), 1);
  const auto group = group_of(setup, {2, 3});
  run_batch(one, 10, 5, 250);
  // The single engine's mid-cell states go into the group, and on from there.
  group->import_batch(one.export_batch());
  EXPECT_EQ(group->export_batch(), one.export_batch());
  const StimulusChange change = stimulus_change(setup, 250, 80.0);
  one.set_stimulus(change.plan, change.poisson_threshold);
  group->set_stimulus(change.plan, change.poisson_threshold);
  for (int32_t step = 250; step < 600;) {
    const kernels::EpochSpan span = next_epoch(step, 600, setup.constants.delay_steps);
    EXPECT_EQ(group->advance_batch(span), one.advance_batch(span)) << "epoch at step " << step;
    step += span.steps;
  }
  EXPECT_EQ(group->export_batch(), one.export_batch());
  // A batch larger than the group holds, or trials not from its start, are refused.
  EXPECT_THROW(group->start_at_rest(0, 6), std::invalid_argument);
  std::vector<EngineState> six = one.export_batch();
  six.push_back(six.back());
  EXPECT_THROW(group->import_batch(six), std::invalid_argument);
  EXPECT_THROW(EngineGroup(std::vector<std::unique_ptr<Engine>>{}), std::invalid_argument);
}

// One engine of the group fails: the group's advance throws engine_failure, as a single
// failing engine's does, so a service falls back the same way.
TEST(EngineGroup, AFailingEngineFailsTheGroup) {
  const EngineSetup setup = net2000_setup();
  std::vector<std::unique_ptr<Engine>> engines;
  engines.push_back(std::make_unique<CpuEngine>(with_batch(setup, 2), 1));
  engines.push_back(std::make_unique<FaultInjectingEngine>(std::make_unique<CpuEngine>(with_batch(setup, 2), 1), 5));
  EngineGroup group(std::move(engines));
  group.start_at_rest(0, 4);
  int32_t step = 0;
  for (int epoch = 0; epoch < 5; ++epoch) {
    const kernels::EpochSpan span = next_epoch(step, 1000, setup.constants.delay_steps);
    EXPECT_NO_THROW(group.advance_batch(span));
    step += span.steps;
  }
  EXPECT_THROW(group.advance_batch(next_epoch(step, 1000, setup.constants.delay_steps)), engine_failure);
}

}  // namespace
}  // namespace flysim::test
