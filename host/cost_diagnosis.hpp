#pragma once
// What the cost figures (cost_meter.hpp) say to an operator (host/THREADS.md): which
// role holds a run back when it falls behind, and the warnings of a paced run: a CPU
// engine with fewer threads than the pace needs, a CUDA engine next to a CPU pool that
// still holds threads. Plain functions of figures, unit-tested with made-up reports.
#include <cstddef>
#include <string>
#include <vector>

#include "host/cost_meter.hpp"

namespace flysim {

// A thread this busy (cores) is taken to be saturated: it has no time left to give.
inline constexpr double kSaturatedThreadCores = 0.85;

// The likely cause of falling behind: the engine pool when all its threads are busy,
// else the role whose busiest thread is saturated, else the host (flysim holds nearly
// all `usable_cpus`), else none of flysim's roles.
struct LagCause {
  std::string kind;  // "engine pool", "ROLE thread", "host", "not flysim", "not measured": stable while the figures change
  std::string text;  // the kind in words, with the figures
};
LagCause cause_of_lag(const CostReport& cost, std::size_t usable_cpus);

// What the engine is doing, for the warnings.
struct EngineLoad {
  bool cuda = false;               // the engine is the CUDA one
  unsigned threads = 0;            // CPU pool threads (0 on CUDA)
  double pace = 0.0;               // simulated s per wall s asked for; 0: unpaced
  double wall_per_simulated = 0.0; // measured over the status window; 0: not yet
  bool paused = false;
};

// A warning, and its kind (stable while the figures in its text change): a caller
// logs it when the kinds it holds change.
struct CostWarning {
  std::string kind;  // "threads-below-pace", "pool-on-cuda"
  std::string text;
};

struct EngineVerdict {
  // CPU engine, paced: the host cores the engine needs to hold the pace, measured (its
  // cores times how far it is from the pace); 0 when not measured.
  double cores_needed = 0.0;
  std::vector<CostWarning> warnings;
};

// The engine's warnings, from the cost over the status window. Warns when a paced CPU
// engine needs more than kSaturatedThreadCores per thread it has, and when the CUDA
// engine runs while CPU pool threads (fs-engine-N) still exist.
EngineVerdict judge_engine(const CostReport& cost, const EngineLoad& load);

}  // namespace flysim
