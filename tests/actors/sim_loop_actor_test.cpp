// The real sim loop, driven message by message with CAF's deterministic test DSL
// (caf_dsl_support.hpp): a scripted engine inside the real engine actor, the real
// recorder, every actor on the test scheduler (SimLoopThread::pool, EngineThread::pool).
// The DSL's expect() checks each message; the tests' own checks are GoogleTest's.
#include "caf_dsl_support.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/engine_actor.hpp"
#include "actors/recorder.hpp"
#include "actors/sim_loop.hpp"
#include "scratch_dir.hpp"
#include "kernels/fault_injecting_engine.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

constexpr std::size_t kNeurons = 8;
constexpr int32_t kDelaySteps = 18;
// Steps of a fiftieth of Schedule::kUnpacedBatchMs: an unpaced epoch crosses cells up to
// 50 steps, so epochs are two cells, [0, 36), [36, 72), ..., unless something happens at
// a boundary.
constexpr double kDtMs = Schedule::kUnpacedBatchMs / 50;
constexpr int32_t kStepsPerTrial = 12 * kDelaySteps;

// What each scripted engine was asked, in order ("A advance 36+18", "B import 72").
using EngineCalls = std::vector<std::string>;

// An engine whose spikes depend only on (trial, step), as a real engine's depend only on
// its state: a recomputation from any snapshot gives the same spikes. Its state is its
// position; it logs every call (each delay cell it advances) under its name.
class ScriptedEngine final : public Engine {
 public:
  ScriptedEngine(std::string name, std::shared_ptr<EngineCalls> calls) : name_(std::move(name)), calls_(std::move(calls)) {}
  std::string describe() const override { return "scripted " + name_; }
  int32_t batch_capacity() const override { return 1; }
  int32_t cell_steps() const override { return kDelaySteps; }
  BatchSpikes advance_batch(kernels::EpochSpan span) override {
    log("advance " + std::to_string(span.first) + "+" + std::to_string(span.steps));
    if (span.first != next_step_) throw std::logic_error("scripted engine asked out of order");
    std::vector<Spike> spikes;
    for (int32_t step = span.first; step < span.first + span.steps; ++step)
      if (step % 3 == 0) spikes.push_back({step, static_cast<uint32_t>((trial_ * 7 + step) % kNeurons)});
    next_step_ += span.steps;
    return {spikes};
  }
  std::vector<EngineState> export_batch() const override {
    log("export " + std::to_string(next_step_));
    EngineState state;
    state.trial = trial_;
    state.next_step = next_step_;
    return {state};
  }
  void import_batch(const std::vector<EngineState>& states) override {
    trial_ = states.front().trial;
    next_step_ = states.front().next_step;
    log("import " + std::to_string(next_step_));
  }
  void start_at_rest(int32_t first_trial, int32_t) override {
    trial_ = first_trial;
    next_step_ = 0;
    log("rest " + std::to_string(first_trial));
  }
  void apply_weights(const std::vector<WeightChange>&) override {}
  void set_stimulus(std::shared_ptr<const StimulusPlan>, uint32_t) override {}

 private:
  void log(const std::string& call) const { calls_->push_back(name_ + " " + call); }
  std::string name_;
  std::shared_ptr<EngineCalls> calls_;
  int32_t trial_ = 0, next_step_ = 0;
};

// The scripted spikes of a whole trial: 72 (every third step).
constexpr uint64_t kSpikesPerTrial = kStepsPerTrial / 3;

// An epoch request's span (of trial 0), as expect(...).with() compares it.
struct Span {
  int32_t first = 0, steps = 0;
};
bool operator==(const EpochRequest& r, const Span& s) { return r.trial == 0 && r.first == s.first && r.steps == s.steps; }
std::string to_string(const Span& s) { return std::to_string(s.first) + "+" + std::to_string(s.steps); }

// "first+steps" of each recorded epoch.
std::vector<std::string> spans_of(const std::vector<EpochSpikes>& epochs) {
  std::vector<std::string> spans;
  for (const EpochSpikes& e : epochs) spans.push_back(std::to_string(e.first) + "+" + std::to_string(e.steps));
  return spans;
}

// The cells [from, to) as engine `name` logs them.
std::vector<std::string> cells(const std::string& name, int32_t from, int32_t to) {
  std::vector<std::string> calls;
  for (int32_t first = from; first < to; first += kDelaySteps)
    calls.push_back(name + " advance " + std::to_string(first) + "+" + std::to_string(kDelaySteps));
  return calls;
}

