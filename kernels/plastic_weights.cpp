#include "kernels/plastic_weights.hpp"

#include <stdexcept>
#include <string>

namespace flysim {

PlasticEdges::PlasticEdges(std::shared_ptr<const std::vector<uint64_t>> edges, const std::vector<int32_t>& network_weights)
    : edges_(std::move(edges)), network_weights_(&network_weights) {
  if (!empty() && edges_->back() >= network_weights.size())
    throw std::invalid_argument("plastic edge " + std::to_string(edges_->back()) + " is not in a network of " +
                                std::to_string(network_weights.size()) + " connections");
}

void PlasticEdges::check(const std::vector<WeightChange>& changes) const {
  for (const WeightChange& c : changes)
    if (c.plastic >= size())
      throw std::invalid_argument("weight change for plastic connection " + std::to_string(c.plastic) + " of " +
                                  std::to_string(size()));
}

void PlasticEdges::check_all(const std::vector<int32_t>& values) const {
  if (values.size() != size())
    throw std::invalid_argument("engine state holds " + std::to_string(values.size()) + " plastic weights, the engine " +
                                std::to_string(size()));
  for (std::size_t p = 0; p < values.size(); ++p)
    if (values[p] != 0 && (values[p] < 0) != ((*network_weights_)[(*edges_)[p]] < 0))
      throw std::invalid_argument("engine state: plastic connection " + std::to_string(p) + " has the wrong sign");
}

std::vector<int32_t> PlasticEdges::gather(const int32_t* weights) const {
  std::vector<int32_t> values(size());
  for (std::size_t p = 0; p < values.size(); ++p) values[p] = weights[(*edges_)[p]];
  return values;
}

}  // namespace flysim
