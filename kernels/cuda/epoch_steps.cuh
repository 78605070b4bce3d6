#pragma once
// A neuron's epoch on the device, shared by the kernels of epoch_kernels.cu and
// pulled_cell.cu: a connection's delivery into the delay ring, the spikes a scatter
// delivers, the sort's look at a neuron and its path, its stepwise epoch.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/epoch_kernels.cuh"

namespace flysim::cuda {

inline constexpr unsigned kBlock = 256;
inline constexpr unsigned kFullWarp = 0xffffffffu;

// One connection's delivery: `units` into ring slot `slot` of neuron `post` of batch
// slot `trial`, the slot flagged. The ring holds int64 fixed-point sums: adding them as
// unsigned 64-bit wraps exactly as two's complement does, so the order the atomics land
// in cannot change the result.
__device__ inline void deliver(const DeviceState& state, int32_t slot, uint32_t trial, uint32_t post, int32_t units) {
  atomicAdd(reinterpret_cast<unsigned long long*>(state.ring_at(slot, trial, post)),
            static_cast<unsigned long long>(static_cast<int64_t>(units)));
  atomicOr(state.synaptic_slots + state.at(trial, post), 1u << slot);
}

// Whether a spike's connections are delivered from epoch `first_delivery` on: not
// delivered already, and its neuron not silenced at the source.
__device__ inline bool spike_delivers(const LifConstants& c, const DeviceState& state, const Spike& spike,
                                      int32_t first_delivery) {
  return !kernels::already_delivered(c, spike, first_delivery) &&
         (state.silenced_out == nullptr || state.silenced_out[spike.neuron] == 0u);
}

// Whether input reaches neuron `post`: it is not silenced at the target.
__device__ inline bool input_reaches(const DeviceState& state, uint32_t post) {
  return state.silenced_in == nullptr || state.silenced_in[post] == 0u;
}

// The bytes of a block's staging area: a delay cell of ring slots per thread
// (stage_ring_slots), in dynamic shared memory.
inline std::size_t stage_bytes(const LifConstants& c) {
  return static_cast<std::size_t>(c.delay_steps) * kBlock * sizeof(int64_t);
}
// Zeroes the block's staging area, each thread its own slots, for a launch that adds
// into it; the barrier after it (constants_to_shared's) lets a thread add into another's.
__device__ inline void zero_stage(const LifConstants& c, int64_t* stage) {
  for (uint32_t k = threadIdx.x; k < static_cast<uint32_t>(c.delay_steps) * kBlock; k += kBlock) stage[k] = 0;
}

// The spikes a cell start delivers: the previous cell's, where the plan says they lie.
struct SpikeRange {
  const CellSpike* spikes;
  uint32_t count;
};
__device__ inline SpikeRange round_start_spikes(const CellSpike* cell_spikes, const RoundPlan* plan) {
  return {cell_spikes + plan->start_scatter_begin, plan->start_scatter_count};
}
// Before epoch j >= 1: the spikes of the cell the device last advanced, epoch j - 1's, a
// range the host does not know. For j = 1 the cell began before the round (its earlier
// spikes lie at the front of cell_spikes, plan_launches puts them there) or with it (the
// plan's base is then 0). Nothing of epoch j has spiked yet, so the round's count is
// where epoch j's spikes will begin: block (0, 0) notes it.
__device__ inline SpikeRange last_cell_spikes(const CellSpike* cell_spikes, RoundCounts* counts, const RoundPlan* plan,
                                              uint32_t j) {
  const uint32_t so_far = counts->spikes;
  const uint32_t begin = j == 1 ? 0u : plan->base + counts->epoch_first[j - 1];
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) counts->epoch_first[j] = so_far;
  return {cell_spikes + begin, plan->base + so_far - begin};
}

__device__ inline bool same_bits(double a, double b) { return __double_as_longlong(a) == __double_as_longlong(b); }

