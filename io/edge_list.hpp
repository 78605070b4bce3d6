#pragma once
// The small real connectomes of data/ (larval Drosophila subset, C. elegans
// hermaphrodite): edge lists `pre,post,count` without a header and without transmitter
// signs. Rules (signs, self-loops, repeated pairs, name IDs): model/GENERATOR.md,
// "Edge lists".
#include <cstdint>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace flysim {

// Which presynaptic neurons are inhibitory: neuron ID x is inhibitory when a seeded
// 64-bit hash of (seed, x) falls below inhibitory_fraction * 2^64, so the choice does
// not depend on file order or on which other neurons are present.
struct SignRule {
  double inhibitory_fraction = 0.4;
  uint64_t seed = 1;
};

// True when the rule makes the neuron with this ID inhibitory.
bool is_inhibitory(const SignRule& rule, int64_t neuron_id);

// nodes_path may be empty: then the neurons are the IDs seen in the edge list, in
// ascending order. Integer IDs are kept as given. When any ID in the edge list is not an
// integer (C. elegans names), all are names: neuron k of the names sorted in byte order
// gets ID k + 1, and `names` (when given) receives the names by model index.
// Errors are input_errors naming file:line.
// "edge list PATH (signs: ...)": what a network loaded from `edges_path` is called.
std::string edge_list_description(const std::string& edges_path, const SignRule& rule);

Network load_edge_list(const std::string& edges_path, const std::string& nodes_path, const SignRule& rule,
                       std::vector<std::string>* names = nullptr);

}  // namespace flysim
