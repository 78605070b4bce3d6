#pragma once
// What a stimulus command does to the plan: the sim loop applies it live, and a replay
// checks each journaled one the same way before the run starts.
#include <cstdint>

#include "actors/schedule.hpp"
#include "messages/live_command.hpp"
#include "model/network.hpp"
#include "model/snapshot.hpp"

namespace flysim {

struct StimulusChange {
  TrialPlan plan;                  // the plan from the command on
  uint32_t poisson_threshold = 0;  // of its rate (model/lif_params.hpp)
};

// The plan after the stimulus command `c` applied at `at` on `net`, without the kicks
// that have fired when `at` lies in the last trial; throws input_error naming what is
// wrong (an unknown neuron, a kick past the end of the trial, a rate above 1/dt).
StimulusChange stimulus_change(const TrialPlan& current, const StimulusCommand& c, RunPosition at, const Network& net,
                               double dt_ms);

}  // namespace flysim
