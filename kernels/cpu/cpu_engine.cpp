#include "kernels/cpu/cpu_engine.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace flysim {

CpuEngine::CpuEngine(EngineSetup setup, unsigned threads)
    : setup_(std::move(setup)), n_(setup_.network->neuron_count()), pool_(threads) {
  ring_.assign(static_cast<std::size_t>(setup_.constants.delay_steps) * n_, 0);
  neurons_.assign(n_, NeuronRecord{});
  for (uint32_t i : setup_.stimulus->poisson_neurons) neurons_.at(i).poisson = 1;
  worker_spikes_.resize(threads);
  worker_joined_.resize(threads);
  worker_kept_.resize(threads);
  import_state(resting_state(n_, setup_.constants.v0, 0));
}

std::string CpuEngine::describe() const {
  return "cpu pool, " + std::to_string(pool_.size()) + (pool_.size() == 1 ? " thread" : " threads");
}

kernels::RngKey CpuEngine::rng_key() const {
  const uint64_t seed = setup_.stimulus->seed;
  return {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(trial_)};
}

bool CpuEngine::stays_active(const NeuronRecord& r) const {
  return !kernels::at_rest(setup_.constants, r.v, r.g) || r.poisson || r.synaptic_slots;
}

void CpuEngine::enlist(uint32_t i, std::vector<uint32_t>& joined) {
  if (std::atomic_ref<uint8_t>(neurons_[i].listed).exchange(1, std::memory_order_relaxed) == 0) joined.push_back(i);
}

void CpuEngine::join_active(std::vector<uint32_t>& joined) {
  // Kept in index order: the sweep then walks memory forwards, which the prefetcher
  // follows (in scattered order every neuron costs cache misses).
  std::sort(joined.begin(), joined.end());
  const auto middle = static_cast<std::ptrdiff_t>(active_.size());
  active_.insert(active_.end(), joined.begin(), joined.end());
  std::inplace_merge(active_.begin(), active_.begin() + middle, active_.end());
}

void CpuEngine::rebuild_active() {
  active_.clear();
  for (std::size_t i = 0; i < n_; ++i) {
    neurons_[i].listed = stays_active(neurons_[i]);
    if (neurons_[i].listed) active_.push_back(static_cast<uint32_t>(i));
  }
}

void CpuEngine::scatter(const std::vector<Spike>& spikes, int32_t first_delivery) {
  const Network& net = *setup_.network;
  const LifConstants& c = setup_.constants;
  const std::size_t d = static_cast<std::size_t>(c.delay_steps);
  pool_.run([&](unsigned w, unsigned workers) {
    std::vector<uint32_t>& joined = worker_joined_[w];
    joined.clear();
    const auto [begin, end] = share_of(spikes.size(), w, workers);
    for (std::size_t s = begin; s < end; ++s) {
      if (spikes[s].step + c.delay_steps < first_delivery) continue;
      const int32_t slot = kernels::delivery_slot(c, spikes[s].step);
      const uint32_t flag = 1u << slot;
      for (uint64_t e = net.out_offsets[spikes[s].neuron]; e < net.out_offsets[spikes[s].neuron + 1]; ++e) {
        const uint32_t post = net.out_targets[e];
        std::atomic_ref<int64_t>(ring_[post * d + slot]).fetch_add(net.out_weights[e], std::memory_order_relaxed);
        NeuronRecord& r = neurons_[post];
        if (std::atomic_ref<uint32_t>(r.synaptic_slots).fetch_or(flag, std::memory_order_relaxed) == 0 && !r.listed)
          enlist(post, joined);
      }
    }
  });
  for (auto& joined : worker_joined_) join_active(joined);
}

