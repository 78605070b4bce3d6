#include "kernels/cpu/step_lanes_avx512.hpp"

#include <immintrin.h>

// kernels/lif.hpp's templates take __m512d (v, g, the propagators), __m512i (lane masks)
// and Bits (input words) here, as in path_pass_avx512.cpp; the lanes' control (which
// lane is where in its epoch) is in intrinsics.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace flysim::kernels {
namespace {

using Bits = uint32_t __attribute__((vector_size(kAvx512Lanes * sizeof(uint32_t))));

// A comparison's lanes (all ones where true) as mask bits, and mask bits as such lanes.
template <class Lanes>
__mmask8 mask_of(Lanes lanes) {
  return _mm512_movepi64_mask(reinterpret_cast<__m512i>(lanes));
}
__m512i lanes_of(__mmask8 mask) { return _mm512_movm_epi64(mask); }

// The lanes whose word has bit `at` (a lane's own) set.
__mmask8 bit_set(__m256i words, __m256i at) {
  return _mm256_test_epi32_mask(_mm256_srlv_epi32(words, at), _mm256_set1_epi32(1));
}

// Each lane's lowest set bit (lanes of 0: any value): a power of two converts to float
// exactly, so its exponent field is the bit's index plus 127.
__m256i lowest_bit_lanes(__m256i words) {
  const __m256i lowest = _mm256_and_si256(words, _mm256_sub_epi32(_mm256_setzero_si256(), words));
  const __m256i exponent =
      _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(lowest)), 23), _mm256_set1_epi32(0xff));
  return _mm256_sub_epi32(exponent, _mm256_set1_epi32(127));
}

// The lowest `count` set bits of `mask`.
__mmask8 lowest_set(__mmask8 mask, unsigned count) {
  __mmask8 taken = 0;
  for (unsigned k = 0; k < count; ++k) {
    taken = static_cast<__mmask8>(taken | (mask & -mask));
    mask = static_cast<__mmask8>(mask & (mask - 1));
  }
  return taken;
}

// One of LifConstants' propagator tables (entries 0 to kMaxDelaySteps) in registers, so
// that each lane can look up its own stretch's entry without a gather.
class PropagatorLanes {
 public:
  explicit PropagatorLanes(const double* table)
      : low_(_mm512_loadu_pd(table)),
        low_high_(_mm512_loadu_pd(table + 8)),
        high_(_mm512_loadu_pd(table + 16)),
        high_high_(_mm512_loadu_pd(table + 24)),
        last_(_mm512_set1_pd(table[32])) {}
  // table[at] lane by lane (0 <= at <= kMaxDelaySteps).
  __m512d at(__m512i at) const {
    const __m512d low = _mm512_permutex2var_pd(low_, at, low_high_);
    const __m512d high = _mm512_permutex2var_pd(high_, at, high_high_);
    const __m512d below_last = _mm512_mask_mov_pd(low, _mm512_cmpge_epu64_mask(at, _mm512_set1_epi64(16)), high);
    return _mm512_mask_mov_pd(below_last, _mm512_cmpge_epu64_mask(at, _mm512_set1_epi64(32)), last_);
  }

 private:
  static_assert(kMaxDelaySteps == 32, "the tables fill four registers and one more entry");
  __m512d low_, low_high_, high_, high_high_, last_;
};

// Spikes gathered here and handed to the caller a batch at a time.
class SpikeBatch {
 public:
  explicit SpikeBatch(LaneFindings& found) : found_(found) {}
  void add(__mmask8 lanes, __m256i step, __m256i neuron) {
    alignas(32) int32_t steps[kAvx512Lanes];
    alignas(32) uint32_t neurons[kAvx512Lanes];
    _mm256_store_si256(reinterpret_cast<__m256i*>(steps), step);
    _mm256_store_si256(reinterpret_cast<__m256i*>(neurons), neuron);
    for (unsigned bits = lanes; bits != 0; bits &= bits - 1) {
      const int k = __builtin_ctz(bits);
      if (count_ == kBatch) flush();
      batch_[count_++] = Spike{steps[k], neurons[k]};
    }
  }
  void flush() {
    if (count_ != 0) found_.spikes(found_.context, batch_, count_);
    count_ = 0;
  }

 private:
  static constexpr std::size_t kBatch = 256;
  LaneFindings& found_;
  Spike batch_[kBatch];
  std::size_t count_ = 0;
};

