#include "apps/flysim/run/run_inputs.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "actors/schedule.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/snapshot_check.hpp"
#include "kernels/version.hpp"
#include "model/errors.hpp"
#include "io/printed_times.hpp"

namespace flysim::app {

namespace {

// A presynaptic neuron with both signs is legal for the model but unusual in FlyWire data.
void warn_mixed_signs(const Network& net) {
  if (const std::vector<uint32_t> mixed = mixed_sign_neurons(net); !mixed.empty())
    spdlog::warn("network: neuron {} (index {}) has both excitatory and inhibitory connections{}; the model allows it, "
                 "but a FlyWire neuron has one transmitter: check the connectivity file",
                 net.root_ids[mixed.front()], mixed.front(),
                 mixed.size() > 1 ? fmt::format(", and so do {} other neurons", mixed.size() - 1) : std::string());
}

std::shared_ptr<const Network> checked_network(const RunBuilder& run) {
  auto net = run.load_network();
  warn_mixed_signs(*net);
  return net;
}

RunInputs fresh_inputs(const RunBuilder& run) {
  const Options& o = run.options();
  RunInputs in;
  const TrialShape shape = run.trial_shape(Forever::allowed);
  in.params = run.params();
  in.constants = run.constants();
  in.network = checked_network(run);
  in.trial_plan = TrialPlan{shape.trials, shape.steps_per_trial, in.params.r_poi_Hz, run.stimulus(*in.network)};
  const auto& kicks = in.trial_plan.stimulus.kicks;
  const int32_t steps = shape.steps_per_trial;
  if (const auto late = std::count_if(kicks.begin(), kicks.end(), [&](const Kick& k) { return k.step >= steps; }); late > 0)
    spdlog::warn("{}: {} kicks at step {} or later fall after the end of a trial ({} steps) and do nothing",
                 o.text("stimulus.kicks"), late, steps, steps);
  in.compatibility = compatibility_string(in.constants, in.network->content_hash());
  return in;
}

// Silencing and groups given with --restore must be the checkpoint's: a restored run
// cannot change who is silenced or driven.
void refuse_other_condition(const RunBuilder& run, const Network& net, const StimulusPlan& saved, const std::string& path) {
  const Options& o = run.options();
  const bool silence_given = o.given("stimulus.silence") || o.given("stimulus.silence-mode");
  const bool groups_given = !poisson_group_names(o).empty();
  if (!silence_given && !groups_given) return;
  const StimulusPlan asked = stimulus_condition(o, net);
  if (silence_given && (asked.silenced != saved.silenced || asked.silence_mode != saved.silence_mode))
    throw input_error("option stimulus.silence" + std::string(o.given("stimulus.silence") ? "='" + o.text("stimulus.silence") + "'" : "") +
                      " (mode " + silence_mode_name(asked.silence_mode) + ", " + std::to_string(asked.silenced.size()) +
                      " neurons) differs from what " + path + " silences (mode " + silence_mode_name(saved.silence_mode) +
                      ", " + std::to_string(saved.silenced.size()) + " neurons): a restored run keeps its checkpoint's silenced set");
  if (groups_given && asked.groups != saved.groups)
    throw input_error("options stimulus.group.* differ from the Poisson groups of " + path +
                      ": a restored run keeps its checkpoint's groups");
}

// Plan options given with --restore must be the checkpoint's: a restored run continues its
// plan, so asking for another one (a rate, a duration, a seed) is an error, not a warning.
void refuse_other_plan(const RunBuilder& run, const Network& net, const TrialPlan& saved, RunPosition at, const std::string& path) {
  const Options& o = run.options();
  const auto refuse = [&](const char* key, const std::string& saved_value) {
    throw input_error(fmt::format("option {}='{}' differs from the plan of {} ({}): a restored run continues its "
                                  "checkpoint's plan; leave the option out, or start a new run without --restore",
                                  key, o.text(key), path, saved_value));
  };
  refuse_other_condition(run, net, saved.stimulus, path);
  if (!o.text("replay").empty()) return;  // a replay's options are its journal's, checked when its run started
  if (o.given("run.trials") && o.integer("run.trials") != saved.trials) refuse("run.trials", fmt::format("{} trials", saved.trials));
  if (o.given("run.duration-ms") && trial_steps(o, run.params().dt_ms, Forever::allowed) != saved.steps_per_trial)
    refuse("run.duration-ms",
           endless(saved)
               ? std::string("one endless trial, 'forever'")
               : fmt::format("{} ms a trial", reported_ms(steps_to_seconds(saved.steps_per_trial, run.params().dt_ms))));
  if (o.given("stimulus.rate") && o.number("stimulus.rate") != saved.stimulus_rate_Hz)
    refuse("stimulus.rate", fmt::format("{} Hz", saved.stimulus_rate_Hz));
  if (o.given("run.seed") && stimulus_seed(o) != saved.stimulus.seed)
    refuse("run.seed", fmt::format("seed {}", saved.stimulus.seed));
  if (o.given("stimulus.ids") || o.given("stimulus.kicks")) {
    const StimulusPlan asked = run.stimulus(net);
    if (o.given("stimulus.ids") && asked.poisson_neurons != saved.stimulus.poisson_neurons)
      refuse("stimulus.ids", fmt::format("{} Poisson-driven neurons", saved.stimulus.poisson_neurons.size()));
    // Only the kicks still to come: a live command drops the fired ones from the plan.
    std::vector<Kick> asked_kicks = asked.kicks, saved_kicks = saved.stimulus.kicks;
    drop_fired_kicks(asked_kicks, at.trial, at.step, saved.trials);
    drop_fired_kicks(saved_kicks, at.trial, at.step, saved.trials);
    if (o.given("stimulus.kicks") && asked_kicks != saved_kicks)
      refuse("stimulus.kicks", fmt::format("{} kicks", saved.stimulus.kicks.size()));
  }
  if (o.given("run.batch"))
    spdlog::warn("run.batch is ignored: a restored run goes on in the batches of {} (batches change no spike)", path);
}

RunInputs restored_inputs(const RunBuilder& run) {
  const Options& o = run.options();
  RunInputs in;
  const std::string path = o.text("restore");
  CheckpointHeader header;
  Snapshot snapshot = load_checkpoint_unchecked(path, &header);
  in.params = run.params();
  in.params.r_poi_Hz = snapshot.plan.stimulus_rate_Hz;
  in.constants = derive_constants(in.params);
  in.network = checked_network(run);
  in.compatibility = compatibility_string(in.constants, in.network->content_hash());
  verify_identity(path, header, {in.compatibility, kKernelVersion, in.network->content_hash()});
  validate_snapshot(snapshot, in.network->neuron_count(), in.constants.delay_steps, in.params.dt_ms, path);
  refuse_other_plan(run, *in.network, snapshot.plan, RunPosition{snapshot.engine.trial, snapshot.engine.next_step}, path);
  in.trial_plan = snapshot.plan;
  spdlog::info("restoring {}: trial {} step {} of {} trial(s) x {} steps", path, snapshot.engine.trial,
               snapshot.engine.next_step, in.trial_plan.trials, in.trial_plan.steps_per_trial);
  in.restored = std::move(snapshot);
  in.restored_checksum = header.payload_checksum;
  return in;
}

}  // namespace

RunInputs load_run_inputs(const RunBuilder& run) {
  return run.options().text("restore").empty() ? fresh_inputs(run) : restored_inputs(run);
}

}  // namespace flysim::app