// Copies this neuron's ring slots that the epoch reads (the bits of `slots`, all within
// the epoch's span) into the block's staging area (`stage`, slot s of thread t at
// stage[s * kBlock + t]), or with kAdd adds them to what it holds (a pulled cell's input;
// the stage is then zero elsewhere), and clears them in the ring. The epoch's steps then
// read shared memory. Why: some lane of a warp has input at almost every step, so reading
// the ring step by step would make nearly every step wait for a global load; here the
// loads of up to kStageLoads flagged slots are in flight together, and most neurons wait
// for one load, whichever steps their input falls on. Only the pull adds: adding in the push launches too would cost the stepwise
// launch registers.
template <bool kAdd = false>
__device__ inline void stage_ring_slots(uint32_t slots, int64_t* ring, std::size_t stride, int64_t* stage) {
  constexpr int32_t kStageLoads = 8;
  while (slots != 0u) {
    int32_t slot[kStageLoads];
    int64_t units[kStageLoads];
#pragma unroll
    for (int32_t u = 0; u < kStageLoads; ++u) {
      slot[u] = slots != 0u ? kernels::lowest_bit(slots) : -1;
      slots &= slots - 1u;
    }
#pragma unroll
    for (int32_t u = 0; u < kStageLoads; ++u) units[u] = slot[u] >= 0 ? ring[slot[u] * stride] : 0;
#pragma unroll
    for (int32_t u = 0; u < kStageLoads; ++u) {
      if (slot[u] >= 0) {
        if constexpr (kAdd)
          stage[slot[u] * kBlock + threadIdx.x] += units[u];
        else
          stage[slot[u] * kBlock + threadIdx.x] = units[u];
        ring[slot[u] * stride] = 0;
      }
    }
  }
}

// The constants in shared memory, a word per thread, then a barrier. A quiet stretch
// indexes the propagator tables by its length, which differs from lane to lane, and
// the kernel-parameter bank serves such loads one address at a time. Every thread copies
// a word, so that no warp waits at the barrier for one thread's copy.
__device__ inline void constants_to_shared(const LifConstants& parameter_c, LifConstants& shared_c) {
  static_assert(sizeof(LifConstants) % sizeof(uint32_t) == 0 && sizeof(LifConstants) / sizeof(uint32_t) <= kBlock);
  if (threadIdx.x < sizeof(LifConstants) / sizeof(uint32_t))
    reinterpret_cast<uint32_t*>(&shared_c)[threadIdx.x] = reinterpret_cast<const uint32_t*>(&parameter_c)[threadIdx.x];
  __syncthreads();
}

// Neuron `at` (neuron i of its trial) as an epoch's sort finds it: its inputs, its state,
// its flags and its path; a quiet one has taken its one multi-step decay (stored).
// Where its recent_spike flag is clear, last_spike holds kNeverSpiked in its stead (the
// refractory period is over either way, so no path, step or result can tell them apart).
struct SortedNeuron {
  kernels::NeuronInputs in;
  double v, g;
  int32_t last_spike;
  kernels::EpochPath path;
  uint8_t flags;
};

// The flags after an epoch through `span` that left the neuron at (v, g, last_spike) and
// took its kicks (an epoch with kicks is stepwise), stored when they changed.
__device__ inline void store_flags(const LifConstants& c, kernels::EpochSpan span, const DeviceState& state,
                                   uint32_t at, uint8_t was, double v, double g, int32_t last_spike) {
  const kernels::EpochSpan next{span.first + span.steps, 0};
  const uint8_t now = (kernels::at_rest(c, v, g) ? 0u : NeuronFlags::off_rest) |
                      (kernels::refractory_over(next, last_spike, c.ref_steps) ? 0u : NeuronFlags::recent_spike);
  if (now != was) state.flags[at] = now;
}

// A sort looks at a neuron in three steps, so that a thread sorting several can have the
// loads of all of them in flight before it waits on any. first_look reads the ring
// flags, the Poisson flag and the flags byte: a neuron at rest without input (most of a
// sparse batch) is done there. Where the neuron may change (may_change), read_state
// reads v and g, and its kicks and last spike only where its flags say they can matter;
// settle_path chooses its path and takes a quiet one's decay.
__device__ inline SortedNeuron first_look(const LifConstants& c, const DeviceState& state, uint32_t at, uint32_t i) {
  return {{state.synaptic_slots[at], 0u, state.poisson[i] != 0},
          c.v0,
          0.0,
          kNeverSpiked,
          kernels::EpochPath::unchanged,
          state.flags[at]};
}
__device__ inline bool may_change(const SortedNeuron& n) {
  return n.in.synaptic_slots != 0u || n.in.poisson || (n.flags & (NeuronFlags::off_rest | NeuronFlags::kicked)) != 0u;
}
__device__ inline void read_state(const DeviceState& state, uint32_t at, SortedNeuron& n) {
  if (n.flags & NeuronFlags::kicked) n.in.kick_steps = state.kick_steps[at];
  if (n.flags & NeuronFlags::recent_spike) n.last_spike = state.last_spike[at];
  n.v = state.v[at];
  n.g = state.g[at];
}
__device__ inline void settle_path(const LifConstants& c, kernels::EpochSpan span, const DeviceState& state,
                                   uint32_t at, SortedNeuron& n) {
  n.path = kernels::choose_path(c, n.in, span, n.v, n.g, n.last_spike);
  if (n.path == kernels::EpochPath::quiet) {
    double v = n.v, g = n.g;
    kernels::advance_quiet(c, span, v, g);
    state.v[at] = v;
    state.g[at] = g;
    store_flags(c, span, state, at, n.flags, v, g, n.last_spike);
  } else if (n.path == kernels::EpochPath::unchanged) {
    store_flags(c, span, state, at, n.flags, n.v, n.g, n.last_spike);
  }
}
__device__ inline SortedNeuron sort_neuron(const LifConstants& c, kernels::EpochSpan span, const DeviceState& state,
                                           uint32_t at, uint32_t i) {
  SortedNeuron n = first_look(c, state, at, i);
  if (may_change(n)) {
    read_state(state, at, n);
    settle_path(c, span, state, at, n);
  }
  return n;
}