// The state of list entries [first, first + 8) (those below `count`) into the staged arrays.
void stage(const PoolArrays& pool, const StepwiseList& list, const LaneRoom& room, std::size_t first) {
  const std::size_t left = list.count - first;
  const __mmask8 lanes = static_cast<__mmask8>(left >= kAvx512Lanes ? 0xffu : (1u << left) - 1u);
  const __m256i entry = _mm256_maskz_loadu_epi32(lanes, list.entries + first);
  const __m256i zero = _mm256_setzero_si256();
  _mm512_storeu_pd(room.staged_v + first, _mm512_mask_i32gather_pd(_mm512_setzero_pd(), lanes, entry, pool.v, 8));
  _mm512_storeu_pd(room.staged_g + first, _mm512_mask_i32gather_pd(_mm512_setzero_pd(), lanes, entry, pool.g, 8));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(room.staged_last_spike + first),
                      _mm256_mmask_i32gather_epi32(zero, lanes, entry, pool.last_spike, 4));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(room.staged_slots + first),
                      _mm256_mmask_i32gather_epi32(zero, lanes, entry, pool.synaptic_slots, 4));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(room.staged_kicks + first),
                      _mm256_mmask_i32gather_epi32(zero, lanes, entry, pool.kick_steps, 4));
}

// Lanes `fill` (the lowest idle ones) take `source[from, from + popcount(fill))`.
__m256i lanes_from(__m256i lanes, __mmask8 fill, const void* source, std::size_t from) {
  return _mm256_mask_expand_epi32(lanes, fill, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
                                                   static_cast<const uint32_t*>(source) + from)));
}
__m512d lanes_from(__m512d lanes, __mmask8 fill, const double* source, std::size_t from) {
  return _mm512_mask_expand_pd(lanes, fill, _mm512_loadu_pd(source + from));
}

// Lanes `done` appended at `to` (room for eight past it).
void append(__mmask8 done, __m256i lanes, void* to) {
  _mm256_storeu_si256(static_cast<__m256i*>(to), _mm256_maskz_compress_epi32(done, lanes));
}
void append(__mmask8 done, __m512d lanes, double* to) { _mm512_storeu_pd(to, _mm512_maskz_compress_pd(done, lanes)); }

// What every lane group reads: the epoch, the list and the room, as lanes.
struct LaneEpoch {
  const LifConstants& c;
  EpochSpan span;
  const uint32_t* index;
  const StepwiseList& list;
  const LaneRing& ring;
  const LaneRoom& room;
  __m256i steps, first, first_slot, stride, ring_first, kept_slots;
  PropagatorLanes ev, evg, eg;
  __m512d ev_one, evg_one, eg_one;  // the tables at one step
  std::size_t next = 0;      // the list's next entry to take
  std::size_t finished = 0;  // entries through the epoch so far
};

// Eight entries in flight. Several groups step in turn, so that the latency of one
// group's iteration (a chain of dependent floating-point operations through v and g)
// is spent on the others'. Each lane: its entry and neuron, where it stands in the epoch
// (t), its state and inputs; `busy` lanes hold an entry not yet through the epoch. No
// branch depends on which lanes are where but for spikes: a refill or a store of no
// lanes costs less than a mispredicted branch.
class LaneGroup {
 public:
  // Idle lanes take the next entries of the list; false when every lane is idle.
  __attribute__((always_inline)) bool refill(LaneEpoch& at) {
    const __mmask8 idle = static_cast<__mmask8>(~busy_);
    const unsigned idle_count = static_cast<unsigned>(__builtin_popcount(idle));
    const std::size_t left = at.list.count - at.next, next = at.next;
    const __mmask8 fill = left >= idle_count ? idle : lowest_set(idle, static_cast<unsigned>(left));
    entry_ = lanes_from(entry_, fill, at.list.entries, next);
    draws_ = lanes_from(draws_, fill, at.list.draws, next);
    ref_ = lanes_from(ref_, fill, at.list.refractory, next);
    driven_ = lanes_from(driven_, fill, at.list.driven, next);
    last_ = lanes_from(last_, fill, at.room.staged_last_spike, next);
    slots_ = lanes_from(slots_, fill, at.room.staged_slots, next);
    kicks_ = lanes_from(kicks_, fill, at.room.staged_kicks, next);
    v_ = lanes_from(v_, fill, at.room.staged_v, next);
    g_ = lanes_from(g_, fill, at.room.staged_g, next);
    neuron_ = at.index != nullptr ? _mm256_mmask_i32gather_epi32(neuron_, fill, entry_, at.index, 4) : entry_;
    t_ = _mm256_mask_mov_epi32(t_, fill, _mm256_setzero_si256());
    const Bits inputs = input_bits(at.c, reinterpret_cast<Bits>(slots_), reinterpret_cast<Bits>(kicks_),
                                   reinterpret_cast<Bits>(draws_), at.span);
    arrivals_ = _mm256_mask_mov_epi32(arrivals_, fill, reinterpret_cast<__m256i>(inputs));
    busy_ = static_cast<__mmask8>(busy_ | fill);
    at.next += static_cast<unsigned>(__builtin_popcount(fill));
    return busy_ != 0;
  }

