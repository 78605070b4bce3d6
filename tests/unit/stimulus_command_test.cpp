// A live stimulus command's plan: in the last trial the kicks that have fired leave it,
// so a service that takes kicks for hours keeps only those to come; before the last
// trial every kick stays (each later trial gives them again).
#include <gtest/gtest.h>

#include "actors/stimulus_command.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

TrialPlan plan_of(int32_t trials) {
  TrialPlan plan;
  plan.trials = trials;
  plan.steps_per_trial = 10000;
  plan.stimulus_rate_Hz = 150.0;
  plan.stimulus.kicks = {{100, 0}, {500, 1}, {900, 2}};
  return plan;
}

StimulusCommand kick_after(double ms) {
  StimulusCommand c;
  c.kicks = std::vector<LiveKick>{{1003, ms}};  // neuron 3
  return c;
}

std::vector<int32_t> kick_steps(const TrialPlan& plan) {
  std::vector<int32_t> steps;
  for (const Kick& k : plan.stimulus.kicks) steps.push_back(k.step);
  return steps;
}

TEST(StimulusCommand, TheLastTrialsFiredKicksLeaveThePlan) {
  const auto net = tiny_network(4, {});
  // One trial (a service): at step 500 the kicks at 100 are past, the one at 500 is not.
  const StimulusChange one = stimulus_change(plan_of(1), kick_after(1.0), RunPosition{0, 500}, *net, 0.1);
  EXPECT_EQ(kick_steps(one.plan), (std::vector<int32_t>{500, 510, 900}));
  // The last of three trials likewise; an earlier one keeps them all for the trials after it.
  EXPECT_EQ(kick_steps(stimulus_change(plan_of(3), kick_after(1.0), RunPosition{2, 500}, *net, 0.1).plan),
            (std::vector<int32_t>{500, 510, 900}));
  EXPECT_EQ(kick_steps(stimulus_change(plan_of(3), kick_after(1.0), RunPosition{1, 500}, *net, 0.1).plan),
            (std::vector<int32_t>{100, 500, 510, 900}));
  // Past every kick: none is left but the new one.
  EXPECT_EQ(kick_steps(stimulus_change(plan_of(1), kick_after(0.0), RunPosition{0, 5000}, *net, 0.1).plan),
            (std::vector<int32_t>{5000}));
}

}  // namespace
}  // namespace flysim::test
