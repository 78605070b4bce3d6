#pragma once
// Builds a run's engines over one network and batch: the first, and for flysim run and
// serve each one a swap or a fallback asks for, with the stimulus as it is then.
#include <memory>

#include "kernels/engine.hpp"
#include "kernels/engine_factory.hpp"
#include "kernels/fault_injecting_engine.hpp"

namespace flysim::app {

class EngineBuilder {
 public:
  // Every engine is `setup` with the stimulus and Poisson rate of its call; `threads` 0 in
  // a call means `default_threads`.
  EngineBuilder(EngineSetup setup, unsigned default_threads, double dt_ms);
  // Throws input_error when the engine cannot be had here (kernels/engine_factory.hpp).
  std::unique_ptr<Engine> make(EngineKind kind, unsigned threads, std::shared_ptr<const StimulusPlan> stimulus, double rate_Hz,
                               EngineFault fault = {}) const;
  // The same builder for CUDA device `device` (a screen's engines on several devices).
  EngineBuilder on_device(int device) const;
  // The same builder for engines of `batch` trials each.
  EngineBuilder with_batch(int32_t batch) const;

 private:
  EngineSetup setup_;
  unsigned default_threads_;
  double dt_ms_;
};

}  // namespace flysim::app
