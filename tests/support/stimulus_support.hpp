#pragma once
// A live stimulus change (Engine::set_stimulus) for the CPU and CUDA tests alike.
#include <cstdint>
#include <memory>

#include "kernels/engine.hpp"

namespace flysim::test {

struct StimulusChange {
  std::shared_ptr<const StimulusPlan> plan;
  uint32_t poisson_threshold;
};

// A change of `before`'s plan at step `at`: every other Poisson neuron keeps its drive,
// ten neurons outside the old set gain one, all at `rate_Hz` (dt 0.1 ms); the old kicks
// stay and ten neurons are kicked every 50 steps for 2000 steps from at + 3. Same seed.
StimulusChange stimulus_change(const EngineSetup& before, int32_t at, double rate_Hz);

// `setup` as an engine built with the change from the start would have it.
EngineSetup with_change(EngineSetup setup, const StimulusChange& change);

// Runs `engine` (at next_step) to `at`, makes the change, runs on to `end`: all spikes.
std::vector<Spike> run_with_change(Engine& engine, int32_t next_step, int32_t at, const StimulusChange& change,
                                   int32_t end);

}  // namespace flysim::test
