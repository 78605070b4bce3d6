#include "kernels/cpu/cpu_trial.hpp"

#include <algorithm>
#include <atomic>

#include "kernels/cpu/thread_pool.hpp"

namespace flysim {

CpuTrial::CpuTrial(std::size_t neurons, int32_t delay_steps, unsigned workers)
    : n_(neurons),
      rest_last_spike_(neurons, kNeverSpiked),
      listed_(neurons, 0),
      synaptic_slots_(neurons, 0),
      kick_steps_(neurons, 0),
      ring_(static_cast<std::size_t>(delay_steps) * neurons, 0),
      worker_joined_(workers),
      worker_kept_(workers),
      worker_spikes_(workers) {}

bool CpuTrial::stays_active(const CpuShared& shared, const ActiveNeuron& a) const {
  return !kernels::at_rest(shared.constants, a.v, a.g) || a.poisson || synaptic_slots_[a.index];
}

bool CpuTrial::enlist(uint32_t i) {
  return std::atomic_ref<uint8_t>(listed_[i]).exchange(1, std::memory_order_relaxed) == 0;
}

void CpuTrial::join_active(const CpuShared& shared, std::vector<uint32_t>& joined) {
  if (joined.empty()) return;
  std::sort(joined.begin(), joined.end());
  merged_.clear();
  merged_.reserve(active_.size() + joined.size());
  auto a = active_.begin();
  for (uint32_t i : joined) {
    for (; a != active_.end() && a->index < i; ++a) merged_.push_back(*a);
    merged_.push_back({shared.constants.v0, 0.0, rest_last_spike_[i], i, shared.poisson[i]});
  }
  merged_.insert(merged_.end(), a, active_.end());
  active_.swap(merged_);
}

void CpuTrial::scatter(const CpuShared& shared, const std::vector<Spike>& spikes, int32_t first_delivery,
                       const RunWorkers& run) {
  const Network& net = shared.network;
  const LifConstants& c = shared.constants;
  const std::size_t d = static_cast<std::size_t>(c.delay_steps);
  for (auto& joined : worker_joined_) joined.clear();
  run([&](unsigned w, unsigned workers) {
    std::vector<uint32_t>& joined = worker_joined_[w];
    const auto [begin, end] = share_of(spikes.size(), w, workers);
    for (std::size_t s = begin; s < end; ++s) {
      if (kernels::already_delivered(c, spikes[s], first_delivery)) continue;
      const int32_t slot = kernels::delivery_slot(c, spikes[s].step);
      const uint32_t flag = 1u << slot;
      for (uint64_t e = net.out_offsets[spikes[s].neuron]; e < net.out_offsets[spikes[s].neuron + 1]; ++e) {
        const uint32_t post = net.out_targets[e];
        std::atomic_ref<int64_t>(ring_[post * d + slot]).fetch_add(shared.weights[e], std::memory_order_relaxed);
        if (std::atomic_ref<uint32_t>(synaptic_slots_[post]).fetch_or(flag, std::memory_order_relaxed) == 0 &&
            !listed_[post] && enlist(post))
          joined.push_back(post);
      }
    }
  });
  std::vector<uint32_t>& all = worker_joined_[0];
  for (std::size_t w = 1; w < worker_joined_.size(); ++w) all.insert(all.end(), worker_joined_[w].begin(), worker_joined_[w].end());
  join_active(shared, all);
}

std::vector<Spike> CpuTrial::advance(const CpuShared& shared, kernels::EpochSpan span, const RunWorkers& run) {
  const LifConstants& c = shared.constants;
  check_span(span, next_step_, c.delay_steps);
  if (span.first % c.delay_steps == 0) scatter(shared, queue_.begin_cell(), span.first, run);

  std::vector<uint32_t>& kicked = worker_joined_[0];
  kicked.clear();
  const kernels::KickRange kicks = kernels::kicks_in(shared.stimulus.kicks, span);
  for (auto k = kicks.first; k != kicks.last; ++k) {
    kick_steps_[k->neuron] |= 1u << (k->step - span.first);
    if (enlist(k->neuron)) kicked.push_back(k->neuron);
  }
  join_active(shared, kicked);

  const kernels::RngKey key = kernels::rng_key(shared.stimulus.seed, trial_);
  const uint32_t consumed = kernels::consumed_slots(c, span);
  for (auto& out : worker_spikes_) out.clear();
  for (auto& kept : worker_kept_) kept.clear();
  run([&](unsigned w, unsigned workers) {
    std::vector<Spike>& out = worker_spikes_[w];
    std::vector<ActiveNeuron>& kept = worker_kept_[w];
    const auto [begin, end] = share_of(active_.size(), w, workers);
    for (std::size_t k = begin; k < end; ++k) {
      ActiveNeuron a = active_[k];
      const uint32_t i = a.index;
      const kernels::NeuronInputs in{synaptic_slots_[i], kick_steps_[i], a.poisson != 0};
      kernels::advance_neuron(c, i, span, in, key, ring_.data() + std::size_t{i} * c.delay_steps, 1, a.v, a.g,
                              a.last_spike, [&](int32_t step) { out.push_back({step, i}); });
      synaptic_slots_[i] &= ~consumed;
      kick_steps_[i] = 0;
      if (stays_active(shared, a)) {
        kept.push_back(a);
      } else {
        rest_last_spike_[i] = a.last_spike;
        listed_[i] = 0;
      }
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

EngineState CpuTrial::export_state(const CpuShared& shared) const {
  EngineState s;
  s.trial = trial_;
  s.next_step = next_step_;
  s.v.assign(n_, shared.constants.v0);
  s.g.assign(n_, 0.0);
  s.last_spike = rest_last_spike_;
  for (const ActiveNeuron& a : active_) {
    s.v[a.index] = a.v;
    s.g[a.index] = a.g;
    s.last_spike[a.index] = a.last_spike;
  }
  s.pending = queue_.undelivered(next_step_, shared.constants.delay_steps);
  return s;
}

void CpuTrial::reflag_poisson(const CpuShared& shared) {
  // The sweep visits listed neurons only, and a Poisson-driven neuron must be visited
  // every epoch even at rest: list the new ones. Listed neurons take their new flag; one
  // that is no longer driven leaves the list once at rest (stays_active), as after an
  // import of this state into an engine built with the new plan.
  for (ActiveNeuron& a : active_) a.poisson = shared.poisson[a.index];
  std::vector<uint32_t>& joined = worker_joined_[0];
  joined.clear();
  for (uint32_t i : shared.stimulus.poisson_neurons)
    if (enlist(i)) joined.push_back(i);
  join_active(shared, joined);
}

void CpuTrial::import_state(const CpuShared& shared, const EngineState& s, const RunWorkers& run) {
  trial_ = s.trial;
  next_step_ = s.next_step;
  std::fill(ring_.begin(), ring_.end(), 0);
  std::fill(synaptic_slots_.begin(), synaptic_slots_.end(), 0u);
  std::fill(kick_steps_.begin(), kick_steps_.end(), 0u);
  active_.clear();
  for (std::size_t i = 0; i < n_; ++i) {
    const uint32_t index = static_cast<uint32_t>(i);
    rest_last_spike_[i] = s.last_spike[i];
    const ActiveNeuron a{s.v[i], s.g[i], s.last_spike[i], index, shared.poisson[i]};
    listed_[i] = stays_active(shared, a);
    if (listed_[i]) active_.push_back(a);
  }
  // Mid-cell, the previous cell's spikes are still being delivered: scatter what is
  // left of them (deliveries before next_step happened already).
  scatter(shared, queue_.restore(s.pending, s.next_step, shared.constants.delay_steps), s.next_step, run);
}

}  // namespace flysim
