#include "kernels/stdp/stdp_shard.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace flysim::stdp {

StdpShard::StdpShard(ShardSetup setup)
    : shard_(setup.shard),
      shards_(setup.shards),
      rule_(std::move(setup.rule)),
      plastic_(std::move(setup.connections.plastic)),
      post_of_(std::move(setup.connections.post)),
      trial_(setup.trial),
      pre_(packed(setup.pre)),
      post_(packed(setup.post)) {
  if (shards_ < 1 || shard_ >= shards_)
    throw std::invalid_argument("shard setup: shard " + std::to_string(shard_) + " of " + std::to_string(shards_));
  check_rule(rule_);
  // A setup can come from another process: every trace must be one the rule can read.
  for (const std::vector<Trace>* traces : {&pre_, &post_})
    for (const Trace& t : *traces) {
      if (!(t.value >= 0 && t.value <= kMaxTraceValue) || (t.step != kNeverSpiked && t.step < 0))
        throw std::invalid_argument("shard setup: a trace of " + std::to_string(t.value) + " at step " + std::to_string(t.step));
      if (t.step != kNeverSpiked) latest_step_ = std::max(latest_step_, t.step);
    }
  const uint32_t n = setup.neurons;
  const ShardConnections& c = setup.connections;
  const std::size_t m = plastic_.size();
  if (pre_.size() != n || post_.size() != n || setup.pre.step.size() != n || setup.post.step.size() != n)
    throw std::invalid_argument("shard setup: traces for " + std::to_string(pre_.size()) + " neurons, network " +
                                std::to_string(n));
  if (c.pre.size() != m || post_of_.size() != m || c.weight.size() != m || c.inhibitory.size() != m)
    throw std::invalid_argument("shard setup: connection columns of different lengths");
  out_offsets_.assign(n + 1, 0);
  in_offsets_.assign(n + 1, 0);
  synapses_.resize(m);
  for (std::size_t k = 0; k < m; ++k) {
    if (c.pre[k] >= n || post_of_[k] >= n || owner_shard(post_of_[k], shards_) != shard_ ||
        (k > 0 && plastic_[k] <= plastic_[k - 1]) || (c.pre[k] < (k > 0 ? c.pre[k - 1] : 0)))
      throw std::invalid_argument("shard setup: connection " + std::to_string(plastic_[k]) + " is not this shard's");
    synapses_[k] = {c.weight[k], c.inhibitory[k], 0};
    ++out_offsets_[c.pre[k] + 1];
    ++in_offsets_[post_of_[k] + 1];
  }
  for (uint32_t i = 0; i < n; ++i) {
    out_offsets_[i + 1] += out_offsets_[i];
    in_offsets_[i + 1] += in_offsets_[i];
  }
  // Connections are sorted by pre already (plastic order), so the out-lists are the
  // local indices themselves; the in-lists are a counting sort by post.
  in_list_.resize(m);
  in_pre_.resize(m);
  std::vector<uint32_t> fill(in_offsets_.begin(), in_offsets_.end() - 1);
  for (uint32_t k = 0; k < m; ++k) {
    const uint32_t q = fill[post_of_[k]]++;
    in_list_[q] = k;
    in_pre_[q] = c.pre[k];
  }
}

void StdpShard::check_rule(const StdpRule& r) {
  if (!(r.a_plus >= 0 && r.a_plus <= kMaxAmplitude && r.a_minus >= 0 && r.a_minus <= kMaxAmplitude))
    throw std::invalid_argument("shard setup: amplitudes outside 0..1e9 units");
  if (!(r.w_min >= 0 && r.w_min <= r.w_max)) throw std::invalid_argument("shard setup: weight bounds out of order");
  for (const std::vector<double>* table : {&r.pre_decay, &r.post_decay})
    for (double d : *table)
      if (!(d >= 0 && d <= 1)) throw std::invalid_argument("shard setup: a decay factor outside 0..1");
}

std::vector<StdpShard::Trace> StdpShard::packed(const Traces& t) {
  std::vector<Trace> p(t.value.size());
  for (std::size_t i = 0; i < p.size() && i < t.step.size(); ++i) p[i] = {t.value[i], t.step[i]};
  return p;
}

Traces StdpShard::unpacked(const std::vector<Trace>& t) {
  Traces u;
  u.value.reserve(t.size());
  u.step.reserve(t.size());
  for (const Trace& x : t) {
    u.value.push_back(x.value);
    u.step.push_back(x.step);
  }
  return u;
}

