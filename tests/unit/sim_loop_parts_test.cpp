// The sim loop's parts (actors/sim_loop/README.md), each on its own, without actors.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "actors/sim_loop/checkpoint_files.hpp"
#include "actors/sim_loop/fallback_tracker.hpp"
#include "actors/sim_loop/in_flight_window.hpp"
#include "actors/sim_loop/live_replies.hpp"
#include "actors/sim_loop/realtime_monitor.hpp"
#include "actors/sim_loop/weight_pipeline.hpp"
#include "messages/control.hpp"

namespace flysim::test {
namespace {

// ---- InFlightWindow

TEST(InFlightWindow, DecidesNoMoreOnceItsSizeIsOutAndAgainAfterAReply) {
  InFlightWindow w({0, 0}, 4, 180, 1);
  int32_t sent = 0;
  while (w.has_room() && sent < 100) {
    w.request_epoch(18);
    ++sent;
  }
  EXPECT_EQ(sent, 4);
  EXPECT_EQ(w.in_flight(), 4);
  EXPECT_TRUE(w.reply(w.generation()));
  EXPECT_TRUE(w.has_room());
}

TEST(InFlightWindow, EpochsMoveTheIssuedPositionAndATrialsEndGoesToTheNextBatch) {
  InFlightWindow w({2, 0}, 4, 36, 2);
  w.request_epoch(18);
  EXPECT_EQ(w.issued(), (RunPosition{2, 18}));
  w.request_epoch(18);
  EXPECT_EQ(w.issued(), (RunPosition{4, 0}));
  EXPECT_EQ(w.done(), (RunPosition{2, 0}));
  w.complete({2, 18});
  EXPECT_EQ(w.done(), (RunPosition{2, 18}));
}

TEST(InFlightWindow, RepliesOfAReplacedEngineAreStaleAndChangeNothing) {
  InFlightWindow w({0, 0}, 4, 180, 1);
  const uint64_t old = w.request();
  w.replace_engine();
  EXPECT_FALSE(w.current(old));
  EXPECT_FALSE(w.reply(old));
  EXPECT_EQ(w.in_flight(), 1);
  const uint64_t now = w.request();
  EXPECT_TRUE(w.reply(now));
  EXPECT_EQ(w.in_flight(), 1);
}

TEST(InFlightWindow, AGivenUpEngineLeavesNothingInFlightAndHoldsUntilTheNewOneResumes) {
  InFlightWindow w({0, 0}, 4, 180, 1);
  const uint64_t old = w.request_epoch(18);
  w.request_epoch(18);
  w.request_epoch(18);
  w.give_up_engine();
  EXPECT_EQ(w.in_flight(), 0);
  EXPECT_FALSE(w.has_room());
  EXPECT_FALSE(w.reply(old));  // a late reply of the failed engine
  EXPECT_EQ(w.in_flight(), 0);
  w.resume_from({0, 18});
  EXPECT_TRUE(w.has_room());
  EXPECT_EQ(w.issued(), (RunPosition{0, 18}));
}

TEST(InFlightWindow, ASwapHoldsTheWindowWhileItsRequestsAreCounted) {
  InFlightWindow w({0, 0}, 4, 180, 1);
  w.hold();
  const uint64_t export_request = w.request();
  EXPECT_FALSE(w.has_room());
  EXPECT_TRUE(w.held());
  EXPECT_TRUE(w.reply(export_request));
  w.release();
  EXPECT_TRUE(w.has_room());
  EXPECT_EQ(w.in_flight(), 0);
}

TEST(InFlightWindow, AFailedEnginesLateAnswerToAnyRequestCountsNothing) {
  InFlightWindow w({0, 0}, 4, 180, 1);
  const uint64_t epoch = w.request_epoch(18);
  const uint64_t stimulus = w.request();  // a stimulus update queued behind the epoch
  EXPECT_EQ(w.in_flight(), 2);
  w.give_up_engine();  // the epoch failed
  EXPECT_FALSE(w.reply(stimulus));  // the failed engine still answers the update
  EXPECT_FALSE(w.reply(epoch));
  EXPECT_EQ(w.in_flight(), 0) << "a late answer must not leave the count below zero (the run would never finish)";
}

// ---- FallbackTracker

TEST(FallbackTracker, NoSnapshotIsDueWhileTheEngineCannotFailOrNoneIsAskedFor) {
  FallbackTracker cannot_fail(72, false), never(0, true);
  EXPECT_FALSE(cannot_fail.due(0));
  EXPECT_FALSE(never.due(0));
}

TEST(FallbackTracker, ASnapshotFallsDueOnceEveryPeriodAndAgainAfterACommand) {
  FallbackTracker t(72, true);
  EXPECT_TRUE(t.due(0));
  EXPECT_FALSE(t.due(0));  // asked again before it arrived
  EXPECT_FALSE(t.due(36));
  EXPECT_TRUE(t.due(72));
  EXPECT_FALSE(t.due(108));
  t.after_command();
  EXPECT_TRUE(t.due(108));
  EXPECT_FALSE(t.due(144));
  EXPECT_TRUE(t.due(180));
}

TEST(FallbackTracker, ASwapDropsTheSnapshotAndTheNewEnginesFirstEpochTakesOne) {
  FallbackTracker t(72, true);
  ASSERT_TRUE(t.due(0));
  t.hold({{0, 0}, {}});
  ASSERT_TRUE(t.point());
  t.engine_replaced(true);
  EXPECT_FALSE(t.point());
  EXPECT_TRUE(t.due(36));
  t.engine_replaced(false);
  EXPECT_FALSE(t.due(1000));
}

TEST(FallbackTracker, TheCpuPoolThatTookOverHoldsNoSnapshotAndNeverFallsDue) {
  FallbackTracker t(72, true);
  ASSERT_TRUE(t.due(0));
  t.hold({{0, 0}, {}});
  t.engine_failed({0, 54});
  t.resumed();
  EXPECT_FALSE(t.point());
  EXPECT_FALSE(t.engine_may_fail());
  EXPECT_FALSE(t.due(72));
}

// One trial's epoch [first, first + steps) with a spike at every step.
std::vector<EpochSpikes> epoch_of(int32_t trial, int32_t first, int32_t steps) {
  EpochSpikes e{trial, first, steps, {}};
  for (int32_t step = first; step < first + steps; ++step) e.spikes.push_back({step, 0});
  return {e};
}

TEST(FallbackTracker, StepsRecordedBeforeAFailureAreSkippedExactlyOnceWhenRecomputed) {
  FallbackTracker t(36, true);
  std::vector<int32_t> recorded;
  const auto deliver = [&](std::vector<EpochSpikes> batch) {
    if (!t.drop_recorded(batch)) return;
    for (const Spike& s : batch.front().spikes) recorded.push_back(s.step);
  };
  // The failing engine delivers [0, 54) in epochs of 18 and fails; the snapshot is at 18.
  for (int32_t first = 0; first < 54; first += 18) deliver(epoch_of(0, first, 18));
  t.engine_failed({0, 54});
  t.engine_failed({0, 36});  // a later report of less changes nothing
  EXPECT_EQ(t.recorded_until(), (RunPosition{0, 54}));
  // The new engine recomputes from 18 in epochs that cut elsewhere: [18, 36) was
  // recorded, [36, 72) crosses what was, [72, 90) is new.
  deliver(epoch_of(0, 18, 18));
  deliver(epoch_of(0, 36, 36));
  deliver(epoch_of(0, 72, 18));
  std::vector<int32_t> every_step;
  for (int32_t step = 0; step < 90; ++step) every_step.push_back(step);
  EXPECT_EQ(recorded, every_step);
}

TEST(FallbackTracker, AnEpochCrossingWhatWasRecordedKeepsOnlyItsNewStepsInEveryTrialOfTheBatch) {
  FallbackTracker t(36, true);
  t.engine_failed({4, 40});
  std::vector<EpochSpikes> batch = {{4, 36, 36, {{36, 1}, {39, 2}, {40, 3}, {71, 4}}}, {5, 36, 36, {{38, 5}, {45, 6}}}};
  ASSERT_TRUE(t.drop_recorded(batch));
  for (const EpochSpikes& e : batch) {
    EXPECT_EQ(e.first, 40);
    EXPECT_EQ(e.steps, 32);
  }
  EXPECT_EQ(batch[0].spikes, (std::vector<Spike>{{40, 3}, {71, 4}}));
  EXPECT_EQ(batch[1].spikes, (std::vector<Spike>{{45, 6}}));
  std::vector<EpochSpikes> next_trial = epoch_of(6, 0, 18);
  EXPECT_TRUE(t.drop_recorded(next_trial));
  EXPECT_EQ(next_trial.front().spikes.size(), 18u);
}

// ---- WeightPipeline

TEST(WeightPipeline, AnUpdateAppliesOnePeriodAfterItsPeriodOrAtTheNextTrialsStart) {
  const WeightPipeline p(50, 180, 3);
  EXPECT_EQ(p.apply_position(0, 50), (RunPosition{0, 100}));
  EXPECT_EQ(p.apply_position(1, 100), (RunPosition{1, 150}));
  EXPECT_EQ(p.apply_position(1, 150), (RunPosition{2, 0}));
  EXPECT_EQ(p.apply_position(1, 180), (RunPosition{2, 0}));
  EXPECT_TRUE(p.period_ends_at(50));
  EXPECT_FALSE(p.period_ends_at(51));
  EXPECT_TRUE(p.period_ends_at(180));  // the trial's end closes its last, short period
  EXPECT_FALSE(WeightPipeline().period_ends_at(50));
}

TEST(WeightPipeline, UpdatesApplyInOrderAtTheirPositionsOnceEveryShardHasAnswered) {
  WeightPipeline p(50, 200, 1);
  const auto first = p.await_period(0, 50, 2);
  const auto second = p.await_period(0, 100, 1);
  EXPECT_EQ(first.first, 0);
  EXPECT_EQ(second.first, 50);
  EXPECT_EQ(p.due({0, 99}), WeightPipeline::Due::nothing);
  EXPECT_EQ(p.due({0, 100}), WeightPipeline::Due::awaited);
  EXPECT_FALSE(p.add(first.ticket, {{1, 10}}));
  EXPECT_TRUE(p.add(second.ticket, {{3, 30}}));
  EXPECT_EQ(p.due({0, 100}), WeightPipeline::Due::awaited);  // the first is still awaited
  EXPECT_TRUE(p.add(first.ticket, {{2, 20}}));
  ASSERT_EQ(p.due({0, 100}), WeightPipeline::Due::ready);
  const WeightUpdate a = p.take({0, 100});
  EXPECT_EQ(a.first, 0);
  EXPECT_EQ(a.changes, (std::vector<WeightChange>{{1, 10}, {2, 20}}));
  EXPECT_EQ(p.due({0, 100}), WeightPipeline::Due::nothing);  // the second applies at 150
  ASSERT_EQ(p.due({0, 150}), WeightPipeline::Due::ready);
  const WeightUpdate b = p.take({0, 150});
  EXPECT_EQ(b.first, 50);
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(p.changes_applied(), 3u);
  ASSERT_EQ(p.applied().items().size(), 2u);
  EXPECT_EQ(p.applied().items()[1].at_step, 150);
  EXPECT_EQ(p.applied().items()[1].changes, 1u);
}

TEST(WeightPipeline, NothingIsTakenBeforeItsPositionOrWhileAwaitedAndAnswersBeyondTheShardsAreRefused) {
  WeightPipeline p(50, 200, 1);
  const auto flushed = p.await_period(0, 50, 1);
  EXPECT_THROW(p.take({0, 100}), std::logic_error);
  EXPECT_TRUE(p.add(flushed.ticket, {}));
  EXPECT_THROW(p.take({0, 99}), std::logic_error);
  EXPECT_THROW(p.add(flushed.ticket, {}), std::logic_error);
  p.take({0, 100});
  EXPECT_THROW(p.add(flushed.ticket, {}), std::logic_error);
}

TEST(WeightPipeline, ARestoredRunsUnappliedWeightsApplyOnePeriodAfterTheCheckpoint) {
  WeightPipeline p(50, 200, 1);
  p.restore({0, 100}, {{7, 70}});
  EXPECT_EQ(p.due({0, 149}), WeightPipeline::Due::nothing);
  ASSERT_EQ(p.due({0, 150}), WeightPipeline::Due::ready);
  const WeightUpdate u = p.take({0, 150});
  EXPECT_EQ(u.first, 50);
  EXPECT_EQ(u.changes, (std::vector<WeightChange>{{7, 70}}));
}

TEST(WeightPipeline, TheLoopWaitsWhereThePeriodHoldingDoneWouldApply) {
  const WeightPipeline p(50, 200, 2);
  // The period [0, 50) has not ended (done is 0): its update applies at 100.
  EXPECT_FALSE(p.period_not_ended_yet({0, 0}, {0, 99}));
  EXPECT_TRUE(p.period_not_ended_yet({0, 0}, {0, 100}));
  // A finished trial's next period is the next trial's first, applied at its step 100.
  EXPECT_FALSE(p.period_not_ended_yet({0, 200}, {1, 99}));
  EXPECT_TRUE(p.period_not_ended_yet({0, 200}, {1, 100}));
  EXPECT_FALSE(p.period_not_ended_yet({1, 200}, {2, 0}));  // the run is over
  EXPECT_FALSE(WeightPipeline().period_not_ended_yet({0, 0}, {5, 0}));
}

// ---- LiveReplies

// What a sender waiting for a command's answer receives.
struct ReceivedReplies {
  std::vector<std::string>* messages;
  void deliver(LiveReply reply) const { messages->push_back(reply.message); }
};

TEST(LiveReplies, EachCommandIsAnsweredOnceAndOnlyWhenSomeoneWaits) {
  std::vector<std::string> first, second;
  LiveReplies<ReceivedReplies> replies;
  const uint64_t a = replies.add({&first});
  const uint64_t signal = replies.unanswered();
  const uint64_t b = replies.add({&second});
  EXPECT_EQ((std::set<uint64_t>{a, signal, b}).size(), 3u);
  EXPECT_EQ(replies.waiting(), 2u);
  replies.answer(signal, LiveReply{true, "stopping", 0, 0, ""});
  replies.answer(b, LiveReply{true, "paused", 0, 0, ""});
  replies.answer(b, LiveReply{true, "paused again", 0, 0, ""});
  EXPECT_EQ(second, (std::vector<std::string>{"paused"}));
  EXPECT_TRUE(first.empty());
  EXPECT_EQ(replies.waiting(), 1u);
  replies.answer(a, LiveReply{false, "refused", 0, 0, ""});
  EXPECT_EQ(first, (std::vector<std::string>{"refused"}));
  EXPECT_EQ(replies.waiting(), 0u);
}

// ---- RealtimeMonitor

TEST(RealtimeMonitor, SamplesAtMostTwiceASecondAndRatesAreOverTheWindow) {
  RealtimeMonitor m(5.0, 100.0, 0.1);
  EXPECT_TRUE(m.sample_due(0.0));
  m.add_sample({0.0, 0.0, 0, 0});
  EXPECT_EQ(m.rates().wall_per_simulated, 0.0);  // one sample: no rate yet
  EXPECT_FALSE(m.sample_due(0.4));
  EXPECT_TRUE(m.sample_due(0.5));
  m.add_sample({5.0, 2.0, 10'000, 100});  // 1 simulated second in 5 wall seconds
  m.add_sample({11.0, 8.0, 40'000, 400});
  // The sample at 0 left the window: the rates run from 5 to 11 s.
  const WindowRates r = m.rates();
  EXPECT_DOUBLE_EQ(r.wall_per_simulated, 6.0 / 3.0);
  EXPECT_DOUBLE_EQ(r.host_cores, 6.0 / 6.0);
  EXPECT_DOUBLE_EQ(r.spikes_per_simulated_s, 300.0 / 3.0);
}

TEST(RealtimeMonitor, TheCauseOfALagIsReadAtMostOnceASecondWhileOverTheLimit) {
  RealtimeMonitor m(10.0, 100.0, 0.1);
  int reads = 0;
  const auto cause = [&] {
    ++reads;
    return LagCause{"host", "the host is saturated"};
  };
  EXPECT_FALSE(m.record_lag(0.0, 50.0, cause));
  EXPECT_EQ(reads, 0);
  const auto line = m.record_lag(1.0, 150.0, cause);
  ASSERT_TRUE(line);
  EXPECT_TRUE(line->warning);
  EXPECT_EQ(reads, 1);
  m.record_lag(1.5, 160.0, cause);
  EXPECT_EQ(reads, 1);
  m.record_lag(2.0, 170.0, cause);
  EXPECT_EQ(reads, 2);
  EXPECT_EQ(m.lag_whole_run().samples, 4u);
  EXPECT_DOUBLE_EQ(m.lag_whole_run().max_ms, 170.0);
}

TEST(RealtimeMonitor, TheEngineIsJudgedOnceAWindowAndOnlyNewWarningKindsAreLogged) {
  RealtimeMonitor m(10.0, 100.0, 0.1);
  EXPECT_FALSE(m.engine_judgement_due(5.0));
  EXPECT_TRUE(m.engine_judgement_due(10.0));
  EXPECT_FALSE(m.engine_judgement_due(19.0));
  EXPECT_TRUE(m.engine_judgement_due(20.0));
  const CostWarning slow{"threads-below-pace", "too few threads"}, pool{"pool-on-cuda", "a pool on CUDA"};
  EXPECT_EQ(m.new_warnings({slow}), (std::vector<std::string>{"too few threads"}));
  EXPECT_TRUE(m.new_warnings({slow}).empty());
  EXPECT_EQ(m.new_warnings({slow, pool}), (std::vector<std::string>{"a pool on CUDA"}));
  EXPECT_TRUE(m.new_warnings({}).empty());
  EXPECT_EQ(m.new_warnings({slow}), (std::vector<std::string>{"too few threads"}));  // it came back
}

// ---- CheckpointFiles

TEST(CheckpointFiles, KeepsTheNewestFilesCountsAllAndKnowsWhatIsBeingWritten) {
  CheckpointFiles files(2);
  EXPECT_EQ(files.last(), "");
  files.writing();
  files.writing();
  EXPECT_EQ(files.being_written(), 2);
  files.written("a");
  files.written("b");
  files.writing();
  files.written("c");
  EXPECT_EQ(files.being_written(), 0);
  EXPECT_EQ(files.count(), 3u);
  EXPECT_EQ(files.newest(), (std::deque<std::string>{"b", "c"}));
  EXPECT_EQ(files.last(), "c");
}

}  // namespace
}  // namespace flysim::test