std::vector<std::string> joined(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// One trial of kStepsPerTrial steps on scripted engine A, failing (engine_failure, as a
// lost GPU) after `fail_after_cells` delay cells when that is not 0; the engines swaps
// and fallbacks build are B, C, ...; the real recorder writes `spikes_path`.
struct SimLoopFixture : test_coordinator_fixture<FlysimTestConfig> {
  SimLoopFixture(RunPlan plan, const std::string& spikes_path, uint64_t fail_after_cells = 0) {
    auto network = tiny_network(kNeurons, {});
    plan.trials = 1;
    plan.steps_per_trial = kStepsPerTrial;
    plan.delay_steps = plan.checkpoint_granularity = kDelaySteps;
    plan.dt_ms = kDtMs;
    plan.neurons = kNeurons;
    plan.network = network;
    plan.engine_thread = EngineThread::pool;
    plan.make_engine = [calls = calls, next = std::make_shared<char>('B')](EngineKind, unsigned, const TrialPlan&) {
      return std::make_shared<ScriptedEngine>(std::string(1, (*next)++), calls);
    };
    std::shared_ptr<Engine> first = std::make_shared<ScriptedEngine>("A", calls);
    if (fail_after_cells > 0) {
      first = std::make_shared<FaultInjectingEngine>(std::make_unique<ScriptedEngine>("A", calls), fail_after_cells, true);
      plan.first_engine_may_fail = true;
    }
    plan.first_engine = first->describe();
    RecorderConfig rc;
    rc.network = network;
    rc.spikes.path = spikes_path;
    rc.steps_per_trial = kStepsPerTrial;
    rc.dt_ms = kDtMs;
    engine = spawn_engine(sys, std::move(first), EngineKind::cpu, EngineThread::pool);
    recorder = sys.spawn(recorder_behavior, rc);
    loop = spawn_sim_loop(sys, std::move(plan), engine, recorder, {}, SimLoopThread::pool);
  }
  ~SimLoopFixture() override {
    self->send_exit(loop, caf::exit_reason::user_shutdown);
    run();
  }

  // The loop's state, read between two messages.
  const sim_loop_state& state() { return deref<caf::stateful_actor<sim_loop_state, sim_loop_actor::base>>(loop).state; }

  // Runs until nothing is left to do. Every record message is taken with expect(), so the
  // test sees each one once, before the recorder handles it: the epochs recorded, in order.
  std::vector<EpochSpikes> run_recording() {
    std::vector<EpochSpikes> recorded;
    for (;;) {
      if (received<record_atom, EpochSpikes>(recorder)) {
        recorded.push_back(std::get<1>(extract<record_atom, EpochSpikes>(recorder)));
        expect((record_atom, EpochSpikes), from(loop).to(recorder).with(_, _));
      } else if (!sched.try_run_once()) {
        return recorded;
      }
    }
  }

  // The answer to `request` (sent before), once everything has run.
  template <class Request>
  RunSummary summary_of(Request& request) {
    RunSummary summary;
    request.receive([&](RunSummary& s) { summary = std::move(s); },
                    [&](caf::error& e) { ADD_FAILURE() << "the run failed: " << sys.render(e); });
    return summary;
  }

  std::shared_ptr<EngineCalls> calls = std::make_shared<EngineCalls>();
  engine_actor engine;
  recorder_actor recorder;
  sim_loop_actor loop;
};

// The spike file of the trial run on engine A alone, nothing happening.
std::string undisturbed_spikes(const ScratchDir& dir) {
  std::string spikes;
  run_caf_test([&] {
    SimLoopFixture f(RunPlan{}, dir.path("undisturbed.csv"));
    auto run = f.self->request(f.loop, caf::infinite, run_atom::value);
    f.run_recording();
    EXPECT_EQ(f.summary_of(run).recorded.spikes, kSpikesPerTrial);
  });
  return slurp(dir.path("undisturbed.csv"));
}

LiveCommand swap_to_cpu() { return SwapCommand{"cpu", std::nullopt}; }

TEST(SimLoopActor, ASwapAtABoundaryFinishesTheEpochsBeforeItOnTheOldEngineAndGoesOnOnTheNew) {
  ScratchDir dir("flysim-simloop-swap");
  constexpr int32_t kSwapAt = 5 * kDelaySteps;  // 90: inside the epoch [72, 108) it cuts
  RunSummary summary;
  std::vector<EpochSpikes> recorded;
  std::vector<std::string> calls;
  run_caf_test([&] {
    RunPlan plan;
    plan.commands = {{{0, kSwapAt}, swap_to_cpu()}};
    SimLoopFixture f(plan, dir.path("spikes.csv"));
    auto& sched = f.sched;
    auto run = f.self->request(f.loop, caf::infinite, run_atom::value);
    expect((run_atom), from(_).to(f.loop).with(_));
    // The window (4) fills: the trial's start at rest, then epochs up to the boundary.
    expect((rest_atom, int32_t, int32_t), from(f.loop).to(f.engine).with(_, 0, 1));
    expect((rest_atom), from(f.engine).to(f.loop).with(_));
    // With room again, the loop reaches the boundary: the swap holds the window and
    // queues an export behind the epochs before it.
    EXPECT_TRUE(f.state().window.held());
    EXPECT_EQ(f.state().window.issued(), (RunPosition{0, kSwapAt}));
    for (const Span span : {Span{0, 36}, Span{36, 36}, Span{72, 18}}) {
      expect((advance_atom, EpochRequest), from(f.loop).to(f.engine).with(_, span));
      expect((std::vector<EpochSpikes>), from(f.engine).to(f.loop).with(_));
      expect((record_atom, EpochSpikes), from(f.loop).to(f.recorder).with(_, _));
    }
    expect((export_atom), from(f.loop).to(f.engine).with(_));
    expect((std::vector<EngineState>), from(f.engine).to(f.loop).with(_));
    // The new engine is spawned and imports the state; nothing was issued meanwhile.
    EXPECT_TRUE(f.state().window.held());
    EXPECT_EQ(f.state().engine.actor, f.engine);
    recorded = f.run_recording();
    EXPECT_NE(f.state().engine.actor, f.engine);
    EXPECT_EQ(f.state().window.generation(), 1u);
    summary = f.summary_of(run);
    calls = *f.calls;
  });
  EXPECT_EQ(calls, joined({{"A rest 0"}, cells("A", 0, kSwapAt), {"A export 90", "B import 90"},
                           cells("B", kSwapAt, kStepsPerTrial)}));
  EXPECT_EQ(spans_of(recorded), (std::vector<std::string>{"90+36", "126+36", "162+36", "198+18"}));
  EXPECT_EQ(summary.engine, "scripted B");
  EXPECT_EQ(summary.swaps_done, 1u);
  ASSERT_EQ(summary.swaps.size(), 1u);
  EXPECT_EQ(summary.swaps[0].rfind("trial 0 step 90: swapped to scripted B in ", 0), 0u) << summary.swaps[0];
  EXPECT_EQ(slurp(dir.path("spikes.csv")), undisturbed_spikes(dir));
}

TEST(SimLoopActor, AFailedEngineIsReplacedFromTheSnapshotAndNoStepIsRecordedTwice) {
  ScratchDir dir("flysim-simloop-fallback");
  RunSummary summary;
  std::vector<EpochSpikes> recorded;
  std::vector<std::string> calls;
  run_caf_test([&] {
    RunPlan plan;
    plan.fallback_every_steps = 4 * kDelaySteps;  // snapshots at 0 (rest), 72, 144
    // A fails in its seventh cell, [108, 126): it has delivered the epochs up to 108.
    SimLoopFixture f(plan, dir.path("spikes.csv"), 6);
    auto run = f.self->request(f.loop, caf::infinite, run_atom::value);
    recorded = f.run_recording();
    summary = f.summary_of(run);
    calls = *f.calls;
    // Replies of A after its failure were dropped: one generation on.
    EXPECT_EQ(f.state().window.generation(), 1u);
    EXPECT_EQ(f.state().fallback.recorded_until(), (RunPosition{0, 108}));
    EXPECT_FALSE(f.state().fallback.engine_may_fail());
  });
  // A computed [0, 108) (with a snapshot at 72); B imported the snapshot and recomputed
  // from 72 to the end; the recorder got [72, 108) once, from A.
  EXPECT_EQ(calls, joined({{"A rest 0"}, cells("A", 0, 72), {"A export 72"}, cells("A", 72, 108), {"B import 72"},
                           cells("B", 72, kStepsPerTrial)}));
  EXPECT_EQ(spans_of(recorded), (std::vector<std::string>{"0+36", "36+36", "72+36", "108+36", "144+36", "180+36"}));
  EXPECT_EQ(summary.engine, "scripted B");
  EXPECT_EQ(summary.swaps, (std::vector<std::string>{"trial 0 step 108: scripted A (fault after 6 epochs) failed; fell back "
                                                     "to scripted B from the snapshot at trial 0 step 72"}));
  EXPECT_EQ(summary.recorded.spikes, kSpikesPerTrial);
  EXPECT_EQ(slurp(dir.path("spikes.csv")), undisturbed_spikes(dir));
}

TEST(SimLoopActor, TheSummarySaysWhatRanWhereItEndedAndWhatWasRecorded) {
  ScratchDir dir("flysim-simloop-summary");
  RunSummary summary;
  run_caf_test([&] {
    SimLoopFixture f(RunPlan{}, dir.path("spikes.csv"));
    auto run = f.self->request(f.loop, caf::infinite, run_atom::value);
    f.run_recording();
    // Finishing: the recorder commits its files, then the engine describes itself.
    summary = f.summary_of(run);
  });
  EXPECT_EQ(summary.engine, "scripted A");
  EXPECT_EQ(summary.trials, 1);
  EXPECT_DOUBLE_EQ(summary.simulated_s, kStepsPerTrial * kDtMs * 1e-3);
  EXPECT_DOUBLE_EQ(summary.simulated_this_run_s, kStepsPerTrial * kDtMs * 1e-3);
  EXPECT_FALSE(summary.stopped_early);
  EXPECT_EQ(summary.stopped_trial, 0);
  EXPECT_EQ(summary.stopped_step, kStepsPerTrial);
  EXPECT_EQ(summary.recorded.spikes, kSpikesPerTrial);
  EXPECT_EQ(summary.recorded.active_neurons, kNeurons);
  EXPECT_EQ(summary.swaps_done, 0u);
  EXPECT_EQ(summary.checkpoints_written, 0u);
  EXPECT_TRUE(summary.checkpoints.empty());
  EXPECT_EQ(summary.plasticity_shards, 0u);
}

}  // namespace
}  // namespace flysim::test
