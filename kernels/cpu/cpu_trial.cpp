#include "kernels/cpu/cpu_trial.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "kernels/cpu/path_pass.hpp"
#include "kernels/cpu/poisson_draws.hpp"
#include "kernels/cpu/thread_pool.hpp"

namespace flysim {

CpuTrial::CpuTrial(std::size_t neurons, int32_t delay_steps, unsigned workers, std::size_t spread_from,
                   double list_all_from, uint32_t block_neurons)
    : n_(neurons),
      d_(static_cast<std::size_t>(delay_steps)),
      spread_from_(spread_from),
      list_all_from_(static_cast<std::size_t>(std::ceil((std::isnan(list_all_from) ? 2.0 : std::clamp(list_all_from, 0.0, 2.0)) * static_cast<double>(neurons)))),
      list_active_below_(list_all_from_ / 2),
      block_neurons_(std::clamp(block_neurons, 1u, kMaxBlockNeurons)),
      entry_of_(neurons, kUnlisted),
      rest_last_spike_(neurons, kNeverSpiked),
      v_(neurons),
      g_(neurons),
      last_spike_(neurons),
      index_(neurons),
      poisson_(neurons),
      synaptic_slots_(neurons, 0),
      kick_steps_(neurons, 0),
      ring_(d_ * neurons, 0),
      worker_leaving_(workers),
      worker_stepwise_(workers),
      worker_stepwise_count_(workers),
      worker_spikes_(workers) {}

kernels::PoolArrays CpuTrial::pool_arrays() {
  return {v_.data(), g_.data(), last_spike_.data(), poisson_.data(), synaptic_slots_.data(), kick_steps_.data()};
}

bool CpuTrial::stays_active(const CpuShared& shared, uint32_t e) const {
  return !kernels::at_rest(shared.constants, v_[e], g_[e]) || poisson_[e] || synaptic_slots_[e];
}

uint32_t CpuTrial::enlist(const CpuShared& shared, uint32_t i) {
  if (entry_of_[i] != kUnlisted) return entry_of_[i];
  // Workers of a scatter list disjoint neurons; only the pool's size is shared.
  const uint32_t e = static_cast<uint32_t>(std::atomic_ref<std::size_t>(size_).fetch_add(1, std::memory_order_relaxed));
  v_[e] = shared.constants.v0;
  g_[e] = 0.0;
  last_spike_[e] = rest_last_spike_[i];
  index_[e] = i;
  poisson_[e] = shared.poisson[i];
  entry_of_[i] = e;
  return e;
}

bool CpuTrial::delivers(const CpuShared& shared, const Spike& s, int32_t first_delivery) {
  return !kernels::already_delivered(shared.constants, s, first_delivery) &&
         !(shared.silenced_out && shared.silenced_out[s.neuron]);
}

void CpuTrial::scatter_share(const CpuShared& shared, const std::vector<Spike>& spikes, int32_t first_delivery,
                             unsigned w, unsigned workers) {
  const Network& net = shared.network;
  const LifConstants& c = shared.constants;
  // Each worker takes the connections onto its own share of the neurons: no two workers
  // touch one target, so the adds need no atomics (and overlap their cache misses).
  const auto [lo, hi] = share_of(n_, w, workers);
  const uint32_t first = static_cast<uint32_t>(lo), count = static_cast<uint32_t>(hi - lo);
  const uint32_t* const targets = net.out_targets.data();
  const int32_t* const weights = shared.weights;
  const uint32_t* const entry_of = entry_of_.data();
  const uint8_t* const silenced_in = shared.silenced_in;
  uint32_t* const slots_of = synaptic_slots_.data();
  for (const Spike& s : spikes) {
    if (!delivers(shared, s, first_delivery)) continue;
    const int32_t slot = kernels::delivery_slot(c, s.step);
    const uint32_t flag = 1u << slot;
    uint64_t begin = net.out_offsets[s.neuron], end = net.out_offsets[s.neuron + 1];
    // A row in target order holds this worker's targets in one stretch: it reads only
    // that, instead of every connection behind a branch it mispredicts half the time.
    if (shared.rows_sorted && workers > 1) {
      begin = static_cast<uint64_t>(std::lower_bound(targets + begin, targets + end, first) - targets);
      end = static_cast<uint64_t>(std::lower_bound(targets + begin, targets + end, first + count) - targets);
    }
    if (identity_) {
      // Entry and neuron coincide: one prefetch of the slot and the flags, far ahead.
      int64_t* const ring = ring_.data() + std::size_t(slot) * n_;
      for (uint64_t e = begin; e < end; ++e) {
        if (e + kScatterAhead < end) {
          const uint32_t ahead = targets[e + kScatterAhead];
          if (ahead - first < count) {
            __builtin_prefetch(ring + ahead, 1);
            __builtin_prefetch(slots_of + ahead, 1);
          }
        }
        const uint32_t post = targets[e];
        if (post - first >= count) continue;
        if (silenced_in && silenced_in[post]) continue;
        ring[post] += weights[e];
        slots_of[post] |= flag;
      }
      continue;
    }
    for (uint64_t e = begin; e < end; ++e) {
      // Two-stage prefetch: the entry of a target 16 connections ahead, the ring slot
      // and input flags of the one 8 ahead (whose entry is in cache by now). Only this
      // worker's own targets (another's stand in for `first`, without a branch): the
      // lines of another's would be pulled in here for writing, only to be written there.
      const auto own = [&](uint32_t post) { return post - first < count ? post : first; };
      if (e + 16 < end) __builtin_prefetch(entry_of + own(targets[e + 16]));
      if (e + 8 < end) {
        const uint32_t ahead = entry_of[own(targets[e + 8])];
        if (ahead != kUnlisted) {
          __builtin_prefetch(&ring_slot(ahead, slot), 1);
          __builtin_prefetch(slots_of + ahead, 1);
        }
      }
      const uint32_t post = targets[e];
      if (post - first >= count) continue;
      if (silenced_in && silenced_in[post]) continue;
      const uint32_t entry = enlist(shared, post);
      ring_slot(entry, slot) += weights[e];
      slots_of[entry] |= flag;
    }
  }
}

void CpuTrial::move_entry(uint32_t from, uint32_t to) {
  v_[to] = v_[from];
  g_[to] = g_[from];
  last_spike_[to] = last_spike_[from];
  index_[to] = index_[from];
  poisson_[to] = poisson_[from];
  kick_steps_[to] = kick_steps_[from];
  kick_steps_[from] = 0;
  const uint32_t slots = synaptic_slots_[from];
  synaptic_slots_[to] = slots;
  synaptic_slots_[from] = 0;
  for (uint32_t bits = slots; bits != 0; bits &= bits - 1) {
    const int32_t s = kernels::lowest_bit(bits);
    ring_slot(to, s) = ring_slot(from, s);
    ring_slot(from, s) = 0;
  }
  entry_of_[index_[to]] = to;
}

void CpuTrial::remove_entries(const std::vector<uint32_t>& leaving) {
  // From the highest down: the last entry is then never one that is still to leave.
  for (auto it = leaving.rbegin(); it != leaving.rend(); ++it) {
    const uint32_t e = *it;
    const uint32_t i = index_[e];
    rest_last_spike_[i] = last_spike_[e];
    entry_of_[i] = kUnlisted;
    const uint32_t last = static_cast<uint32_t>(--size_);
    if (e != last) move_entry(last, e);
  }
}

uint32_t CpuTrial::sort_share(const CpuShared& shared, kernels::EpochSpan span, uint32_t begin, uint32_t end,
                              unsigned w) {
  std::vector<uint32_t>& stepwise = worker_stepwise_[w];
  worker_leaving_[w].clear();
  stepwise.resize(end - begin);
  return kernels::sort_pool_paths(shared.constants, span, pool_arrays(), begin, end, stepwise.data(), worker_leaving_[w]);
}

void CpuTrial::step_entries(const CpuShared& shared, kernels::EpochSpan span, kernels::RngKey key,
                            const uint32_t* list, std::size_t count, const RingView& ring, unsigned w) {
  // A copy the compiler may keep in registers: nothing the loop stores can change it.
  const LifConstants c = shared.constants;
  std::vector<Spike>& out = worker_spikes_[w];
  std::vector<uint32_t>& leaving = worker_leaving_[w];
  double* const v = v_.data();
  double* const g = g_.data();
  int32_t* const last_spike = last_spike_.data();
  const uint8_t* const poisson = poisson_.data();
  const uint32_t* const thresholds = shared.thresholds.data();
  uint32_t* const synaptic_slots = synaptic_slots_.data();
  uint32_t* const kick_steps = kick_steps_.data();
  int64_t* const ring_base = ring.base;
  const uint32_t ring_first = ring.first;
  const std::size_t stride = ring.stride;
  const uint32_t consumed = kernels::consumed_slots(c, span);
  const auto step_entry = [&](uint32_t e) {
    const uint32_t i = index_[e];
    const kernels::NeuronInputs in{synaptic_slots[e], kick_steps[e], poisson[e] != 0};
    double ve = v[e], ge = g[e];
    int32_t last = last_spike[e];
    const uint32_t draws = in.poisson ? kernels::poisson_draws(thresholds[i], key, i, span) : 0u;
    kernels::advance_neuron_drawn(c, span, in, draws, ring_base + (e - ring_first), stride, ve, ge, last,
                                  [&](int32_t step) { out.push_back({step, i}); });
    v[e] = ve;
    g[e] = ge;
    last_spike[e] = last;
    synaptic_slots[e] = in.synaptic_slots & ~consumed;
    kick_steps[e] = 0;
    if (!stays_active(shared, e)) leaving.push_back(e);
  };
  for (std::size_t k = 0; k < count; ++k) {
    // The ring slots that hold input for an entry a few ahead: the scatter wrote them
    // long ago (a dense run's ring rows far exceed the caches).
    if (ring.fetch_ahead && k + kPrefetchAhead < count) {
      const uint32_t ahead = list[k + kPrefetchAhead];
      for (uint32_t bits = synaptic_slots[ahead]; bits != 0; bits &= bits - 1)
        __builtin_prefetch(ring_base + (ahead - ring_first) + std::size_t(kernels::lowest_bit(bits)) * stride, 1);
    }
    step_entry(list[k]);
  }
}

void CpuTrial::step_share(const CpuShared& shared, kernels::EpochSpan span, kernels::RngKey key, unsigned w,
                          unsigned workers) {
  worker_spikes_[w].clear();
  // Worker w's share of all workers' stepwise lists joined: the first pass found them in
  // its own share of the pool, but they cluster (the Poisson-driven neurons, listed
  // first, are all stepwise), so the stepwise work is shared out anew.
  std::size_t total = 0;
  for (unsigned j = 0; j < workers; ++j) total += worker_stepwise_count_[j];
  const auto [lo, hi] = share_of(total, w, workers);
  std::size_t offset = 0;
  for (unsigned j = 0; j < workers && offset < hi; ++j) {
    const std::size_t count = worker_stepwise_count_[j];
    const std::size_t from = std::max(lo, offset) - offset, to = std::min(hi, offset + count) - offset;
    if (from < to) step_entries(shared, span, key, worker_stepwise_[j].data() + from, to - from, {ring_.data(), n_, 0, true}, w);
    offset += count;
  }
}

std::vector<Spike> CpuTrial::advance(const CpuShared& shared, kernels::EpochSpan span, const RunWorkers& run) {
  const LifConstants& c = shared.constants;
  check_span(span, next_step_, c.delay_steps);
  const kernels::KickRange kicks = kernels::kicks_in(shared.stimulus.kicks, span);
  for (auto k = kicks.first; k != kicks.last; ++k) kick_steps_[enlist(shared, k->neuron)] |= 1u << (k->step - span.first);

  // One hand-off to the workers per epoch: at a cell's start each scatters onto its
  // share of the neurons, and once all have (the barrier) each sweeps its share of the
  // pool.
  const std::vector<Spike>* delivering = span.first % c.delay_steps == 0 ? &queue_.begin_cell() : nullptr;
  if (!identity_ && size_ >= list_all_from_) list_every_neuron(shared);
  const kernels::RngKey key = kernels::rng_key(shared.stimulus.seed, trial_);
  unsigned epoch_workers = 1;  // what `run` gave this epoch (its worker 0 says; read after it returns)
  // Where the whole brain is listed, a whole cell goes block by block.
  const bool blocked = delivering && identity_ && shared.rows_sorted && span.steps == c.delay_steps;
  const auto sweep = [&](unsigned w, unsigned workers) {
    if (blocked) {
      sweep_in_blocks(shared, *delivering, span, key, w, workers);
      return;
    }
    if (delivering) {
      scatter_share(shared, *delivering, span.first, w, workers);
      barrier_.arrive_and_wait(workers);
    }
    // The sweep: each worker sorts its share of the pool by path, then (once all have)
    // steps its share of the stepwise entries that all of them found.
    const auto [begin, end] = share_of(size_, w, workers);
    worker_stepwise_count_[w] = sort_share(shared, span, static_cast<uint32_t>(begin), static_cast<uint32_t>(end), w);
    if (workers > 1) barrier_.arrive_and_wait(workers);
    step_share(shared, span, key, w, workers);
  };
  // Each worker sorts its own spikes; they are merged below.
  const auto epoch = [&](unsigned w, unsigned workers) {
    if (w == 0) epoch_workers = workers;
    sweep(w, workers);
    std::sort(worker_spikes_[w].begin(), worker_spikes_[w].end());
  };
  cells_in_blocks_ += blocked;
  if (size_ >= spread_from_)
    run(epoch);
  else
    epoch(0, 1);
  settle_leaving(epoch_workers);

  std::vector<Spike> spikes;
  for (std::size_t w = 0; w < epoch_workers; ++w) {
    const auto sorted = static_cast<std::ptrdiff_t>(spikes.size());
    spikes.insert(spikes.end(), worker_spikes_[w].begin(), worker_spikes_[w].end());
    std::inplace_merge(spikes.begin(), spikes.begin() + sorted, spikes.end());
  }
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
  s.last_spike.assign(rest_last_spike_.begin(), rest_last_spike_.end());
  for (std::size_t e = 0; e < size_; ++e) {
    s.v[index_[e]] = v_[e];
    s.g[index_[e]] = g_[e];
    s.last_spike[index_[e]] = last_spike_[e];
  }
  s.pending = queue_.undelivered(next_step_, shared.constants.delay_steps);
  return s;
}

void CpuTrial::reflag_poisson(const CpuShared& shared) {
  // The sweep visits listed neurons only, and a Poisson-driven neuron must be visited
  // every epoch even at rest: list the new ones. Listed neurons take their new flag; one
  // that is no longer driven leaves the list once at rest (stays_active), as after an
  // import of this state into an engine built with the new plan.
  for (std::size_t e = 0; e < size_; ++e) poisson_[e] = shared.poisson[index_[e]];
  enlist_driven(shared);
}

void CpuTrial::enlist_driven(const CpuShared& shared) {
  for (uint32_t i : shared.driven) enlist(shared, i);
}

void CpuTrial::clear_pool() {
  // Entries past size_ are clean already.
  for (std::size_t e = 0; e < size_; ++e) {
    const uint32_t entry = static_cast<uint32_t>(e);
    for (uint32_t bits = synaptic_slots_[e]; bits != 0; bits &= bits - 1) ring_slot(entry, kernels::lowest_bit(bits)) = 0;
    synaptic_slots_[e] = 0;
    kick_steps_[e] = 0;
    entry_of_[index_[e]] = kUnlisted;
  }
  size_ = 0;
  identity_ = false;
}

void CpuTrial::list_every_neuron(const CpuShared& shared) {
  // The listed entries aside (their ring units by slot), every entry at rest, then each
  // listed neuron back at the entry of its index.
  struct Listed {
    uint32_t index;
    double v, g;
    int32_t last_spike;
    uint32_t synaptic_slots, kick_steps;
  };
  std::vector<Listed> listed(size_);
  std::vector<int64_t> units;
  for (std::size_t e = 0; e < size_; ++e) {
    const uint32_t entry = static_cast<uint32_t>(e);
    listed[e] = {index_[e], v_[e], g_[e], last_spike_[e], synaptic_slots_[e], kick_steps_[e]};
    for (uint32_t bits = synaptic_slots_[e]; bits != 0; bits &= bits - 1) {
      int64_t& unit = ring_slot(entry, kernels::lowest_bit(bits));
      units.push_back(unit);
      unit = 0;
    }
  }
  for (std::size_t i = 0; i < n_; ++i) {
    v_[i] = shared.constants.v0;
    g_[i] = 0.0;
    last_spike_[i] = rest_last_spike_[i];
    index_[i] = static_cast<uint32_t>(i);
    poisson_[i] = shared.poisson[i];
    synaptic_slots_[i] = 0;
    kick_steps_[i] = 0;
    entry_of_[i] = static_cast<uint32_t>(i);
  }
  std::size_t unit = 0;
  for (const Listed& l : listed) {
    v_[l.index] = l.v;
    g_[l.index] = l.g;
    last_spike_[l.index] = l.last_spike;
    synaptic_slots_[l.index] = l.synaptic_slots;
    kick_steps_[l.index] = l.kick_steps;
    for (uint32_t bits = l.synaptic_slots; bits != 0; bits &= bits - 1)
      ring_slot(l.index, kernels::lowest_bit(bits)) = units[unit++];
  }
  size_ = n_;
  identity_ = true;
}

void CpuTrial::settle_leaving(unsigned workers) {
  std::vector<uint32_t>& leaving = worker_leaving_[0];
  std::size_t count = 0;
  for (unsigned w = 0; w < workers; ++w) count += worker_leaving_[w].size();
  if (identity_ && n_ - count >= list_active_below_) return;
  identity_ = false;
  for (unsigned w = 1; w < workers; ++w) leaving.insert(leaving.end(), worker_leaving_[w].begin(), worker_leaving_[w].end());
  std::sort(leaving.begin(), leaving.end());
  remove_entries(leaving);
}

void CpuTrial::start_at_rest(const CpuShared& shared, int32_t trial) {
  trial_ = trial;
  next_step_ = 0;
  clear_pool();
  std::fill(rest_last_spike_.begin(), rest_last_spike_.end(), kNeverSpiked);
  enlist_driven(shared);
  queue_.restore({}, 0, shared.constants.delay_steps);
}

void CpuTrial::import_state(const CpuShared& shared, const EngineState& s, const RunWorkers& run) {
  trial_ = s.trial;
  next_step_ = s.next_step;
  clear_pool();
  rest_last_spike_.assign(s.last_spike.begin(), s.last_spike.end());
  for (std::size_t i = 0; i < n_; ++i) {
    const uint32_t index = static_cast<uint32_t>(i);
    if (kernels::at_rest(shared.constants, s.v[i], s.g[i]) && !shared.poisson[i]) continue;
    const uint32_t e = enlist(shared, index);
    v_[e] = s.v[i];
    g_[e] = s.g[i];
  }
  // Mid-cell, the previous cell's spikes are still being delivered: scatter what is
  // left of them (deliveries before next_step happened already).
  const std::vector<Spike>& delivering = queue_.restore(s.pending, s.next_step, shared.constants.delay_steps);
  run([&](unsigned w, unsigned workers) { scatter_share(shared, delivering, s.next_step, w, workers); });
}

}  // namespace flysim
