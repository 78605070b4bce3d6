#include "kernels/cpu/cpu_engine.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace flysim {

CpuEngine::CpuEngine(EngineSetup setup, unsigned threads)
    : setup_(std::move(setup)),
      n_(setup_.network->neuron_count()),
      pool_(threads),
      plastic_(setup_.plastic_edges, setup_.network->out_weights),
      weights_(setup_.network->out_weights.data()) {
  if (!plastic_.empty()) {
    own_weights_ = setup_.network->out_weights;
    weights_ = own_weights_.data();
  }
  check_stimulus(*setup_.stimulus, n_);
  ring_.assign(static_cast<std::size_t>(setup_.constants.delay_steps) * n_, 0);
  rest_last_spike_.assign(n_, kNeverSpiked);
  listed_.assign(n_, 0);
  poisson_.assign(n_, 0);
  synaptic_slots_.assign(n_, 0);
  kick_steps_.assign(n_, 0);
  flag_poisson();
  worker_spikes_.resize(threads);
  worker_joined_.resize(threads);
  worker_kept_.resize(threads);
  import_state(resting_state(n_, setup_.constants.v0, 0));
}

std::string CpuEngine::describe() const {
  return "cpu pool, " + std::to_string(pool_.size()) + (pool_.size() == 1 ? " thread" : " threads");
}

bool CpuEngine::stays_active(const ActiveNeuron& a) const {
  return !kernels::at_rest(setup_.constants, a.v, a.g) || a.poisson || synaptic_slots_[a.index];
}

void CpuEngine::flag_poisson() {
  std::fill(poisson_.begin(), poisson_.end(), 0);
  for (uint32_t i : setup_.stimulus->poisson_neurons) poisson_[i] = 1;
}

bool CpuEngine::enlist(uint32_t i) {
  return std::atomic_ref<uint8_t>(listed_[i]).exchange(1, std::memory_order_relaxed) == 0;
}

void CpuEngine::join_active(std::vector<uint32_t>& joined) {
  if (joined.empty()) return;
  std::sort(joined.begin(), joined.end());
  merged_.clear();
  merged_.reserve(active_.size() + joined.size());
  auto a = active_.begin();
  for (uint32_t i : joined) {
    for (; a != active_.end() && a->index < i; ++a) merged_.push_back(*a);
    merged_.push_back({setup_.constants.v0, 0.0, rest_last_spike_[i], i, poisson_[i]});
  }
  merged_.insert(merged_.end(), a, active_.end());
  active_.swap(merged_);
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
      if (kernels::already_delivered(c, spikes[s], first_delivery)) continue;
      const int32_t slot = kernels::delivery_slot(c, spikes[s].step);
      const uint32_t flag = 1u << slot;
      for (uint64_t e = net.out_offsets[spikes[s].neuron]; e < net.out_offsets[spikes[s].neuron + 1]; ++e) {
        const uint32_t post = net.out_targets[e];
        std::atomic_ref<int64_t>(ring_[post * d + slot]).fetch_add(weights_[e], std::memory_order_relaxed);
        if (std::atomic_ref<uint32_t>(synaptic_slots_[post]).fetch_or(flag, std::memory_order_relaxed) == 0 &&
            !listed_[post] && enlist(post))
          joined.push_back(post);
      }
    }
  });
  std::vector<uint32_t>& all = worker_joined_[0];
  for (std::size_t w = 1; w < worker_joined_.size(); ++w) all.insert(all.end(), worker_joined_[w].begin(), worker_joined_[w].end());
  join_active(all);
}

