#include "kernels/cuda/epoch_kernels.cuh"

#include <algorithm>

#include "kernels/cuda/cuda_support.cuh"
#include "kernels/cuda/epoch_steps.cuh"

namespace flysim::cuda {
namespace {

// Connections one scatter block adds per pass: kUnroll per thread.
constexpr unsigned kUnroll = 4;
constexpr unsigned kChunk = kBlock * kUnroll;
// gridDim.y's limit: a spike with more chunks than this loops over them, and in a batch
// with more trials set_kicks_kernel's rows loop over the trials.
constexpr uint64_t kMaxGridY = 65535;
constexpr uint64_t kMaxChunksPerSpike = kMaxGridY;

// Block (x, y) adds chunk y (kChunk connections) of spike x's out-connections, so a hub
// with thousands of targets is spread over many blocks instead of one warp looping for
// hundreds of microseconds. Each thread first loads its kUnroll connections, then issues
// their atomics (deliver): the loads are in flight together rather than one per atomic.
// Chunk blockIdx.y of one spike's connections (scatter_kernel).
__device__ inline void scatter_spike(const LifConstants& c, const DeviceNetwork& net, const DeviceState& state,
                                     const CellSpike& cell_spike, int32_t first_delivery) {
  const Spike spike{cell_spike.step, cell_spike.neuron};
  if (!spike_delivers(c, state, spike, first_delivery)) return;
  const int32_t slot = kernels::delivery_slot(c, spike.step);
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
      if (chunk + u * kBlock + threadIdx.x < end && input_reaches(state, post[u])) {
        deliver(state, slot, cell_spike.slot, post[u], weight[u]);
      }
    }
  }
}

// Row x of blocks takes spikes x, x + gridDim.x, ... of spikes[0, count).
__device__ inline void scatter_spikes(const LifConstants& c, const DeviceNetwork& net, const DeviceState& state,
                                      const CellSpike* spikes, uint32_t count, int32_t first_delivery) {
  for (uint32_t x = blockIdx.x; x < count; x += gridDim.x) scatter_spike(c, net, state, spikes[x], first_delivery);
}

__global__ void __launch_bounds__(kBlock)
    scatter_kernel(LifConstants c, DeviceNetwork net, DeviceState state, const CellSpike* spikes, uint32_t count,
                   int32_t first_delivery) {
  scatter_spikes(c, net, state, spikes, count, first_delivery);
}

// The previous cell's spikes at a round's start, where the plan says they lie.
__global__ void __launch_bounds__(kBlock)
    round_start_scatter_kernel(LifConstants c, DeviceNetwork net, DeviceState state, const CellSpike* cell_spikes,
                               const RoundPlan* plan) {
  const SpikeRange range = round_start_spikes(cell_spikes, plan);
  scatter_spikes(c, net, state, range.spikes, range.count, plan->first);
}

// The spikes of the cell the device last advanced, before epoch j >= 1 (last_cell_spikes).
__global__ void __launch_bounds__(kBlock)
    scatter_last_cell_kernel(LifConstants c, DeviceNetwork net, DeviceState state, const CellSpike* cell_spikes,
                             RoundCounts* counts, const RoundPlan* plan, uint32_t j) {
  const SpikeRange range = last_cell_spikes(cell_spikes, counts, plan, j);
  scatter_spikes(c, net, state, range.spikes, range.count, plan->epochs[j].span.first);
}

__global__ void publish_round_kernel(const RoundCounts* counts, uint32_t epochs, RoundSummary* summary) {
  uint32_t most = 0;
  for (uint32_t j = 0; j < epochs; ++j) {
    most = counts->listed[j] > most ? counts->listed[j] : most;
    summary->epoch_first[j] = j == 0 ? 0u : counts->epoch_first[j];
  }
  summary->spikes = counts->spikes;
  summary->most_listed = most;
}

