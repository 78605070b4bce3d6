#include "kernels/cuda/epoch_kernels.cuh"

#include <algorithm>

namespace flysim::cuda {
namespace {

constexpr unsigned kBlock = 256;
// Connections one scatter block adds per pass: kUnroll per thread.
constexpr unsigned kUnroll = 4;
constexpr unsigned kChunk = kBlock * kUnroll;
// gridDim.y's limit; a spike with more chunks than this loops over them.
constexpr uint64_t kMaxChunksPerSpike = 65535;

// Block (x, y) adds chunk y (kChunk connections) of spike x's out-connections, so a hub
// with thousands of targets is spread over many blocks instead of one warp looping for
// hundreds of microseconds. Each thread first loads its kUnroll connections, then issues
// their atomics: the loads are in flight together rather than one per atomic. The ring
// holds int64 fixed-point sums: adding them as unsigned 64-bit wraps exactly as two's
// complement does, so the order the atomics land in cannot change the result.
__global__ void __launch_bounds__(kBlock)
    scatter_kernel(LifConstants c, DeviceNetwork net, DeviceState state, const CellSpike* spikes, int32_t first_delivery) {
  const CellSpike cell_spike = spikes[blockIdx.x];
  const Spike spike{cell_spike.step, cell_spike.neuron};
  if (kernels::already_delivered(c, spike, first_delivery)) return;
  const int32_t slot = kernels::delivery_slot(c, spike.step);
  const std::size_t trial_base = static_cast<std::size_t>(cell_spike.slot) * state.neurons;
  auto* ring_slot = reinterpret_cast<unsigned long long*>(
      state.ring + (static_cast<std::size_t>(cell_spike.slot) * c.delay_steps + slot) * state.neurons);
  uint32_t* synaptic_slots = state.synaptic_slots + trial_base;
  const uint32_t flag = 1u << slot;
  const uint64_t begin = __ldg(net.out_offsets + spike.neuron), end = __ldg(net.out_offsets + spike.neuron + 1);
  for (uint64_t chunk = begin + uint64_t{blockIdx.y} * kChunk; chunk < end; chunk += uint64_t{gridDim.y} * kChunk) {
    uint32_t post[kUnroll];
    int32_t weight[kUnroll];
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) {
      const uint64_t e = chunk + u * kBlock + threadIdx.x;
      if (e < end) {
        post[u] = __ldg(net.out_targets + e);
        weight[u] = __ldg(net.out_weights + e);
      }
    }
#pragma unroll
    for (unsigned u = 0; u < kUnroll; ++u) {
      if (chunk + u * kBlock + threadIdx.x < end) {
        atomicAdd(ring_slot + post[u], static_cast<unsigned long long>(static_cast<int64_t>(weight[u])));
        atomicOr(synaptic_slots + post[u], flag);
      }
    }
  }
}

// Block row y sets the kicks of trial y.
__global__ void __launch_bounds__(kBlock)
    set_kicks_kernel(const Kick* kicks, uint32_t count, int32_t first, DeviceState state) {
  const uint64_t k = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t* kick_steps = state.kick_steps + static_cast<std::size_t>(blockIdx.y) * state.neurons;
  if (k < count) atomicOr(kick_steps + kicks[k].neuron, 1u << (kicks[k].step - first));
}

__global__ void __launch_bounds__(kBlock)
    set_weights_kernel(const WeightChange* changes, uint32_t count, const uint64_t* edges, int32_t* weights) {
  const uint64_t k = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count) weights[edges[changes[k].plastic]] = changes[k].weight;
}

__global__ void __launch_bounds__(kBlock)
    assign_weights_kernel(const int32_t* values, uint32_t count, const uint64_t* edges, int32_t* weights) {
  const uint64_t p = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p < count) weights[edges[p]] = values[p];
}

__global__ void __launch_bounds__(kBlock)
    gather_weights_kernel(const int32_t* weights, const uint64_t* edges, uint32_t count, int32_t* values) {
  const uint64_t p = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p < count) values[p] = weights[edges[p]];
}

__device__ inline bool same_bits(double a, double b) { return __double_as_longlong(a) == __double_as_longlong(b); }