std::vector<Spike> CpuEngine::advance(kernels::EpochSpan span) {
  const LifConstants& c = setup_.constants;
  check_span(span, next_step_, c.delay_steps);
  if (span.first % c.delay_steps == 0) scatter(queue_.begin_cell(), span.first);

  std::vector<uint32_t>& kicked = worker_joined_[0];
  kicked.clear();
  const kernels::KickRange kicks = kernels::kicks_in(setup_.stimulus->kicks, span);
  for (auto k = kicks.first; k != kicks.last; ++k) {
    kick_steps_[k->neuron] |= 1u << (k->step - span.first);
    if (enlist(k->neuron)) kicked.push_back(k->neuron);
  }
  join_active(kicked);

  const kernels::RngKey key = kernels::rng_key(setup_.stimulus->seed, trial_);
  const uint32_t consumed = kernels::consumed_slots(c, span);
  pool_.run([&](unsigned w, unsigned workers) {
    std::vector<Spike>& out = worker_spikes_[w];
    std::vector<ActiveNeuron>& kept = worker_kept_[w];
    out.clear();
    kept.clear();
    const auto [begin, end] = share_of(active_.size(), w, workers);
    for (std::size_t k = begin; k < end; ++k) {
      ActiveNeuron a = active_[k];
      const uint32_t i = a.index;
      const kernels::NeuronInputs in{synaptic_slots_[i], kick_steps_[i], a.poisson != 0};
      kernels::advance_neuron(c, i, span, in, key, ring_.data() + std::size_t{i} * c.delay_steps, 1, a.v, a.g,
                              a.last_spike, [&](int32_t step) { out.push_back({step, i}); });
      synaptic_slots_[i] &= ~consumed;
      kick_steps_[i] = 0;
      if (stays_active(a)) {
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

EngineState CpuEngine::export_state() const {
  EngineState s;
  s.trial = trial_;
  s.next_step = next_step_;
  s.v.assign(n_, setup_.constants.v0);
  s.g.assign(n_, 0.0);
  s.last_spike = rest_last_spike_;
  for (const ActiveNeuron& a : active_) {
    s.v[a.index] = a.v;
    s.g[a.index] = a.g;
    s.last_spike[a.index] = a.last_spike;
  }
  s.pending = queue_.undelivered(next_step_, setup_.constants.delay_steps);
  if (!plastic_.empty()) s.plastic_weights = plastic_.gather(weights_);
  return s;
}

void CpuEngine::apply_weights(const std::vector<WeightChange>& changes) {
  plastic_.check(changes);
  const std::vector<uint64_t>& edges = plastic_.edges();
  for (const WeightChange& c : changes) own_weights_[edges[c.plastic]] = c.weight;
}

void CpuEngine::set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) {
  check_stimulus_change(*setup_.stimulus, stimulus.get(), n_);
  setup_.stimulus = std::move(stimulus);
  setup_.constants.poisson_threshold = poisson_threshold;
  flag_poisson();
  // The sweep visits listed neurons only, and a Poisson-driven neuron must be visited
  // every epoch even at rest: list the new ones. Listed neurons take their new flag; one
  // that is no longer driven leaves the list once at rest (stays_active), as after an
  // import of this state into an engine built with the new plan.
  for (ActiveNeuron& a : active_) a.poisson = poisson_[a.index];
  std::vector<uint32_t>& joined = worker_joined_[0];
  joined.clear();
  for (uint32_t i : setup_.stimulus->poisson_neurons)
    if (enlist(i)) joined.push_back(i);
  join_active(joined);
}

void CpuEngine::import_state(const EngineState& s) {
  if (s.v.size() != n_ || s.g.size() != n_ || s.last_spike.size() != n_)
    throw std::invalid_argument("engine state holds " + std::to_string(s.v.size()) + " neurons, the network " +
                                std::to_string(n_));
  if (!s.plastic_weights.empty()) {
    plastic_.check_all(s.plastic_weights);
    for (std::size_t p = 0; p < s.plastic_weights.size(); ++p) own_weights_[plastic_.edges()[p]] = s.plastic_weights[p];
  }
  trial_ = s.trial;
  next_step_ = s.next_step;
  std::fill(ring_.begin(), ring_.end(), 0);
  std::fill(synaptic_slots_.begin(), synaptic_slots_.end(), 0u);
  std::fill(kick_steps_.begin(), kick_steps_.end(), 0u);
  active_.clear();
  for (std::size_t i = 0; i < n_; ++i) {
    const uint32_t index = static_cast<uint32_t>(i);
    rest_last_spike_[i] = s.last_spike[i];
    const ActiveNeuron a{s.v[i], s.g[i], s.last_spike[i], index, poisson_[i]};
    listed_[i] = stays_active(a);
    if (listed_[i]) active_.push_back(a);
  }
  // Mid-cell, the previous cell's spikes are still being delivered: scatter what is
  // left of them (deliveries before next_step happened already).
  scatter(queue_.restore(s.pending, s.next_step, setup_.constants.delay_steps), s.next_step);
}

}  // namespace flysim
