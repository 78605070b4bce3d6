#pragma once
// The sim loop's answer to a failing engine, as plain C++ (actors/README.md, "A failing
// GPU"): when to keep an in-memory snapshot, the one held, and what of a recomputed
// epoch was recorded already.
#include <cstdint>
#include <optional>
#include <vector>

#include "actors/schedule.hpp"
#include "messages/messages.hpp"

namespace flysim {

// The state a failed engine is recomputed from. At the start of a trial (step 0) `batch`
// is empty: the trials there start at rest (Engine::start_at_rest), so no state is
// exported for them.
struct FallbackPoint {
  RunPosition at;
  std::vector<EngineState> batch;
};

class FallbackTracker {
 public:
  FallbackTracker() = default;
  // A snapshot every `every_steps` steps (0: never) and after every command, while the
  // engine may fail (`engine_may_fail`: the first one's).
  FallbackTracker(int64_t every_steps, bool engine_may_fail);

  // Before the epoch `at_steps` steps into the run: whether a snapshot is due; when it is,
  // the next one falls due every_steps later. Due by step, not by "no snapshot held yet",
  // so one in flight is not asked for twice.
  bool due(int64_t at_steps);
  // The snapshot arrived (or, at a trial's start, is known without asking).
  void hold(FallbackPoint point) { point_ = std::move(point); }
  const std::optional<FallbackPoint>& point() const { return point_; }
  // A command changed the run: the next epoch takes a new snapshot (none lies before it).
  void after_command() { next_due_steps_ = 0; }
  // A swap to an engine that may fail or not: the old engine's snapshot is of no use to
  // the new one, whose first epoch takes one.
  void engine_replaced(bool may_fail);
  // The engine failed having delivered the epochs up to `done`: recomputed, they are not
  // recorded again.
  void engine_failed(RunPosition done);
  // The CPU pool took over from the snapshot: it does not fail, and holds none.
  void resumed();

  bool engine_may_fail() const { return may_fail_; }
  RunPosition recorded_until() const { return recorded_until_; }
  // Drops from `batch` (one epoch of every trial of a batch) the steps recorded before a
  // fallback; false when none of it is new.
  bool drop_recorded(std::vector<EpochSpikes>& batch) const;

 private:
  int64_t every_steps_ = 0;
  bool may_fail_ = false;
  std::optional<FallbackPoint> point_;
  int64_t next_due_steps_ = 0;  // take one before the epoch at or after this step
  RunPosition recorded_until_;
};

}  // namespace flysim
