#pragma once
// The per-neuron arithmetic of docs/MODEL.md, written once for every engine (FLYSIM_HD).
// No exp, log or division here: every constant comes derived from the host
// (model/lif_params.cpp). See kernels/README.md for the epoch and the three paths.
#include <Random123/philox.h>

#include <cstddef>
#include <cstdint>

#include "kernels/hd.hpp"
#include "model/lif_constants.hpp"

namespace flysim::kernels {

// Steps [first, first + steps) of one delay cell; steps <= delay_steps.
struct EpochSpan {
  int32_t first;
  int32_t steps;
};

// Key of the counter-based generator: a draw depends on (seed, trial, neuron, step)
// alone, so there is no generator state to carry between engines or checkpoints.
struct RngKey {
  uint32_t seed_lo;
  uint32_t seed_hi;
  uint32_t trial;
};

// What reaches one neuron in this epoch, gathered before the sweep.
struct NeuronInputs {
  uint32_t synaptic_slots;  // bit s: delay-ring slot s holds input for this neuron
  uint32_t kick_steps;      // bit t: a timed kick at step first + t
  bool poisson;             // Poisson-driven: refractory period 0, a draw every step
};

enum class EpochPath : uint8_t {
  unchanged,  // at rest, or refractory for the whole epoch: nothing can change
  quiet,      // no input and provably below threshold: one exact epoch propagator
  stepwise    // everything else: docs/MODEL.md's step, step by step
};

FLYSIM_HD inline int32_t refractory_steps(const LifConstants& c, const NeuronInputs& in) {
  return in.poisson ? 0 : c.ref_steps;
}

// A Poisson event of `neuron` at `step`: its draw is below the neuron's threshold
// (model/stimulus.hpp poisson_thresholds; 0: never).
FLYSIM_HD inline bool poisson_event(uint32_t threshold, RngKey key, uint32_t neuron, int32_t step) {
  const r123::Philox4x32::ctr_type counter = {{neuron, static_cast<uint32_t>(step), key.trial, 0u}};
  const r123::Philox4x32::key_type k = {{key.seed_lo, key.seed_hi}};
  return r123::Philox4x32()(counter, k)[0] < threshold;
}

// The predicates and updates from here to choose_path are templates over the number
// type: `Real` is double, or on the CPU a GCC vector of doubles (kernels/cpu/path_pass_avx512.cpp),
// where a comparison gives a lane mask, `&` combines masks and `?:` selects by lane. One
// text for both, so the vector pass rounds exactly as the scalar one; for double,
// `Real{}` is 0.0.

// The conservative bound of the quiet path: without input, v(t) - v_0 is at most
// max(v - v_0, 0) + max(g, 0) * max_t evg(t) over the epoch.
template <class Real>
FLYSIM_HD inline auto provably_below_threshold(const LifConstants& c, Real v, Real g) {
  const Real lift_v = v > c.v0 ? v - c.v0 : Real{};
  const Real lift_g = g > 0.0 ? g * c.evg_epoch_max : Real{};
  return c.v0 + lift_v + lift_g < c.v_threshold - c.quiet_margin_mV;
}

// A quiet neuron within rest_snap_mV of rest (v and g) is put exactly at rest, so it
// drops out of the work (EpochPath::unchanged) instead of decaying for seconds, and
// into subnormal numbers, towards a rest it never reaches in floating point.
template <class Real>
FLYSIM_HD inline void settle_at_rest(const LifConstants& c, Real& v, Real& g) {
  const Real dv = v - c.v0;
  const auto near_rest = (dv < c.rest_snap_mV) & (dv > -c.rest_snap_mV) & (g < c.rest_snap_mV) & (g > -c.rest_snap_mV);
  v = near_rest ? Real{} + c.v0 : v;
  g = near_rest ? Real{} : g;
}

// True when a neuron is exactly at rest (its update maps it to itself).
template <class Real>
FLYSIM_HD inline auto at_rest(const LifConstants& c, Real v, Real g) {
  return (v == c.v0) & (g == 0.0);
}

// Whether the refractory period (ref steps after last_spike) covers the whole epoch, and
// whether it is over at the epoch's first step. `Int` is int32_t or a vector of them.
template <class Int>
FLYSIM_HD inline auto refractory_throughout(EpochSpan e, Int last_spike, int32_t ref) {
  return e.first + e.steps - 1 - last_spike < ref;
}
template <class Int>
FLYSIM_HD inline auto refractory_over(EpochSpan e, Int last_spike, int32_t ref) {
  return e.first - last_spike >= ref;
}

// docs/MODEL.md step 2 with the propagators of one length given: decay's, or each lane's
// own in the CPU's vector lanes (kernels/cpu/step_lanes_avx512.cpp).
template <class Real, class Coef>
FLYSIM_HD inline void decay_by(const LifConstants& c, Coef ev, Coef evg, Coef eg, Real& v, Real& g) {
  const Real v_next = c.v0 + (v - c.v0) * ev + g * evg;
  g = g * eg;
  v = v_next;
}

// docs/MODEL.md step 2 over `steps` steps at once (steps = 1 is the ordinary update).
template <class Real>
FLYSIM_HD inline void decay(const LifConstants& c, int32_t steps, Real& v, Real& g) {
  decay_by(c, c.ev_epoch[steps], c.evg_epoch[steps], c.eg_epoch[steps], v, g);
}

// Steps 3 to 5 of docs/MODEL.md at a step a neuron takes on its own, v decayed already:
// above threshold (strict) it fires and is reset (the step's input is discarded);
// otherwise the step's synaptic units reach g, and a timed kick and a Poisson event each
// lift v. Returns whether it fired. `Mask`: bool, or a vector of lane masks.
template <class Real, class Mask>
FLYSIM_HD inline auto fire_or_take_input(const LifConstants& c, Real units, Mask kicked, Mask drawn, Real& v, Real& g) {
  const auto fires = v > c.v_threshold;
  const Real g_in = g + units * c.mV_per_unit;
  Real v_in = kicked ? v + c.kick_mV : v;
  v_in = drawn ? v_in + c.kick_mV : v_in;
  v = fires ? Real{} + c.v_reset : v_in;
  g = fires ? Real{} : g_in;
  return fires;
}

// EpochPath::quiet: the epoch as one exact multi-step decay, then settled at rest.
template <class Real>
FLYSIM_HD inline void advance_quiet(const LifConstants& c, EpochSpan e, Real& v, Real& g) {
  decay(c, e.steps, v, g);
  settle_at_rest(c, v, g);
}

FLYSIM_HD inline EpochPath choose_path(const LifConstants& c, const NeuronInputs& in, EpochSpan e, double v, double g,
                                      int32_t last_spike) {
  if (in.synaptic_slots != 0u || in.kick_steps != 0u || in.poisson) return EpochPath::stepwise;
  const int32_t ref = refractory_steps(c, in);
  if (at_rest(c, v, g) || refractory_throughout(e, last_spike, ref)) return EpochPath::unchanged;
  if (refractory_over(e, last_spike, ref) && provably_below_threshold(c, v, g)) return EpochPath::quiet;
  return EpochPath::stepwise;
}

// Index of the lowest set bit of a non-zero word.
FLYSIM_HD inline int32_t lowest_bit(uint32_t word) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(word)) - 1;
#else
  return __builtin_ctz(word);
