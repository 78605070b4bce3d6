#pragma once
// One trial's state in the CPU pool engine, and its epoch (kernels/README.md). The
// engine holds a batch of these over one shared network; a trial's loops run either
// spread over the pool's workers (few trials) or on one worker (the pool spreads the
// trials instead). Either way the arithmetic and the order of the results are the same.
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/cpu/huge_pages.hpp"
#include "kernels/cpu/path_pass.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "kernels/engine.hpp"
#include "kernels/spike_queue.hpp"

namespace flysim {

class PackedRows;

// What every trial of a CPU engine reads and none writes during an epoch.
struct CpuShared {
  const Network& network;
  const LifConstants& constants;
  const StimulusPlan& stimulus;
  const std::vector<uint8_t>& poisson;      // per neuron: Poisson-driven
  const std::vector<uint32_t>& thresholds;  // per neuron: its Poisson threshold
  const std::vector<uint32_t>& driven;      // the Poisson-driven neurons, ascending
  const int32_t* weights;                   // the scatter's, by edge
  bool rows_sorted;                         // rows_sorted_by_target(network)
  // The network's rows packed (words() null where they do not fit); null where the
  // weights change (plastic connections).
  const PackedRows* packed_rows;
  // Per neuron, 1 where the neuron's outgoing (silenced_out) or incoming (silenced_in)
  // connections carry nothing; null when none are.
  const uint8_t* silenced_out;
  const uint8_t* silenced_in;
};

// Runs job(worker, workers) for workers 0..workers-1 and returns when all are done: the
// pool's run, or one call job(0, 1) on the calling thread.
using RunWorkers = std::function<void(const std::function<void(unsigned, unsigned)>&)>;

class CpuTrial {
 public:
  // `workers`: the most workers a loop of this trial is spread over (the pool's size);
  // `spread_from`: listed neurons from which an epoch is spread over them; `list_all_from`:
  // the share of the neurons listed from which every neuron is; `block_neurons`: the
  // blocked sweep's block (EngineSetup).
  CpuTrial(std::size_t neurons, int32_t delay_steps, unsigned workers, std::size_t spread_from, double list_all_from,
           uint32_t block_neurons);

  // The largest block of the blocked sweep (EngineSetup::cpu_block_neurons is clamped to it).
  static constexpr uint32_t kMaxBlockNeurons = 1u << 26;

  int32_t trial() const { return trial_; }
  bool lists_every_neuron() const { return identity_; }
  // Cells this trial swept block by block so far (the blocked sweep).
  int64_t cells_in_blocks() const { return cells_in_blocks_; }
  int32_t next_step() const { return next_step_; }
  // The epoch of this trial through `span`: its spikes, sorted by (step, neuron).
  std::vector<Spike> advance(const CpuShared& shared, kernels::EpochSpan span, const RunWorkers& run);
  // The state without plastic weights (the engine's, shared by its trials).
  EngineState export_state(const CpuShared& shared) const;
  void import_state(const CpuShared& shared, const EngineState& state, const RunWorkers& run);
  // import_state of resting_state(neurons, v0, trial), without one: only the
  // Poisson-driven neurons are listed.
  void start_at_rest(const CpuShared& shared, int32_t trial);
  // The Poisson flags changed (set_stimulus): listed neurons take their new flag, newly
  // driven ones are listed.
  void reflag_poisson(const CpuShared& shared);

 private:
  static constexpr uint32_t kUnlisted = ~0u;
  static constexpr uint32_t kPrefetchAhead = 4;   // stepwise entries
  static constexpr uint32_t kScatterAhead = 32;   // connections, in the identity pool
  // How far the blocked sweep's scatter fetches rows ahead (spikes), and how many of the
  // first lines of each (16 connections a line).
  static constexpr std::size_t kRowsAhead = 8;
  static constexpr uint32_t kRowLinesAhead = 8;

