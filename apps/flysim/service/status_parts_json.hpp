#pragma once
// The status's nested objects (host cores per role and thread, GPU processes) as JSON,
// field by field, the same names both ways: for the control API's status
// (control_json.cpp) and the run summary (run_summary.cpp).
#include <concepts>
#include <type_traits>

#include "messages/control.hpp"

namespace flysim {

// The status's nested objects, field by field: the same names both ways. nlohmann finds
// to_json/from_json by argument-dependent lookup in the namespace of the type.
template <class T, class U>
concept same_unqualified = std::same_as<std::remove_const_t<T>, U>;

template <same_unqualified<RoleCost> Cost, class Visit>
void visit_fields(Cost& c, Visit&& visit) {
  visit("role", c.role);
  visit("threads", c.threads);
  visit("cores", c.cores);
  visit("busiest_thread_cores", c.busiest_thread_cores);
  visit("cpu_s", c.cpu_s);
}
template <same_unqualified<ThreadCost> Thread, class Visit>
void visit_fields(Thread& t, Visit&& visit) {
  visit("tid", t.tid);
  visit("name", t.name);
  visit("cores", t.cores);
  visit("cpu_s", t.cpu_s);
}
template <same_unqualified<CostReport> Report, class Visit>
void visit_fields(Report& r, Visit&& visit) {
  visit("at_s", r.at_s);
  visit("window_s", r.window_s);
  visit("process_cores", r.process_cores);
  visit("process_cpu_s", r.process_cpu_s);
  visit("exited_cores", r.exited_cores);
  visit("roles", r.roles);
  visit("threads", r.threads);
}
template <same_unqualified<GpuProcess> Process, class Visit>
void visit_fields(Process& p, Visit&& visit) {
  visit("gpu", p.gpu);
  visit("pid", p.pid);
  visit("name", p.name);
  visit("used_mib", p.used_MiB);
}

template <class T>
concept status_part = std::same_as<T, RoleCost> || std::same_as<T, ThreadCost> || std::same_as<T, CostReport> ||
                      std::same_as<T, GpuProcess>;

template <class Json, status_part T>
void to_json(Json& j, const T& x) {
  visit_fields(x, [&](const char* key, const auto& value) { j[key] = value; });
}
// Fields it does not hold keep their defaults (an older service reports fewer).
template <class Json, status_part T>
void from_json(const Json& j, T& x) {
  visit_fields(x, [&](const char* key, auto& value) {
    if (j.contains(key)) j.at(key).get_to(value);
  });
}

}  // namespace flysim
