#include "apps/flysim/run/trial_options.hpp"

#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include <charconv>
#include <string>

#include "apps/flysim/options/batch_option.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "model/lif_params.hpp"
#include "model/snapshot.hpp"

namespace flysim::app {

EngineChoice engine_choice(const Options& o) {
  EngineChoice c;
  const int64_t threads = o.integer("engine.threads");
  if (threads < 1 || threads > kMaxPoolThreads) o.reject("engine.threads", fmt::format("must be 1..{}", kMaxPoolThreads));
  c.threads = static_cast<unsigned>(threads);
  c.kind = engine_kind(o);
  c.device = cuda_device(o);
  return c;
}

bool runs_forever(const Options& o) { return o.text("run.duration-ms") == "forever"; }

namespace {
// run.duration-ms in ms: 1..kMaxRunSteps steps of dt.
double duration_ms(const Options& o, double dt_ms, Forever forever) {
  const std::string& text = o.text("run.duration-ms");
  double ms = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    o.reject("run.duration-ms", forever == Forever::allowed ? "is neither a number of ms nor 'forever'" : "is not a number of ms");
  if (const std::string problem = duration_problem(ms, dt_ms, "model.dt-ms"); !problem.empty())
    o.reject("run.duration-ms", problem);
  return ms;
}

// A trial of run.duration-ms: its steps, and its ms as given ('forever': the longest trial).
struct TrialLength {
  int32_t steps;
  double ms;
};
TrialLength trial_length(const Options& o, double dt_ms, Forever forever) {
  if (forever == Forever::allowed && runs_forever(o))
    return {static_cast<int32_t>(kMaxRunSteps), static_cast<double>(kMaxRunSteps) * dt_ms};
  const double ms = duration_ms(o, dt_ms, forever);
  const int32_t steps = run_steps(ms, dt_ms);
  if (!is_whole_steps(ms, dt_ms))
    spdlog::warn("run.duration-ms={} is not a whole number of steps of dt {} ms: each trial runs {} steps ({:.10g} ms), "
                 "rounded up as Brian2's run() does", ms, dt_ms, steps, steps * dt_ms);
  return {steps, ms};
}
}  // namespace

TrialShape trial_shape(const Options& o, double dt_ms, Forever forever) {
  TrialShape shape;
  const bool endless = forever == Forever::allowed && runs_forever(o);
  const int64_t trials = o.integer("run.trials");
  if (trials < 1 || trials > kMaxTrials) o.reject("run.trials", "must be 1.." + std::to_string(kMaxTrials));
  if (endless && trials != 1) o.reject("run.trials", "must be 1 when run.duration-ms=forever");
  shape.trials = static_cast<int32_t>(trials);
  if (o.integer("run.seed") < 0) o.reject("run.seed", "must not be negative");
  if (o.given("run.batch")) batch_asked(o);  // its syntax now; what fits once the network is known
  const TrialLength length = trial_length(o, dt_ms, forever);
  shape.steps_per_trial = length.steps;
  shape.duration_ms = length.ms;
  return shape;
}

int32_t trial_steps(const Options& o, double dt_ms, Forever forever) { return trial_length(o, dt_ms, forever).steps; }

double trial_seconds(const TrialShape& shape, double dt_ms) { return steps_to_seconds(shape.steps_per_trial, dt_ms); }

}  // namespace flysim::app