  // Lists neuron i (at rest) at the end of the pool unless it is listed; its entry.
  uint32_t enlist(const CpuShared& shared, uint32_t i);
  // Whether spike s reaches targets from `first_delivery` on (not delivered yet, its
  // outgoing connections not silenced).
  static bool delivers(const CpuShared& shared, const Spike& s, int32_t first_delivery);
  // Worker w's part of the scatter: adds the connections of `spikes` that deliver at or
  // after `first_delivery` onto its share of the neurons, listing those not yet listed.
  void scatter_share(const CpuShared& shared, const std::vector<Spike>& spikes, int32_t first_delivery, unsigned w,
                     unsigned workers);
  // The sweep's first pass on worker w: sorts entries [begin, end) by path, the quiet
  // ones advanced (kernels/cpu/path_pass.hpp); the stepwise ones in worker_stepwise_[w]
  // (their count returned), those leaving in worker_leaving_[w].
  uint32_t sort_share(const CpuShared& shared, kernels::EpochSpan span, uint32_t begin, uint32_t end, unsigned w);
  // Its second: worker w's share of all workers' stepwise entries through span (its
  // spikes in worker_spikes_[w], leaving entries appended to worker_leaving_[w]).
  void step_share(const CpuShared& shared, kernels::EpochSpan span, kernels::RngKey key, unsigned w, unsigned workers);
  // A delay ring as the sweep's second pass reads it: [slot][entry - first], slots
  // `stride` apart; the trial's, or a block's (the blocked sweep), which lies in the
  // core's cache already.
  struct RingView {
    int64_t* base;
    std::size_t stride;
    uint32_t first;    // the entry of column 0
    bool fetch_ahead;  // fetch the slots of entries a few ahead
  };
  // Steps list[0, count) (stepwise entries) through span, reading their input from
  // `ring`: their spikes appended to worker_spikes_[w], those that leave to
  // worker_leaving_[w].
  void step_entries(const CpuShared& shared, kernels::EpochSpan span, kernels::RngKey key, const uint32_t* list,
                    std::size_t count, const RingView& ring, unsigned w);
  // step_entries in AVX-512 lanes (kernels/cpu/step_lanes_avx512.hpp) from a ring that lies
  // in the core's cache: the same results, but the ring is only read; the caller clears
  // the span's slots.
  void step_in_lanes(const CpuShared& shared, kernels::EpochSpan span, kernels::RngKey key, const uint32_t* list,
                     std::size_t count, const RingView& ring, unsigned w);
  // A whole cell of the identity pool, worker w's share of the neurons block by block
  // (blocked_sweep.cpp; kernels/README.md, "The blocked sweep"): the cell's deliveries onto
  // a block land in a ring of the block alone, which the block's sweep then reads and
  // clears, so neither touches the trial's delay ring. Needs rows sorted by target.
  void sweep_in_blocks(const CpuShared& shared, const std::vector<Spike>& delivering, kernels::EpochSpan span,
                       kernels::RngKey key, unsigned w, unsigned workers);
  // Empties the pool, leaving every entry clean (no input flags, kicks or ring units).
  void clear_pool();
  // Lists every neuron at the entry of its index (the identity pool): taken once most of
  // the brain is listed, so that the scatter needs no entry lookup and the sweep reads the
  // ring in neuron order.
  void list_every_neuron(const CpuShared& shared);
  // After an epoch whose first `workers` workers noted the entries that left: the identity
  // pool is kept while list_active_below_ or more neurons stay active; otherwise (and
  // always in the ordinary pool) those entries go.
  void settle_leaving(unsigned workers);
  // Lists every Poisson-driven neuron not listed yet (a driven neuron is swept every
  // epoch, even at rest; where it lands in the pool changes no bit).
  void enlist_driven(const CpuShared& shared);
  // Removes the entries that left (ascending) from the pool, moving the last entries
  // into their places.
  void remove_entries(const std::vector<uint32_t>& leaving);
  // Moves entry `from` (the last) to the free entry `to`.
  void move_entry(uint32_t from, uint32_t to);
  bool stays_active(const CpuShared& shared, uint32_t entry) const;
  // The pool's arrays as the first pass takes them.
  kernels::PoolArrays pool_arrays();
  int64_t& ring_slot(uint32_t entry, int32_t slot) { return ring_[std::size_t(slot) * n_ + entry]; }

  std::size_t n_;
  std::size_t d_;
  std::size_t spread_from_;
  // Listed neurons from which every neuron is listed, and active ones below which the
  // identity pool goes back to the ordinary one.
  std::size_t list_all_from_, list_active_below_;
  std::size_t block_neurons_;
  int64_t cells_in_blocks_ = 0;
  int32_t trial_ = 0;
  int32_t next_step_ = 0;
  // Per neuron: its pool entry (kUnlisted when not listed), and while not listed, its
  // last spike step (an unlisted neuron is exactly at rest: v = v_0, g = 0).
  HugeVector<uint32_t> entry_of_;
  HugeVector<int32_t> rest_last_spike_;
  // The pool: the listed neurons, entries [0, size_) in no particular order (the
  // arithmetic of a neuron does not depend on its place, and spikes are sorted), as
  // structure of arrays so that the sweep streams through it. A neuron leaves only
  // exactly at rest, without input and not Poisson-driven; the last entry takes its
  // place. Each array holds n_ entries; entries at and past size_ keep synaptic_slots_,
  // kick_steps_ and their ring row zero.
  std::size_t size_ = 0;
  bool identity_ = false;                 // every neuron listed, entry i holding neuron i
  HugeVector<double> v_, g_;              // mV
  HugeVector<int32_t> last_spike_;        // step
  HugeVector<uint32_t> index_;            // model index
  HugeVector<uint8_t> poisson_;           // Poisson-driven
  HugeVector<uint32_t> synaptic_slots_;   // ring slots holding input
  HugeVector<uint32_t> kick_steps_;       // kicks in the current epoch
  // [slot][entry], fixed-point units: one step's deliveries land in one slot's array,
  // which in the identity pool the sweep reads in neuron order.
  HugeVector<int64_t> ring_;
  SpikeQueue queue_;
  SpinBarrier barrier_;
  std::vector<std::vector<uint32_t>> worker_leaving_;
  std::vector<std::vector<uint32_t>> worker_stepwise_;
  std::vector<uint32_t> worker_stepwise_count_;
  std::vector<std::vector<Spike>> worker_spikes_;
};

}  // namespace flysim
