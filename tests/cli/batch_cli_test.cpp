// Batched trials end to end, through the flysim program: the spike and rate files of
// any run.batch are those of trials run one after another, byte for byte; a checkpoint
// in the middle of a batch holds the whole batch and restores it; a swap in the middle
// of a batch changes nothing; and flysim sweep's tables agree with separate runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <vector>
#include <sstream>

#include "io/table_numbers.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

std::string net2000_args(const std::string& threads = "2") {
  return "--network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
         data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
         " --run.duration-ms=100 --engine.threads=" + threads;
}

struct Outputs {
  int code = -1;
  std::string err, spikes, rates;
};

class BatchCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    suite_ = fs::temp_directory_path() / ("flysim-batch-" + std::to_string(::getpid()));
    fs::remove_all(suite_);
    fs::create_directories(suite_);
    sequential_ = run("sequential", "run --run.trials=5 --run.batch=1");
  }
  static void TearDownTestSuite() { fs::remove_all(suite_); }
  static std::string path(const std::string& name) { return (suite_ / name).string(); }
  void SetUp() override { ASSERT_EQ(sequential_.code, 0) << sequential_.err; }

  // `flysim ARGS` on net2000 with spike and rate files named after `tag`.
  static Outputs run(const std::string& tag, const std::string& args, const std::string& threads = "2") {
    const std::string spikes = path(tag + "-spikes.csv"), rates = path(tag + "-rates.csv");
    const CliResult r = run_flysim(args + " " + net2000_args(threads) + " --output.spikes=" + spikes + " --output.rates=" + rates,
                                   path(tag + ".out"), path(tag + ".err"));
    Outputs o;
    o.code = r.code;
    o.err = r.out + r.err;
    if (r.code == 0) {
      o.spikes = slurp(spikes);
      o.rates = slurp(rates);
    }
    return o;
  }
  static inline fs::path suite_;
  static inline Outputs sequential_;
};

TEST_F(BatchCli, SpikeAndRateFilesAreTheSameBytesAtAnyBatchSize) {
  EXPECT_GT(count_of(sequential_.spikes, "\n"), 100u);
  for (const std::string batch : {"2", "3", "5", "auto"}) {
    SCOPED_TRACE("run.batch=" + batch);
    const Outputs batched = run("batch" + batch, "run --run.trials=5 --run.batch=" + batch);
    ASSERT_EQ(batched.code, 0) << batched.err;
    EXPECT_TRUE(same_text(sequential_.spikes, batched.spikes));
    EXPECT_TRUE(same_text(sequential_.rates, batched.rates));
  }
}

// run.batch=auto on the CPU pool holds one trial per thread (each trial of a batch runs
// on one worker; more only add state to sweep): 5 trials on 2 threads go in batches of 2.
TEST_F(BatchCli, AutoOnTheCpuPoolHoldsOneTrialPerThread) {
  for (const std::string threads : {"1", "2", "3"}) {
    SCOPED_TRACE("engine.threads=" + threads);
    const Outputs batched = run("auto" + threads, "run --run.trials=5 --run.batch=auto", threads);
    ASSERT_EQ(batched.code, 0) << batched.err;
    EXPECT_NE(batched.err.find(threads == "1" ? "cpu pool, 1 thread\n"
                                               : "cpu pool, " + threads + " threads, batches of " + threads + " trials"),
              std::string::npos)
        << batched.err;
    EXPECT_TRUE(same_text(sequential_.spikes, batched.spikes));
  }
}

