// The schedule (actors/schedule.hpp) without actors: what happens at each boundary.
#include <gtest/gtest.h>

#include "actors/schedule.hpp"

namespace flysim {
namespace {

using Kind = Schedule::Action::Kind;

ScheduleGeometry geometry(int32_t trials = 2, int32_t steps = 100, int32_t delay = 18, int32_t granularity = 18) {
  ScheduleGeometry g;
  g.trials = trials;
  g.steps_per_trial = steps;
  g.delay_steps = delay;
  g.checkpoint_granularity = granularity;
  return g;
}

LiveCommand command(const std::string& action) { return *live_command_named(action); }

// Drives a schedule as the sim loop does (unpaced, clock at 0): every action in order,
// with the position it came at; live commands are handed in when `issued` reaches them,
// and journaled (`journal`) where they come back, as actors/sim_loop_live.cpp does.
struct Trace {
  std::vector<std::pair<Kind, RunPosition>> actions;
  std::vector<std::string> commands;
  std::vector<PlacedCommand> journal;
};

Trace drive(Schedule& s, const std::vector<std::pair<RunPosition, LiveCommand>>& live = {}) {
  Trace t;
  RunPosition issued = s.geometry().start;
  std::size_t next_live = 0;
  for (int guard = 0; guard < 10000; ++guard) {
    for (; next_live < live.size() && !(issued < live[next_live].first); ++next_live) s.receive(live[next_live].second, next_live + 1);
    const Schedule::Action a = s.next(issued, 0.0);
    t.actions.push_back({a.kind, a.at});
    if (a.kind == Kind::command) {
      t.commands.push_back(action_name(a.command) + std::string("@") + std::to_string(a.at.trial) + ":" + std::to_string(a.at.step));
      if (a.live_id != 0) t.journal.push_back({a.at, a.command});
      if (std::holds_alternative<StopCommand>(a.command)) s.stop();
      if (std::holds_alternative<PauseCommand>(a.command)) s.pause(0.0);
      if (std::holds_alternative<ResumeCommand>(a.command)) s.resume(issued, 0.0);
    }
    if (a.kind == Kind::epoch) {
      issued.step += a.steps;
      if (issued.step == s.geometry().steps_per_trial) issued = {issued.trial + 1, 0};
    }
    if (a.kind == Kind::done || a.kind == Kind::idle || a.kind == Kind::wait) break;
  }
  return t;
}

TEST(Schedule, EpochsFollowDelayCellsAndEachTrialStartsFromRest) {
  Schedule s(geometry(), {}, {}, 0.0);
  const Trace t = drive(s);
  std::vector<std::pair<Kind, RunPosition>> expected;
  for (int32_t trial = 0; trial < 2; ++trial) {
    expected.push_back({Kind::start_trial, {trial, 0}});
    for (int32_t step = 0; step < 100; step += 18) expected.push_back({Kind::epoch, {trial, step}});
  }
  expected.push_back({Kind::done, {2, 0}});
  EXPECT_EQ(t.actions, expected);
}

TEST(Schedule, ScriptedCheckpointsAndPlacedCommandsComeBeforeTheEpochAtTheirBoundary) {
  Schedule s(geometry(), {{0, 36}, {1, 18}}, {{{0, 54}, command("swap")}, {{1, 36}, command("stimulus")}}, 0.0);
  const Trace t = drive(s);
  const auto at = [&](Kind kind, RunPosition p) {
    return std::find(t.actions.begin(), t.actions.end(), std::pair{kind, p}) - t.actions.begin();
  };
  EXPECT_LT(at(Kind::checkpoint, {0, 36}), at(Kind::epoch, {0, 36}));
  EXPECT_LT(at(Kind::checkpoint, {1, 18}), at(Kind::epoch, {1, 18}));
  EXPECT_EQ(t.commands, (std::vector<std::string>{"swap@0:54", "stimulus@1:36"}));
}

TEST(Schedule, ALiveCommandIsPlacedAtTheNextBoundaryAndJournaled) {
  Schedule s(geometry(), {}, {}, 0.0);
  const Trace t = drive(s, {{{0, 20}, command("swap")}, {{1, 0}, command("stimulus")}});
  EXPECT_EQ(t.commands, (std::vector<std::string>{"swap@0:36", "stimulus@1:0"}));
  ASSERT_EQ(t.journal.size(), 2u);
  EXPECT_EQ(t.journal[0].at, (RunPosition{0, 36}));
  EXPECT_EQ(t.journal[1].at, (RunPosition{1, 0}));
}

TEST(Schedule, ReplayingTheJournalGivesTheSameActions) {
  Schedule live(geometry(3, 200), {{0, 90}}, {}, 0.0);
  const Trace original = drive(live, {{{0, 5}, command("stimulus")}, {{0, 90}, command("swap")}, {{2, 7}, command("stop")}});
  Schedule replay(geometry(3, 200), {{0, 90}}, original.journal, 0.0);
  const Trace again = drive(replay);
  EXPECT_EQ(again.actions, original.actions);
  EXPECT_EQ(again.commands, original.commands);
  EXPECT_TRUE(replay.stopped());
}

TEST(Schedule, ALiveCheckpointWaitsForAPlasticityPeriodBoundary) {
  Schedule s(geometry(1, 400, 18, 54), {}, {}, 0.0);
  const Trace t = drive(s, {{{0, 18}, command("checkpoint")}});
  EXPECT_EQ(t.commands, (std::vector<std::string>{"checkpoint@0:54"}));
}

TEST(Schedule, PauseIdlesUntilResumeAndStopEndsIssuing) {
  Schedule s(geometry(), {}, {}, 0.0);
  Trace t = drive(s, {{{0, 36}, command("pause")}});
  EXPECT_EQ(t.actions.back().first, Kind::idle);
  EXPECT_EQ(t.actions.back().second, (RunPosition{0, 36}));
  EXPECT_EQ(s.next({0, 36}, 1.0).kind, Kind::idle);
  s.receive(command("resume"), 7);
  const Schedule::Action resume = s.next({0, 36}, 2.0);
  ASSERT_EQ(resume.kind, Kind::command);
  EXPECT_EQ(resume.live_id, 7u);
  s.resume({0, 36}, 2.0);
  EXPECT_EQ(s.next({0, 36}, 2.0).kind, Kind::epoch);
  s.receive(command("stop"), 8);
  EXPECT_EQ(s.next({0, 54}, 2.0).kind, Kind::command);
  s.stop();
  EXPECT_EQ(s.next({0, 54}, 2.0).kind, Kind::idle);
}

TEST(Schedule, PaceLetsEpochsGoAsTheWallClockAllowsAndMeasuresLag) {
  Schedule s(geometry(1, 100000), {}, {}, 1.0);  // real time: 1 ms of simulation per wall ms
  EXPECT_EQ(s.next({0, 0}, 0.0).kind, Kind::start_trial);
  EXPECT_EQ(s.next({0, 0}, 0.0).kind, Kind::epoch);
  // Step 360 is 36 ms in: allowed once the wall clock reaches 36 - 20 (slack) = 16 ms;
  // the wait lasts until 10 ms more are allowed (26 ms), so the epochs go in a batch.
  const Schedule::Action wait = s.next({0, 360}, 0.010);
  ASSERT_EQ(wait.kind, Kind::wait);
  EXPECT_NEAR(wait.until_s, 0.026, 1e-9);
  EXPECT_EQ(s.next({0, 360}, 0.016).kind, Kind::epoch);
  // At 26 ms the epochs up to 46 ms of simulated time go without waiting.
  EXPECT_EQ(s.next({0, 450}, 0.026).kind, Kind::epoch);
  EXPECT_EQ(s.next({0, 468}, 0.026).kind, Kind::wait);
  // Half speed: the batch is 10 ms of simulation, 20 ms of wall time.
  Schedule half(geometry(1, 100000), {}, {}, 0.5);
  half.next({0, 0}, 0.0);
  const Schedule::Action half_wait = half.next({0, 360}, 0.0);
  ASSERT_EQ(half_wait.kind, Kind::wait);
  EXPECT_NEAR(half_wait.until_s, 0.032 + 0.020, 1e-9);
  // At wall 1 s with 900 ms simulated, the run is 100 ms behind.
  EXPECT_NEAR(s.lag_ms({0, 9000}, 1.0), 100.0, 1e-6);
  EXPECT_EQ(s.lag_ms({0, 10000}, 1.0), 0.0);
  // After a pause the pace starts over: no catching up.
  s.pause(1.0);
  EXPECT_EQ(s.paused_s(3.0), 2.0);
  s.resume({0, 9000}, 5.0);
  EXPECT_EQ(s.lag_ms({0, 9000}, 5.0), 0.0);
  EXPECT_EQ(s.paused_s(9.0), 4.0) << "the pause's time is kept once it ended";
  EXPECT_EQ(s.next({0, 9000}, 5.0).kind, Kind::epoch);
}

// The steps of the epoch the schedule issues at p, at wall time now_s; 0 when it is no epoch.
int32_t epoch_steps(Schedule& s, RunPosition p, double now_s) {
  const Schedule::Action a = s.next(p, now_s);
  return a.kind == Kind::epoch ? a.steps : 0;
}

TEST(Schedule, AnEpochCrossesCellsUpToABatchAndStopsWhereSomethingHappens) {
  ScheduleGeometry g = geometry(2, 1000);
  g.epochs_cross_cells = true;
  Schedule s(g, {{0, 180}}, {{{0, 252}, command("swap")}}, 1.0);
  EXPECT_EQ(s.next({0, 0}, 0.0).kind, Kind::start_trial);
  // At the start 20 ms are allowed, but one request holds at most 10 ms: five cells.
  EXPECT_EQ(epoch_steps(s, {0, 0}, 0.0), 90);
  // From step 90 the pace allows up to 20 ms (step 200) at wall 0: five cells, to the
  // checkpoint at 180.
  EXPECT_EQ(epoch_steps(s, {0, 90}, 0.0), 90);
  EXPECT_EQ(s.next({0, 180}, 0.0).kind, Kind::checkpoint);
  // Only as far as the wall clock allows: at 1 ms, cells starting up to step 210.
  EXPECT_EQ(epoch_steps(s, {0, 180}, 0.001), 36);
  // Up to the placed swap at 252.
  EXPECT_EQ(epoch_steps(s, {0, 216}, 0.010), 36);
  EXPECT_EQ(s.next({0, 252}, 0.010).kind, Kind::command);
  // A live command waiting for its boundary ends the batch at the next cell.
  Schedule live(g, {}, {}, 1.0);
  live.next({0, 0}, 0.0);
  live.receive(command("stimulus"), 1);
  EXPECT_EQ(live.next({0, 0}, 0.0).kind, Kind::command);
  live.receive(command("checkpoint"), 2);  // not a checkpoint boundary: it waits
  EXPECT_EQ(epoch_steps(live, {0, 9}, 0.0), 9);
  // A trial's last epoch ends at the trial's end; a slow engine far behind the pace still
  // gets at most 10 ms a request.
  Schedule late(g, {}, {}, 1.0);
  late.next({0, 0}, 0.0);
  EXPECT_EQ(epoch_steps(late, {0, 972}, 5.0), 28);
  EXPECT_EQ(late.next({1, 0}, 5.0).kind, Kind::start_trial);
  EXPECT_EQ(epoch_steps(late, {1, 0}, 5.0), 90);
  // Unpaced, an epoch holds up to Schedule::kUnpacedBatchMs (200 ms: 111 whole cells of
  // 18 steps), and still stops where something happens.
  ScheduleGeometry long_trial = geometry(1, 10000);
  long_trial.epochs_cross_cells = true;
  Schedule unpaced(long_trial, {{0, 2520}}, {}, 0.0);
  unpaced.next({0, 0}, 0.0);
  EXPECT_EQ(epoch_steps(unpaced, {0, 0}, 0.0), 1998);
  EXPECT_EQ(epoch_steps(unpaced, {0, 1998}, 0.0), 522);
  EXPECT_EQ(unpaced.next({0, 2520}, 0.0).kind, Kind::checkpoint);
  // With plasticity (the shards learn per epoch), epochs stay one cell, paced or not.
  g.epochs_cross_cells = false;
  Schedule per_cell(g, {}, {}, 0.0);
  per_cell.next({0, 0}, 0.0);
  EXPECT_EQ(epoch_steps(per_cell, {0, 0}, 0.0), 18);
  Schedule paced_per_cell(g, {}, {}, 1.0);
  paced_per_cell.next({0, 0}, 0.0);
  EXPECT_EQ(epoch_steps(paced_per_cell, {0, 0}, 0.0), 18);
}

// run.pace-batch-ms: a larger batch issues more at once and waits for a batch more of
// wall time; ahead of the wall clock by up to two batches.
TEST(Schedule, ALargerPaceBatchIssuesMoreAtOnce) {
  ScheduleGeometry g = geometry(1, 10000);
  g.epochs_cross_cells = true;
  Schedule s(g, {}, {}, 1.0, 50.0);
  s.next({0, 0}, 0.0);
  // At wall 0, 100 ms may be issued, 50 ms a request: 27 whole cells of 18 steps.
  EXPECT_EQ(epoch_steps(s, {0, 0}, 0.0), 486);
  EXPECT_EQ(epoch_steps(s, {0, 486}, 0.0), 486);
  // Only cells starting up to 100 ms ahead: to step 1008 (the cell at 1008 would start
  // 100.8 ms ahead), and there it waits until 0.8 ms of wall time plus a batch.
  EXPECT_EQ(epoch_steps(s, {0, 972}, 0.0), 36);
  const Schedule::Action wait = s.next({0, 1008}, 0.0);
  ASSERT_EQ(wait.kind, Kind::wait);
  EXPECT_NEAR(wait.until_s, 0.0008 + 0.050, 1e-9);
}

TEST(Schedule, PositionsOfTimesAndIntervals) {
  ScheduleGeometry g = geometry(2, 1000, 18, 180);
  EXPECT_EQ(position_at_ms(10.0, g, 18), (RunPosition{0, 108}));
  EXPECT_EQ(position_at_ms(99.99, g, 18), (RunPosition{1, 18}));  // past the end of trial 0
  EXPECT_EQ(checkpoint_positions(30.0, g),
            (std::vector<RunPosition>{{0, 360}, {0, 720}, {0, 900}, {1, 360}, {1, 540}, {1, 900}}));
  EXPECT_TRUE(checkpoint_positions(0.0, g).empty());
}

}  // namespace
}  // namespace flysim
