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

// Per-neuron state and inputs, laid out as in CpuEngine (ring is [slot][neuron]).
struct DeviceState {
  uint32_t neurons;
  double* v;
  double* g;
  int32_t* last_spike;
  int64_t* ring;
  uint32_t* synaptic_slots;
  uint32_t* kick_steps;
  const uint8_t* poisson;
};

// Where the advance kernel puts the epoch's spikes, in the order atomics hand out slots:
// `cell_spikes` (device, kept for the scatter at the next cell start) and `host_spikes`
// (mapped host memory, read after the stream is synchronized), `capacity` each.
// counters[0] counts spikes and counters[1] finished blocks; the last block publishes
// the count to *host_count and zeroes both, so no reset is needed between epochs.
struct EpochOutput {
  Spike* cell_spikes;
  Spike* host_spikes;
  uint32_t capacity;
  uint32_t* counters;
  uint32_t* host_count;
};

// Adds the connections of spikes[0, count) that deliver at or after first_delivery to
// the ring and flags their slots (CpuEngine::scatter), spread over blocks by connection.
void launch_scatter(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                    const Spike* spikes, uint32_t count, int32_t first_delivery);

// Sets bit (step - first) of kick_steps for kicks[0, count), all inside the epoch.
void launch_set_kicks(cudaStream_t stream, const Kick* kicks, uint32_t count, int32_t first, uint32_t* kick_steps);

// kernels::advance_neuron for every neuron through `span`, then clears the span's ring
// slot flags and the kicks (CpuEngine::advance).
void launch_advance(cudaStream_t stream, const LifConstants& c, kernels::EpochSpan span, kernels::RngKey key,
                    DeviceState state, EpochOutput out);

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