// Batches of 3 of 5 trials: the checkpoint at 50 ms of the first batch holds trials
// 0..2; restored, the run writes those trials from there on and trials 3 and 4 whole.
TEST_F(BatchCli, ACheckpointInTheMiddleOfABatchRestoresTheWholeBatch) {
  const std::string ckpt = path("ckpt");
  const Outputs written = run("checkpointed", "run --run.trials=5 --run.batch=3 --checkpoint.every-ms=50 --checkpoint.keep=10 "
                                              "--checkpoint.dir=" + ckpt);
  ASSERT_EQ(written.code, 0) << written.err;
  EXPECT_TRUE(same_text(sequential_.spikes, written.spikes));
  const std::string first = ckpt + "/flysim-trial0000-step000000504.ckpt";
  ASSERT_TRUE(fs::exists(first)) << written.err;
  ASSERT_TRUE(fs::exists(ckpt + "/flysim-trial0003-step000000504.ckpt")) << written.err;
  const CliResult inspect = run_flysim("checkpoint inspect " + first, path("inspect.out"), path("inspect.err"));
  EXPECT_NE(inspect.out.find("batch           trials 0..2 (batches of 3)"), std::string::npos) << inspect.out;
  // The second batch's: one batch of 100 ms and 50.4 ms of this one on the run's clock.
  const CliResult second = run_flysim("checkpoint inspect " + ckpt + "/flysim-trial0003-step000000504.ckpt", path("second.out"),
                                      path("second.err"));
  EXPECT_NE(second.out.find("(50.400 ms into the trial, 150.400 ms since the start of the run"), std::string::npos) << second.out;

  const Outputs restored = run("restored", "run --restore=" + first);
  ASSERT_EQ(restored.code, 0) << restored.err;
  std::istringstream lines(sequential_.spikes);
  std::string line, expected;
  std::getline(lines, line);
  expected = line + "\n";
  while (std::getline(lines, line)) {
    int trial = 0, step = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "%d,%d", &trial, &step), 2) << line;
    if (trial >= 3 || step >= 504) expected += line + "\n";
  }
  EXPECT_TRUE(same_text(expected, restored.spikes));
  EXPECT_TRUE(same_text(sequential_.rates, restored.rates));
}

TEST_F(BatchCli, ASwapInTheMiddleOfABatchChangesNothing) {
  const Outputs swapped = run("swapped", "run --run.trials=5 --run.batch=3 --run.swap-at=50:cpu,130:cpu");
  ASSERT_EQ(swapped.code, 0) << swapped.err;
  EXPECT_NE(swapped.err.find("trial 0 step 504: swapped to"), std::string::npos) << swapped.err;
  EXPECT_NE(swapped.err.find("trial 3 step 306: swapped to"), std::string::npos) << swapped.err;
  EXPECT_TRUE(same_text(sequential_.spikes, swapped.spikes));
}

TEST_F(BatchCli, BadBatchesAreRefusedNamingTheOption) {
  const CliResult zero = run_flysim("run --run.batch=0 " + net2000_args(), path("zero.out"), path("zero.err"));
  expect_one_line_error(zero, "command line: option run.batch='0'");
  const CliResult paced = run_flysim("run --run.trials=2 --run.batch=2 --run.pace=100 " + net2000_args(),
                                     path("paced.out"), path("paced.err"));
  expect_one_line_error(paced, "command line: option run.batch='2' must be 1");
}

