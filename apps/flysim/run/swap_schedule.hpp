#pragma once
// run.swap-at: scripted engine swaps, checked before the network loads (a typo costs no
// waiting) and placed as commands once the run's geometry is known.
#include <vector>

#include "actors/schedule.hpp"
#include "apps/flysim/options/options.hpp"
#include "kernels/engine_factory.hpp"

namespace flysim::app {

struct SwapRequest {
  double ms;  // simulated ms since the start of the run
  EngineKind kind;
};

// "500:cuda,800:cpu" -> what is asked for; a cuda swap is refused when the cuda engine
// cannot run on `cuda_device` here.
std::vector<SwapRequest> swap_requests(const Options& o, int cuda_device);

// The swaps as commands at the first delay-cell boundary at or after each request (the
// path a live swap takes too), in order; one the run never reaches is warned about.
std::vector<PlacedCommand> scripted_swaps(const std::vector<SwapRequest>& requests, const ScheduleGeometry& g);

}  // namespace flysim::app