  // One iteration of advance_neuron_drawn's loop in every busy lane: a refractory
  // stretch skipped; or a quiet stretch up to the next input as one decay and the
  // ordinary step at that input; or one ordinary step.
  __attribute__((always_inline)) void advance(const LaneEpoch& at, SpikeBatch& spikes) {
    const LifConstants& c = at.c;
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i step = _mm256_add_epi32(at.first, t_);
    const __mmask8 refractory = busy_ & _mm256_cmplt_epi32_mask(_mm256_sub_epi32(step, last_), ref_);
    const __m256i refractory_until =
        _mm256_min_epi32(_mm256_sub_epi32(_mm256_add_epi32(last_, ref_), at.first), at.steps);
    const __mmask8 stepping = busy_ & static_cast<__mmask8>(~refractory);
    const __m256i ahead = _mm256_srlv_epi32(arrivals_, t_);
    const __mmask8 any_ahead = _mm256_test_epi32_mask(ahead, ahead);
    // A quiet lane's stretch runs to its next input, or to the epoch's end: known before
    // v and g say whether the lane is quiet, and so are its propagators and the ring's
    // units at that input.
    const __m256i quiet_stretch = _mm256_mask_mov_epi32(_mm256_sub_epi32(at.steps, t_), any_ahead, lowest_bit_lanes(ahead));
    const __m512i quiet_length = _mm512_cvtepu32_epi64(quiet_stretch);
    const __m512d quiet_ev = at.ev.at(quiet_length), quiet_evg = at.evg.at(quiet_length),
                  quiet_eg = at.eg.at(quiet_length);
    const __m256i next = _mm256_add_epi32(t_, quiet_stretch);
    const __m256i next_slot = _mm256_add_epi32(at.first_slot, next);
    const __mmask8 next_flagged = stepping & any_ahead & bit_set(slots_, next_slot);
    const __m256i ring_at =
        _mm256_add_epi32(_mm256_sub_epi32(entry_, at.ring_first), _mm256_mullo_epi32(next_slot, at.stride));
    const __m512i next_units = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), next_flagged, ring_at, at.ring.base, 8);
    const __mmask8 quiet = stepping & static_cast<__mmask8>(~_mm256_test_epi32_mask(ahead, one)) &
                           mask_of(provably_below_threshold(c, v_, g_));
    __m512d v_quiet = v_, g_quiet = g_;
    decay_by(c, quiet_ev, quiet_evg, quiet_eg, v_quiet, g_quiet);
    v_ = _mm512_mask_mov_pd(v_, quiet, v_quiet);
    g_ = _mm512_mask_mov_pd(g_, quiet, g_quiet);
    // The ordinary step: at t, or where a quiet stretch ended at an input.
    const __m256i step_t = _mm256_mask_mov_epi32(t_, quiet, next);
    const __mmask8 ordinary = stepping & _mm256_cmplt_epi32_mask(step_t, at.steps);
    const __m512i units = _mm512_maskz_mov_epi64(_mm256_cmpeq_epi32_mask(step_t, next), next_units);
    __m512d v_after = v_, g_after = g_;
    decay_by(c, at.ev_one, at.evg_one, at.eg_one, v_after, g_after);
    const auto fired = fire_or_take_input(c, _mm512_cvtepi64_pd(units), lanes_of(bit_set(kicks_, step_t)),
                                          lanes_of(bit_set(draws_, step_t)), v_after, g_after);
    v_ = _mm512_mask_mov_pd(v_, ordinary, v_after);
    g_ = _mm512_mask_mov_pd(g_, ordinary, g_after);
    const __mmask8 fires = ordinary & mask_of(fired);
    if (fires != 0) {
      const __m256i fired_at = _mm256_add_epi32(at.first, step_t);
      last_ = _mm256_mask_mov_epi32(last_, fires, fired_at);
      spikes.add(fires, fired_at, neuron_);
    }
    t_ = _mm256_mask_mov_epi32(t_, stepping, step_t);
    t_ = _mm256_mask_add_epi32(t_, ordinary, t_, one);
    t_ = _mm256_mask_mov_epi32(t_, refractory, refractory_until);
  }

  // Lanes through the epoch: their state appended to the room's finished arrays (their
  // slots of the span gone), those that leave to `found`; they go idle.
  __attribute__((always_inline)) void retire(LaneEpoch& at, LaneFindings& found) {
    const __mmask8 done = busy_ & _mm256_cmpge_epi32_mask(t_, at.steps);
    const __m256i slots_after = _mm256_and_si256(slots_, at.kept_slots);
    const __mmask8 leaves = done & mask_of(at_rest(at.c, v_, g_)) & _mm256_testn_epi32_mask(driven_, driven_) &
                            _mm256_testn_epi32_mask(slots_after, slots_after);
    const std::size_t f = at.finished;
    append(done, entry_, at.room.finished_entry + f);
    append(done, v_, at.room.finished_v + f);
    append(done, g_, at.room.finished_g + f);
    append(done, last_, at.room.finished_last_spike + f);
    append(done, slots_after, at.room.finished_slots + f);
    append(leaves, entry_, found.leaving + found.leaving_count);
    at.finished += static_cast<unsigned>(__builtin_popcount(done));
    found.leaving_count += static_cast<unsigned>(__builtin_popcount(leaves));
    busy_ = static_cast<__mmask8>(busy_ & ~done);
  }

 private:
  __m256i entry_{}, neuron_{}, t_{}, last_{}, ref_{}, driven_{}, slots_{}, kicks_{}, draws_{}, arrivals_{};
  __m512d v_{}, g_{};
  __mmask8 busy_ = 0;
};

