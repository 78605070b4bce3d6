#include "plain_engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/epoch_rules.hpp"
#include "kernels/lif.hpp"

namespace flysim::test {

PlainEngine::PlainEngine(const EngineSetup& setup)
    : setup_(setup),
      n_(setup.network->neuron_count()),
      v_(n_, setup.constants.v0),
      g_(n_, 0.0),
      last_spike_(n_, kNeverSpiked),
      ring_(n_ * static_cast<std::size_t>(setup.constants.delay_steps), 0),
      synaptic_slots_(n_, 0) {}

bool PlainEngine::silenced(uint32_t neuron) const {
  const std::vector<uint32_t>& set = setup_.stimulus->silenced;
  return std::binary_search(set.begin(), set.end(), neuron);
}

std::vector<Spike> PlainEngine::advance(kernels::EpochSpan span) {
  const LifConstants& c = setup_.constants;
  const Network& net = *setup_.network;
  const auto d = static_cast<std::size_t>(c.delay_steps);
  if (span.first != next_step_) throw std::logic_error("PlainEngine: epochs must follow one another");
  // At a cell start, the previous cell's spikes reach their targets' ring slots.
  if (span.first % c.delay_steps == 0)
    for (const Spike& s : queue_.begin_cell()) {
      const int32_t slot = kernels::delivery_slot(c, s.step);
      for (uint64_t e = net.out_offsets[s.neuron]; e < net.out_offsets[s.neuron + 1]; ++e) {
        // Silencing as the reference model does it: the synapse stays, its weight is 0.
        const bool no_weight = silenced(s.neuron) ||
                              (setup_.stimulus->silence_mode == SilenceMode::both && silenced(net.out_targets[e]));
        ring_[net.out_targets[e] * d + slot] += no_weight ? 0 : net.out_weights[e];
        synaptic_slots_[net.out_targets[e]] |= 1u << slot;
      }
    }
  std::vector<uint32_t> kick_steps(n_, 0);
  const kernels::KickRange kicks = kernels::kicks_in(setup_.stimulus->kicks, span);
  for (auto k = kicks.first; k != kicks.last; ++k) kick_steps[k->neuron] |= 1u << (k->step - span.first);
  const std::vector<uint8_t> poisson = poisson_flags(*setup_.stimulus, n_);
  const std::vector<uint32_t> threshold = poisson_thresholds(*setup_.stimulus, c.poisson_threshold, n_);

  const kernels::RngKey key = kernels::rng_key(setup_.stimulus->seed, 0);
  const uint32_t consumed = kernels::consumed_slots(c, span);
  std::vector<Spike> spikes;
  for (uint32_t i = 0; i < n_; ++i) {
    const kernels::NeuronInputs in{synaptic_slots_[i], kick_steps[i], poisson[i] != 0};
    kernels::advance_neuron(c, threshold[i], i, span, in, key, ring_.data() + i * d, 1, v_[i], g_[i], last_spike_[i],
                            [&](int32_t step) { spikes.push_back({step, i}); });
    synaptic_slots_[i] &= ~consumed;
  }
  std::sort(spikes.begin(), spikes.end());
  queue_.record(spikes);
  next_step_ = span.first + span.steps;
  return spikes;
}

EngineState PlainEngine::export_state() const {
  EngineState s;
  s.next_step = next_step_;
  s.v = v_;
  s.g = g_;
  s.last_spike = last_spike_;
  s.pending = queue_.undelivered(next_step_, setup_.constants.delay_steps);
  return s;
}

}  // namespace flysim::test
