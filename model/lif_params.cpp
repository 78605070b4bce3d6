#include "model/lif_params.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "model/errors.hpp"

namespace flysim {

int32_t duration_to_steps(double duration_ms, double dt_ms) {
  return static_cast<int32_t>((duration_ms + 1e-3 * dt_ms) / dt_ms);
}

namespace {
void require_positive(double value, const char* name) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw input_error(std::string("parameter ") + name + " must be a positive number, got " + std::to_string(value));
}
}  // namespace

uint32_t poisson_threshold(double rate_Hz, double dt_ms) {
  require_positive(dt_ms, "dt");
  const double probability = rate_Hz * dt_ms * 1e-3;
  if (!(rate_Hz >= 0.0) || probability > 1.0)
    throw input_error("stimulus rate must be between 0 and 1/dt (" + std::to_string(1e3 / dt_ms) + " Hz), got " +
                      std::to_string(rate_Hz) + " Hz");
  const double scaled = std::floor(probability * 4294967296.0);
  return scaled >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(scaled);
}

LifConstants derive_constants(const LifParams& p) {
  require_positive(p.dt_ms, "dt");
  require_positive(p.tau_m_ms, "tau_m");
  require_positive(p.tau_g_ms, "tau_g");
  require_positive(p.delay_ms, "delay");
  require_positive(p.w_syn_mV, "w_syn");
  if (p.tau_m_ms == p.tau_g_ms) throw input_error("parameters tau_m and tau_g must differ (the exact propagator divides by tau_m - tau_g)");
  // The delay sets the epoch (at most kMaxDelaySteps steps), so dt and delay are checked
  // together first: a tiny dt fails here, named as what it is.
  const int32_t delay_steps =
      p.delay_ms / p.dt_ms < 2.0 * kMaxDelaySteps ? duration_to_steps(p.delay_ms, p.dt_ms) : kMaxDelaySteps + 1;
  if (delay_steps < 1 || delay_steps > kMaxDelaySteps)
    throw input_error(fmt::format("parameters delay and dt give a synaptic delay of {} steps (delay {} ms / dt {} ms); it "
                                  "must be 1..{} steps, so dt must lie in {}..{} ms",
                                  p.delay_ms / p.dt_ms, p.delay_ms, p.dt_ms, kMaxDelaySteps, p.delay_ms / kMaxDelaySteps,
                                  p.delay_ms));
  // Steps are int32 and "never spiked" is -2^30: durations must stay well below that.
  if (!(p.t_ref_ms >= 0.0) || p.t_ref_ms / p.dt_ms >= kMaxRunSteps)
    throw input_error("parameter t_ref must be >= 0 and below 2^29 steps, got " + std::to_string(p.t_ref_ms) + " ms");
  const uint32_t threshold = poisson_threshold(p.r_poi_Hz, p.dt_ms);
  if (!(p.v_threshold_mV > p.v0_mV)) throw input_error("parameter v_th must lie above v_0");
  if (!(p.v_reset_mV < p.v_threshold_mV))
    throw input_error(fmt::format("parameter v_reset ({} mV) must lie below v_th ({} mV): a neuron reset above threshold "
                                  "fires again at once", p.v_reset_mV, p.v_threshold_mV));

  LifConstants c{};
  c.v0 = p.v0_mV;
  c.v_reset = p.v_reset_mV;
  c.v_threshold = p.v_threshold_mV;
  const double evg_factor = p.tau_g_ms / (p.tau_m_ms - p.tau_g_ms);
  c.kick_mV = p.f_poi * p.w_syn_mV;
  c.mV_per_unit = p.w_syn_mV / kUnitsPerSynapse;
  c.ref_steps = duration_to_steps(p.t_ref_ms, p.dt_ms);
  c.delay_steps = delay_steps;
  c.evg_epoch_max = 0.0;
  for (int32_t steps = 1; steps <= c.delay_steps; ++steps) {
    c.ev_epoch[steps] = std::exp(-steps * p.dt_ms / p.tau_m_ms);
    c.eg_epoch[steps] = std::exp(-steps * p.dt_ms / p.tau_g_ms);
    c.evg_epoch[steps] = evg_factor * (c.ev_epoch[steps] - c.eg_epoch[steps]);
    c.evg_epoch_max = std::fmax(c.evg_epoch_max, c.evg_epoch[steps]);
  }
  c.quiet_margin_mV = 1e-6;
  c.rest_snap_mV = 1e-12;
  c.poisson_threshold = threshold;
  return c;
}

}  // namespace flysim
