#include "kernels/cuda/pulled_cell.cuh"

#include <algorithm>
#include <mutex>

#include "kernels/cuda/epoch_steps.cuh"
#include "model/incoming.hpp"

namespace flysim::cuda {
namespace {

constexpr uint32_t kWarps = kBlock / 32u;

// A warp per spike of `range`: lane 0 marks it on its neuron (and sets the neuron's bit);
// a spike beyond its neuron's kMarks the warp pushes into the ring, as scatter_kernel
// would, skipping what that skips.
__device__ inline void mark_spikes(const LifConstants& c, const DeviceNetwork& net, const DeviceState& state,
                                   const SourceMarks& marks, SpikeRange range, int32_t first_delivery) {
  const uint32_t lane = threadIdx.x % 32u, warps = gridDim.x * kWarps;
  for (uint32_t x = (blockIdx.x * kBlock + threadIdx.x) / 32u; x < range.count; x += warps) {
    const CellSpike cell_spike = range.spikes[x];
    const Spike spike{cell_spike.step, cell_spike.neuron};
    if (!spike_delivers(c, state, spike, first_delivery)) continue;
    const int32_t slot = kernels::delivery_slot(c, spike.step);
    const std::size_t row = std::size_t{spike.neuron} * marks.groups + cell_spike.slot / 32u;  // its trial's group
    uint32_t k = 0;
    if (lane == 0u) {
      k = atomicAdd(marks.counts + row, 1u);
      if (k < kMarks)
        marks.marks[row * kMarks + k] = static_cast<uint16_t>(((cell_spike.slot % 32u + 1u) << 5) | static_cast<uint32_t>(slot));
      if (k == 0u) atomicOr(marks.spiked + spike.neuron / 32u, 1u << (spike.neuron % 32u));
    }
    if (__shfl_sync(kFullWarp, k, 0) < kMarks) continue;
    for (uint64_t e = net.out_offsets[spike.neuron] + lane; e < net.out_offsets[spike.neuron + 1]; e += 32u) {
      const uint32_t post = __ldg(net.out_targets + e);
      if (input_reaches(state, post)) deliver(state, slot, cell_spike.slot, post, __ldg(net.out_weights + e));
    }
  }
}

__global__ void __launch_bounds__(kBlock)
    mark_round_start_kernel(LifConstants c, DeviceNetwork net, DeviceState state, SourceMarks marks,
                            const CellSpike* cell_spikes, const RoundPlan* plan) {
  mark_spikes(c, net, state, marks, round_start_spikes(cell_spikes, plan), plan->first);
}

__global__ void __launch_bounds__(kBlock)
    mark_last_cell_kernel(LifConstants c, DeviceNetwork net, DeviceState state, SourceMarks marks,
                          const CellSpike* cell_spikes, RoundCounts* counts, const RoundPlan* plan, uint32_t j) {
  mark_spikes(c, net, state, marks, last_cell_spikes(cell_spikes, counts, plan, j), plan->epochs[j].span.first);
}

// Adds what one connection of `units` brings from a neuron's marks in the warp's group
// (a 16-byte load of SourceMarks::marks) to the group's trials: trial t's into the staged
// slots of thread warp_first + t, flagged in `pulled`.
__device__ inline void add_marked(uint4 marked, int32_t units, uint32_t warp_first, int64_t* stage, uint32_t* pulled) {
  const uint32_t words[4] = {marked.x, marked.y, marked.z, marked.w};
#pragma unroll
  for (uint32_t k = 0; k < kMarks; ++k) {
    const uint32_t mark = (words[k / 2] >> (16u * (k % 2))) & 0xffffu;
    if (mark == 0u) break;
    const uint32_t t = (mark >> 5) - 1u;
    const uint32_t slot = mark & 31u;
    atomicAdd(reinterpret_cast<unsigned long long*>(stage + slot * kBlock + warp_first + t),
              static_cast<unsigned long long>(static_cast<int64_t>(units)));
    atomicOr(pulled + warp_first + t, 1u << slot);
  }
}

// What neuron i's incoming connections bring the warp's group of trials from the marked
// spikes (add_marked). Lane l takes connections l, l + 32, ..., kPullUnroll at
// a time, their loads in flight together; a connection from a neuron without marks costs
// a bit of shared memory.
constexpr uint32_t kPullUnroll = 4;
__device__ inline void pull_input(const DeviceIncoming& in, const SourceMarks& marks, const uint32_t* spiked, uint32_t i,
                                  uint32_t group, uint32_t warp_first, int64_t* stage, uint32_t* pulled) {
  const uint64_t end = in.offsets[i + 1];
  for (uint64_t first = in.offsets[i] + threadIdx.x % 32u; first < end; first += 32u * kPullUnroll) {
    uint32_t source[kPullUnroll];
    int32_t units[kPullUnroll];
#pragma unroll
    for (uint32_t u = 0; u < kPullUnroll; ++u) {
      const uint64_t e = first + 32u * u;
      source[u] = e < end ? __ldg(in.sources + e) : UINT32_MAX;
      units[u] = e < end ? __ldg(in.weights + e) : 0;
    }
    uint4 marked[kPullUnroll];
#pragma unroll
    for (uint32_t u = 0; u < kPullUnroll; ++u) {
      const bool any = source[u] != UINT32_MAX && ((spiked[source[u] / 32u] >> (source[u] % 32u)) & 1u) != 0u;
      const std::size_t at = (std::size_t{source[u]} * marks.groups + group) * kMarks;
      marked[u] = any ? __ldg(reinterpret_cast<const uint4*>(marks.marks + at)) : make_uint4(0u, 0u, 0u, 0u);
    }
#pragma unroll
    for (uint32_t u = 0; u < kPullUnroll; ++u) add_marked(marked[u], units[u], warp_first, stage, pulled);
  }
}

// Epoch j, a whole delay cell. Warp w of the launch takes neuron i for trials [32g, +32)
// for unit = i * groups + g = w, w + warps, ...: it pulls their input (pull_input), draws
// their Poisson events if the neuron is driven (a lane per step, trial after trial), and
// then each lane takes its trial's neuron as the sort and stepwise launches would:
// first_look, what its ring holds added to the pulled input, its path, its steps
// (step_staged). Dynamic shared memory: the staging area (stage_bytes), then a bit per
// neuron, copied from marks.spiked.
__global__ void __launch_bounds__(kBlock)
    pull_and_step_kernel(LifConstants parameter_c, const RoundPlan* plan, uint32_t j, uint64_t seed,
                         int32_t first_trial, DeviceState state, DeviceIncoming in, SourceMarks marks, EpochOutput out) {
  extern __shared__ int64_t stage[];
  uint32_t* spiked = reinterpret_cast<uint32_t*>(stage + static_cast<std::size_t>(parameter_c.delay_steps) * kBlock);
  __shared__ uint32_t pulled[kBlock];
  __shared__ LifConstants shared_c;
  for (uint32_t w = threadIdx.x; w < words_for(state.neurons); w += kBlock) spiked[w] = marks.spiked[w];
  pulled[threadIdx.x] = 0u;
  zero_stage(parameter_c, stage);
  constants_to_shared(parameter_c, shared_c);
  const LifConstants& c = shared_c;
  const kernels::EpochSpan span = plan->epochs[j].span;
  const uint32_t consumed = kernels::consumed_slots(c, span);
  const uint32_t lane = threadIdx.x % 32u, warp_first = threadIdx.x - lane;
  const uint32_t groups = groups_for(state.trials);
  const uint64_t units = uint64_t{state.neurons} * groups, warps = uint64_t{gridDim.x} * kWarps;
  for (uint64_t unit = (uint64_t{blockIdx.x} * kBlock + threadIdx.x) / 32u; unit < units; unit += warps) {
    const auto i = static_cast<uint32_t>(unit / groups);
    const auto first_t = static_cast<uint32_t>(unit % groups) * 32u;
    const uint32_t trials = min(32u, state.trials - first_t);
    // The lane's first look is in flight while the warp pulls.
    const uint32_t at = state.at(first_t + min(lane, trials - 1u), i);
    SortedNeuron n = first_look(c, state, at, i);
    if (input_reaches(state, i)) pull_input(in, marks, spiked, i, first_t / 32u, warp_first, stage, pulled);
    __syncwarp();
    uint32_t draws = 0u;
    if (state.poisson[i] != 0u)
      for (uint32_t t = 0; t < trials; ++t) {
        const kernels::RngKey key = kernels::rng_key(seed, first_trial + static_cast<int32_t>(first_t + t));
        const uint32_t events = warp_poisson_steps(state.poisson_threshold[i], key, i, span);
        if (lane == t) draws = events;
      }
    if (lane < trials) {
      const uint32_t ring_flags = n.in.synaptic_slots;
      stage_ring_slots<true>(ring_flags & consumed, state.ring_at(0, first_t + lane, i), state.ring_stride(), stage);
      n.in.synaptic_slots |= pulled[threadIdx.x];
      pulled[threadIdx.x] = 0u;
      if (may_change(n)) {
        read_state(state, at, n);
        settle_path(c, span, state, at, n);
      }
      if (n.path == kernels::EpochPath::stepwise) step_staged(c, *plan, span, state, at, i, n, ring_flags, draws, stage, out);
    }
    __syncwarp();
  }
}

// Clears the marks of every neuron whose bit is set, in every group, and the bits.
__global__ void __launch_bounds__(kBlock) unmark_kernel(SourceMarks marks, uint32_t words) {
  for (uint32_t w = blockIdx.x * kBlock + threadIdx.x; w < words; w += gridDim.x * kBlock) {
    uint32_t bits = marks.spiked[w];
    if (bits == 0u) continue;
    marks.spiked[w] = 0u;
    for (; bits != 0u; bits &= bits - 1u) {
      const uint32_t source = w * 32u + static_cast<uint32_t>(kernels::lowest_bit(bits));
      for (std::size_t row = std::size_t{source} * marks.groups; row < std::size_t{source + 1} * marks.groups; ++row) {
        marks.counts[row] = 0u;
        *reinterpret_cast<uint4*>(marks.marks + row * kMarks) = make_uint4(0u, 0u, 0u, 0u);
      }
    }
  }
}

// The pulling kernel's room for dynamic shared memory is the process's on a device, not
// an engine's: raised to `bytes` where below, never lowered, so that an engine with a
// shorter delay or a smaller network leaves another engine's launches their room.
void allow_pull_shared_memory(std::size_t bytes) {
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, pull_and_step_kernel), "asking for the pulling kernel's shared memory");
  if (static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) < bytes)
    check(cudaFuncSetAttribute(pull_and_step_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
          "setting the pulling kernel's shared memory");
}

