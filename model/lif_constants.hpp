#pragma once
// Plain data that the per-neuron arithmetic reads, on the host and on the device.
// Everything here is derived on the host (model/lif_params.cpp); kernels only read it.
#include <cstdint>

namespace flysim {

// Every synapse has the same delay, so an epoch holds at most this many steps and the
// delay ring this many slots. 18 = 1.8 ms / 0.1 ms; other delays are refused.
inline constexpr int32_t kMaxDelaySteps = 32;

// Fixed-point synaptic weights: one synapse is 2^16 units, so plastic weights can move
// in steps of 1/65536 synapse while sums stay exact in 64-bit integers.
inline constexpr int32_t kWeightFractionBits = 16;
inline constexpr int32_t kUnitsPerSynapse = 1 << kWeightFractionBits;
// The most synapses one connection may have: its weight, 2^14 x 2^16 units, stays far
// inside int32_t (FlyWire's largest count is 2405, docs/MODEL.md).
inline constexpr int32_t kMaxSynapsesPerConnection = 1 << 14;

// A step number meaning "never spiked": far enough below 0 that k - last >= any ref.
inline constexpr int32_t kNeverSpiked = -(1 << 30);

struct LifConstants {
  double v0;           // resting potential, mV
  double v_reset;      // reset potential, mV
  double v_threshold;  // spike when v > v_threshold (strict)
  double kick_mV;      // f_poi * w_syn: one Poisson event or kick
  double mV_per_unit;  // w_syn / 2^16: one fixed-point weight unit in mV of g
  // Exact propagators over L steps, index L = 1..delay_steps (L = 1: one ordinary step):
  //   ev = exp(-L dt/tau_m), eg = exp(-L dt/tau_g), evg = tau_g/(tau_m - tau_g) (ev - eg).
  double ev_epoch[kMaxDelaySteps + 1];
  double eg_epoch[kMaxDelaySteps + 1];
  double evg_epoch[kMaxDelaySteps + 1];
  // max over L = 1..delay_steps of evg_epoch[L]: bounds how far g can lift v in an epoch.
  double evg_epoch_max;
  // Safety margin (mV) of the quiet-neuron bound, far above any rounding error.
  double quiet_margin_mV;
  // A quiet neuron this close to rest (|v - v_0| and |g|, mV) is set exactly to rest.
  double rest_snap_mV;
  int32_t ref_steps;           // refractory period of unstimulated neurons, steps
  int32_t delay_steps;         // synaptic delay D, steps; also the epoch length
  uint32_t poisson_threshold;  // a draw u (uint32) is an event when u < threshold
};

}  // namespace flysim
