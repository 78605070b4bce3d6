#pragma once
// The device side of one epoch (README.md): scatter into the delay ring, set the epoch's
// kicks, advance every neuron. Launch wrappers, because without separable compilation a
// kernel can only be launched from the file that defines it.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/round_keys.hpp"
#include "kernels/epoch_rules.hpp"
#include "kernels/lif.hpp"
#include "model/lif_constants.hpp"
#include "model/plasticity.hpp"
#include "model/spike.hpp"
#include "model/stimulus.hpp"

namespace flysim::cuda {

// Presynaptic-major CSR of Network, resident on the device.
struct DeviceNetwork {
  const uint64_t* out_offsets;
  const uint32_t* out_targets;
  const int32_t* out_weights;
  uint64_t max_out_degree;  // sizes the scatter's grid
  uint32_t scatter_wave;     // scatter blocks the device holds at once (scatter_wave_blocks)
};

// Where neuron i of batch slot t lies in a batch's per-neuron arrays: [neuron][trial].
FLYSIM_HD inline std::size_t batch_entry(std::size_t trials, std::size_t t, std::size_t i) { return i * trials + t; }

// Per-neuron state and inputs of a batch of `trials` trials: every per-neuron array is
// [neuron][trial] and the ring [neuron][trial][slot] (a neuron's trials side by side, and
// a trial's slots of a neuron, which the stepwise launch stages together);
// the Poisson flags and the list of the driven neurons (poisson_list[0, poisson_count),
// ascending) are shared. Why side by side: the trials of a batch share their stimulus,
// so a neuron at rest in one trial mostly is in all of them, and a sort that skips a
// resting neuron's state then skips whole sectors of memory instead of a word of each.
struct DeviceState {
  uint32_t neurons;
  uint32_t trials;
  uint32_t ring_slots;  // the delay in steps: slots a neuron's ring holds per trial
  double* v;
  double* g;
  int32_t* last_spike;
  int64_t* ring;
  uint32_t* synaptic_slots;
  uint32_t* kick_steps;
  uint32_t* poisson_steps;  // a driven neuron's draws in the current epoch (kernels::poisson_steps)
  // What the sort must read besides the ring flags (NeuronFlags): a bit left set costs
  // a read, never a result.
  uint8_t* flags;
  const uint8_t* poisson;
  const uint32_t* poisson_list;
  uint32_t poisson_count;
  const uint32_t* poisson_threshold;  // per neuron (model/stimulus.hpp poisson_thresholds)
  // Per neuron, 1 where its outgoing (silenced_out) or incoming (silenced_in)
  // connections carry nothing; null when none are.
  const uint8_t* silenced_out;
  const uint8_t* silenced_in;

