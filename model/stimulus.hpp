#pragma once
// What drives the network: Poisson-stimulated neurons and timed kicks, plus the seed.
#include <compare>
#include <functional>
#include <cstdint>
#include <optional>
#include <string_view>
#include <span>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace flysim {

struct Kick {
  int32_t step;
  uint32_t neuron;
  // A plan's order: by step, then neuron.
  friend auto operator<=>(const Kick&, const Kick&) = default;
};

template <class F>
decltype(auto) fields(Kick& x, F&& f) {
  return f(x.step, x.neuron);
}

// A named set of Poisson-driven neurons with its own rate, beside the default group
// (StimulusPlan::poisson_neurons, driven at LifConstants::poisson_threshold).
struct PoissonGroup {
  std::string name;
  // Model indices, ascending; refractory period 0 like every driven neuron, even at 0 Hz.
  std::vector<uint32_t> neurons;
  double rate_Hz = 0.0;
  // poisson_threshold(rate_Hz, dt) (model/lif_params.hpp): what the engines draw with.
  uint32_t threshold = 0;
  friend bool operator==(const PoissonGroup&, const PoissonGroup&) = default;
};

template <class F>
decltype(auto) fields(PoissonGroup& x, F&& f) {
  return f(x.name, x.neurons, x.rate_Hz, x.threshold);
}

// Which synapses of a silenced neuron carry no weight: its outgoing ones (the reference
// model's silence()), or its incoming ones too.
enum class SilenceMode : uint8_t { outgoing = 0, both = 1 };

struct StimulusPlan {
  // Model indices of Poisson-driven neurons (refractory period 0, docs/MODEL.md).
  std::vector<uint32_t> poisson_neurons;
  // Timed kicks, sorted by (step, neuron); the same in every trial.
  std::vector<Kick> kicks;
  uint64_t seed = 1;
  // Further Poisson groups, each at its own rate; no neuron in two groups.
  std::vector<PoissonGroup> groups;
  // Silenced neurons, ascending: their spikes are recorded and reach no one.
  std::vector<uint32_t> silenced;
  SilenceMode silence_mode = SilenceMode::outgoing;
  friend bool operator==(const StimulusPlan&, const StimulusPlan&) = default;
};

template <class F>
decltype(auto) fields(StimulusPlan& x, F&& f) {
  return f(x.poisson_neurons, x.kicks, x.seed, x.groups, x.silenced, x.silence_mode);
}

// The name of a silence mode as options and files spell it, and back (nullopt: unknown).
const char* silence_mode_name(SilenceMode mode);
std::optional<SilenceMode> parse_silence_mode(std::string_view text);

// Per neuron: the threshold its Poisson draws are compared with (0: no events), from
// the default group's `default_threshold` and each group's own.
std::vector<uint32_t> poisson_thresholds(const StimulusPlan& plan, uint32_t default_threshold, std::size_t neurons);
// Per neuron: Poisson-driven (refractory period 0) in the default group or any other.
std::vector<uint8_t> poisson_flags(const StimulusPlan& plan, std::size_t neurons);
// Per neuron: silenced (1) or not (0); empty when the plan silences no one.
std::vector<uint8_t> silence_mask(const StimulusPlan& plan, std::size_t neurons);
// What is wrong with the plan's groups and silenced set for a network of `neurons`
// (a list not ascending, a repeat, a neuron outside it or in two groups, an unknown
// silence mode); empty when nothing is. With the network's root IDs, a neuron in two groups
// is named by its root ID, else by its model index.
std::string groups_and_silence_problem(const StimulusPlan& plan, std::size_t neurons,
                                       std::span<const int64_t> root_ids = {});
// A neuron listed in two Poisson groups: its model index and the two groups, -1 for the
// default group (poisson_neurons) and k for plan.groups[k], first < second.
struct SharedNeuron {
  uint32_t neuron;
  int first_group;
  int second_group;
};
// The lowest neuron listed in two different Poisson groups of the plan, if any (a front end
// names the groups as its user gave them).
std::optional<SharedNeuron> neuron_in_two_groups(const StimulusPlan& plan);
// Whether `name` may name a Poisson group: letters, digits, '_' and '-', as the NAME of
// the options stimulus.group.NAME.* (every plan can be written as options).
bool is_group_name(std::string_view name);
// Every Poisson-driven neuron of the plan, ascending.
std::vector<uint32_t> driven_neurons(const StimulusPlan& plan);

// The neurons a plan drives: the Poisson-driven ones and every neuron a kick names,
// ascending, each once (the live page marks them).
std::vector<uint32_t> stimulated_neurons(const StimulusPlan& plan);

// One ID of an ID list file and the line it stands on.
struct ListedId {
  int64_t id;
  std::size_t line;
};

// Maps root IDs to model indices, ascending. An unknown or repeated ID is an input_error
// that begins with where(k), the place of ids[k] ("FILE:LINE", "group 'sugar'").
std::vector<uint32_t> root_ids_as_indices(const std::vector<int64_t>& ids, const RootIdIndex& index,
                                          const std::function<std::string(std::size_t k)>& where);
std::vector<uint32_t> root_ids_as_indices(const std::vector<int64_t>& ids, const Network& net,
                                          const std::function<std::string(std::size_t k)>& where);

// The model indices of `listed` (IDs that stand on lines of file `path`), ascending. Unknown
// or repeated IDs are input_errors naming path:line, then `what` (e.g. "column 'silence'").
std::vector<uint32_t> listed_ids_as_indices(const std::string& path, const std::vector<ListedId>& listed,
                                            const RootIdIndex& index, const std::string& what = "");
std::vector<uint32_t> listed_ids_as_indices(const std::string& path, const std::vector<ListedId>& listed, const Network& net,
                                            const std::string& what = "");

// Sorts kicks into a plan's order; a neuron kicked twice at one step is an input_error
// that names both kicks by where(k), k the kick's place in `kicks` as given ("file:line").
std::vector<Kick> sorted_kicks(const std::vector<Kick>& kicks, const Network& net,
                               const std::function<std::string(std::size_t)>& where);

// Removes from `kicks` (a plan's order) those that have fired for good at step `step` of
// trial `trial` of `trials`: in the last trial, every kick before `step` (each earlier
// trial gives them again, so before it none is removed).
void drop_fired_kicks(std::vector<Kick>& kicks, int32_t trial, int32_t step, int32_t trials);

}  // namespace flysim