// Block row y sets the kicks of trials y, y + gridDim.y, ...; block columns loop over the
// epoch's kicks.
__global__ void __launch_bounds__(kBlock)
    set_kicks_kernel(const Kick* kicks, const RoundPlan* plan, uint32_t j, DeviceState state) {
  const EpochPlan epoch = plan->epochs[j];
  for (uint32_t trial = blockIdx.y; trial < state.trials; trial += gridDim.y) {
    for (uint64_t k = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < epoch.kick_count;
         k += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
      const Kick kick = kicks[epoch.kick_begin + k];
      const std::size_t at = state.at(trial, kick.neuron);
      atomicOr(state.kick_steps + at, 1u << (kick.step - epoch.span.first));
      // Every kick of a neuron stores the same byte: its bits, kicked among them.
      uint8_t& flags = state.flags[at];
      flags = flags | NeuronFlags::kicked;
    }
  }
}

__global__ void __launch_bounds__(kBlock) rest_kernel(double v0, DeviceState state) {
  const uint64_t count = static_cast<uint64_t>(state.neurons) * state.trials;
  for (uint64_t k = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
       k += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    state.v[k] = v0;
    state.g[k] = 0.0;
    state.last_spike[k] = kNeverSpiked;
    state.flags[k] = 0u;
  }
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

// Phase 1 of an epoch of a batch. Thread x of the launch takes kSortPerThread entries of
// the per-neuron arrays (neuron i of batch slot t at [i][t]: DeviceState::at), kBlock
// apart so that each load of a warp is one stretch, and sorts them by
// kernels::choose_path: unchanged ones are left alone, quiet ones take their one
// multi-step decay here, and stepwise ones (input, a Poisson drive, or near threshold)
// are listed for phase 2. Most neurons of a warp need nothing, so stepping each in place
// kept whole warps busy for one stepwise lane: in the FlyWire-scale sugar experiment
// about 3,000 of 138,639 neurons per trial step through a cell. Each step's loads are
// issued for all of a thread's entries before any is used, so that a thread does not
// wait on two loads in a row per entry. The driven neurons get their draws here too, a
// warp per neuron and trial, into poisson_steps for the stepwise launch.
constexpr uint32_t kSortPerThread = 4;
constexpr uint32_t kSortBlockEntries = kBlock * kSortPerThread;
__global__ void __launch_bounds__(kBlock)
    sort_paths_kernel(LifConstants c, const RoundPlan* plan, uint32_t j, uint64_t seed, int32_t first_trial,
                      DeviceState state, uint32_t* stepwise, RoundCounts* counts) {
  const kernels::EpochSpan span = plan->epochs[j].span;
  const uint32_t lane = threadIdx.x % 32u, warps = gridDim.x * (kBlock / 32u);
  for (uint32_t p = (blockIdx.x * kBlock + threadIdx.x) / 32u; p < state.poisson_count * state.trials; p += warps) {
    const uint32_t neuron = state.poisson_list[p / state.trials], t = p % state.trials;
    const kernels::RngKey key = kernels::rng_key(seed, first_trial + static_cast<int32_t>(t));
    const uint32_t events = warp_poisson_steps(state.poisson_threshold[neuron], key, neuron, span);
    if (lane == 0u) state.poisson_steps[state.at(t, neuron)] = events;
  }
  const uint32_t entries = state.neurons * state.trials;
  const uint32_t first = blockIdx.x * kSortBlockEntries + threadIdx.x;
  SortedNeuron n[kSortPerThread];
  bool look[kSortPerThread];
#pragma unroll
  for (uint32_t u = 0; u < kSortPerThread; ++u) {
    const uint32_t at = first + u * kBlock;
    look[u] = at < entries;
    if (look[u]) n[u] = first_look(c, state, at, state.neuron_of(at));
  }
#pragma unroll
  for (uint32_t u = 0; u < kSortPerThread; ++u) {
    look[u] = look[u] && may_change(n[u]);
    if (look[u]) read_state(state, first + u * kBlock, n[u]);
  }
  bool listed[kSortPerThread];
  bool any = false;
#pragma unroll
  for (uint32_t u = 0; u < kSortPerThread; ++u) {
    if (look[u]) settle_path(c, span, state, first + u * kBlock, n[u]);
    listed[u] = look[u] && n[u].path == kernels::EpochPath::stepwise;
    any = any || listed[u];
  }
  // One atomic per block for its listed neurons: one per warp would queue thousands of
  // warps on the counter's address, each waiting for its answer.
  if (!__syncthreads_or(any)) return;
  __shared__ uint32_t warp_first[kBlock / 32u];
  __shared__ uint32_t block_first;
  unsigned want[kSortPerThread];
  uint32_t warp_count = 0;
#pragma unroll
  for (uint32_t u = 0; u < kSortPerThread; ++u) {
    want[u] = __ballot_sync(kFullWarp, listed[u]);
    warp_count += __popc(want[u]);
  }
  const uint32_t warp = threadIdx.x / 32u;
  if (lane == 0u) warp_first[warp] = warp_count;
  __syncthreads();
  if (threadIdx.x == 0u) {
    uint32_t total = 0;
    for (uint32_t w = 0; w < kBlock / 32u; ++w) {
      const uint32_t count = warp_first[w];
      warp_first[w] = total;
      total += count;
    }
    block_first = atomicAdd(counts->listed + j, total);
  }
  __syncthreads();
  uint32_t to = block_first + warp_first[warp];
#pragma unroll
  for (uint32_t u = 0; u < kSortPerThread; ++u) {
    if (listed[u]) stepwise[to + __popc(want[u] & ((1u << lane) - 1u))] = first + u * kBlock;
    to += __popc(want[u]);
  }
}

// Phase 2: the listed neurons, stepwise (step_neuron), their Poisson draws the sort
// launch's. Blocks take the list kBlock entries at a time; its length is the device's
// (RoundCounts::listed). Dynamic shared memory: delay_steps * kBlock int64.
__global__ void __launch_bounds__(kBlock)
    stepwise_kernel(LifConstants parameter_c, const RoundPlan* plan, uint32_t j, DeviceState state,
                    const uint32_t* stepwise, EpochOutput out) {
  extern __shared__ int64_t stage[];
  __shared__ LifConstants shared_c;
  constants_to_shared(parameter_c, shared_c);
  const LifConstants& c = shared_c;
  const kernels::EpochSpan span = plan->epochs[j].span;
  const uint32_t listed = out.counts->listed[j];
  for (uint32_t from = blockIdx.x * kBlock; from < listed; from += gridDim.x * kBlock) {
    if (from + threadIdx.x >= listed) continue;
    const uint32_t at = stepwise[from + threadIdx.x];
    const uint32_t i = state.neuron_of(at);
    const SortedNeuron n{{state.synaptic_slots[at], state.kick_steps[at], state.poisson[i] != 0},
                         state.v[at],
                         state.g[at],
                         state.last_spike[at],
                         kernels::EpochPath::stepwise,
                         state.flags[at]};
    step_neuron(c, *plan, span, state, at, i, n, n.in.poisson ? state.poisson_steps[at] : 0u, stage, out);
  }
}

// Both phases in one launch, for a batch of one trial: block x sorts neurons
// [x * kSortedPerBlock, (x + 1) * kSortedPerBlock), lists its stepwise ones in shared
// memory, draws the driven ones' Poisson events (a warp each) and steps them. Why: a
// block's stepwise neurons start as soon as its own sort is done, with no list through
// global memory, no second read of their state and no wait for the sort's last block,
// which in a one-trial epoch is most of its time. The grid covers every neuron in one wave, so
// with many trials (many waves, one warp of stepwise work per block for the latency of
// a whole epoch) the two launches stay faster. Dynamic shared memory as the stepwise
// launch's. A block sorts 384 neurons, one or two per thread: at FlyWire scale 362
// blocks, one wave at three blocks per SM (the registers' limit), and where half the
// brain steps, a block's stepwise neurons still fit its 256 threads at once.
constexpr uint32_t kSortedPerBlock = 384;
constexpr uint32_t kSortedPerThread = (kSortedPerBlock + kBlock - 1) / kBlock;
__global__ void __launch_bounds__(kBlock)
    sort_and_step_kernel(LifConstants parameter_c, const RoundPlan* plan, uint32_t j, uint64_t seed, int32_t first_trial,
                         DeviceState state, EpochOutput out) {
  extern __shared__ int64_t stage[];
  __shared__ LifConstants shared_c;
  __shared__ SortedNeuron listed[kSortedPerBlock];
  __shared__ uint32_t listed_neuron[kSortedPerBlock];
  __shared__ uint32_t draws[kSortedPerBlock];
  __shared__ uint32_t driven[kSortedPerBlock];  // entries of `listed` that are Poisson-driven
  __shared__ uint32_t listed_count, driven_count;
  if (threadIdx.x == 0) listed_count = driven_count = 0;
  constants_to_shared(parameter_c, shared_c);
  const LifConstants& c = shared_c;
  const kernels::EpochSpan span = plan->epochs[j].span;
  for (uint32_t u = 0; u < kSortedPerThread; ++u) {
    if (u * kBlock + threadIdx.x >= kSortedPerBlock) break;
    const uint64_t index = static_cast<uint64_t>(blockIdx.x) * kSortedPerBlock + u * kBlock + threadIdx.x;
    if (index >= state.neurons) break;
    const auto i = static_cast<uint32_t>(index);
    const SortedNeuron n = sort_neuron(c, span, state, i, i);
    if (n.path != kernels::EpochPath::stepwise) continue;
    const uint32_t e = atomicAdd(&listed_count, 1u);
    listed[e] = n;
    listed_neuron[e] = i;
    draws[e] = 0u;
    if (n.in.poisson) driven[atomicAdd(&driven_count, 1u)] = e;
  }
  __syncthreads();
  const uint32_t count = listed_count;
  if (count == 0u) return;
  const kernels::RngKey key = kernels::rng_key(seed, first_trial);
  for (uint32_t d = threadIdx.x / 32u; d < driven_count; d += kBlock / 32u) {
    const uint32_t e = driven[d];
    const uint32_t events = warp_poisson_steps(state.poisson_threshold[listed_neuron[e]], key, listed_neuron[e], span);
    if (threadIdx.x % 32u == 0u) draws[e] = events;
  }
  __syncthreads();
  for (uint32_t e = threadIdx.x; e < count; e += kBlock)
    step_neuron(c, *plan, span, state, listed_neuron[e], listed_neuron[e], listed[e], draws[e], stage, out);
}

// Blocks per spike: one per kChunk connections of the largest out-degree.
unsigned scatter_chunks(const DeviceNetwork& net) {
  return static_cast<unsigned>(
      std::min<uint64_t>(std::max<uint64_t>((net.max_out_degree + kChunk - 1) / kChunk, 1), kMaxChunksPerSpike));
}

// The grid of a scatter of `rows` rows of spikes: a row per spike, and blocks per spike as
// scatter_chunks, but no more than keep the grid within one wave of resident blocks; a
// block loops over the chunks of its spike beyond that. Why: most spikes have a few
// hundred connections, so the blocks for the largest out-degree's chunks mostly find
// nothing to add, each paying a block's loads.
dim3 scatter_grid(const DeviceNetwork& net, uint32_t rows) {
  rows = std::max(rows, 1u);
  return dim3(rows, std::clamp(net.scatter_wave / rows, 1u, scatter_chunks(net)));
}

}  // namespace

