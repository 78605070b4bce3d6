#pragma once
// What drives the network: Poisson-stimulated neurons and timed kicks, plus the seed.
#include <compare>
#include <cstdint>
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

struct StimulusPlan {
  // Model indices of Poisson-driven neurons (refractory period 0, docs/MODEL.md).
  std::vector<uint32_t> poisson_neurons;
  // Timed kicks, sorted by (step, neuron); the same in every trial.
  std::vector<Kick> kicks;
  uint64_t seed = 1;
  friend bool operator==(const StimulusPlan&, const StimulusPlan&) = default;
};

template <class F>
decltype(auto) fields(StimulusPlan& x, F&& f) {
  return f(x.poisson_neurons, x.kicks, x.seed);
}

// The neurons a plan drives: the Poisson-driven ones and every neuron a kick names,
// ascending, each once (the live page marks them).
std::vector<uint32_t> stimulated_neurons(const StimulusPlan& plan);

// One ID of an ID list file and the line it stands on.
struct ListedId {
  int64_t id;
  std::size_t line;
};

// Reads an ID list: one root ID per line, '#' starts a comment, blank lines ignored.
// Errors (a field that is not an integer) name file:line.
std::vector<ListedId> read_id_list(const std::string& path);

// Reads an ID list (read_id_list) and maps its root IDs to model indices, ascending: the
// neurons of stimulus.ids, plasticity.pre-ids and plasticity.post-ids. Unknown or
// repeated IDs are input_errors naming file:line.
std::vector<uint32_t> load_id_list_as_indices(const std::string& path, const Network& net);

// Reads a CSV with header `step,neuron_id`. Errors name file:line.
std::vector<Kick> load_kicks(const std::string& path, const Network& net);

}  // namespace flysim
