// A screen's experiments spread over several engines (apps/flysim/screen/screen_engines.hpp):
// each experiment's counts and spike lines must be those of one engine running them all,
// whichever engine took it; a failing engine stops the others and its error reaches the caller.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "apps/flysim/screen/screen_engines.hpp"
#include "apps/flysim/screen/screen_trials.hpp"
#include "kernels/cpu/cpu_engine.hpp"
#include "model/lif_params.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

constexpr int32_t kExperiments = 7;

TrialBatches plan_of(const EngineSetup& setup) {
  TrialBatches plan;
  plan.trials = 3;
  plan.steps_per_trial = 500;
  plan.batch = 2;
  plan.delay_steps = setup.constants.delay_steps;
  plan.neurons = setup.network->neuron_count();
  return plan;
}

// Experiment i: the net2000 stimulus at 60 + 15 i Hz (dt 0.1 ms, the model's).
uint32_t threshold_of(std::size_t i) { return poisson_threshold(60.0 + 15.0 * i, 0.1); }

struct Result {
  ExperimentCounts counts;
  std::string lines;
};

// `before(i, screen)` runs as experiment i starts.
using BeforeExperiment = std::function<void(std::size_t, const app::ScreenEngines&)>;

std::map<std::size_t, Result> screen_on(std::size_t engine_count, const BeforeExperiment& before = {}) {
  EngineSetup setup = net2000_setup();
  setup.batch = 2;
  std::vector<std::unique_ptr<Engine>> engines;
  for (std::size_t k = 0; k < engine_count; ++k) engines.push_back(std::make_unique<CpuEngine>(setup, 1));
  app::ScreenEngines screen(std::move(engines));
  const TrialBatches plan = plan_of(setup);
  std::vector<std::size_t> to_run;
  for (std::size_t i = 0; i < kExperiments; ++i) to_run.push_back(i);
  std::mutex lock;
  std::map<std::size_t, Result> results;
  screen.run(to_run, [&](Engine& engine, std::size_t i) {
    if (before) before(i, screen);
    engine.set_stimulus(setup.stimulus, threshold_of(i));
    Result r;
    r.counts = app::run_screen_experiment(engine, plan, *setup.network, "e" + std::to_string(i), 0.1, &r.lines,
                                          [&](int32_t) {
                                            if (screen.stopping()) throw std::runtime_error("stopped");
                                          });
    const std::lock_guard<std::mutex> guard(lock);
    results[i] = std::move(r);
  });
  return results;
}

TEST(ScreenEngines, ThreeEnginesGiveEachExperimentTheSpikesOfOneEngine) {
  const auto one = screen_on(1);
  const auto three = screen_on(3);
  ASSERT_EQ(one.size(), std::size_t{kExperiments});
  ASSERT_EQ(three.size(), std::size_t{kExperiments});
  for (std::size_t i = 0; i < kExperiments; ++i) {
    EXPECT_GT(one.at(i).lines.size(), 1000u) << "experiment " << i << " must make spikes to compare";
    EXPECT_EQ(one.at(i).lines, three.at(i).lines) << "experiment " << i;
    EXPECT_EQ(one.at(i).counts.spikes, three.at(i).counts.spikes) << "experiment " << i;
  }
  EXPECT_NE(one.at(0).lines, one.at(6).lines) << "the experiments must differ";
}

TEST(ScreenEngines, AFailingExperimentStopsTheOthersAndItsErrorReachesTheCaller) {
  std::atomic<int> started{0};
  try {
    screen_on(2, [&](std::size_t i, const app::ScreenEngines& screen) {
      ++started;
      if (i == 2) throw std::runtime_error("engine lost on experiment 2");
      // The experiments after it wait (10 s at most) until the failure has reached the
      // screen: how soon the failing thread runs again must not decide the outcome.
      for (int ms = 0; i > 2 && ms < 10'000 && !screen.stopping(); ++ms)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    FAIL() << "the failure must reach the caller";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "engine lost on experiment 2");
  }
  EXPECT_LT(started.load(), kExperiments) << "the engines must stop taking experiments";
}

}  // namespace
}  // namespace flysim::test
