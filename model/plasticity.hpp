#pragma once
// Plasticity as plain data: the STDP parameters, which connections are plastic, the
// weight changes the engine applies, and the learned state a checkpoint holds. The
// rule itself is kernels/stdp/; the design note is kernels/stdp/README.md.
#include <cstdint>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace flysim {

// Pair-based STDP with exponential traces (kernels/stdp/README.md). Weights and
// amplitudes are in the engine's fixed-point units (kUnitsPerSynapse per synapse).
struct StdpParams {
  double a_plus = 655.0;        // units added per pre-before-post pairing at trace 1
  double a_minus = 688.0;       // units removed per post-before-pre pairing at trace 1
  double tau_plus_ms = 16.8;    // presynaptic trace time constant
  double tau_minus_ms = 33.7;   // postsynaptic trace time constant
  int32_t w_min = 0;            // bounds of a plastic connection's magnitude |w|, units
  int32_t w_max = 6553600;
  int32_t period_steps = 180;   // a plasticity period (18 ms at the default dt); a multiple of the delay cell
  friend bool operator==(const StdpParams&, const StdpParams&) = default;
};

// Which connections are plastic: all, or the excitatory ones, optionally narrowed to
// presynaptic and postsynaptic neuron sets (model indices; empty = every neuron).
struct PlasticSelection {
  bool excitatory_only = false;
  std::vector<uint32_t> pre;
  std::vector<uint32_t> post;
};

// The edges (indices into Network::out_targets) that are plastic, ascending. The
// position of an edge in this list is its plastic index, the shard-independent name
// that weight changes, shards and checkpoints use.
std::vector<uint64_t> select_plastic_edges(const Network& net, const PlasticSelection& selection);

// The presynaptic neuron of each edge of `edges` (ascending edge indices).
std::vector<uint32_t> presynaptic_of(const Network& net, const std::vector<uint64_t>& edges);

// One learned weight: plastic index and its new signed weight in fixed-point units.
struct WeightChange {
  uint32_t plastic = 0;
  int32_t weight = 0;
  friend bool operator==(const WeightChange&, const WeightChange&) = default;
};

// A trace as the rule keeps it: its value just after `step` (kNeverSpiked: never).
struct Traces {
  std::vector<double> value;
  std::vector<int32_t> step;
  friend bool operator==(const Traces&, const Traces&) = default;
};

template <class F>
decltype(auto) fields(Traces& x, F&& f) {
  return f(x.value, x.step);
}

// Every neuron's traces at rest: 0, never spiked.
Traces empty_traces(std::size_t neurons);

// What the observers have learned at a plasticity-period boundary, in a layout that
// does not depend on the shard count: per neuron traces, per plastic index weights.
// The engine's own (lagging) weights travel in EngineState::plastic_weights.
struct PlasticityState {
  std::string settings;          // describe_plasticity(): must match to restore
  int32_t trial = 0;             // the traces belong to this trial
  Traces pre, post;              // presynaptic (tau+) and postsynaptic (tau-) traces
  std::vector<int32_t> learned;  // per plastic index, signed units
  friend bool operator==(const PlasticityState&, const PlasticityState&) = default;
};

template <class F>
decltype(auto) fields(PlasticityState& x, F&& f) {
  return f(x.settings, x.trial, x.pre, x.post, x.learned);
}

// A line naming every setting that changes what is learned, for logs and checkpoints
// (the edge list enters as a hash: two selections that pick the same edges agree).
std::string describe_plasticity(const StdpParams& p, const std::vector<uint64_t>& plastic_edges);

}  // namespace flysim