std::vector<Spike> CpuEngine::advance(kernels::EpochSpan span) {
  const LifConstants& c = setup_.constants;
  check_span(span, next_step_, c.delay_steps);
  if (span.first % c.delay_steps == 0) scatter(queue_.begin_cell(), span.first);

  const auto& kicks = setup_.stimulus->kicks;
  const auto kick_begin = std::lower_bound(kicks.begin(), kicks.end(), span.first,
                                           [](const Kick& k, int32_t step) { return k.step < step; });
  auto kick_end = kick_begin;
  std::vector<uint32_t>& kicked = worker_joined_[0];
  kicked.clear();
  for (; kick_end != kicks.end() && kick_end->step < span.first + span.steps; ++kick_end) {
    neurons_[kick_end->neuron].kick_steps |= 1u << (kick_end->step - span.first);
    enlist(kick_end->neuron, kicked);
  }
  join_active(kicked);

  const kernels::RngKey key = rng_key();
  const uint32_t first_slot = static_cast<uint32_t>(span.first % c.delay_steps);
  const uint32_t consumed = static_cast<uint32_t>(((uint64_t{1} << span.steps) - 1) << first_slot);
  pool_.run([&](unsigned w, unsigned workers) {
    std::vector<Spike>& out = worker_spikes_[w];
    std::vector<uint32_t>& kept = worker_kept_[w];
    out.clear();
    kept.clear();
    const auto [begin, end] = share_of(active_.size(), w, workers);
    for (std::size_t a = begin; a < end; ++a) {
      const uint32_t i = active_[a];
      NeuronRecord& r = neurons_[i];
      const kernels::NeuronInputs in{r.synaptic_slots, r.kick_steps, r.poisson != 0};
      kernels::advance_neuron(c, i, span, in, key, ring_.data() + std::size_t{i} * c.delay_steps, 1, r.v, r.g,
                              r.last_spike, [&](int32_t step) { out.push_back({step, i}); });
      r.synaptic_slots &= ~consumed;
      r.kick_steps = 0;
      if (stays_active(r))
        kept.push_back(i);
      else
        r.listed = 0;
    }
  });
  active_.clear();
  for (const auto& kept : worker_kept_) active_.insert(active_.end(), kept.begin(), kept.end());

  std::vector<Spike> spikes;
  for (const auto& out : worker_spikes_) spikes.insert(spikes.end(), out.begin(), out.end());
  std::sort(spikes.begin(), spikes.end());
  queue_.record(spikes);
  next_step_ = span.first + span.steps;
  return spikes;
}

EngineState CpuEngine::export_state() const {
  EngineState s;
  s.trial = trial_;
  s.next_step = next_step_;
  s.v.resize(n_);
  s.g.resize(n_);
  s.last_spike.resize(n_);
  for (std::size_t i = 0; i < n_; ++i) {
    s.v[i] = neurons_[i].v;
    s.g[i] = neurons_[i].g;
    s.last_spike[i] = neurons_[i].last_spike;
  }
  s.pending = queue_.undelivered(next_step_, setup_.constants.delay_steps);
  return s;
}

void CpuEngine::import_state(const EngineState& s) {
  if (s.v.size() != n_ || s.g.size() != n_ || s.last_spike.size() != n_)
    throw std::invalid_argument("engine state holds " + std::to_string(s.v.size()) + " neurons, the network " +
                                std::to_string(n_));
  trial_ = s.trial;
  next_step_ = s.next_step;
  for (std::size_t i = 0; i < n_; ++i) {
    NeuronRecord& r = neurons_[i];
    r.v = s.v[i];
    r.g = s.g[i];
    r.last_spike = s.last_spike[i];
    r.synaptic_slots = 0;
    r.kick_steps = 0;
  }
  std::fill(ring_.begin(), ring_.end(), 0);
  rebuild_active();
  // Mid-cell, the previous cell's spikes are still being delivered: scatter what is
  // left of them (deliveries before next_step happened already).
  scatter(queue_.restore(s.pending, s.next_step, setup_.constants.delay_steps), s.next_step);
}

}  // namespace flysim
