#pragma once
// The device side of one epoch (README.md): scatter into the delay ring, set the epoch's
// kicks, advance every neuron. Launch wrappers, because without separable compilation a
// kernel can only be launched from the file that defines it.
#include <cuda_runtime.h>

#include <cstdint>

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
};

// Per-neuron state and inputs of a batch of `trials` trials: every per-neuron array is
// [trial][neuron] and the ring [trial][slot][neuron]; the Poisson flags and the list of
// the driven neurons (poisson_list[0, poisson_count), ascending) are shared.
struct DeviceState {
  uint32_t neurons;
  uint32_t trials;
  double* v;
  double* g;
  int32_t* last_spike;
  int64_t* ring;
  uint32_t* synaptic_slots;
  uint32_t* kick_steps;
  uint32_t* poisson_steps;  // a driven neuron's draws in the current epoch (kernels::poisson_steps)
  const uint8_t* poisson;
  const uint32_t* poisson_list;
  uint32_t poisson_count;
};

// A spike of trial `slot` of the batch, as the device keeps a cell's spikes.
struct CellSpike {
  int32_t step;
  uint32_t neuron;
  uint32_t slot;
};

// A spike of a round (several epochs launched together, one wait for all of them) as the
// host sorts it: (slot, step - round's first step, neuron) packed so that plain integer
// order is (trial, step, neuron) order. The step takes kRoundStepBits bits (a round
// holds at most kMaxRoundSteps steps), the neuron 32, the slot the 22 above them.
inline constexpr int kRoundStepBits = 10;
inline constexpr int32_t kMaxRoundSteps = 1 << kRoundStepBits;
inline constexpr uint32_t kMaxBatchSlots = 1u << (64 - 32 - kRoundStepBits);
FLYSIM_HD inline uint64_t round_spike_key(uint32_t slot, int32_t step_in_round, uint32_t neuron) {
  return uint64_t{slot} << (32 + kRoundStepBits) | uint64_t{static_cast<uint32_t>(step_in_round)} << 32 | neuron;
}
inline uint32_t key_slot(uint64_t key) { return static_cast<uint32_t>(key >> (32 + kRoundStepBits)); }
inline int32_t key_step_in_round(uint64_t key) {
  return static_cast<int32_t>((key >> 32) & ((uint64_t{1} << kRoundStepBits) - 1));
}
inline uint32_t key_neuron(uint64_t key) { return static_cast<uint32_t>(key); }

// What the device keeps between the launches of a round, in EpochOutput::counters: the
// epoch's spike count and finished blocks (zeroed again by the epoch's last block), where
// the current delay cell's spikes lie in `cell_spikes` ([cell_begin, cell_end): the
// next cell start scatters them from there; the next epoch appends at cell_end) and the
// round's spikes so far. So an epoch needs no count from the host and the host waits
// once per round.
enum RoundCounter : uint32_t {
  kEpochSpikes,
  kFinishedBlocks,
  kCellBegin,
  kCellEnd,
  kRoundSpikes,
  kStepwise,      // neurons listed for the epoch's stepwise phase (launch_advance)
  kMostStepwise,  // the most listed by one epoch of the round so far
  kRoundCounters
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
  uint32_t base;  // where the round's first epoch appends its spikes in cell_spikes
  // At a cell start, the previous cell's spikes, cell_spikes[start_scatter_begin, +count).
  uint32_t start_scatter_begin;
  uint32_t start_scatter_count;
  EpochPlan epochs[kMaxRoundEpochs];
};

// Where the advance kernel puts an epoch's spikes, in the order atomics hand out slots:
// `cell_spikes` (device; `capacity`), kept for the scatter at the next cell start, and,
// as round keys, `host_keys` (mapped host memory, read after the round is synchronized;
// `host_capacity`: beyond it the host copies the round's spikes from `cell_spikes`
// instead). The first epoch of a round takes its place from the plan (RoundPlan::base,
// and the current cell then begins at 0); the others from `counters`. The round's last
// epoch publishes the round's spike count to *host_count, and to *host_most_stepwise the
// most neurons one of its epochs listed for its stepwise phase (mapped; the host sizes
// the next stepwise grids by it). The device keeps that maximum in `counters` until
// then: read from mapped memory, it cost every epoch a trip over the bus.
struct EpochOutput {
  CellSpike* cell_spikes;
  uint64_t* host_keys;
  uint32_t capacity;
  uint32_t host_capacity;
  uint32_t* counters;
  uint32_t* host_count;
  uint32_t* host_most_stepwise;
  bool first_of_round;
  bool last_of_round;
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
// cell_spikes[counters[kCellBegin], counters[kCellEnd]), a count only the device knows.
void launch_scatter_last_cell(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                              const CellSpike* cell_spikes, const uint32_t* counters, const RoundPlan* plan,
                              uint32_t j, uint32_t rows);
// Sets bit (step - first) of every trial's kick_steps for the epoch's kicks (every trial
// of a batch has the same kicks).
void launch_set_kicks(cudaStream_t stream, const Kick* kicks, const RoundPlan* plan, uint32_t j, uint32_t blocks,
                      DeviceState state);
// kernels::advance_neuron for every neuron of every trial through epoch j (trial k of the
// batch is trial first_trial + k, its generator key rng_key(seed, first_trial + k)), then
// clears the span's ring slot flags and the kicks (CpuTrial::advance), in two launches for
// the whole batch: one sorts the neurons by path (and decays the quiet ones), listing
// the stepwise ones in `stepwise` (room for every neuron of the batch), and draws the
// driven neurons' Poisson events; the other steps the listed ones with
// `stepwise_blocks` blocks (the list's length is the device's).
void launch_advance(cudaStream_t stream, const LifConstants& c, const RoundPlan* plan, uint32_t j, uint64_t seed,
                    int32_t first_trial, DeviceState state, uint32_t* stepwise, unsigned stepwise_blocks,
                    EpochOutput out);

// Loads every kernel a round launches: a graph capture cannot load a module lazily.
cudaError_t load_round_kernels();

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
