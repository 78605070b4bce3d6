// Lag behind the pace (host/THREADS.md): percentiles to one histogram bin, a window
// that forgets, and a watch that logs once per change.
#include <gtest/gtest.h>

#include "host/lag_watch.hpp"
#include "host/lag_window.hpp"

namespace flysim::test {
namespace {

TEST(LagHistogram, TheP99IsWithinOneBinAndTheMaximumIsExact) {
  LagHistogram h;
  for (int k = 1; k <= 1000; ++k) h.add(0.01 * k);  // 0.01 .. 10 ms
  EXPECT_DOUBLE_EQ(h.max_ms(), 10.0);
  const double p99 = h.quantile(0.99);
  EXPECT_GE(p99, 9.9);
  EXPECT_LE(p99, 9.9 * 1.045);
  EXPECT_EQ(h.count(), 1000u);
  LagHistogram zeros;
  for (int k = 0; k < 100; ++k) zeros.add(0.0);
  EXPECT_EQ(zeros.quantile(0.99), 0.0);
}

TEST(LagHistogram, BinsAreMonotoneAndCoverMinutes) {
  for (double ms : {0.0, 0.005, 0.01, 0.5, 5.0, 100.0, 60000.0}) {
    EXPECT_LE(LagHistogram::bin_of(ms), LagHistogram::bin_of(ms * 1.1 + 0.01));
    if (ms >= 0.01) {
      EXPECT_LE(ms, LagHistogram::upper_edge(LagHistogram::bin_of(ms)));
    }
  }
  EXPECT_LT(LagHistogram::bin_of(60000.0), LagHistogram::kBins - 1);
}

TEST(LagWindow, TheWindowForgetsOldSecondsAndTheRunDoesNot) {
  LagWindow lag(10.0);
  lag.record(0.5, 250.0);  // a hiccup at the start
  for (int k = 0; k < 2000; ++k) lag.record(1.0 + 0.01 * k, 1.0);  // 20 s at 1 ms
  const LagFigures window = lag.window(21.0);
  EXPECT_NEAR(window.max_ms, 1.0, 1e-12);
  EXPECT_LE(window.p99_ms, 1.0);
  EXPECT_NEAR(window.samples, 1000u, 101u);
  const LagFigures run = lag.whole_run();
  EXPECT_DOUBLE_EQ(run.max_ms, 250.0);
  EXPECT_EQ(run.samples, 2001u);
  EXPECT_DOUBLE_EQ(run.now_ms, 1.0);
}

TEST(LagWatch, LogsOnceWhenBehindAgainWhenTheCauseChangesAndOnceWhenCaughtUp) {
  LagWatch watch(100.0);
  double t = 0.0;
  EXPECT_FALSE(watch.observe(t += 0.1, 50.0, "", ""));
  const auto first = watch.observe(t += 0.1, 150.0, "engine pool", "the engine pool is saturated: 1.96 cores");
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->warning);
  EXPECT_NE(first->text.find("150.0 ms behind"), std::string::npos) << first->text;
  EXPECT_NE(first->text.find("the engine pool is saturated"), std::string::npos);
  // The same cause with other figures is not news.
  EXPECT_FALSE(watch.observe(t += 0.1, 180.0, "engine pool", "the engine pool is saturated: 1.97 cores"));
  EXPECT_FALSE(watch.observe(t += 0.1, 400.0, "engine pool", "the engine pool is saturated: 1.99 cores"));
  const auto changed = watch.observe(t += 0.1, 300.0, "simloop thread", "simloop is saturated");
  ASSERT_TRUE(changed);
  EXPECT_NE(changed->text.find("the cause changed"), std::string::npos);
  EXPECT_FALSE(watch.observe(t += 0.1, 90.0, "", ""));  // below the limit, not yet caught up
  EXPECT_FALSE(watch.observe(t += 0.1, 20.0, "", ""));  // low, but not for long yet
  EXPECT_FALSE(watch.observe(t += 4.0, 20.0, "", ""));
  EXPECT_FALSE(watch.observe(t += 0.1, 120.0, "simloop thread", "simloop is saturated"));  // still behind: no news
  EXPECT_FALSE(watch.observe(t += 0.1, 20.0, "", ""));
  const auto caught_up = watch.observe(t += LagWatch::kCaughtUpAfterS + 0.1, 20.0, "", "");
  ASSERT_TRUE(caught_up);
  EXPECT_FALSE(caught_up->warning);
  EXPECT_NE(caught_up->text.find("at worst 400.0 ms"), std::string::npos) << caught_up->text;
  EXPECT_FALSE(watch.observe(t += 0.1, 10.0, "", ""));
  EXPECT_TRUE(watch.observe(t += 0.1, 101.0, "engine pool", "the engine pool is saturated"));
}

}  // namespace
}  // namespace flysim::test