unsigned blocks_for(uint64_t threads) { return static_cast<unsigned>((threads + kBlock - 1) / kBlock); }

unsigned stepwise_blocks_for(uint64_t neurons) { return std::max(blocks_for(neurons), 1u); }

void launch_scatter(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                    const CellSpike* spikes, uint32_t count, int32_t first_delivery) {
  if (count == 0) return;
  scatter_kernel<<<scatter_grid(net, count), kBlock, 0, stream>>>(c, net, state, spikes, count, first_delivery);
}

void launch_round_start_scatter(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                                const CellSpike* cell_spikes, const RoundPlan* plan, uint32_t rows) {
  round_start_scatter_kernel<<<scatter_grid(net, rows), kBlock, 0, stream>>>(
      c, net, state, cell_spikes, plan);
}

void launch_scatter_last_cell(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                              const CellSpike* cell_spikes, RoundCounts* counts, const RoundPlan* plan, uint32_t j,
                              uint32_t rows) {
  scatter_last_cell_kernel<<<scatter_grid(net, rows), kBlock, 0, stream>>>(
      c, net, state, cell_spikes, counts, plan, j);
}

void launch_publish_round(cudaStream_t stream, const RoundCounts* counts, uint32_t epochs, RoundSummary* summary) {
  publish_round_kernel<<<1, 1, 0, stream>>>(counts, epochs, summary);
}

