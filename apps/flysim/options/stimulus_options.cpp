#include "apps/flysim/options/stimulus_options.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "apps/flysim/options/network_options.hpp"
#include "io/stimulus_files.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"

namespace flysim::app {

namespace {
const std::string kGroupIds = "stimulus.group." + kOptionName + ".ids";
const std::string kGroupRate = "stimulus.group." + kOptionName + ".rate";
std::string group_key(const std::string& name, const char* field) { return "stimulus.group." + name + "." + field; }

// The groups of stimulus.group.NAME.ids / .rate, each rate checked and turned into its
// Poisson threshold with the model's dt.
std::vector<PoissonGroup> poisson_groups(const Options& o, const Network& net) {
  std::vector<std::string> names = poisson_group_names(o);
  const std::vector<std::string> rated = o.names_of(kGroupRate);
  for (const std::string& name : rated)
    if (std::find(names.begin(), names.end(), name) == names.end())
      o.reject(group_key(name, "rate"), "is set, but stimulus.group." + name + ".ids is not: a group needs its neurons");
  const double dt_ms = o.number("model.dt-ms");
  std::vector<PoissonGroup> groups;
  for (const std::string& name : names) {
    const std::string rate_key = group_key(name, "rate");
    if (name == "default") o.reject(group_key(name, "ids"), "uses the name 'default', which is stimulus.ids's group");
    if (std::find(rated.begin(), rated.end(), name) == rated.end())
      o.reject(group_key(name, "ids"), "has no rate: set " + rate_key + " (Hz)");
    PoissonGroup group{name, load_id_list_as_indices(o.text(group_key(name, "ids")), net), o.number(rate_key), 0u};
    try {
      group.threshold = poisson_threshold(group.rate_Hz, dt_ms);
    } catch (const input_error& e) {
      o.reject(rate_key, e.what());
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// A neuron in two groups is an error naming the neuron and both groups' options.
void refuse_shared_neurons(const Options& o, const Network& net, const StimulusPlan& plan) {
  const std::optional<SharedNeuron> shared = neuron_in_two_groups(plan);
  if (!shared) return;
  const auto key = [&](int g) { return g < 0 ? std::string("stimulus.ids") : group_key(plan.groups[g].name, "ids"); };
  const std::string first = key(shared->first_group), second = key(shared->second_group);
  throw input_error("options " + first + " and " + second + " both list neuron " + std::to_string(net.root_ids[shared->neuron]) +
                    ": a neuron belongs to one Poisson group (" + o.text(first) + ", " + o.text(second) + ")");
}
}  // namespace

StimulusPlan stimulus_condition(const Options& o, const Network& net) {
  StimulusPlan plan;
  plan.groups = poisson_groups(o, net);
  if (!o.text("stimulus.silence").empty()) plan.silenced = load_id_list_as_indices(o.text("stimulus.silence"), net);
  plan.silence_mode = *parse_silence_mode(o.text("stimulus.silence-mode"));
  return plan;
}

StimulusPlan stimulus_plan(const Options& o, const Network& net) {
  StimulusPlan plan = stimulus_condition(o, net);
  const bool ids_apply = o.given("stimulus.ids") || !o.given("stimulus.kicks");
  if (ids_apply && !o.text("stimulus.ids").empty()) {
    require_bundled_file(o, "stimulus.ids");
    try {
      plan.poisson_neurons = load_id_list_as_indices(o.text("stimulus.ids"), net);
    } catch (const input_error& e) {
      if (o.given("stimulus.ids")) throw;
      throw input_error(std::string(e.what()) + " (the default stimulus.ids, FlyWire 783's sugar neurons; for another "
                                                "network give --stimulus.ids=FILE, or --stimulus.ids= for none)");
    }
  }
  if (!o.text("stimulus.kicks").empty()) plan.kicks = load_kicks(o.text("stimulus.kicks"), net);
  plan.seed = stimulus_seed(o);
  refuse_shared_neurons(o, net, plan);
  return plan;
}

uint64_t stimulus_seed(const Options& o) { return static_cast<uint64_t>(o.integer("run.seed")); }

std::vector<std::string> poisson_group_names(const Options& o) { return o.names_of(kGroupIds); }

std::vector<std::string> stimulus_file_keys(const Options& o) {
  std::vector<std::string> keys = {"stimulus.ids", "stimulus.kicks", "stimulus.silence"};
  for (const std::string& name : poisson_group_names(o)) keys.push_back(group_key(name, "ids"));
  return keys;
}

std::vector<OptionSpec> stimulus_options() {
  const LifParams d;
  return {
      {"stimulus.ids", OptionType::path, sugar_ids_file(),
       "root IDs of the Poisson-driven neurons, one per line ('#' comments); empty for none. The default applies "
       "only when stimulus.kicks is not given"},
      {"stimulus.rate", OptionType::number, fmt::format("{}", d.r_poi_Hz), "Poisson rate of the stimulated neurons, Hz"},
      {"stimulus.kicks", OptionType::path, "", "CSV 'step,neuron_id': at that step the neuron gets v += f_poi*w_syn"},
      {kGroupIds, OptionType::path, "",
       "a further Poisson group named NAME (letters, digits, '_', '-'): its root IDs, one per line; "
       "like stimulus.ids, refractory period 0; no neuron in two groups. Config files: [stimulus.group.NAME] ids = FILE"},
      {kGroupRate, OptionType::number, "", "the Poisson rate of group NAME, Hz (0 drives nothing but keeps refractory 0)"},
      {"stimulus.silence", OptionType::path, "",
       "root IDs of silenced neurons, one per line: their outgoing synapses carry no weight (the reference model's "
       "silence()); they still receive input, spike and are recorded"},
      {"stimulus.silence-mode", OptionType::choice, "outgoing",
       "which synapses of a silenced neuron carry no weight: outgoing (the reference code) or both (incoming too)",
       {"outgoing", "both"}},
  };
}

}  // namespace flysim::app