#endif
}

// The Poisson draws of a neuron over the epoch: bit t set when poisson_event at step
// first + t. Drawn up front (a counter-based draw depends on nothing that happens in the
// epoch), so a device can draw a neuron's steps in parallel.
FLYSIM_HD inline uint32_t poisson_steps(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e) {
  uint32_t bits = 0;
  for (int32_t t = 0; t < e.steps; ++t)
    if (poisson_event(threshold, key, neuron, e.first + t)) bits |= 1u << t;
  return bits;
}

// Bit t: something arrives at step first + t of the epoch: synaptic input (its ring
// slot is flagged), a timed kick or a Poisson event.
// `Bits`: uint32_t, or a vector of them (one neuron a lane).
template <class Bits>
FLYSIM_HD inline Bits input_bits(const LifConstants& c, Bits synaptic_slots, Bits kick_steps, Bits poisson_draws,
                                 EpochSpan e) {
  const uint32_t in_epoch = static_cast<uint32_t>((uint64_t{1} << e.steps) - 1);
  return ((synaptic_slots >> (e.first % c.delay_steps)) | kick_steps | poisson_draws) & in_epoch;
}
FLYSIM_HD inline uint32_t input_steps(const LifConstants& c, const NeuronInputs& in, EpochSpan e, uint32_t poisson_draws) {
  return input_bits(c, in.synaptic_slots, in.kick_steps, poisson_draws, e);
}