template <class T>
DeviceBuffer<T> uploaded(cudaStream_t stream, const std::vector<T>& host, const char* what) {
  DeviceBuffer<T> device(std::max<std::size_t>(host.size(), 1), what);
  upload(stream, device.get(), host, what);
  return device;
}

}  // namespace

CellPull::CellPull(const Network& net, const LifConstants& c, uint32_t trials, bool plastic, cudaStream_t stream) {
  if (trials < 2 || plastic) return;
  const auto neurons = static_cast<uint32_t>(net.neuron_count());
  const std::size_t shared = stage_bytes(c) + std::size_t{words_for(neurons)} * sizeof(uint32_t);
  int device = 0, sms = 0, most_shared = 0, per_sm = 0, mark_per_sm = 0;
  check(cudaGetDevice(&device), "asking for the current device");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "asking for the device's SMs");
  check(cudaDeviceGetAttribute(&most_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
        "asking for the device's shared memory");
  cudaFuncAttributes pulling{};
  check(cudaFuncGetAttributes(&pulling, pull_and_step_kernel), "loading the pulling kernels");
  if (shared + pulling.sharedSizeBytes > static_cast<std::size_t>(most_shared)) return;
  allow_pull_shared_memory(shared);
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, pull_and_step_kernel, kBlock, shared),
        "asking the device for the pulling kernel's occupancy");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&mark_per_sm, mark_last_cell_kernel, kBlock, 0),
        "asking the device for the marking kernel's occupancy");
  check(load_kernels({reinterpret_cast<const void*>(mark_round_start_kernel), reinterpret_cast<const void*>(mark_last_cell_kernel),
                      reinterpret_cast<const void*>(unmark_kernel)}),
        "loading the pulling kernels");
  if (per_sm < 1) return;

  const IncomingConnections incoming = incoming_connections(net);
  neurons_ = neurons;
  offsets_ = uploaded(stream, incoming.offsets, "uploading the network by target");
  sources_ = uploaded(stream, incoming.sources, "uploading the network by target");
  weights_ = uploaded(stream, incoming.weights, "uploading the network by target");
  spiked_ = DeviceBuffer<uint32_t>(words_for(neurons), "allocating the pull's marks");
  groups_ = groups_for(trials);
  const std::size_t rows = std::size_t{neurons} * groups_;  // a neuron's marks in one group
  counts_ = DeviceBuffer<uint32_t>(std::max<std::size_t>(rows, 1), "allocating the pull's marks");
  marks_ = DeviceBuffer<uint16_t>(std::max<std::size_t>(rows * kMarks, 1), "allocating the pull's marks");
  clear(stream);
  // The host's copy of the network by target must outlive the copies.
  check(cudaStreamSynchronize(stream), "uploading the network by target");
  shared_bytes_ = shared;
  blocks_ = static_cast<uint32_t>(sms * per_sm);
  mark_blocks_ = static_cast<uint32_t>(std::max(sms * mark_per_sm, 1));
}