  // Where neuron i of batch slot t lies in the per-neuron arrays, and back.
  FLYSIM_HD std::size_t at(uint32_t t, uint32_t i) const { return batch_entry(trials, t, i); }
  // (neurons x trials < 2^32: the engine refuses a batch beyond that.)
  FLYSIM_HD uint32_t neuron_of(uint32_t at) const { return at / trials; }
  FLYSIM_HD uint32_t trial_of(uint32_t at) const { return at % trials; }
  // Ring slot `slot` of neuron i of batch slot t; the next slot lies ring_stride() further.
  FLYSIM_HD int64_t* ring_at(int32_t slot, uint32_t t, uint32_t i) const {
    return ring + at(t, i) * ring_slots + static_cast<std::size_t>(slot);
  }
  FLYSIM_HD std::size_t ring_stride() const { return 1; }
};

// The bits of DeviceState::flags. Clear, each says the sort need not read a field:
// off_rest clear: v = v_0 and g = 0 exactly; kicked clear: kick_steps is 0;
// recent_spike clear: the refractory period (the longer, ref_steps) of the neuron's
// last spike was over by the current epoch, so its last_spike cannot matter.
struct NeuronFlags {
  static constexpr uint8_t off_rest = 1u;
  static constexpr uint8_t kicked = 2u;
  static constexpr uint8_t recent_spike = 4u;
  static constexpr uint8_t all = off_rest | kicked | recent_spike;
};

// A spike of trial `slot` of the batch, as the device keeps a cell's spikes.
struct CellSpike {
  int32_t step;
  uint32_t neuron;
  uint32_t slot;
};

// What changes from one round to the next, read by the round's kernels from device
// memory instead of taken by value at launch: so one captured graph (a CUDA Graph of the
// round's launches) serves every round of the same shape. The host writes it to pinned
// memory, and the graph's first node copies it to the device.
inline constexpr uint32_t kMaxRoundEpochs = 64;
// The most rows of spike blocks a scatter launches (more spikes loop over them).
inline constexpr uint32_t kMaxScatterRows = 8192;
struct EpochPlan {
  kernels::EpochSpan span;
  uint32_t kick_begin;  // the epoch's kicks: kicks[kick_begin, kick_begin + kick_count)
  uint32_t kick_count;
};
struct RoundPlan {
  int32_t first;  // the round's first step
  uint32_t base;  // where the round's spike k lies in cell_spikes: base + k
  // At a cell start, the previous cell's spikes, cell_spikes[start_scatter_begin, +count).
  uint32_t start_scatter_begin;
  uint32_t start_scatter_count;
  EpochPlan epochs[kMaxRoundEpochs];
};

// What a round's launches count on the device, one slot per epoch where an epoch's
// count must not meet the next one's, so that no launch has to reset a counter after
// its last block: the host's copy stays zero, and the graph's first node copies it in
// with the plan (RoundBuffer). Before, the last block of each stepwise launch moved the
// epoch's counts on and zeroed them (a fence and an atomic per block, and the last block
// waiting on both), on every epoch's critical path.
struct RoundCounts {
  uint32_t spikes;  // the round's spikes so far; spike k lies at cell_spikes[base + k]
  // The round's spikes before epoch j (j >= 1), noted by scatter_last_cell_kernel at the
  // start of epoch j; epoch j's are [epoch_first[j], epoch_first[j + 1]).
  uint32_t epoch_first[kMaxRoundEpochs];
  uint32_t listed[kMaxRoundEpochs];  // neurons epoch j listed for its stepwise phase
};
struct RoundBuffer {
  RoundPlan plan;
  RoundCounts counts;
};
// What the host reads of a round once it is done (mapped host memory, written by the
// round's last launch): enough to plan and launch the next round before it sorts this
// one's spikes.
struct RoundSummary {
  uint32_t spikes;       // the round's spikes
  uint32_t most_listed;  // the most neurons one epoch listed for its stepwise phase
  uint32_t epoch_first[kMaxRoundEpochs];  // the round's spikes before epoch j (0 for j = 0)
};

// Where the advance kernel puts an epoch's spikes: the round's spike k (counted in
// RoundCounts::spikes, in the order atomics hand them out) at cell_spikes[plan base + k]
// (device; `capacity`), kept for the scatter at the next cell start and sorted for the
// host after the round (RoundSort); and, packed, at host_keys[k] while k < host_capacity
// (mapped host memory: a small round's keys, which the host sorts itself).
struct EpochOutput {
  CellSpike* cell_spikes;
  uint32_t capacity;
  RoundCounts* counts;
  uint64_t* host_keys;
  uint32_t host_capacity;
  PackedRoundKeys packed;
};

// Every neuron of every trial of `state` at rest: v = v0, g = 0, never spiked
// (Engine::start_at_rest).
void launch_rest(cudaStream_t stream, double v0, DeviceState state);

// Adds the connections of spikes[0, count) (of any trials of the batch) that deliver at
// or after first_delivery to their trial's ring and flags their slots (CpuTrial::scatter),
// spread over blocks by connection. Outside rounds (an imported state's spikes).
void launch_scatter(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                    const CellSpike* spikes, uint32_t count, int32_t first_delivery);

// The launches of a round, each reading its epoch `j` of *plan (device memory). `rows`,
// `blocks`: grid sizes, any of which gives the same result (the kernels loop over what
// the plan or the device's counters say there is); they only spread the work.
//
// At a cell start: the same scatter for the previous cell's spikes, from the plan.
void launch_round_start_scatter(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                                const CellSpike* cell_spikes, const RoundPlan* plan, uint32_t rows);
// Before epoch j > 0: the same for the spikes of the cell the device last advanced,
// epoch j - 1's (and, for j = 1, the part of its cell before the round: cell_spikes
// from 0), a count only the device knows; notes where epoch j's spikes begin.
void launch_scatter_last_cell(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                              const CellSpike* cell_spikes, RoundCounts* counts, const RoundPlan* plan, uint32_t j,
                              uint32_t rows);
// Sets bit (step - first) of every trial's kick_steps for the epoch's kicks (every trial
// of a batch has the same kicks).
void launch_set_kicks(cudaStream_t stream, const Kick* kicks, const RoundPlan* plan, uint32_t j, uint32_t blocks,
                      DeviceState state);
// kernels::advance_neuron for every neuron of every trial through epoch j (trial k of the
// batch is trial first_trial + k, its generator key rng_key(seed, first_trial + k)), then
// clears the span's ring slot flags and the kicks (CpuTrial::advance). A batch of one
// trial takes one launch, each block sorting its neurons by path and stepping those that
// need it (advance_in_one_launch); a larger batch two launches: one sorts the neurons by
// path (and decays the quiet ones), listing the stepwise ones in `stepwise` (room for
// every neuron of the batch), and draws the driven neurons' Poisson events; the other
// steps the listed ones with `stepwise_blocks` blocks (the list's length is the
// device's).
void launch_advance(cudaStream_t stream, const LifConstants& c, const RoundPlan* plan, uint32_t j, uint64_t seed,
                    int32_t first_trial, DeviceState state, uint32_t* stepwise, unsigned stepwise_blocks,
                    EpochOutput out);

// A round's last launch: the round's RoundSummary of its `epochs` epochs to *summary
// (mapped host memory).
void launch_publish_round(cudaStream_t stream, const RoundCounts* counts, uint32_t epochs, RoundSummary* summary);

// Whether launch_advance advances a batch of `trials` in one launch (then it takes no
// stepwise list and no stepwise grid).
bool advance_in_one_launch(uint32_t trials);

// Loads every kernel a round launches: a graph capture cannot load a module lazily.
cudaError_t load_round_kernels();

// Blocks of a round's scatter that the current device holds at once (its SMs times the
// blocks of the scatter kernel each holds).
cudaError_t scatter_wave_blocks(uint32_t* blocks);

// Blocks of a launch that give `threads` threads one item each.
unsigned blocks_for(uint64_t threads);
// Blocks of the stepwise launch that hold `neurons` listed neurons in one pass.
unsigned stepwise_blocks_for(uint64_t neurons);

// Plastic weights (Engine::apply_weights); `edges` maps plastic index -> edge:
// weights[edges[c.plastic]] = c.weight for each of changes[0, count).
void launch_set_weights(cudaStream_t stream, const WeightChange* changes, uint32_t count, const uint64_t* edges,
                        int32_t* weights);
// weights[edges[p]] = values[p] for p < count (an imported state).
void launch_assign_weights(cudaStream_t stream, const int32_t* values, uint32_t count, const uint64_t* edges,
                           int32_t* weights);
// values[p] = weights[edges[p]] for p < count (an exported state).
void launch_gather_weights(cudaStream_t stream, const int32_t* weights, const uint64_t* edges, uint32_t count,
                           int32_t* values);

// Lets the advance kernel stage a whole delay cell of ring slots in shared memory (up to
// kMaxDelaySteps, beyond the default 48 KiB): once per device, before the first launch.
cudaError_t allow_advance_shared_memory();

// The advance kernel's attributes: fails with cudaErrorNoKernelImageForDevice when this
// binary holds no code the current device can run.
cudaError_t advance_kernel_attributes(cudaFuncAttributes* attributes);

}  // namespace flysim::cuda
