#include "model/lif_params.hpp"

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

LifConstants derive_constants(const LifParams& p) {
  require_positive(p.dt_ms, "dt");
  require_positive(p.tau_m_ms, "tau_m");
  require_positive(p.tau_g_ms, "tau_g");
  require_positive(p.delay_ms, "delay");
  require_positive(p.w_syn_mV, "w_syn");
  if (p.tau_m_ms == p.tau_g_ms) throw input_error("parameters tau_m and tau_g must differ (the exact propagator divides by tau_m - tau_g)");
  // Steps are int32 and "never spiked" is -2^30: durations must stay well below that.
  constexpr double kMaxSteps = 1 << 29;
  if (!(p.t_ref_ms >= 0.0) || p.t_ref_ms / p.dt_ms >= kMaxSteps)
    throw input_error("parameter t_ref must be >= 0 and below 2^29 steps, got " + std::to_string(p.t_ref_ms) + " ms");
  if (p.delay_ms / p.dt_ms >= kMaxSteps) throw input_error("parameter delay is far too long: " + std::to_string(p.delay_ms) + " ms");
  if (!(p.r_poi_Hz >= 0.0) || p.r_poi_Hz * p.dt_ms * 1e-3 > 1.0)
    throw input_error("stimulus rate must be between 0 and 1/dt (" + std::to_string(1e3 / p.dt_ms) + " Hz), got " + std::to_string(p.r_poi_Hz));
  if (!(p.v_threshold_mV > p.v0_mV)) throw input_error("parameter v_th must lie above v_0");

  LifConstants c{};
  c.v0 = p.v0_mV;
  c.v_reset = p.v_reset_mV;
  c.v_threshold = p.v_threshold_mV;
  const double evg_factor = p.tau_g_ms / (p.tau_m_ms - p.tau_g_ms);
  c.kick_mV = p.f_poi * p.w_syn_mV;
  c.mV_per_unit = p.w_syn_mV / kUnitsPerSynapse;
  c.ref_steps = duration_to_steps(p.t_ref_ms, p.dt_ms);
  c.delay_steps = duration_to_steps(p.delay_ms, p.dt_ms);
  if (c.delay_steps < 1 || c.delay_steps > kMaxDelaySteps)
    throw input_error("synaptic delay must be 1.." + std::to_string(kMaxDelaySteps) + " steps, got " + std::to_string(c.delay_steps));
  c.evg_epoch_max = 0.0;
  for (int32_t steps = 1; steps <= c.delay_steps; ++steps) {
    c.ev_epoch[steps] = std::exp(-steps * p.dt_ms / p.tau_m_ms);
    c.eg_epoch[steps] = std::exp(-steps * p.dt_ms / p.tau_g_ms);
    c.evg_epoch[steps] = evg_factor * (c.ev_epoch[steps] - c.eg_epoch[steps]);
    c.evg_epoch_max = std::fmax(c.evg_epoch_max, c.evg_epoch[steps]);
  }
  c.quiet_margin_mV = 1e-6;
  c.rest_snap_mV = 1e-12;
  const double probability = p.r_poi_Hz * p.dt_ms * 1e-3;
  const double scaled = std::floor(probability * 4294967296.0);
  c.poisson_threshold = scaled >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(scaled);
  return c;
}

}  // namespace flysim
