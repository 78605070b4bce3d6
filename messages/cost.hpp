#pragma once
// inspect() for what status and the summary report about real-time operation: lag
// figures, host cores per role, processes on the GPU (the types live in model/).
#include <caf/all.hpp>

#include "host/cost_meter.hpp"
#include "host/gpu_processes.hpp"
#include "host/lag_window.hpp"

namespace flysim {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LagFigures& x) {
  return f(caf::meta::type_name("flysim.lag_figures"), x.now_ms, x.p99_ms, x.max_ms, x.samples);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RoleCost& x) {
  return f(caf::meta::type_name("flysim.role_cost"), x.role, x.threads, x.cores, x.busiest_thread_cores, x.cpu_s);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ThreadCost& x) {
  return f(caf::meta::type_name("flysim.thread_cost"), x.tid, x.name, x.cores, x.cpu_s);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, CostReport& x) {
  return f(caf::meta::type_name("flysim.cost_report"), x.at_s, x.window_s, x.process_cores, x.process_cpu_s, x.exited_cores,
           x.roles, x.threads);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, GpuProcess& x) {
  return f(caf::meta::type_name("flysim.gpu_process"), x.gpu, x.pid, x.name, x.used_MiB);
}

}  // namespace flysim