// advance_neuron with the neuron's Poisson draws given (poisson_steps; 0 when it is not
// Poisson-driven). The stepwise path pays for events, not steps: refractory steps change
// nothing (their input is discarded), and from a step without input at which the neuron
// is provably below threshold it takes the quiet stretch up to its next input as one
// exact multi-step decay; only steps with input, or near threshold, go one by one.
template <class Emit>
FLYSIM_HD inline void advance_neuron_drawn(const LifConstants& c, EpochSpan e, const NeuronInputs& in,
                                           uint32_t poisson_draws, int64_t* ring, std::size_t stride, double& v,
                                           double& g, int32_t& last_spike, Emit&& emit) {
  const EpochPath path = choose_path(c, in, e, v, g, last_spike);
  if (path == EpochPath::unchanged) return;
  if (path == EpochPath::quiet) {
    advance_quiet(c, e, v, g);
    return;
  }
  const int32_t ref = refractory_steps(c, in);
  const uint32_t arrivals = input_steps(c, in, e, poisson_draws);
  // The epoch lies in one delay cell: step first + t reads ring slot first_slot + t.
  const int32_t first_slot = e.first % c.delay_steps;
  for (int32_t t = 0; t < e.steps;) {
    const int32_t step = e.first + t;
    // 1. refractoriness: the whole refractory stretch at once, its input read and dropped
    if (step - last_spike < ref) {
      const int32_t until = last_spike + ref - e.first < e.steps ? last_spike + ref - e.first : e.steps;
      for (; t < until; ++t)
        if ((in.synaptic_slots >> (first_slot + t)) & 1u) ring[(first_slot + t) * stride] = 0;
      continue;
    }
    // 2. state update: a quiet stretch (no input before step first + t + stretch, and
    // none can reach threshold) as one decay, up to the next input or the epoch's end,
    const uint32_t ahead = arrivals >> t;
    if (!(ahead & 1u) && provably_below_threshold(c, v, g)) {
      const int32_t stretch = ahead ? lowest_bit(ahead) : e.steps - t;
      decay(c, stretch, v, g);
      t += stretch;
    }
    // then one ordinary step (where a quiet stretch ended at an input, the loop's next
    // iteration would be neither refractory nor quiet: it is taken here at once)
    if (t < e.steps) {
      const int32_t at = e.first + t;
      const int32_t slot = first_slot + t;
      decay(c, 1, v, g);
      int64_t synaptic_units = 0;
      if ((in.synaptic_slots >> slot) & 1u) {
        synaptic_units = ring[slot * stride];
        ring[slot * stride] = 0;
      }
      // 3. threshold, 4. input delivery, 5. reset
      if (fire_or_take_input(c, static_cast<double>(synaptic_units), ((in.kick_steps >> t) & 1u) != 0u,
                             ((poisson_draws >> t) & 1u) != 0u, v, g)) {
        last_spike = at;
        emit(at);
      }
      ++t;
    }
  }
}

// Advances one neuron through the epoch. `ring` points at this neuron's slot 0 of the
// delay ring, slots `stride` apart; each slot read is cleared. emit(step) reports a spike.
// `threshold`: the neuron's Poisson threshold (read only when in.poisson).
template <class Emit>
FLYSIM_HD inline void advance_neuron(const LifConstants& c, uint32_t threshold, uint32_t neuron, EpochSpan e,
                                     const NeuronInputs& in, RngKey key, int64_t* ring, std::size_t stride, double& v,
                                     double& g, int32_t& last_spike, Emit&& emit) {
  advance_neuron_drawn(c, e, in, in.poisson ? poisson_steps(threshold, key, neuron, e) : 0u, ring, stride, v, g,
                       last_spike, emit);
}

// The scatter of one connection into the delay ring, its slot flagged for the target.
FLYSIM_HD inline int32_t delivery_slot(const LifConstants& c, int32_t spike_step) {
  return (spike_step + c.delay_steps) % c.delay_steps;
}

}  // namespace flysim::kernels
