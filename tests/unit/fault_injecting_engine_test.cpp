// FaultInjectingEngine: the stand-in for a failing GPU in tests of the service's fallback.
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_engine.hpp"
#include "kernels/engine_factory.hpp"
#include "kernels/fault_injecting_engine.hpp"
#include "model/errors.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

constexpr uint64_t kFaultAfter = 40;

// The wrapper's spikes equal the inner engine's epoch by epoch for N epochs; epoch N + 1
// throws engine_failure, and so does every later one.
TEST(FaultInjectingEngine, SameSpikesUntilEngineFailureInEpochNPlus1) {
  const EngineSetup setup = net2000_setup();
  const int32_t d = setup.constants.delay_steps;
  CpuEngine plain(setup, 1);
  FaultInjectingEngine faulty(std::make_unique<CpuEngine>(setup, 1), kFaultAfter);
  std::size_t spikes = 0;
  int32_t next = 0;
  for (uint64_t epoch = 1; epoch <= kFaultAfter; ++epoch) {
    const kernels::EpochSpan span = next_epoch(next, 100000, d);
    const std::vector<Spike> expected = plain.advance(span);
    ASSERT_EQ(faulty.advance(span), expected) << "epoch " << epoch;
    spikes += expected.size();
    next += span.steps;
  }
  EXPECT_GT(spikes, 0u);
  EXPECT_EQ(faulty.export_state(), plain.export_state());
  const kernels::EpochSpan span = next_epoch(next, 100000, d);
  EXPECT_THROW(faulty.advance(span), engine_failure);
  EXPECT_THROW(faulty.advance(span), engine_failure);
  // Not a user's input error: a service tells the two apart.
  try {
    faulty.advance(span);
  } catch (const input_error&) {
    FAIL() << "engine_failure must not be an input_error";
  } catch (const engine_failure& e) {
    EXPECT_NE(std::string(e.what()).find("fault after 40 epochs"), std::string::npos) << e.what();
  }
  // By default the state before the failed epoch can still be read; a new engine goes on.
  EXPECT_EQ(faulty.export_state(), plain.export_state());
}

TEST(FaultInjectingEngine, ExportFailsAfterTheFailureWhenAsked) {
  const EngineSetup setup = setup_for(tiny_network(3, {{0, 1, 5}}), StimulusPlan{});
  FaultInjectingEngine faulty(std::make_unique<CpuEngine>(setup, 1), 2, true);
  EXPECT_NO_THROW(faulty.export_state());
  run_until(faulty, 0, 2 * setup.constants.delay_steps);
  EXPECT_NO_THROW(faulty.export_state());
  EXPECT_THROW(faulty.advance(next_epoch(36, 100, 18)), engine_failure);
  EXPECT_THROW(faulty.export_state(), engine_failure);
}

TEST(FaultInjectingEngine, FaultAfterZeroFailsTheFirstEpoch) {
  const EngineSetup setup = setup_for(tiny_network(3, {}), StimulusPlan{});
  FaultInjectingEngine faulty(std::make_unique<CpuEngine>(setup, 1), 0);
  EXPECT_THROW(faulty.advance({0, 18}), engine_failure);
}

// The factory wraps an engine when asked to, and only then.
TEST(FaultInjectingEngine, MadeByTheFactory) {
  const EngineSetup setup = setup_for(tiny_network(3, {}), StimulusPlan{});
  EXPECT_EQ(make_engine(EngineKind::cpu, setup, 2)->describe(), "cpu pool, 2 threads");
  const std::unique_ptr<Engine> faulty = make_engine(EngineKind::cpu, setup, 2, {3, false});
  EXPECT_EQ(faulty->describe(), "cpu pool, 2 threads (fault after 3 epochs)");
  run_until(*faulty, 0, 3 * 18);
  EXPECT_THROW(faulty->advance({54, 18}), engine_failure);
}

}  // namespace
}  // namespace flysim::test
