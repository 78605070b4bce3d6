// The determinism contract on the CPU: thread counts, and export/import at any step.
#include <gtest/gtest.h>

#include "kernels/cpu/cpu_engine.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

TEST(EngineIdentity, SameSpikesAndStateFor1_2_4Threads) {
  const auto setup = net2000_setup();
  CpuEngine one(setup, 1);
  const auto spikes = run_until(one, 0, 5000);
  ASSERT_GT(spikes.size(), 1000u);
  for (unsigned threads : {2u, 4u}) {
    CpuEngine other(setup, threads);
    EXPECT_EQ(run_until(other, 0, 5000), spikes) << threads << " threads";
    EXPECT_EQ(other.export_state(), one.export_state()) << threads << " threads";
  }
}

TEST(EngineIdentity, ExportImportContinuesIdentically) {
  const auto setup = net2000_setup();
  for (int32_t cut : {18 * 100, 18 * 100 + 7}) {  // at a cell boundary and inside a cell
    CpuEngine straight(setup, 2);
    auto expected = run_until(straight, 0, cut);
    const auto tail = run_until(straight, cut, 4000);
    expected.insert(expected.end(), tail.begin(), tail.end());

    CpuEngine first(setup, 1);
    auto got = run_until(first, 0, cut);
    CpuEngine second(setup, 2);
    second.import_state(first.export_state());
    const auto rest = run_until(second, cut, 4000);
    got.insert(got.end(), rest.begin(), rest.end());
    EXPECT_EQ(got, expected) << "cut at step " << cut;
    EXPECT_EQ(second.export_state(), straight.export_state()) << "cut at step " << cut;
  }
}

}  // namespace
}  // namespace flysim::test
