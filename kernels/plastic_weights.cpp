#include "kernels/plastic_weights.hpp"

#include <stdexcept>
#include <string>

namespace flysim {

PlasticWeights::PlasticWeights(std::shared_ptr<const std::vector<uint64_t>> edges, const std::vector<int32_t>& network_weights)
    : edges_(std::move(edges)) {
  if (!edges_) return;
  values_.reserve(edges_->size());
  inhibitory_.reserve(edges_->size());
  for (uint64_t e : *edges_) {
    if (e >= network_weights.size())
      throw std::invalid_argument("plastic edge " + std::to_string(e) + " is not in a network of " +
                                  std::to_string(network_weights.size()) + " connections");
    values_.push_back(network_weights[e]);
    inhibitory_.push_back(network_weights[e] < 0);
  }
}

void PlasticWeights::check(uint32_t plastic, int32_t weight) const {
  if (plastic >= values_.size())
    throw std::invalid_argument("weight change for plastic connection " + std::to_string(plastic) + " of " +
                                std::to_string(values_.size()));
  if ((weight < 0) != (inhibitory_[plastic] != 0) && weight != 0)
    throw std::invalid_argument("weight change would flip the sign of plastic connection " + std::to_string(plastic));
}

void PlasticWeights::apply(const std::vector<WeightChange>& changes) {
  for (const WeightChange& c : changes) check(c.plastic, c.weight);
  for (const WeightChange& c : changes) values_[c.plastic] = c.weight;
}

void PlasticWeights::assign(const std::vector<int32_t>& values) {
  if (values.size() != values_.size())
    throw std::invalid_argument("engine state holds " + std::to_string(values.size()) + " plastic weights, the engine " +
                                std::to_string(values_.size()));
  for (std::size_t p = 0; p < values.size(); ++p) check(static_cast<uint32_t>(p), values[p]);
  values_ = values;
}

}  // namespace flysim