void CellPull::clear(cudaStream_t stream) const {
  const auto zero = [&](void* data, std::size_t bytes) {
    if (bytes > 0) check(cudaMemsetAsync(data, 0, bytes, stream), "clearing the pull's marks");
  };
  zero(spiked_.get(), spiked_.size() * sizeof(uint32_t));
  zero(counts_.get(), counts_.size() * sizeof(uint32_t));
  zero(marks_.get(), marks_.size() * sizeof(uint16_t));
}

SourceMarks CellPull::source_marks() const { return {spiked_.get(), counts_.get(), marks_.get(), groups_}; }

void CellPull::mark_round_start(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                                const CellSpike* cell_spikes, const RoundPlan* plan) const {
  mark_round_start_kernel<<<mark_blocks_, kBlock, 0, stream>>>(c, net, state, source_marks(), cell_spikes, plan);
}

void CellPull::mark_last_cell(cudaStream_t stream, const LifConstants& c, DeviceNetwork net, DeviceState state,
                              const CellSpike* cell_spikes, RoundCounts* counts, const RoundPlan* plan,
                              uint32_t j) const {
  mark_last_cell_kernel<<<mark_blocks_, kBlock, 0, stream>>>(c, net, state, source_marks(), cell_spikes, counts, plan, j);
}

void CellPull::advance(cudaStream_t stream, const LifConstants& c, const RoundPlan* plan, uint32_t j, uint64_t seed,
                       int32_t first_trial, DeviceState state, EpochOutput out) const {
  pull_and_step_kernel<<<blocks_, kBlock, shared_bytes_, stream>>>(
      c, plan, j, seed, first_trial, state, {offsets_.get(), sources_.get(), weights_.get()}, source_marks(), out);
  const uint32_t words = words_for(neurons_);
  unmark_kernel<<<std::max(blocks_for(words), 1u), kBlock, 0, stream>>>(source_marks(), words);
}

}  // namespace flysim::cuda
