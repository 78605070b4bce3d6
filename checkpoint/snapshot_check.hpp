#pragma once
// A snapshot read from a file is checked against the network it is restored into
// before any engine, recorder or plasticity observer sees it: a file whose checksum
// is right can still hold numbers that do not fit (a buggy or hand-made writer), and
// an engine would index its arrays with them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/snapshot.hpp"

namespace flysim {

// Throws input_error naming `path` and the first field that does not fit a network of
// `neurons` neurons with a synaptic delay of `delay_steps` steps:
// - v, g, last_spike and the recorder's counts hold one value per neuron; v and g are
//   finite; each last spike is kNeverSpiked or a step of this trial before next_step;
// - the plan has 1..kMaxTrials trials of 1..kMaxRunSteps steps, and the position (trial,
//   next_step) lies inside it on a delay-cell boundary;
// - each undelivered spike is of a neuron of the network and of the delay cell just
//   finished; the Poisson neurons and kicks name neurons of the network, kicks at
//   steps >= 0, sorted by (step, neuron); the recorder's total is the sum of its counts;
// - without plasticity settings there are no plastic weights and no traces; with them,
//   as many learned weights as applied ones, and traces of every neuron whose steps
//   lie before next_step (or are kNeverSpiked);
// - the batch (1..the plan's trials) starts at a multiple of it and holds its trials in order,
//   each at the first one's step and checked as above; plasticity only with batch 1.
// - each Poisson group has a group name, a finite rate >= 0 and the threshold of that rate
//   at a step of `dt_ms` (the threshold is what the engines draw with).
void validate_snapshot(const Snapshot& snapshot, std::size_t neurons, int32_t delay_steps, double dt_ms, const std::string& path);

}  // namespace flysim
