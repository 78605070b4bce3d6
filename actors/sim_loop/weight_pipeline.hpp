#pragma once
// The weights plasticity learns, on their way to the engine (kernels/stdp/README.md): each
// period's update is merged from the shards' answers and applied at a fixed position, one
// period after it ended or at the next trial's start, whichever comes first, never when
// a reply happens to arrive. Plain C++, no actors.
#include <cstdint>
#include <deque>
#include <vector>

#include "actors/schedule.hpp"
#include "messages/messages.hpp"
#include "model/first_listed.hpp"

namespace flysim {

class WeightPipeline {
 public:
  WeightPipeline() = default;
  // `period_steps`: the plasticity period (0: plasticity off, nothing ever pends).
  WeightPipeline(int32_t period_steps, int32_t steps_per_trial, int32_t trials);

  // Where the weights of the period ending at `end` (a step of `trial`) are applied: one
  // period later, or at the start of the next trial when that is sooner.
  RunPosition apply_position(int32_t trial, int32_t end) const;
  // Whether an epoch ending at step `end` ends a plasticity period.
  bool period_ends_at(int32_t end) const;

  // The period ending at `end` of `trial` was flushed to `shards` shards: its update waits
  // for their answers. `ticket` names it in add(); `first` is the period's first step.
  struct Flushed {
    uint64_t ticket = 0;
    int32_t first = 0;
  };
  Flushed await_period(int32_t trial, int32_t end, std::size_t shards);
  // A restored run's learned but unapplied weights: those of the period that ended at
  // `start` (a period boundary), due one period later.
  void restore(RunPosition start, std::vector<WeightChange> changes);
  // A shard's answer to update `ticket`, concatenated as the answers arrive, not sorted:
  // shards own disjoint connections, so the order of the writes cannot change the weights
  // the engine ends up with. True when it was the last one the update waited for.
  bool add(uint64_t ticket, const std::vector<WeightChange>& changes);

  // What is due at `issued`: nothing, an update still awaited (the loop waits: its
  // place is fixed, whatever the shards' speed), or one ready to send.
  enum class Due { nothing, awaited, ready };
  Due due(RunPosition issued) const;
  // Takes out the ready update due first, counted as applied at `issued`.
  WeightUpdate take(RunPosition issued);
  // True while the update of a period that has not ended yet (the first not flushed, the
  // one holding `done`) is due at or before `issued`: nothing is issued there until that
  // period ends and its update is queued, however far the window would let the loop run.
  bool period_not_ended_yet(RunPosition done, RunPosition issued) const;

  bool empty() const { return pending_.empty(); }
  // Weight changes sent to the engine so far (RunSummary::weight_changes).
  uint64_t changes_applied() const { return changes_applied_; }
  // The updates applied and where (RunSummary::weight_updates, applied).
  const FirstListed<AppliedWeights>& applied() const { return applied_; }

 private:
  struct Pending {
    RunPosition apply_at;
    std::size_t awaiting = 0;  // shards yet to answer
    WeightUpdate update;
  };
  int32_t period_steps_ = 0, steps_per_trial_ = 0, trials_ = 0;
  std::deque<Pending> pending_;  // in the order they apply
  uint64_t taken_ = 0;           // updates taken out: the ticket of pending_.front()
  uint64_t changes_applied_ = 0;
  FirstListed<AppliedWeights> applied_{kAppliedWeightsListed};
};

}  // namespace flysim
