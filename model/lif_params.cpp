#include "model/lif_params.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "model/errors.hpp"

namespace flysim {

namespace {
// A whole number of steps as int32, at most INT32_MAX.
int32_t clamped_steps(double steps) {
  return steps < static_cast<double>(std::numeric_limits<int32_t>::max()) ? static_cast<int32_t>(steps)
                                                                          : std::numeric_limits<int32_t>::max();
}
}  // namespace

int32_t duration_to_steps(double duration_ms, double dt_ms) { return clamped_steps((duration_ms + 1e-3 * dt_ms) / dt_ms); }

int32_t delay_to_steps(double delay_ms, double dt_ms) { return static_cast<int32_t>(delay_ms / dt_ms + 0.5); }

bool is_whole_steps(double duration_ms, double dt_ms) {
  const double exact = duration_ms / dt_ms;
  return std::fabs(std::round(exact) - exact) <= 1e-4;
}

int32_t run_steps(double duration_ms, double dt_ms) {
  const double exact = duration_ms / dt_ms;
  return clamped_steps(is_whole_steps(duration_ms, dt_ms) ? std::round(exact) : std::ceil(exact));
}

std::string duration_problem(double duration_ms, double dt_ms, const std::string& dt_name) {
  const double max_ms = static_cast<double>(kMaxRunSteps) * dt_ms;
  if (duration_ms >= dt_ms && duration_ms <= max_ms) return "";
  return fmt::format("must lie in {}..{} ms (1 to 2^29 steps of {}={} ms)", dt_ms, max_ms, dt_name, dt_ms);
}

namespace {
void require_positive(double value, const char* name) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw input_error(std::string("parameter ") + name + " must be a positive number, got " + std::to_string(value));
}

// The range of each parameter, wide enough for any model and narrow enough that every
// potential and conductance stays finite, so that every checkpoint a run writes restores.
struct Bound {
  const char* name;
  const char* option;
  double LifParams::*value;
  double lowest, highest;
  bool lowest_excluded;
  const char* unit;
};
constexpr Bound kBounds[] = {
    {"dt", "model.dt-ms", &LifParams::dt_ms, 0.0, kMaxDtMs, true, "ms"},
    {"v_0", "model.v-rest-mV", &LifParams::v0_mV, -1e3, 1e3, false, "mV"},
    {"v_reset", "model.v-reset-mV", &LifParams::v_reset_mV, -1e3, 1e3, false, "mV"},
    {"v_th", "model.v-threshold-mV", &LifParams::v_threshold_mV, -1e3, 1e3, false, "mV"},
    {"tau_m", "model.tau-m-ms", &LifParams::tau_m_ms, 0.0, 1e6, true, "ms"},
    {"tau_g", "model.tau-g-ms", &LifParams::tau_g_ms, 0.0, 1e6, true, "ms"},
    {"delay", "model.delay-ms", &LifParams::delay_ms, 0.0, 1e3, true, "ms"},
    {"w_syn", "model.w-syn-mV", &LifParams::w_syn_mV, 0.0, 1e3, true, "mV"},
    {"f_poi", "model.f-poi", &LifParams::f_poi, 0.0, 1e4, false, ""},
};

// A parameter as the messages name it: its symbol and the option that sets it.
std::string named(std::string_view name) {
  for (const Bound& b : kBounds)
    if (name == b.name) return fmt::format("{} ({})", b.name, b.option);
  return std::string(name);
}

void require_in_bounds(const LifParams& p) {
  for (const Bound& b : kBounds) {
    const double x = p.*b.value;
    if (std::isfinite(x) && (b.lowest_excluded ? x > b.lowest : x >= b.lowest) && x <= b.highest) continue;
    throw input_error(fmt::format("parameter {} ({}) must lie in {}{}, {}]{}{}, got {}", b.name, b.option,
                                  b.lowest_excluded ? "(" : "[", b.lowest, b.highest, *b.unit ? " " : "", b.unit, x));
  }
}
}  // namespace

uint32_t poisson_threshold(double rate_Hz, double dt_ms) {
  require_positive(dt_ms, "dt");
  const double probability = rate_Hz * dt_ms * 1e-3;
  if (!(rate_Hz >= 0.0) || probability > 1.0)
    throw input_error(fmt::format("stimulus rate must be between 0 and 1/dt ({} Hz), got {} Hz", 1e3 / dt_ms, rate_Hz));
  const double scaled = std::floor(probability * 4294967296.0);
  return scaled >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(scaled);
}

LifConstants derive_constants(const LifParams& p) {
  require_in_bounds(p);
  if (p.tau_m_ms == p.tau_g_ms) throw input_error("parameters " + named("tau_m") + " and " + named("tau_g") +
                      " must differ (the exact propagator divides by tau_m - tau_g)");
  // The delay sets the epoch (at most kMaxDelaySteps steps), so dt and delay are checked
  // together first: a tiny dt fails here, named as what it is.
  const int32_t delay_steps =
      p.delay_ms / p.dt_ms < 2.0 * kMaxDelaySteps ? delay_to_steps(p.delay_ms, p.dt_ms) : kMaxDelaySteps + 1;
  if (delay_steps < 1 || delay_steps > kMaxDelaySteps)
    throw input_error(fmt::format("parameters {} and {} give a synaptic delay of {} steps (delay {} ms / dt {} ms); it "
                                  "must be 1..{} steps: with this dt, delay in {}..{} ms; with this delay, dt in {}..{} ms",
                                  named("delay"), named("dt"), p.delay_ms / p.dt_ms, p.delay_ms, p.dt_ms, kMaxDelaySteps, p.dt_ms,
                                  p.dt_ms * kMaxDelaySteps, p.delay_ms / kMaxDelaySteps, p.delay_ms));
  // Steps are int32 and "never spiked" is -2^30: durations must stay well below that.
  if (!(p.t_ref_ms >= 0.0) || p.t_ref_ms / p.dt_ms >= kMaxRunSteps)
    throw input_error(fmt::format("parameter t_ref (model.t-ref-ms) must be >= 0 and below 2^29 steps, got {} ms", p.t_ref_ms));
  uint32_t threshold = 0;
  try {
    threshold = poisson_threshold(p.r_poi_Hz, p.dt_ms);
  } catch (const input_error& e) {
    throw input_error(std::string("parameter r_poi (stimulus.rate): ") + e.what());
  }
  if (!(p.v_threshold_mV > p.v0_mV))
    throw input_error(fmt::format("parameter {} = {} mV must lie above {} = {} mV", named("v_th"), p.v_threshold_mV,
                                  named("v_0"), p.v0_mV));
  if (!(p.v_reset_mV < p.v_threshold_mV))
    throw input_error(fmt::format("parameter {} = {} mV must lie below {} = {} mV: a neuron reset above "
                                  "threshold fires again at once", named("v_reset"), p.v_reset_mV, named("v_th"),
                                  p.v_threshold_mV));

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
