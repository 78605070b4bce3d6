#include "kernels/cpu/cpu_engine.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace flysim {

CpuEngine::CpuEngine(EngineSetup setup, unsigned threads)
    : setup_(std::move(setup)), n_(setup_.network->neuron_count()), pool_(threads) {
  ring_.assign(static_cast<std::size_t>(setup_.constants.delay_steps) * n_, 0);
  synaptic_slots_.assign(n_, 0);
  kick_steps_.assign(n_, 0);
  poisson_.assign(n_, 0);
  for (uint32_t i : setup_.stimulus->poisson_neurons) poisson_.at(i) = 1;
  listed_.assign(n_, 0);
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

void CpuEngine::enlist(uint32_t i, std::vector<uint32_t>& joined) {
  if (std::atomic_ref<uint8_t>(listed_[i]).exchange(1, std::memory_order_relaxed) == 0) joined.push_back(i);
}

void CpuEngine::rebuild_active() {
  active_.clear();
  std::fill(listed_.begin(), listed_.end(), 0);
  for (std::size_t i = 0; i < n_; ++i)
    if (!kernels::at_rest(setup_.constants, v_[i], g_[i]) || poisson_[i] || synaptic_slots_[i]) {
      active_.push_back(static_cast<uint32_t>(i));
      listed_[i] = 1;
    }
}

void CpuEngine::scatter(const std::vector<Spike>& spikes, int32_t first_delivery) {
  const Network& net = *setup_.network;
  const LifConstants& c = setup_.constants;
  pool_.run([&](unsigned w, unsigned workers) {
    std::vector<uint32_t>& joined = worker_joined_[w];
    joined.clear();
    const auto [begin, end] = share_of(spikes.size(), w, workers);
    for (std::size_t s = begin; s < end; ++s) {
      if (spikes[s].step + c.delay_steps < first_delivery) continue;
      const int32_t slot = kernels::delivery_slot(c, spikes[s].step);
      const std::size_t d = static_cast<std::size_t>(c.delay_steps);
      const uint32_t flag = 1u << slot;
      for (uint64_t e = net.out_offsets[spikes[s].neuron]; e < net.out_offsets[spikes[s].neuron + 1]; ++e) {
        const uint32_t post = net.out_targets[e];
        std::atomic_ref<int64_t>(ring_[post * d + slot]).fetch_add(net.out_weights[e], std::memory_order_relaxed);
        if (std::atomic_ref<uint32_t>(synaptic_slots_[post]).fetch_or(flag, std::memory_order_relaxed) == 0 && !listed_[post])
          enlist(post, joined);
      }
    }
  });
  for (auto& joined : worker_joined_) join_active(joined);
}

void CpuEngine::join_active(std::vector<uint32_t>& joined) {
  // Kept in index order: the sweep then walks the state arrays forwards, which the
  // prefetcher follows (in scattered order every neuron costs a few cache misses).
  std::sort(joined.begin(), joined.end());
  const auto middle = static_cast<std::ptrdiff_t>(active_.size());
  active_.insert(active_.end(), joined.begin(), joined.end());
  std::inplace_merge(active_.begin(), active_.begin() + middle, active_.end());
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
    kick_steps_[kick_end->neuron] |= 1u << (kick_end->step - span.first);
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
      const kernels::NeuronInputs in{synaptic_slots_[i], kick_steps_[i], poisson_[i] != 0};
      kernels::advance_neuron(c, i, span, in, key, ring_.data() + std::size_t{i} * c.delay_steps, 1, v_[i], g_[i], last_spike_[i],
                              [&](int32_t step) { out.push_back({step, i}); });
      synaptic_slots_[i] &= ~consumed;
      if (!kernels::at_rest(c, v_[i], g_[i]) || in.poisson || synaptic_slots_[i])
        kept.push_back(i);
      else
        listed_[i] = 0;
    }
  });
  for (auto k = kick_begin; k != kick_end; ++k) kick_steps_[k->neuron] = 0;
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
  s.v = v_;
  s.g = g_;
  s.last_spike = last_spike_;
  s.pending = queue_.undelivered(next_step_, setup_.constants.delay_steps);
  return s;
}

void CpuEngine::import_state(const EngineState& s) {
  if (s.v.size() != n_ || s.g.size() != n_ || s.last_spike.size() != n_)
    throw std::invalid_argument("engine state holds " + std::to_string(s.v.size()) + " neurons, the network " +
                                std::to_string(n_));
  trial_ = s.trial;
  next_step_ = s.next_step;
  v_ = s.v;
  g_ = s.g;
  last_spike_ = s.last_spike;
  std::fill(ring_.begin(), ring_.end(), 0);
  std::fill(synaptic_slots_.begin(), synaptic_slots_.end(), 0u);
  rebuild_active();
  // Mid-cell, the previous cell's spikes are still being delivered: scatter what is
  // left of them (deliveries before next_step happened already).
  scatter(queue_.restore(s.pending, s.next_step, setup_.constants.delay_steps), s.next_step);
}

}  // namespace flysim
