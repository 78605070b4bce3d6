#include "checkpoint/snapshot_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "model/errors.hpp"
#include "model/lif_constants.hpp"
#include "model/lif_params.hpp"

namespace flysim {

namespace {

// The first failed rule names the field; the message says what the network allows.
struct Check {
  const std::string& path;
  void operator()(bool holds, const std::string& what) const {
    if (!holds) throw input_error(path + ": the checkpoint does not fit this network: " + what);
  }
};

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double x) { return std::isfinite(x); });
}

// kNeverSpiked, or a step of this trial before `next_step`.
bool steps_before(const std::vector<int32_t>& steps, int32_t next_step) {
  return std::all_of(steps.begin(), steps.end(),
                     [&](int32_t step) { return step == kNeverSpiked || (step >= 0 && step < next_step); });
}

// The state of one trial of the batch.
void check_trial(const Check& check, const EngineState& e, const TrialPlan& plan, std::size_t neurons, int32_t delay_steps) {
  const std::string n = std::to_string(neurons);
  check(e.v.size() == neurons && e.g.size() == neurons && e.last_spike.size() == neurons,
        "it holds the state of " + std::to_string(e.v.size()) + " neurons (v), " + std::to_string(e.g.size()) + " (g), " +
            std::to_string(e.last_spike.size()) + " (last spike); the network has " + n);
  check(all_finite(e.v) && all_finite(e.g), "a membrane potential or conductance is not a finite number");
  check(e.trial >= 0 && e.trial < plan.trials && e.next_step >= 0 && e.next_step < plan.steps_per_trial &&
            e.next_step % delay_steps == 0,
        "position trial " + std::to_string(e.trial) + " step " + std::to_string(e.next_step) +
            " is not a delay-cell boundary (every " + std::to_string(delay_steps) + " steps) inside its plan of " +
            std::to_string(plan.trials) + " trials of " + std::to_string(plan.steps_per_trial) + " steps");
  check(steps_before(e.last_spike, e.next_step), "a last spike lies after the checkpoint's step");

  // At a boundary the undelivered spikes are those of the cell just finished.
  const int32_t cell = e.next_step - delay_steps;
  check(std::all_of(e.pending.begin(), e.pending.end(),
                    [&](const Spike& x) { return x.neuron < neurons && x.step >= cell && x.step < e.next_step; }),
        "an undelivered spike is of a neuron outside 0.." + std::to_string(neurons - 1) + " or outside steps " +
            std::to_string(cell) + ".." + std::to_string(e.next_step - 1));
}

// The batch: run.batch >= 1, and the trials of the batch that starts at the first one,
// in order, at one step.
void check_batch_of(const Check& check, const Snapshot& s) {
  const EngineState& e = s.engine;
  check(s.batch >= 1 && s.batch <= s.plan.trials,
        "field batch is " + std::to_string(s.batch) + "; a batch holds 1.." + std::to_string(s.plan.trials) +
            " trials (the plan's)");
  const int64_t expected = std::min<int64_t>(s.batch, int64_t{s.plan.trials} - e.trial);
  check(e.trial % s.batch == 0 && static_cast<int64_t>(s.later_trials.size()) + 1 == expected,
        "a batch of " + std::to_string(s.later_trials.size() + 1) + " trials from trial " + std::to_string(e.trial) +
            " in batches of " + std::to_string(s.batch));
  for (std::size_t k = 0; k < s.later_trials.size(); ++k)
    check(s.later_trials[k].trial == e.trial + 1 + static_cast<int32_t>(k) && s.later_trials[k].next_step == e.next_step,
          "trial " + std::to_string(s.later_trials[k].trial) + " at step " + std::to_string(s.later_trials[k].next_step) +
              " in the batch of trial " + std::to_string(e.trial) + " at step " + std::to_string(e.next_step));
  check(s.batch == 1 || s.plasticity.settings.empty(), "a batch of trials with plasticity (each trial learns from the last)");
}

}  // namespace

