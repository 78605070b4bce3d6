#include "actors/sim_loop/fallback_tracker.hpp"

#include <algorithm>

namespace flysim {

FallbackTracker::FallbackTracker(int64_t every_steps, bool engine_may_fail)
    : every_steps_(every_steps), may_fail_(engine_may_fail) {}

bool FallbackTracker::due(int64_t at_steps) {
  if (!may_fail_ || every_steps_ <= 0 || at_steps < next_due_steps_) return false;
  next_due_steps_ = at_steps + every_steps_;
  return true;
}

void FallbackTracker::engine_replaced(bool may_fail) {
  may_fail_ = may_fail;
  point_.reset();
  next_due_steps_ = 0;
}

void FallbackTracker::engine_failed(RunPosition done) { recorded_until_ = std::max(recorded_until_, done); }

void FallbackTracker::resumed() {
  may_fail_ = false;
  point_.reset();
}

bool FallbackTracker::drop_recorded(std::vector<EpochSpikes>& batch) const {
  const EpochSpikes& front = batch.front();
  const int32_t end = front.first + front.steps;
  if (!(recorded_until_ < RunPosition{front.trial, end})) return false;
  if (front.trial == recorded_until_.trial && front.first < recorded_until_.step) {
    // A recomputed epoch that crosses cells can end past what was recorded: only its
    // new steps are (each trial's spikes are sorted by step).
    const int32_t from = recorded_until_.step;
    for (EpochSpikes& epoch : batch) {
      epoch.spikes.erase(epoch.spikes.begin(), std::find_if(epoch.spikes.begin(), epoch.spikes.end(),
                                                            [&](const Spike& s) { return s.step >= from; }));
      epoch.steps = end - from;
      epoch.first = from;
    }
  }
  return true;
}

}  // namespace flysim