void launch_set_kicks(cudaStream_t stream, const Kick* kicks, const RoundPlan* plan, uint32_t j, uint32_t blocks,
                      DeviceState state) {
  const auto rows = static_cast<uint32_t>(std::min<uint64_t>(state.trials, kMaxGridY));
  set_kicks_kernel<<<dim3(std::max(blocks, 1u), rows), kBlock, 0, stream>>>(kicks, plan, j, state);
}

bool advance_in_one_launch(uint32_t trials) { return trials == 1; }

void launch_advance(cudaStream_t stream, const LifConstants& c, const RoundPlan* plan, uint32_t j, uint64_t seed,
                    int32_t first_trial, DeviceState state, uint32_t* stepwise, unsigned stepwise_blocks,
                    EpochOutput out) {
  if (advance_in_one_launch(state.trials)) {
    if (state.neurons > 0)
      sort_and_step_kernel<<<(state.neurons + kSortedPerBlock - 1) / kSortedPerBlock, kBlock, stage_bytes(c),
                             stream>>>(c, plan, j, seed, first_trial, state, out);
    return;
  }
  if (state.neurons > 0)
    sort_paths_kernel<<<static_cast<unsigned>((uint64_t{state.neurons} * state.trials + kSortBlockEntries - 1) /
                                              kSortBlockEntries),
                        kBlock, 0, stream>>>(
        c, plan, j, seed, first_trial, state, stepwise, out.counts);
  stepwise_kernel<<<std::max(stepwise_blocks, 1u), kBlock, stage_bytes(c), stream>>>(c, plan, j, state,
                                                                                             stepwise, out);
}

