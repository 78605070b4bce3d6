#pragma once
#include <cstdint>
#include <tuple>

namespace flysim {

// One spike: the step it happened in and the model index of the neuron.
// Engines report spikes sorted by (step, neuron), the order of the determinism contract.
struct Spike {
  int32_t step;
  uint32_t neuron;
  friend bool operator==(const Spike&, const Spike&) = default;
  friend bool operator<(const Spike& a, const Spike& b) {
    return std::tie(a.step, a.neuron) < std::tie(b.step, b.neuron);
  }
};

// The one list of a type's fields, in order, for every serializer (CAF messages,
// Cereal checkpoints; model/FIELDS.md): fields(x, f) calls f(each field...).
template <class F>
decltype(auto) fields(Spike& x, F&& f) {
  return f(x.step, x.neuron);
}

}  // namespace flysim
