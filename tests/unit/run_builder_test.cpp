// RunBuilder and ActorRunBuilder (apps/flysim/run/): options in, the run's parts out,
// with no process started: the plan fields on net2000 and the errors of bad options.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/options/realtime_options.hpp"
#include "apps/flysim/options/sweep_rates.hpp"
#include "apps/flysim/run/actor_run_builder.hpp"
#include "apps/flysim/run/run_builder.hpp"
#include "model/errors.hpp"
#include "model/snapshot.hpp"
#include "scratch_dir.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

using app::ActorRunBuilder;
using app::ActorRunParts;
using app::Forever;
using app::Options;
using app::RunBuilder;
using app::RunMode;

// net2000 with its 21 stimulated neurons, read without the cache, and `extra`.
std::vector<std::string> net2000_args(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--network.neurons=" + data_path("net2000/neurons.csv"),
                                   "--network.connectivity=" + data_path("net2000/connectivity.csv"),
                                   "--network.cache=false", "--stimulus.ids=" + data_path("net2000/stimulated.txt"),
                                   "--engine.kind=cpu", "--engine.threads=1", "--log.level=warn"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The message of the input_error that `f` throws, or a failure when it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no input_error";
  return "";
}

ActorRunParts build_run(const std::vector<std::string>& extra, RunMode mode = RunMode::run) {
  const auto specs = mode == RunMode::serve ? app::serve_options() : app::run_options();
  const Options o = Options::parse(specs, net2000_args(extra));
  const ActorRunBuilder builder(o, specs, mode, std::nullopt, app::realtime_settings(o));
  return builder.build();
}

// A range's rates are the decimals FROM and STEP spell, not their binary sums: a table
// filtered on 0.8 finds the rate 0.7:0.9:0.1 ran.
TEST(SweepRates, ARangeGivesTheDecimalsItSpells) {
  EXPECT_EQ(app::parse_sweep_rates("0.7:0.9:0.1"), (std::vector<double>{0.7, 0.8, 0.9}));
  EXPECT_EQ(app::parse_sweep_rates("0:0.3:0.1"), (std::vector<double>{0.0, 0.1, 0.2, 0.3}));
  EXPECT_EQ(app::parse_sweep_rates("10:200:10").back(), 200.0);
  EXPECT_EQ(app::parse_sweep_rates("12.5:50:12.5"), (std::vector<double>{12.5, 25.0, 37.5, 50.0}));
  EXPECT_EQ(app::parse_sweep_rates("1e1:3e1:1e1"), (std::vector<double>{10.0, 20.0, 30.0}));
}

TEST(RunBuilder, TrialShapeFromTheOptions) {
  const Options o = Options::parse(app::run_options(), {"--run.trials=3", "--run.duration-ms=50", "--model.dt-ms=0.1"});
  const RunBuilder run(o);
  const app::TrialShape shape = run.trial_shape(Forever::refused);
  EXPECT_EQ(shape.trials, 3);
  EXPECT_EQ(shape.steps_per_trial, 500);
  EXPECT_DOUBLE_EQ(shape.duration_ms, 50.0);
  EXPECT_DOUBLE_EQ(app::trial_seconds(shape, run.params().dt_ms), 0.05);
  EXPECT_EQ(run.engine().kind, EngineKind::cpu);
}

TEST(RunBuilder, ForeverIsOneLongestTrialWhereAllowed) {
  const Options o = Options::parse(app::run_options(), {"--run.duration-ms=forever"});
  const RunBuilder run(o);
  EXPECT_EQ(run.trial_shape(Forever::allowed).steps_per_trial, static_cast<int32_t>(kMaxRunSteps));
  EXPECT_EQ(error_of([&] { run.trial_shape(Forever::refused); }),
            "command line: option run.duration-ms='forever' is not a number of ms");
  const Options two = Options::parse(app::run_options(), {"--run.duration-ms=forever", "--run.trials=2"});
  EXPECT_EQ(error_of([&] { RunBuilder(two).trial_shape(Forever::allowed); }),
            "command line: option run.trials='2' must be 1 when run.duration-ms=forever");
}

TEST(RunBuilder, BadOptionsAreRefusedByName) {
  const auto parse = [](const std::string& arg) { return Options::parse(app::run_options(), {arg}); };
  EXPECT_EQ(error_of([&] { RunBuilder{parse("--engine.threads=0")}; }),
            "command line: option engine.threads='0' must be 1..1024");
  EXPECT_EQ(error_of([&] { RunBuilder{parse("--engine.cuda-device=-1")}; }),
            "command line: option engine.cuda-device='-1' must be 0..1023 (a CUDA device number)");
  EXPECT_EQ(error_of([&] { RunBuilder(parse("--run.duration-ms=1e8")).trial_shape(Forever::allowed); }),
            "command line: option run.duration-ms='1e8' must lie in 0.1..53687091.2 ms (1 to 2^29 steps of model.dt-ms=0.1 ms)");
  EXPECT_EQ(error_of([&] { RunBuilder(parse("--run.trials=0")).trial_shape(Forever::refused); }),
            "command line: option run.trials='0' must be 1..1000000");
  EXPECT_EQ(error_of([&] { RunBuilder(parse("--run.seed=-1")).trial_shape(Forever::refused); }),
            "command line: option run.seed='-1' must not be negative");
  EXPECT_NE(error_of([&] { RunBuilder{parse("--model.dt-ms=0")}; }).find("parameter dt (model.dt-ms)"), std::string::npos);
}