// Groups in flight: two hide most of one group's latency within the core's window.
constexpr unsigned kLaneGroups = 2;

}  // namespace

void step_lanes_avx512(const LifConstants& c, EpochSpan span, const PoolArrays& pool, const uint32_t* index,
                       const StepwiseList& list, const LaneRing& ring, const LaneRoom& room, LaneFindings& found) {
  for (std::size_t first = 0; first < list.count; first += kAvx512Lanes) stage(pool, list, room, first);
  LaneEpoch at{c,
               span,
               index,
               list,
               ring,
               room,
               _mm256_set1_epi32(span.steps),
               _mm256_set1_epi32(span.first),
               _mm256_set1_epi32(span.first % c.delay_steps),
               _mm256_set1_epi32(static_cast<int32_t>(ring.stride)),
               _mm256_set1_epi32(static_cast<int32_t>(ring.first)),
               _mm256_set1_epi32(static_cast<int32_t>(~list.consumed)),
               PropagatorLanes(c.ev_epoch),
               PropagatorLanes(c.evg_epoch),
               PropagatorLanes(c.eg_epoch),
               _mm512_set1_pd(c.ev_epoch[1]),
               _mm512_set1_pd(c.evg_epoch[1]),
               _mm512_set1_pd(c.eg_epoch[1])};
  SpikeBatch spikes(found);
  LaneGroup groups[kLaneGroups];
  for (;;) {
    bool busy = false;
#pragma GCC unroll 4
    for (LaneGroup& group : groups) busy = group.refill(at) || busy;
    if (!busy) break;
#pragma GCC unroll 4
    for (LaneGroup& group : groups) group.advance(at, spikes);
#pragma GCC unroll 4
    for (LaneGroup& group : groups) group.retire(at, found);
  }
  double* const v_of = pool.v;
  double* const g_of = pool.g;
  int32_t* const last_of = pool.last_spike;
  uint32_t* const slots_of = pool.synaptic_slots;
  uint32_t* const kicks_of = pool.kick_steps;
  for (std::size_t f = 0; f < at.finished; ++f) {
    const uint32_t e = room.finished_entry[f];
    v_of[e] = room.finished_v[f];
    g_of[e] = room.finished_g[f];
    last_of[e] = room.finished_last_spike[f];
    slots_of[e] = room.finished_slots[f];
    kicks_of[e] = 0;
  }
  spikes.flush();
}

}  // namespace flysim::kernels