void validate_snapshot(const Snapshot& s, std::size_t neurons, int32_t delay_steps, double dt_ms, const std::string& path) {
  const Check check{path};
  const std::string n = std::to_string(neurons);
  const EngineState& e = s.engine;
  const TrialPlan& plan = s.plan;
  check(plan.trials >= 1 && plan.trials <= kMaxTrials && plan.steps_per_trial >= 1 && plan.steps_per_trial <= kMaxRunSteps,
        "a plan of " + std::to_string(plan.trials) + " trials of " + std::to_string(plan.steps_per_trial) + " steps (1.." + std::to_string(kMaxTrials) + " trials of 1..2^29 steps)");
  check_trial(check, e, plan, neurons, delay_steps);
  check_batch_of(check, s);
  for (const EngineState& later : s.later_trials) check_trial(check, later, plan, neurons, delay_steps);
  check(s.recorder.counts.size() == neurons,
        "the recorder counts " + std::to_string(s.recorder.counts.size()) + " neurons; the network has " + n);

  const StimulusPlan& stimulus = plan.stimulus;
  check(std::isfinite(plan.stimulus_rate_Hz) && plan.stimulus_rate_Hz >= 0, "the stimulus rate is not a finite rate >= 0");
  check(std::all_of(stimulus.poisson_neurons.begin(), stimulus.poisson_neurons.end(), [&](uint32_t i) { return i < neurons; }),
        "a Poisson neuron is outside 0.." + std::to_string(neurons - 1));
  check(std::all_of(stimulus.kicks.begin(), stimulus.kicks.end(), [&](const Kick& k) { return k.neuron < neurons && k.step >= 0; }) &&
            std::is_sorted(stimulus.kicks.begin(), stimulus.kicks.end(),
                           [](const Kick& a, const Kick& b) { return std::tie(a.step, a.neuron) < std::tie(b.step, b.neuron); }),
        "the kicks are not sorted by step at steps >= 0 on neurons 0.." + std::to_string(neurons - 1));
  const std::string condition = groups_and_silence_problem(stimulus, neurons);
  check(condition.empty(), condition);
  for (const PoissonGroup& group : stimulus.groups) {
    check(is_group_name(group.name), "a Poisson group's name is not letters, digits, '_' and '-'");
    check(std::isfinite(group.rate_Hz) && group.rate_Hz >= 0 && group.rate_Hz * dt_ms * 1e-3 <= 1.0,
          "stimulus group '" + group.name + "' has a rate that is not a finite rate in 0..1/dt");
    check(group.threshold == poisson_threshold(group.rate_Hz, dt_ms),
          "stimulus group '" + group.name + "' draws with another threshold than its rate's");
  }

  uint64_t total = 0;
  bool overflow = false;
  for (const uint64_t c : s.recorder.counts) {
    overflow |= c > std::numeric_limits<uint64_t>::max() - total;
    total += c;
  }
  check(!overflow && total == s.recorder.spikes, "the recorder's spike total " + std::to_string(s.recorder.spikes) +
                                                     " is not the sum of its counts per neuron");

  const PlasticityState& p = s.plasticity;
  if (p.settings.empty()) {
    check(e.plastic_weights.empty() && p.learned.empty() && p.pre.value.empty() && p.pre.step.empty() &&
              p.post.value.empty() && p.post.step.empty(),
          "plastic weights or traces without plasticity settings");
    return;
  }
  const auto traces_fit = [&](const Traces& t) {
    return t.value.size() == neurons && t.step.size() == neurons && steps_before(t.step, e.next_step);
  };
  check(p.learned.size() == e.plastic_weights.size(),
        std::to_string(p.learned.size()) + " learned weights for " + std::to_string(e.plastic_weights.size()) +
            " applied ones");
  check(traces_fit(p.pre) && traces_fit(p.post),
        "the plasticity traces do not hold one value and one step before the checkpoint's step per neuron");
}

}  // namespace flysim