// Several engines (engine.cuda-devices, engine.per-device) spread a plain batched run; a run
// that goes one trial at a time or counts positions in one engine's batches refuses them by
// name, before anything loads. The run itself is checked on the GPU machine
// (bench/gpu_round.sh); EngineGroup's unit tests hold the group to one engine on the CPU.
TEST_F(BatchCli, SeveralEnginesAreRefusedWhereTheRunGoesOneTrialAtATime) {
  const auto refused = [&](const std::string& name, const std::string& args, const std::string& message) {
    const CliResult r = run_flysim("run " + args + " " + net2000_args(), path(name + ".out"), path(name + ".err"));
    expect_one_line_error(r, message);
  };
  refused("cpu", "--engine.per-device=2", "command line: option engine.per-device='2' applies to engine.kind=cuda only");
  refused("cpu-devices", "--engine.cuda-devices=0,0", "command line: option engine.cuda-devices='0,0' applies to engine.kind=cuda only");
  const std::string two = "--engine.kind=cuda --engine.per-device=2 ";
  refused("paced", two + "--run.pace=100", "command line: option engine.per-device='2' spreads a run's batches over 2 engines, but a paced run");
  refused("plastic", two + "--plasticity.enabled=true",
          "command line: option engine.per-device='2' spreads a run's batches over 2 engines, but with plasticity");
  refused("checkpoints", two + "--checkpoint.every-ms=100 --checkpoint.dir=" + path("ck"),
          "command line: option engine.per-device='2' spreads a run's batches over 2 engines: not with restore, checkpoint.every-ms or run.swap-at");
  refused("swaps", two + "--run.swap-at=5:cpu", "command line: option engine.per-device='2' spreads a run's batches over 2 engines: not with restore, checkpoint.every-ms or run.swap-at");
  refused("per-device", "--engine.kind=cuda --engine.per-device=0", "command line: option engine.per-device='0' must be 1..64");
}

// Per trial, the readouts' spikes in trials.csv are those of `flysim run` at that rate,
// and sweep.csv's means are their means.
// The default readout (MN9) is skipped on a network without it, as flysim run skips it:
// the sweep runs with its defaults and says so; a readout given and missing is an error.
TEST_F(BatchCli, SweepOnANetworkWithoutMn9RunsWithItsDefaults) {
  const CliResult sweep = run_flysim("sweep --sweep.rates=60,150 --run.trials=2 --output.dir=" + path("no-mn9") + " " +
                                         net2000_args(),
                                     path("no-mn9.out"), path("no-mn9.err"));
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  EXPECT_NE(sweep.err.find("the sweep runs without readouts"), std::string::npos) << sweep.err;
  EXPECT_EQ(slurp(path("no-mn9") + "/sweep.csv"), "readout_id,stimulus_rate_hz,trials,mean_rate_hz,sd_hz,sem_hz\n");
  const CliResult given = run_flysim("sweep --sweep.rates=60 --run.trials=2 --sweep.readouts=720575940660219265 --output.dir=" +
                                         path("given") + " " + net2000_args(),
                                     path("given.out"), path("given.err"));
  EXPECT_EQ(given.code, 2) << given.err;
  EXPECT_FALSE(fs::exists(path("given"))) << "a refused sweep leaves no empty output folder";
  // Rates that drive nothing, and one beyond 1/dt, are refused naming the option.
  const CliResult none = run_flysim("sweep --sweep.rates=60 --run.trials=2 --output.dir=" + path("none") + " " +
                                        with_overrides(net2000_args(), "--stimulus.ids="),
                                    path("none.out"), path("none.err"));
  expect_one_line_error(none, "command line: option stimulus.ids='' puts no neuron in the default Poisson group");
  const CliResult fast = run_flysim("sweep --sweep.rates=60,20000 --run.trials=2 --output.dir=" + path("fast") + " " +
                                        net2000_args(),
                                    path("fast.out"), path("fast.err"));
  expect_one_line_error(fast, "command line: option sweep.rates='60,20000' stimulus rate must be between 0 and 1/dt");
}

