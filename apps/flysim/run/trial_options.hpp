#pragma once
// The options that decide what every run computes, read and checked here once for
// flysim run, serve, sweep and screen: where the engine runs (engine.*) and the trials
// (run.trials, run.duration-ms, run.seed).
#include <cstdint>

#include "apps/flysim/options/options.hpp"
#include "kernels/engine_factory.hpp"

namespace flysim::app {

// engine.kind (FLY_LIF_CUDA overrides it), engine.cuda-device and engine.threads (1..1024).
struct EngineChoice {
  EngineKind kind = EngineKind::cpu;
  int device = 0;
  unsigned threads = 1;
  EngineWhere where() const { return {kind, device, threads}; }
};
EngineChoice engine_choice(const Options& o);

// run.duration-ms=forever: one trial of kMaxRunSteps steps, until stopped.
bool runs_forever(const Options& o);

// Whether a command takes run.duration-ms=forever (run and serve do; sweep and screen count trials).
enum class Forever { allowed, refused };

struct TrialShape {
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  double duration_ms = 0;  // as given; 'forever': the longest trial
};

// run.trials (1..kMaxTrials, 1 when forever), run.seed (not negative) and run.duration-ms
// (1 to kMaxRunSteps steps of `dt_ms`). Throws input_error naming the option.
TrialShape trial_shape(const Options& o, double dt_ms, Forever forever);

// The steps of one trial of run.duration-ms (kMaxRunSteps for 'forever' where allowed);
// throws input_error naming the option.
int32_t trial_steps(const Options& o, double dt_ms, Forever forever);

// Simulated seconds per trial (whole steps of `dt_ms`).
double trial_seconds(const TrialShape& shape, double dt_ms);

}  // namespace flysim::app