// A stepwise neuron's epoch: kernels::advance_neuron_drawn with exactly CpuEngine's
// arguments except that the ring slots it reads are staged in shared memory (`stage`,
// the block's staging area, already holding them) and its Poisson draws are given; the
// steps clear every staged slot they read.
// `ring_flags`: the slots of its ring in device memory that were staged (the rest of
// n.in.synaptic_slots came from elsewhere, a pulled cell). Its spikes go where `out`
// says; what changed is stored (bits, not ==, so that a g decaying to -0.0 is still
// written), and the epoch's slot flags and kicks are cleared.
__device__ inline void step_staged(const LifConstants& c, const RoundPlan& plan, kernels::EpochSpan span,
                                   const DeviceState& state, uint32_t at, uint32_t i, const SortedNeuron& n,
                                   uint32_t ring_flags, uint32_t draws, int64_t* stage, const EpochOutput& out) {
  const uint32_t trial_slot = state.trial_of(at);
  const uint32_t consumed = kernels::consumed_slots(c, span);
  double v = n.v, g = n.g;
  int32_t last_spike = n.last_spike;
  const uint32_t base = plan.base;
  // advance_neuron_drawn's clearing of what it read lands in shared memory.
  kernels::advance_neuron_drawn(c, span, n.in, draws, stage + threadIdx.x, kBlock, v, g, last_spike, [&](int32_t step) {
    const uint32_t k = atomicAdd(&out.counts->spikes, 1u);
    if (base + k < out.capacity) out.cell_spikes[base + k] = CellSpike{step, i, trial_slot};
    if (k < out.host_capacity) out.host_keys[k] = out.packed.pack(trial_slot, step - plan.first, i);
  });
  if (!same_bits(v, n.v)) state.v[at] = v;
  if (!same_bits(g, n.g)) state.g[at] = g;
  if (last_spike != n.last_spike) state.last_spike[at] = last_spike;
  if ((ring_flags & consumed) != 0u) state.synaptic_slots[at] = ring_flags & ~consumed;
  if (n.in.kick_steps != 0u) state.kick_steps[at] = 0u;
  store_flags(c, span, state, at, n.flags, v, g, last_spike);
}

// The same, its input staged here from the ring, where all of it lies.
__device__ inline void step_neuron(const LifConstants& c, const RoundPlan& plan, kernels::EpochSpan span,
                                   const DeviceState& state, uint32_t at, uint32_t i, const SortedNeuron& n,
                                   uint32_t draws, int64_t* stage, const EpochOutput& out) {
  stage_ring_slots(n.in.synaptic_slots & kernels::consumed_slots(c, span),
                   state.ring_at(0, state.trial_of(at), i), state.ring_stride(), stage);
  step_staged(c, plan, span, state, at, i, n, n.in.synaptic_slots, draws, stage, out);
}

// The epoch's Poisson draws (kernels::poisson_steps) of a driven neuron, by a whole warp,
// a lane per step, so that driven lanes do not draw one after another; every lane gets them.
__device__ inline uint32_t warp_poisson_steps(uint32_t threshold, kernels::RngKey key, uint32_t neuron,
                                              kernels::EpochSpan span) {
  const int32_t step = static_cast<int32_t>(threadIdx.x % 32u);
  return __ballot_sync(kFullWarp, step < span.steps && kernels::poisson_event(threshold, key, neuron, span.first + step));
}


}  // namespace flysim::cuda
