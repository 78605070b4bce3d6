#include "host/cost_diagnosis.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace flysim {

LagCause cause_of_lag(const CostReport& cost, std::size_t usable_cpus) {
  if (cost.roles.empty() || cost.window_s <= 0) return {"not measured", "not measured yet (no cost window)"};
  const RoleCost& engine = cost_of(cost, ThreadRole::engine);
  if (engine.threads > 0 && engine.cores >= kSaturatedThreadCores * engine.threads)
    return {"engine pool",
            fmt::format("the engine pool is saturated: {:.2f} cores over its {} threads (more engine threads, or the CUDA engine)",
                        engine.cores, engine.threads)};
  const auto busiest = std::max_element(cost.roles.begin(), cost.roles.end(), [](const RoleCost& a, const RoleCost& b) {
    return a.busiest_thread_cores < b.busiest_thread_cores;
  });
  if (busiest->busiest_thread_cores >= kSaturatedThreadCores)
    return {busiest->role + " thread",
            fmt::format("{} is saturated: its busiest thread holds {:.2f} cores ({:.2f} cores over {} threads)", busiest->role,
                        busiest->busiest_thread_cores, busiest->cores, busiest->threads)};
  if (usable_cpus > 0 && cost.process_cores >= kSaturatedThreadCores * static_cast<double>(usable_cpus))
    return {"host", fmt::format("the host: flysim holds {:.2f} of the {} CPUs it may use", cost.process_cores, usable_cpus)};
  return {"not flysim",
          fmt::format("no flysim role is saturated (busiest: {}, {:.2f} cores on one thread; the whole process {:.2f} cores): "
                      "other work may hold the CPUs, or the engine waits on its device",
                      busiest->role, busiest->busiest_thread_cores, cost.process_cores)};
}

EngineVerdict judge_engine(const CostReport& cost, const EngineLoad& load) {
  EngineVerdict v;
  if (cost.roles.empty() || cost.window_s <= 0) return v;
  const RoleCost& pool = cost_of(cost, ThreadRole::engine);
  if (load.cuda) {
    if (pool.threads > 0)
      v.warnings.push_back({"pool-on-cuda", fmt::format("the CUDA engine runs, but {} CPU pool thread(s) (fs-engine-N) still exist, holding "
                                       "{:.2f} cores: an engine pool that was not released",
                                       pool.threads, pool.cores)});
    return v;
  }
  if (load.pace <= 0 || load.paused || load.wall_per_simulated <= 0 || load.threads == 0) return v;
  // CPU s the engine spends per simulated s, times simulated s per wall s asked for.
  v.cores_needed = pool.cores * load.wall_per_simulated * load.pace;
  if (v.cores_needed > kSaturatedThreadCores * load.threads)
    v.warnings.push_back({"threads-below-pace", fmt::format("the CPU engine's {} thread(s) are below what the pace needs: measured {:.2f} cores "
                                     "needed ({:.2f} held, at {:.2f}x the pace); give it more threads (swap cpu --threads=N) "
                                     "or use the CUDA engine",
                                     load.threads, v.cores_needed, pool.cores, 1.0 / (load.wall_per_simulated * load.pace))});
  return v;
}

}  // namespace flysim
