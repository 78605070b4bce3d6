#include "actors/sim_loop/weight_pipeline.hpp"

#include <algorithm>
#include <stdexcept>

namespace flysim {

WeightPipeline::WeightPipeline(int32_t period_steps, int32_t steps_per_trial, int32_t trials)
    : period_steps_(period_steps), steps_per_trial_(steps_per_trial), trials_(trials) {}

RunPosition WeightPipeline::apply_position(int32_t trial, int32_t end) const {
  const int64_t next = int64_t{end} + period_steps_;
  return next < steps_per_trial_ ? RunPosition{trial, static_cast<int32_t>(next)} : RunPosition{trial + 1, 0};
}

bool WeightPipeline::period_ends_at(int32_t end) const {
  return period_steps_ > 0 && (end % period_steps_ == 0 || end == steps_per_trial_);
}

WeightPipeline::Flushed WeightPipeline::await_period(int32_t trial, int32_t end, std::size_t shards) {
  const int32_t first = end - 1 - (end - 1) % period_steps_;
  pending_.push_back({apply_position(trial, end), shards, WeightUpdate{trial, first, {}}});
  return {taken_ + pending_.size() - 1, first};
}

void WeightPipeline::restore(RunPosition start, std::vector<WeightChange> changes) {
  pending_.push_back({apply_position(start.trial, start.step), 0,
                      WeightUpdate{start.trial, start.step - period_steps_, std::move(changes)}});
}

bool WeightPipeline::add(uint64_t ticket, const std::vector<WeightChange>& changes) {
  if (ticket < taken_ || ticket - taken_ >= pending_.size()) throw std::logic_error("weight update ticket not pending");
  Pending& p = pending_[ticket - taken_];
  if (p.awaiting == 0) throw std::logic_error("weight update answered more often than flushed");
  p.update.changes.insert(p.update.changes.end(), changes.begin(), changes.end());
  return --p.awaiting == 0;
}

WeightPipeline::Due WeightPipeline::due(RunPosition issued) const {
  if (pending_.empty() || issued < pending_.front().apply_at) return Due::nothing;
  return pending_.front().awaiting > 0 ? Due::awaited : Due::ready;
}

WeightUpdate WeightPipeline::take(RunPosition issued) {
  if (due(issued) != Due::ready) throw std::logic_error("no weight update ready");
  WeightUpdate update = std::move(pending_.front().update);
  pending_.pop_front();
  ++taken_;
  changes_applied_ += update.changes.size();
  applied_.add({update.trial, update.first, issued.trial, issued.step, update.changes.size()});
  return update;
}

bool WeightPipeline::period_not_ended_yet(RunPosition done, RunPosition issued) const {
  if (period_steps_ <= 0) return false;
  // A finished trial's next period is the next trial's first.
  if (done.step >= steps_per_trial_) done = {done.trial + 1, 0};
  if (done.trial >= trials_) return false;
  const auto end = static_cast<int32_t>(std::min<int64_t>((int64_t{done.step} / period_steps_ + 1) * period_steps_, steps_per_trial_));
  return !(issued < apply_position(done.trial, end));
}

}  // namespace flysim