cudaError_t load_round_kernels() {
  return load_kernels({reinterpret_cast<const void*>(round_start_scatter_kernel),
                       reinterpret_cast<const void*>(scatter_last_cell_kernel),
                       reinterpret_cast<const void*>(set_kicks_kernel), reinterpret_cast<const void*>(sort_paths_kernel),
                       reinterpret_cast<const void*>(stepwise_kernel), reinterpret_cast<const void*>(sort_and_step_kernel),
                       reinterpret_cast<const void*>(publish_round_kernel)});
}

void launch_set_weights(cudaStream_t stream, const WeightChange* changes, uint32_t count, const uint64_t* edges,
                        int32_t* weights) {
  if (count == 0) return;
  set_weights_kernel<<<blocks_for(count), kBlock, 0, stream>>>(changes, count, edges, weights);
}

void launch_rest(cudaStream_t stream, double v0, DeviceState state) {
  if (state.neurons == 0) return;
  rest_kernel<<<blocks_for(static_cast<uint64_t>(state.neurons) * state.trials), kBlock, 0, stream>>>(v0, state);
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

cudaError_t allow_advance_shared_memory() {
  LifConstants largest{};
  largest.delay_steps = kMaxDelaySteps;
  const auto bytes = static_cast<int>(stage_bytes(largest));
  const cudaError_t e = cudaFuncSetAttribute(stepwise_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  return e != cudaSuccess ? e : cudaFuncSetAttribute(sort_and_step_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

cudaError_t scatter_wave_blocks(uint32_t* blocks) {
  int device = 0, sms = 0, per_sm = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scatter_last_cell_kernel, kBlock, 0);
  *blocks = static_cast<uint32_t>(std::max(sms * per_sm, 1));
  return e;
}

cudaError_t advance_kernel_attributes(cudaFuncAttributes* attributes) {
  return cudaFuncGetAttributes(attributes, stepwise_kernel);
}

}  // namespace flysim::cuda
