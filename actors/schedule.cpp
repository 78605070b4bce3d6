#include "actors/schedule.hpp"

#include <algorithm>

#include "kernels/epoch_rules.hpp"
#include "model/lif_params.hpp"

namespace flysim {

int32_t batch_size_at(int32_t first_trial, const ScheduleGeometry& g) { return std::min(g.batch, g.trials - first_trial); }

int64_t simulated_steps_to(const RunPosition& p, const ScheduleGeometry& g) {
  return static_cast<int64_t>(p.trial) * g.steps_per_trial +
         static_cast<int64_t>(p.step) * std::max(0, batch_size_at(p.trial, g));
}

RunPosition position_at_ms(double ms, const ScheduleGeometry& g, int32_t granularity) {
  const auto total = static_cast<int64_t>(steps_at_least(ms, g.dt_ms));
  int64_t batch = total / g.steps_per_trial;
  auto step = static_cast<int32_t>(total % g.steps_per_trial);
  step = (step + granularity - 1) / granularity * granularity;
  if (step == 0) step = granularity;
  if (step >= g.steps_per_trial) {
    ++batch;
    step = granularity;
  }
  return {static_cast<int32_t>(batch * g.batch), step};
}

bool reached(const RunPosition& p, const ScheduleGeometry& g) {
  return p.trial < g.trials && p.step < g.steps_per_trial && g.start < p;
}

int64_t steps_to(const RunPosition& p, const ScheduleGeometry& g) {
  return static_cast<int64_t>(p.trial / g.batch) * g.steps_per_trial + p.step;
}

std::vector<RunPosition> checkpoint_positions(double every_ms, const ScheduleGeometry& g) {
  std::vector<RunPosition> points;
  if (every_ms == 0) return points;
  // Counted in whole steps, so a tiny interval on a long run still ends.
  const int64_t every_steps = std::max<int64_t>(1, static_cast<int64_t>(steps_at_least(every_ms, g.dt_ms)));
  const int64_t batches = (int64_t{g.trials} + g.batch - 1) / g.batch;
  const int64_t total_steps = batches * g.steps_per_trial;
  for (int64_t step = every_steps; step < total_steps; step += every_steps) {
    const RunPosition p = position_at_ms(static_cast<double>(step) * g.dt_ms, g, g.checkpoint_granularity);
    if (reached(p, g) && (points.empty() || points.back() < p)) points.push_back(p);
  }
  return points;
}

Schedule::Schedule(ScheduleGeometry geometry, std::vector<RunPosition> checkpoints, std::vector<PlacedCommand> placed,
                   double pace, double pace_batch_ms)
    : g_(geometry), checkpoints_(std::move(checkpoints)), pace_(pace), pace_batch_ms_(pace_batch_ms) {
  std::stable_sort(placed.begin(), placed.end(), [](const PlacedCommand& a, const PlacedCommand& b) { return a.at < b.at; });
  placed_.assign(placed.begin(), placed.end());
  trial_started_ = g_.start.step > 0;
}

bool Schedule::at_checkpoint_boundary(RunPosition p) const {
  return p.step > 0 && p.step % g_.checkpoint_granularity == 0;
}

double Schedule::allowed_at_s(RunPosition p) const {
  const double ahead_ms = static_cast<double>(steps_to(p, g_) - anchor_steps_) * g_.dt_ms - 2 * pace_batch_ms_;
  return anchor_s_ + ahead_ms / (pace_ * 1e3);
}

bool Schedule::boundary_is_busy(RunPosition p) const {
  return !live_.empty() || (next_checkpoint_ < checkpoints_.size() && !(p < checkpoints_[next_checkpoint_])) ||
         (!placed_.empty() && !(p < placed_.front().at));
}

int32_t Schedule::epoch_end(RunPosition issued, double now_s) const {
  const auto cell_end = [&](int32_t step) {
    return std::min(cell_start(step, g_.delay_steps) + g_.delay_steps, g_.steps_per_trial);
  };
  int32_t end = cell_end(issued.step);
  if (!g_.epochs_cross_cells) return end;
  const bool paced = pace_ > 0.0;
  // However far behind the pace is, a batch holds at most the pace batch (and at least a
  // cell), so a slow engine still reports, and takes commands, that often.
  const auto batch_steps = static_cast<int32_t>(steps_at_least(paced ? pace_batch_ms_ : kUnpacedBatchMs, g_.dt_ms));
  while (end < g_.steps_per_trial && cell_end(end) - issued.step <= batch_steps) {
    const RunPosition next{issued.trial, end};
    if (boundary_is_busy(next) || (paced && allowed_at_s(next) > now_s)) break;
    end = cell_end(end);
  }
  return end;
}

void Schedule::receive(LiveCommand command, uint64_t id) { live_.push_back({std::move(command), id}); }

void Schedule::pause(double now_s) {
  if (paused_) return;
  paused_ = true;
  paused_since_s_ = now_s;
}

void Schedule::resume(RunPosition done, double now_s) {
  if (paused_) paused_total_s_ += now_s - paused_since_s_;
  paused_ = false;
  // The pace starts over from here: the paused time is not made up by running fast.
  anchor_s_ = now_s;
  anchor_steps_ = steps_to(done, g_);
  anchored_ = true;
}

double Schedule::lag_ms(RunPosition done, double now_s) const {
  if (pace_ <= 0.0 || paused_ || !anchored_) return 0.0;
  const double due_ms = (now_s - anchor_s_) * pace_ * 1e3;
  const double simulated_ms = static_cast<double>(steps_to(done, g_) - anchor_steps_) * g_.dt_ms;
  return std::max(0.0, due_ms - simulated_ms);
}

Schedule::Action Schedule::next(RunPosition issued, double now_s) {
  Action a;
  a.at = issued;
  if (issued.trial >= g_.trials) return a;  // done
  if (!anchored_) {
    anchor_s_ = now_s;
    anchor_steps_ = steps_to(issued, g_);
    anchored_ = true;
  }
  if (issued.step == 0 && !trial_started_) {
    trial_started_ = true;
    a.kind = Action::Kind::start_trial;
    return a;
  }
  while (next_checkpoint_ < checkpoints_.size() && checkpoints_[next_checkpoint_] < issued) ++next_checkpoint_;
  if (!stopped_ && next_checkpoint_ < checkpoints_.size() && checkpoints_[next_checkpoint_] == issued) {
    ++next_checkpoint_;
    a.kind = Action::Kind::checkpoint;
    return a;
  }
  while (!placed_.empty() && placed_.front().at < issued) placed_.pop_front();  // before a restored run's start
  if (!placed_.empty() && placed_.front().at == issued) {
    a.kind = Action::Kind::command;
    a.command = std::move(placed_.front().command);
    placed_.pop_front();
    return a;
  }
  if (!live_.empty() && (!std::holds_alternative<CheckpointCommand>(live_.front().command) || at_checkpoint_boundary(issued))) {
    a.kind = Action::Kind::command;
    a.command = std::move(live_.front().command);
    a.live_id = live_.front().id;
    live_.pop_front();
    return a;
  }
  if (paused_ || stopped_) {
    a.kind = Action::Kind::idle;
    return a;
  }
  if (pace_ > 0.0) {
    const double allowed_s = allowed_at_s(issued);
    if (allowed_s > now_s) {
      a.kind = Action::Kind::wait;
      a.until_s = allowed_s + pace_batch_ms_ / (pace_ * 1e3);
      return a;
    }
  }
  a.kind = Action::Kind::epoch;
  a.steps = epoch_end(issued, now_s) - issued.step;
  // The trial whose last epoch this is ends here: the next one starts from rest.
  if (issued.step + a.steps == g_.steps_per_trial) trial_started_ = false;
  return a;
}

}  // namespace flysim
