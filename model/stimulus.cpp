#include "model/stimulus.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

#include "model/errors.hpp"

namespace flysim {

std::vector<uint32_t> root_ids_as_indices(const std::vector<int64_t>& ids, const RootIdIndex& index,
                                          const std::function<std::string(std::size_t k)>& where) {
  std::vector<uint32_t> neurons;
  std::unordered_set<uint32_t> seen;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const uint32_t* found = index.find(ids[k]);
    if (!found)
      throw input_error(where(k) + ": neuron ID " + std::to_string(ids[k]) + " is not in the network (" +
                        index.network().short_description() + ")");
    if (!seen.insert(*found).second) throw input_error(where(k) + ": neuron ID " + std::to_string(ids[k]) + " is listed twice");
    neurons.push_back(*found);
  }
  std::sort(neurons.begin(), neurons.end());
  return neurons;
}

std::vector<uint32_t> root_ids_as_indices(const std::vector<int64_t>& ids, const Network& net,
                                          const std::function<std::string(std::size_t k)>& where) {
  return root_ids_as_indices(ids, RootIdIndex(net), where);
}

std::vector<uint32_t> listed_ids_as_indices(const std::string& path, const std::vector<ListedId>& listed,
                                            const RootIdIndex& index, const std::string& what) {
  std::vector<int64_t> ids;
  for (const ListedId& l : listed) ids.push_back(l.id);
  return root_ids_as_indices(ids, index, [&](std::size_t k) {
    return path + ":" + std::to_string(listed[k].line) + (what.empty() ? "" : ": " + what);
  });
}

std::vector<uint32_t> listed_ids_as_indices(const std::string& path, const std::vector<ListedId>& listed, const Network& net,
                                            const std::string& what) {
  return listed_ids_as_indices(path, listed, RootIdIndex(net), what);
}

std::vector<Kick> sorted_kicks(const std::vector<Kick>& kicks, const Network& net,
                               const std::function<std::string(std::size_t)>& where) {
  std::vector<Kick> sorted = kicks;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t k = 1; k < sorted.size(); ++k) {
    if (sorted[k] != sorted[k - 1]) continue;
    // The two places of the repeated kick in the order given.
    const auto first = std::find(kicks.begin(), kicks.end(), sorted[k]);
    const auto second = std::find(first + 1, kicks.end(), sorted[k]);
    throw input_error(where(static_cast<std::size_t>(second - kicks.begin())) + ": neuron " +
                      std::to_string(net.root_ids[sorted[k].neuron]) + " is kicked twice at step " +
                      std::to_string(sorted[k].step) + " (first at " +
                      where(static_cast<std::size_t>(first - kicks.begin())) + "; one kick per neuron and step)");
  }
  return sorted;
}

std::vector<uint32_t> stimulated_neurons(const StimulusPlan& plan) {
  std::vector<uint32_t> neurons = driven_neurons(plan);
  for (const Kick& k : plan.kicks) neurons.push_back(k.neuron);
  std::sort(neurons.begin(), neurons.end());
  neurons.erase(std::unique(neurons.begin(), neurons.end()), neurons.end());
  return neurons;
}

const char* silence_mode_name(SilenceMode mode) { return mode == SilenceMode::both ? "both" : "outgoing"; }

std::optional<SilenceMode> parse_silence_mode(std::string_view text) {
  if (text == "outgoing") return SilenceMode::outgoing;
  if (text == "both") return SilenceMode::both;
  return std::nullopt;
}

std::vector<uint32_t> poisson_thresholds(const StimulusPlan& plan, uint32_t default_threshold, std::size_t neurons) {
  std::vector<uint32_t> threshold(neurons, 0u);
  for (uint32_t i : plan.poisson_neurons) threshold[i] = default_threshold;
  for (const PoissonGroup& group : plan.groups)
    for (uint32_t i : group.neurons) threshold[i] = group.threshold;
  return threshold;
}

