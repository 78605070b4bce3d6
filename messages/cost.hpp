#pragma once
// inspect() for what status and the summary report about real-time operation: lag
// figures, host cores per role, processes on the GPU (the types, and the field lists
// of all but the lag figures, live in host/).
#include <caf/all.hpp>

#include "host/cost_meter.hpp"
#include "host/gpu_processes.hpp"
#include "host/lag_window.hpp"
#include "messages/inspect_fields.hpp"

namespace flysim {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LagFigures& x) {
  return f(caf::meta::type_name("flysim.lag_figures"), x.now_ms, x.p99_ms, x.max_ms, x.samples);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RoleCost& x) {
  return inspect_fields(f, "flysim.role_cost", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ThreadCost& x) {
  return inspect_fields(f, "flysim.thread_cost", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CostReport& x) {
  return inspect_fields(f, "flysim.cost_report", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, GpuProcess& x) {
  return inspect_fields(f, "flysim.gpu_process", x);
}

}  // namespace flysim