TEST_F(BatchCli, SweepAgreesWithSeparateRunsAtEachRate) {
  // Two readouts that fire: the top responders of the sequential run.
  std::istringstream rates(sequential_.rates);
  std::string line;
  std::getline(rates, line);
  std::vector<std::string> readouts;
  while (readouts.size() < 2 && std::getline(rates, line)) readouts.push_back(line.substr(0, line.find(',')));
  ASSERT_EQ(readouts.size(), 2u);
  const std::string dir = path("sweep");
  const bool plot = std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") == 0;
  const CliResult sweep = run_flysim("sweep --sweep.rates=60,150 --run.trials=4 --run.batch=3 --sweep.readouts=" + readouts[0] +
                                         "," + readouts[1] + " --output.dir=" + dir + " --sweep.plot=" +
                                         (plot ? "true " : "false ") + net2000_args(),
                                     path("sweep.out"), path("sweep.err"));
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  EXPECT_NE(sweep.err.find("rate 150 Hz (2/2): 4/4 trials done"), std::string::npos) << sweep.err;
  if (plot) {
    EXPECT_GT(fs::file_size(dir + "/sweep.png"), 1000u);
    EXPECT_GT(fs::file_size(dir + "/sweep.svg"), 1000u);
  }
  std::string expected_trials = "stimulus_rate_hz,trial,readout_id,spikes,rate_hz\n";
  std::vector<std::string> mean_lines;  // sweep.csv's lines up to the mean: readout,rate,trials,mean,
  for (const std::string rate : {"60", "150"}) {
    const Outputs alone = run("rate" + rate, "run --run.trials=4 --run.batch=1 --stimulus.rate=" + rate);
    ASSERT_EQ(alone.code, 0) << alone.err;
    std::map<std::pair<int, std::string>, int> counts;
    std::istringstream spikes(alone.spikes);
    std::getline(spikes, line);
    while (std::getline(spikes, line)) {
      const std::string id = line.substr(line.rfind(',') + 1);
      ++counts[{std::stoi(line.substr(0, line.find(','))), id}];
    }
    for (int trial = 0; trial < 4; ++trial)
      for (const std::string& id : readouts) {
        const int n = counts[{trial, id}];
        expected_trials += table_number(std::stod(rate)) + "," + std::to_string(trial) + "," + id + "," +
                           std::to_string(n) + "," + table_number(n * 10.0) + "\n";
      }
    for (const std::string& id : readouts) {
      double sum = 0;
      for (int trial = 0; trial < 4; ++trial) sum += counts[{trial, id}] * 10.0;
      mean_lines.push_back(id + "," + table_number(std::stod(rate)) + ",4," + table_number(sum / 4) + ",");
    }
  }
  EXPECT_TRUE(same_text(expected_trials, slurp(dir + "/trials.csv")));
  const std::string table = slurp(dir + "/sweep.csv");
  EXPECT_EQ(count_of(table, "\n"), 1 + mean_lines.size()) << table;
  for (const std::string& prefix : mean_lines) EXPECT_NE(table.find("\n" + prefix), std::string::npos) << prefix << " in\n" << table;
}

// One trial has no sample spread: sweep.csv leaves sd and sem empty (NaN to pandas), as a
// screen's tables do, and the plot draws without error bars. 0 Hz (no input) is a rate.
TEST_F(BatchCli, SweepOfOneTrialLeavesTheSpreadEmptyAndTakesZeroHz) {
  std::istringstream rates(sequential_.rates);
  std::string line;
  std::getline(rates, line);
  ASSERT_TRUE(std::getline(rates, line));
  const std::string readout = line.substr(0, line.find(','));
  const std::string dir = path("one-trial");
  const bool plot = std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") == 0;
  const CliResult sweep = run_flysim("sweep --sweep.rates=0,150 --run.trials=1 --sweep.readouts=" + readout +
                                         " --output.dir=" + dir + " --sweep.plot=" + (plot ? "true " : "false ") +
                                         net2000_args(),
                                     path("one-trial.out"), path("one-trial.err"));
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  if (plot) {
    EXPECT_GT(fs::file_size(dir + "/sweep.png"), 1000u);
  }
  const std::string table = slurp(dir + "/sweep.csv");
  EXPECT_NE(table.find("\n" + readout + ",0.0,1,0.0,,\n"), std::string::npos) << table;
  std::istringstream rows(table);
  std::getline(rows, line);
  int rows_read = 0;
  for (; std::getline(rows, line); ++rows_read) {
    EXPECT_EQ(line.substr(line.size() - 2), ",,") << line;
  }
  EXPECT_EQ(rows_read, 2) << table;
}

}  // namespace
}  // namespace flysim::test
