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
// [trial][neuron] and the ring [trial][slot][neuron]; the Poisson flags are shared.
struct DeviceState {
  uint32_t neurons;
  uint32_t trials;
  double* v;
  double* g;
  int32_t* last_spike;
  int64_t* ring;
  uint32_t* synaptic_slots;
  uint32_t* kick_steps;
  const uint8_t* poisson;
};

// A spike of trial `slot` of the batch, as the device keeps a cell's spikes.
struct CellSpike {
  int32_t step;
  uint32_t neuron;
  uint32_t slot;
};

// A spike of an epoch as the host sorts it: (slot, step - first, neuron) packed so that
// plain integer order is (trial, step, neuron) order. The step within an epoch takes 5
// bits (delay_steps <= 32), the neuron 32, the slot the 27 above them.
FLYSIM_HD inline uint64_t epoch_spike_key(uint32_t slot, int32_t step_in_epoch, uint32_t neuron) {
  return uint64_t{slot} << 37 | uint64_t{static_cast<uint32_t>(step_in_epoch)} << 32 | neuron;
}
inline uint32_t key_slot(uint64_t key) { return static_cast<uint32_t>(key >> 37); }
inline int32_t key_step_in_epoch(uint64_t key) { return static_cast<int32_t>((key >> 32) & 31u); }
inline uint32_t key_neuron(uint64_t key) { return static_cast<uint32_t>(key); }

// Where the advance kernel puts the epoch's spikes, in the order atomics hand out slots:
// `cell_spikes` (device, kept for the scatter at the next cell start; `capacity`) and,
// as keys, `host_keys` (mapped host memory, read after the stream is synchronized;
// `host_capacity`: beyond it the host copies the cell's spikes instead). counters[0]
// counts spikes and counters[1] finished blocks; the last block publishes the count to
// *host_count and zeroes both, so no reset is needed between epochs.
struct EpochOutput {
  CellSpike* cell_spikes;
  uint64_t* host_keys;
  uint32_t capacity;
  uint32_t host_capacity;
  uint32_t* counters;
  uint32_t* host_count;
};

// Adds the connections of spikes[0, count) (of any trials of the batch) that deliver at
// or after first_delivery to their trial's ring and flags their slots (CpuTrial::scatter),
// spread over blocks by connection.
void launch_scatter(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                    const CellSpike* spikes, uint32_t count, int32_t first_delivery);

// Sets bit (step - first) of every trial's kick_steps for kicks[0, count), all inside
// the epoch (every trial of a batch has the same kicks).
void launch_set_kicks(cudaStream_t stream, const Kick* kicks, uint32_t count, int32_t first, DeviceState state);

// kernels::advance_neuron for every neuron of every trial through `span` (trial k of the
// batch is trial first_trial + k, its generator key rng_key(seed, first_trial + k)), then
// clears the span's ring slot flags and the kicks (CpuTrial::advance). One launch for the
// whole batch.
void launch_advance(cudaStream_t stream, const LifConstants& c, kernels::EpochSpan span, uint64_t seed,
                    int32_t first_trial, DeviceState state, EpochOutput out);

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

// The advance kernel's attributes: fails with cudaErrorNoKernelImageForDevice when this
// binary holds no code the current device can run.
cudaError_t advance_kernel_attributes(cudaFuncAttributes* attributes);

}  // namespace flysim::cuda