TEST(RunBuilder, TrialBatchesAndEngineOnNet2000) {
  const Options o = Options::parse(app::run_options(), net2000_args({"--run.trials=4", "--run.duration-ms=20", "--run.batch=2"}));
  const RunBuilder run(o);
  const auto net = run.load_network();
  const TrialBatches plan = run.trial_batches(run.trial_shape(Forever::refused), net->neuron_count());
  EXPECT_EQ(plan.trials, 4);
  EXPECT_EQ(plan.steps_per_trial, 200);
  EXPECT_EQ(plan.batch, 2);
  EXPECT_EQ(plan.neurons, net->neuron_count());
  const auto stimulus = std::make_shared<const StimulusPlan>(run.stimulus(*net));
  EXPECT_EQ(stimulus->poisson_neurons.size(), 21u);
  const auto engine = run.engines(net, plan.batch).make(run.engine().kind, 0, stimulus, 150.0);
  EXPECT_EQ(engine->batch_capacity(), 2);
}

TEST(ActorRunBuilder, PlanFieldsOfAFreshRun) {
  const ActorRunParts parts = build_run({"--run.trials=2", "--run.duration-ms=100", "--output.readouts="});
  const RunPlan& plan = parts.plan;
  EXPECT_EQ(plan.trials, 2);
  EXPECT_EQ(plan.steps_per_trial, 1000);
  EXPECT_EQ(plan.batch, 1);  // 'auto' on one thread: one trial per thread
  EXPECT_EQ(plan.delay_steps, 18);
  EXPECT_DOUBLE_EQ(plan.dt_ms, 0.1);
  EXPECT_EQ(plan.neurons, parts.inputs.network->neuron_count());
  EXPECT_EQ(plan.start, (RunPosition{0, 0}));
  EXPECT_TRUE(plan.checkpoints.empty());
  EXPECT_TRUE(plan.commands.empty());
  EXPECT_EQ(plan.pace, 0.0);
  EXPECT_EQ(plan.pace_text, "off");
  EXPECT_EQ(plan.default_threads, 1u);
  EXPECT_EQ(plan.fallback_every_steps, 10000);
  EXPECT_FALSE(plan.first_engine_may_fail);
  EXPECT_EQ(plan.first_engine, parts.engine->describe());
  EXPECT_EQ(plan.first_engine_threads, 1u);
  EXPECT_EQ(plan.trial_plan.stimulus.poisson_neurons.size(), 21u);
  EXPECT_DOUBLE_EQ(plan.trial_plan.stimulus_rate_Hz, 150.0);
  EXPECT_TRUE(plan.plasticity.places.empty());
  EXPECT_EQ(plan.journal, nullptr);
  EXPECT_EQ(plan.gpu, nullptr);
  ASSERT_TRUE(plan.make_engine);
  EXPECT_EQ(parts.recorder.trials, 2);
  EXPECT_EQ(parts.recorder.steps_per_trial, 1000);
  EXPECT_FALSE(parts.recorder.spikes.stream);
  EXPECT_TRUE(parts.recorder.readout_root_ids.empty());
  EXPECT_FALSE(parts.checkpointer.has_value());
  EXPECT_TRUE(parts.shard_setups.empty());
  EXPECT_FALSE(parts.outputs.paced);
  EXPECT_EQ(parts.outputs.compatibility, parts.inputs.compatibility);
}

TEST(ActorRunBuilder, CheckpointsAndSwapsFallOnDelayCells) {
  const ScratchDir dir("run-builder");
  const ActorRunParts parts = build_run({"--run.trials=2", "--run.duration-ms=20", "--checkpoint.every-ms=9",
                                         "--checkpoint.dir=" + dir.path("ck"), "--run.swap-at=5:cpu", "--output.readouts="});
  const RunPlan& plan = parts.plan;
  EXPECT_EQ(plan.batch, 1);  // scripted positions keep one trial at a time
  ASSERT_EQ(plan.commands.size(), 1u);
  EXPECT_EQ(plan.commands[0].at, (RunPosition{0, 54}));  // the first delay-cell boundary at or after 50 steps
  EXPECT_EQ(std::get<SwapCommand>(plan.commands[0].command).engine, "cpu");
  ASSERT_FALSE(plan.checkpoints.empty());
  EXPECT_EQ(plan.checkpoints[0], (RunPosition{0, 90}));
  ASSERT_TRUE(parts.checkpointer.has_value());
  EXPECT_EQ(parts.checkpointer->dir, dir.path("ck"));
}

TEST(ActorRunBuilder, RefusesBadRunOptionsByName) {
  const auto error = [](const std::vector<std::string>& extra, RunMode mode = RunMode::run) {
    return error_of([&] { build_run(extra, mode); });
  };
  EXPECT_EQ(error({"--run.pace=fast"}),
            "command line: option run.pace='fast' must be off, realtime or simulated seconds per wall second (a number above 0, at most 1e6)");
  EXPECT_EQ(error({"--checkpoint.keep=0"}), "command line: option checkpoint.keep='0' must be at least 1");
  EXPECT_EQ(error({"--run.swap-at=5"}),
            "command line: option run.swap-at='5' has '5'; expected MS:cpu or MS:cuda items separated by commas, MS > 0");
  EXPECT_EQ(error({"--output.journal="}, RunMode::serve),
            "command line: option output.journal='' must name a file: a service always keeps its journal");
  EXPECT_EQ(error({"--output.readouts=42"}).rfind(
                "command line: option output.readouts='42' lists root ID 42, which is not in the network (", 0),
            0u)
      << "checked once the network is loaded";
}

}  // namespace
}  // namespace flysim::test
