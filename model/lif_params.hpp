#pragma once
// The model's user-facing parameters (docs/MODEL.md, "Parameters and defaults") and the constants
// derived from them once, on the host, in double (GeNN's habit: no exp() in a kernel).
#include <cmath>
#include <cstdint>
#include <string>

#include "model/lif_constants.hpp"

namespace flysim {

struct LifParams {
  double dt_ms = 0.1;
  double v0_mV = -52.0;
  double v_reset_mV = -52.0;
  double v_threshold_mV = -45.0;
  double tau_m_ms = 20.0;
  double tau_g_ms = 5.0;
  double t_ref_ms = 2.2;
  double delay_ms = 1.8;
  double w_syn_mV = 0.275;
  double f_poi = 250.0;
  double r_poi_Hz = 150.0;
};

// Brian2's rounding of a duration to steps for refractoriness (its timestep()):
// int((x + 1e-3*dt)/dt), at most INT32_MAX.
int32_t duration_to_steps(double duration_ms, double dt_ms);

// A synaptic delay in steps as Brian2's spike queue takes it (cspikequeue.cpp, used by its
// Cython runtime and C++ standalone): the nearest step, (int)(delay / dt + 0.5). For
// delays below 2^30 steps (derive_constants checks them first).
int32_t delay_to_steps(double delay_ms, double dt_ms);

// Whether duration_ms lies within 1e-4 dt of a whole number of steps (Brian2's clock
// takes it as that number).
bool is_whole_steps(double duration_ms, double dt_ms);
// The steps of a run (a trial) of duration_ms, as Brian2's clock counts them
// (Clock._calc_timestep): the nearest whole number when is_whole_steps, else rounded
// up; at most INT32_MAX.
int32_t run_steps(double duration_ms, double dt_ms);

// The fewest whole steps of dt_ms that cover ms (a schedule's times: checkpoints, swaps,
// batches of requests, plasticity periods); a tolerance of 1e-9 steps keeps ms that are
// whole steps in binary noise from taking one more.
inline double steps_at_least(double ms, double dt_ms) { return std::ceil(ms / dt_ms - 1e-9); }

// `steps` time steps of dt_ms in seconds (a trial's length in the rate tables).
inline double steps_to_seconds(double steps, double dt_ms) { return steps * dt_ms * 1e-3; }
// The time of a spike at `step` in seconds as Brian2's SpikeMonitor records it (the
// reference's column t): the step times dt in seconds, Brian2's clock's t = timestep * dt.
inline double spike_time_s(double step, double dt_ms) { return step * (dt_ms * 1e-3); }

// The most steps a trial (or the refractory period) may last: steps are int32 and
// "never spiked" is -2^30, so durations stay well below that.
inline constexpr int64_t kMaxRunSteps = int64_t{1} << 29;

// The longest time step (model.dt-ms): with kMaxRunSteps, the longest a trial can last.
inline constexpr double kMaxDtMs = 1e3;

// Why a trial of `duration_ms` cannot run with time step dt_ms, or empty when it can
// (1..kMaxRunSteps steps): "must lie in a..b ms (1 to 2^29 steps of DT_NAME=dt ms)".
std::string duration_problem(double duration_ms, double dt_ms, const std::string& dt_name);

// The integer threshold of the Poisson draw (kernels/lif.hpp: a uint32 draw is an event
// when below it), floor(rate dt 2^32). derive_constants uses it for r_poi; a live rate
// change passes its result to Engine::set_stimulus. Throws input_error naming the rate
// unless 0 <= rate_Hz <= 1/dt.
uint32_t poisson_threshold(double rate_Hz, double dt_ms);

// Validates the parameters, each within a range that keeps every state finite (throws
// input_error naming the bad one and its option), and derives the constants every
// engine uses.
LifConstants derive_constants(const LifParams& p);

}  // namespace flysim