// Block (x, y) advances neurons [x * kBlock, (x + 1) * kBlock) of trial y of the batch.
__global__ void __launch_bounds__(kBlock)
    advance_kernel(LifConstants c, kernels::EpochSpan span, uint64_t seed, int32_t first_trial, uint32_t consumed,
                   DeviceState state, EpochOutput out) {
  const uint64_t index = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index < state.neurons) {
    const uint32_t i = static_cast<uint32_t>(index);
    const uint32_t trial_slot = blockIdx.y;
    const std::size_t at = static_cast<std::size_t>(trial_slot) * state.neurons + i;
    const kernels::RngKey key = kernels::rng_key(seed, first_trial + static_cast<int32_t>(trial_slot));
    int64_t* ring = state.ring + static_cast<std::size_t>(trial_slot) * c.delay_steps * state.neurons + i;
    const kernels::NeuronInputs in{state.synaptic_slots[at], state.kick_steps[at], state.poisson[i] != 0};
    const double v_before = state.v[at], g_before = state.g[at];
    const int32_t last_before = state.last_spike[at];
    double v = v_before, g = g_before;
    int32_t last_spike = last_before;
    kernels::advance_neuron(c, i, span, in, key, ring, state.neurons, v, g, last_spike, [&](int32_t step) {
      const uint32_t slot = atomicAdd(out.counters, 1u);
      if (slot < out.capacity) out.cell_spikes[slot] = CellSpike{step, i, trial_slot};
      if (slot < out.host_capacity) out.host_keys[slot] = epoch_spike_key(trial_slot, step - span.first, i);
    });
    // Most neurons rest through an epoch: skip their stores. Bits, not ==, so that a g
    // decaying to -0.0 is still written.
    if (!same_bits(v, v_before)) state.v[at] = v;
    if (!same_bits(g, g_before)) state.g[at] = g;
    if (last_spike != last_before) state.last_spike[at] = last_spike;
    if ((in.synaptic_slots & consumed) != 0u) state.synaptic_slots[at] = in.synaptic_slots & ~consumed;
    if (in.kick_steps != 0u) state.kick_steps[at] = 0u;
  }
  // The last block to finish publishes the spike count (the threadFenceReduction
  // pattern): every block's counter increments are visible once it has counted itself.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(out.counters + 1, 1u) == gridDim.x * gridDim.y - 1) {
      *out.host_count = atomicExch(out.counters, 0u);
      out.counters[1] = 0u;
    }
  }
}

unsigned blocks_for(uint64_t threads) { return static_cast<unsigned>((threads + kBlock - 1) / kBlock); }

}  // namespace

void launch_scatter(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                    const CellSpike* spikes, uint32_t count, int32_t first_delivery) {
  if (count == 0) return;
  const uint64_t chunks = std::min<uint64_t>(std::max<uint64_t>((net.max_out_degree + kChunk - 1) / kChunk, 1),
                                             kMaxChunksPerSpike);
  scatter_kernel<<<dim3(count, static_cast<unsigned>(chunks)), kBlock, 0, stream>>>(c, net, state, spikes,
                                                                                  first_delivery);
}

void launch_set_kicks(cudaStream_t stream, const Kick* kicks, uint32_t count, int32_t first, DeviceState state) {
  if (count == 0) return;
  set_kicks_kernel<<<dim3(blocks_for(count), state.trials), kBlock, 0, stream>>>(kicks, count, first, state);
}

void launch_advance(cudaStream_t stream, const LifConstants& c, kernels::EpochSpan span, uint64_t seed,
                    int32_t first_trial, DeviceState state, EpochOutput out) {
  const uint32_t consumed = kernels::consumed_slots(c, span);
  // At least one block, even for an empty network: the last block publishes the count.
  const unsigned blocks = state.neurons > 0 ? blocks_for(state.neurons) : 1u;
  advance_kernel<<<dim3(blocks, state.trials), kBlock, 0, stream>>>(c, span, seed, first_trial, consumed, state, out);
}

void launch_set_weights(cudaStream_t stream, const WeightChange* changes, uint32_t count, const uint64_t* edges,
                        int32_t* weights) {
  if (count == 0) return;
  set_weights_kernel<<<blocks_for(count), kBlock, 0, stream>>>(changes, count, edges, weights);
}

void launch_assign_weights(cudaStream_t stream, const int32_t* values, uint32_t count, const uint64_t* edges,
                           int32_t* weights) {
  if (count == 0) return;
  assign_weights_kernel<<<blocks_for(count), kBlock, 0, stream>>>(values, count, edges, weights);
}

void launch_gather_weights(cudaStream_t stream, const int32_t* weights, const uint64_t* edges, uint32_t count,
                           int32_t* values) {
  if (count == 0) return;
  gather_weights_kernel<<<blocks_for(count), kBlock, 0, stream>>>(weights, edges, count, values);
}

cudaError_t advance_kernel_attributes(cudaFuncAttributes* attributes) {
  return cudaFuncGetAttributes(attributes, advance_kernel);
}

}  // namespace flysim::cuda
