#include "kernels/stdp/stdp_shard.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace flysim::stdp {

StdpShard::StdpShard(ShardSetup setup)
    : shard_(setup.shard),
      shards_(setup.shards),
      rule_(std::move(setup.rule)),
      c_(std::move(setup.connections)),
      trial_(setup.trial),
      pre_(std::move(setup.pre)),
      post_(std::move(setup.post)) {
  const uint32_t n = setup.neurons;
  const std::size_t m = c_.plastic.size();
  if (pre_.value.size() != n || post_.value.size() != n || pre_.step.size() != n || post_.step.size() != n)
    throw std::invalid_argument("shard setup: traces for " + std::to_string(pre_.value.size()) + " neurons, network " +
                                std::to_string(n));
  if (c_.pre.size() != m || c_.post.size() != m || c_.weight.size() != m || c_.inhibitory.size() != m)
    throw std::invalid_argument("shard setup: connection columns of different lengths");
  out_offsets_.assign(n + 1, 0);
  in_offsets_.assign(n + 1, 0);
  for (std::size_t k = 0; k < m; ++k) {
    if (c_.pre[k] >= n || c_.post[k] >= n || owner_shard(c_.post[k], shards_) != shard_ ||
        (k > 0 && c_.plastic[k] <= c_.plastic[k - 1]))
      throw std::invalid_argument("shard setup: connection " + std::to_string(c_.plastic[k]) + " is not this shard's");
    ++out_offsets_[c_.pre[k] + 1];
    ++in_offsets_[c_.post[k] + 1];
  }
  for (uint32_t i = 0; i < n; ++i) {
    out_offsets_[i + 1] += out_offsets_[i];
    in_offsets_[i + 1] += in_offsets_[i];
  }
  // Connections are sorted by pre already (plastic order), so the out-lists are the
  // local indices themselves; the in-lists are a counting sort by post.
  in_list_.resize(m);
  std::vector<uint32_t> fill(in_offsets_.begin(), in_offsets_.end() - 1);
  for (uint32_t k = 0; k < m; ++k) in_list_[fill[c_.post[k]]++] = k;
  changed_.assign(m, 0);
}

void StdpShard::change(uint32_t local, int32_t weight) {
  if (weight == c_.weight[local]) return;
  c_.weight[local] = weight;
  if (!changed_[local]) {
    changed_[local] = 1;
    changed_list_.push_back(local);
  }
}

// Within one step: presynaptic spikes depress with the postsynaptic traces as they were
// before the step, postsynaptic spikes potentiate with the presynaptic traces as they
// were before the step, then the step's spikes add to the traces. A pre and post spike
// in the same step thus do not pair, and the order of neurons within a step does not
// matter; each connection sees its events in time order, whichever shard owns it.
void StdpShard::observe_step(int32_t step, const Spike* first, const Spike* last) {
  for (const Spike* s = first; s != last; ++s)
    for (uint32_t k = out_offsets_[s->neuron]; k < out_offsets_[s->neuron + 1]; ++k) {
      const uint32_t post = c_.post[k];
      const double y = trace_at(rule_.post_decay, post_.value[post], post_.step[post], step);
      if (y != 0.0) change(k, step_weight(c_.weight[k], c_.inhibitory[k] != 0, -pairing_units(rule_.a_minus, y), rule_.w_min, rule_.w_max));
    }
  for (const Spike* s = first; s != last; ++s)
    for (uint32_t q = in_offsets_[s->neuron]; q < in_offsets_[s->neuron + 1]; ++q) {
      const uint32_t k = in_list_[q];
      const uint32_t pre = c_.pre[k];
      const double x = trace_at(rule_.pre_decay, pre_.value[pre], pre_.step[pre], step);
      if (x != 0.0) change(k, step_weight(c_.weight[k], c_.inhibitory[k] != 0, pairing_units(rule_.a_plus, x), rule_.w_min, rule_.w_max));
    }
  for (const Spike* s = first; s != last; ++s) {
    const uint32_t i = s->neuron;
    pre_.value[i] = trace_at(rule_.pre_decay, pre_.value[i], pre_.step[i], step) + 1.0;
    pre_.step[i] = step;
    post_.value[i] = trace_at(rule_.post_decay, post_.value[i], post_.step[i], step) + 1.0;
    post_.step[i] = step;
  }
}

void StdpShard::observe(int32_t trial, const std::vector<Spike>& spikes) {
  if (trial != trial_) {
    trial_ = trial;
    pre_ = empty_traces(pre_.value.size());
    post_ = empty_traces(post_.value.size());
  }
  const uint32_t n = static_cast<uint32_t>(pre_.value.size());
  for (const Spike& s : spikes)
    if (s.neuron >= n) throw std::invalid_argument("spike of neuron " + std::to_string(s.neuron) + " in a network of " + std::to_string(n));
  for (std::size_t a = 0; a < spikes.size();) {
    std::size_t b = a;
    while (b < spikes.size() && spikes[b].step == spikes[a].step) ++b;
    observe_step(spikes[a].step, spikes.data() + a, spikes.data() + b);
    a = b;
  }
}

std::vector<WeightChange> StdpShard::flush() {
  std::sort(changed_list_.begin(), changed_list_.end());
  std::vector<WeightChange> changes;
  changes.reserve(changed_list_.size());
  for (uint32_t k : changed_list_) {
    changes.push_back({c_.plastic[k], c_.weight[k]});
    changed_[k] = 0;
  }
  changed_list_.clear();
  return changes;
}

ShardState StdpShard::state() const {
  ShardState s;
  s.trial = trial_;
  s.pre = pre_;
  s.post = post_;
  s.weights.reserve(c_.plastic.size());
  for (std::size_t k = 0; k < c_.plastic.size(); ++k) s.weights.push_back({c_.plastic[k], c_.weight[k]});
  return s;
}

}  // namespace flysim::stdp