// One pairing on local connection k: |w| moves by sign * round(amplitude * trace).
void StdpShard::pair(uint32_t k, double trace, double amplitude, int64_t sign) {
  Synapse& s = synapses_[k];
  const int32_t w = step_weight(s.weight, s.inhibitory != 0, sign * pairing_units(amplitude, trace), rule_.w_min, rule_.w_max);
  if (w == s.weight) return;
  s.weight = w;
  if (!s.changed) {
    s.changed = 1;
    changed_list_.push_back(k);
  }
}

// Within one step: presynaptic spikes depress with the postsynaptic traces as they were
// before the step, postsynaptic spikes potentiate with the presynaptic traces as they
// were before the step, then the step's spikes add to the traces. A pre and post spike
// in the same step thus do not pair, and the order of neurons within a step does not
// matter; each connection sees its events in time order, whichever shard owns it.
//
// The loops fetch what they will touch kPrefetch connections ahead: a hub's
// connections hit traces and synapses all over memory, and with the fetches in flight
// together the misses overlap instead of queueing (measured: docs/BENCHMARKS.md).
void StdpShard::observe_step(int32_t step, const Spike* first, const Spike* last) {
  constexpr uint32_t kPrefetch = 8;
  for (const Spike* s = first; s != last; ++s) {
    const uint32_t end = out_offsets_[s->neuron + 1];
    for (uint32_t k = out_offsets_[s->neuron]; k < end; ++k) {
      if (k + kPrefetch < end) __builtin_prefetch(&post_[post_of_[k + kPrefetch]]);
      const Trace& t = post_[post_of_[k]];
      const double y = trace_at(rule_.post_decay, t.value, t.step, step);
      if (y != 0.0) pair(k, y, rule_.a_minus, -1);
    }
  }
  for (const Spike* s = first; s != last; ++s) {
    const uint32_t end = in_offsets_[s->neuron + 1];
    for (uint32_t q = in_offsets_[s->neuron]; q < end; ++q) {
      if (q + kPrefetch < end) {
        __builtin_prefetch(&pre_[in_pre_[q + kPrefetch]]);
        __builtin_prefetch(&synapses_[in_list_[q + kPrefetch]]);
      }
      const Trace& t = pre_[in_pre_[q]];
      const double x = trace_at(rule_.pre_decay, t.value, t.step, step);
      if (x != 0.0) pair(in_list_[q], x, rule_.a_plus, +1);
    }
  }
  for (const Spike* s = first; s != last; ++s) {
    Trace& pre = pre_[s->neuron];
    pre = {trace_at(rule_.pre_decay, pre.value, pre.step, step) + 1.0, step};
    Trace& post = post_[s->neuron];
    post = {trace_at(rule_.post_decay, post.value, post.step, step) + 1.0, step};
  }
}

void StdpShard::observe(int32_t trial, const std::vector<Spike>& spikes) {
  // Checked before anything changes. A step before a trace's step would read the decay
  // table at a negative age (out of bounds): epochs come in order, sorted by step.
  const uint32_t n = static_cast<uint32_t>(pre_.size());
  int32_t earliest = trial == trial_ ? std::max(latest_step_, 0) : 0;
  for (const Spike& s : spikes) {
    if (s.neuron >= n) throw std::invalid_argument("spike of neuron " + std::to_string(s.neuron) + " in a network of " + std::to_string(n));
    if (s.step < earliest)
      throw std::invalid_argument("spike at step " + std::to_string(s.step) + " of trial " + std::to_string(trial) +
                                  " after step " + std::to_string(earliest) + ": spikes must come in step order");
    earliest = s.step;
  }
  if (trial != trial_) {
    trial_ = trial;
    pre_.assign(pre_.size(), Trace{0.0, kNeverSpiked});
    post_.assign(post_.size(), Trace{0.0, kNeverSpiked});
    latest_step_ = kNeverSpiked;
  }
  if (!spikes.empty()) latest_step_ = spikes.back().step;
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
    changes.push_back({plastic_[k], synapses_[k].weight});
    synapses_[k].changed = 0;
  }
  changed_list_.clear();
  return changes;
}

ShardState StdpShard::state() const {
  ShardState s;
  s.trial = trial_;
  s.pre = unpacked(pre_);
  s.post = unpacked(post_);
  s.weights.reserve(plastic_.size());
  for (std::size_t k = 0; k < plastic_.size(); ++k) s.weights.push_back({plastic_[k], synapses_[k].weight});
  return s;
}

}  // namespace flysim::stdp