std::vector<uint8_t> poisson_flags(const StimulusPlan& plan, std::size_t neurons) {
  std::vector<uint8_t> flag(neurons, 0);
  for (uint32_t i : driven_neurons(plan)) flag[i] = 1;
  return flag;
}

std::vector<uint8_t> silence_mask(const StimulusPlan& plan, std::size_t neurons) {
  if (plan.silenced.empty()) return {};
  std::vector<uint8_t> mask(neurons, 0);
  for (uint32_t i : plan.silenced) mask[i] = 1;
  return mask;
}

namespace {
// What is wrong with `list` (not ascending, a repeat, outside the network); empty if nothing.
std::string neuron_list_problem(const std::vector<uint32_t>& list, std::size_t neurons, const std::string& what) {
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (list[k] >= neurons)
      return what + " names neuron " + std::to_string(list[k]) + " of a network of " + std::to_string(neurons);
    if (k > 0 && list[k - 1] >= list[k])
      return what + " is not ascending without repeats at neuron " + std::to_string(list[k]);
  }
  return {};
}
}  // namespace

bool is_group_name(std::string_view name) {
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-'; });
}

std::string groups_and_silence_problem(const StimulusPlan& plan, std::size_t neurons, std::span<const int64_t> root_ids) {
  for (const PoissonGroup& group : plan.groups)
    if (std::string problem = neuron_list_problem(group.neurons, neurons, "stimulus group '" + group.name + "'");
        !problem.empty())
      return problem;
  if (const std::optional<SharedNeuron> shared = neuron_in_two_groups(plan)) {
    const auto group_name = [&](int g) { return g < 0 ? std::string("the default group") : "group '" + plan.groups[g].name + "'"; };
    return "a neuron is in two Poisson groups of the stimulus: " +
           (shared->neuron < root_ids.size() ? "neuron ID " + std::to_string(root_ids[shared->neuron])
                                             : "model index " + std::to_string(shared->neuron)) +
           " in " + group_name(shared->first_group) + " and " + group_name(shared->second_group);
  }
  if (std::string problem = neuron_list_problem(plan.silenced, neurons, "the silenced set"); !problem.empty())
    return problem;
  if (plan.silence_mode != SilenceMode::outgoing && plan.silence_mode != SilenceMode::both)
    return "unknown silence mode " + std::to_string(static_cast<int>(plan.silence_mode));
  return {};
}

std::optional<SharedNeuron> neuron_in_two_groups(const StimulusPlan& plan) {
  std::vector<std::pair<uint32_t, int>> owners;  // (neuron, group), each group's neurons once
  for (uint32_t i : std::set<uint32_t>(plan.poisson_neurons.begin(), plan.poisson_neurons.end())) owners.emplace_back(i, -1);
  for (std::size_t g = 0; g < plan.groups.size(); ++g)
    for (uint32_t i : std::set<uint32_t>(plan.groups[g].neurons.begin(), plan.groups[g].neurons.end()))
      owners.emplace_back(i, static_cast<int>(g));
  std::sort(owners.begin(), owners.end());
  for (std::size_t k = 1; k < owners.size(); ++k)
    if (owners[k].first == owners[k - 1].first) return SharedNeuron{owners[k].first, owners[k - 1].second, owners[k].second};
  return std::nullopt;
}

std::vector<uint32_t> driven_neurons(const StimulusPlan& plan) {
  std::vector<uint32_t> neurons = plan.poisson_neurons;
  for (const PoissonGroup& group : plan.groups) neurons.insert(neurons.end(), group.neurons.begin(), group.neurons.end());
  std::sort(neurons.begin(), neurons.end());
  neurons.erase(std::unique(neurons.begin(), neurons.end()), neurons.end());
  return neurons;
}

void drop_fired_kicks(std::vector<Kick>& kicks, int32_t trial, int32_t step, int32_t trials) {
  if (trial != trials - 1) return;
  kicks.erase(kicks.begin(), std::lower_bound(kicks.begin(), kicks.end(), step, [](const Kick& k, int32_t s) { return k.step < s; }));
}

}  // namespace flysim
