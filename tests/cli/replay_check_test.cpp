// `run --replay` takes nothing from its journal on trust: every line is checked as the
// control API checks a request and against the run (boundaries, neurons, rates), the
// journal's network must be the one loaded, and only outputs, logs, engine and pace
// options may be given anew. Each refusal names FILE:LINE or the option.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class ReplayCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    // A copy of net2000 that a test may edit after the journal is written.
    for (const char* file : {"neurons.csv", "connectivity.csv", "kicks.csv"})
      fs::copy_file(data_path(std::string("net2000/") + file), dir_.path(file));
    const CliResult r = flysim("live", "run --network.neurons=" + dir_.path("neurons.csv") + " --network.connectivity=" +
                                           dir_.path("connectivity.csv") + " --stimulus.kicks=" + dir_.path("kicks.csv") +
                                           " --run.duration-ms=100 --output.journal=" + dir_.path("header.jsonl"));
    ASSERT_EQ(r.code, 0) << r.err;
    header_ = slurp(dir_.path("header.jsonl"));
  }
  CliResult flysim(const std::string& tag, const std::string& args) const {
    return run_flysim(args + " --network.cache-dir=" + dir_.path("cache"), dir_.path(tag + ".out"), dir_.path(tag + ".err"));
  }
  // The journal's header and then `lines`; returns its path.
  std::string journal(const std::string& name, const std::string& lines) const { return dir_.write(name, header_ + lines); }
  CliResult replay(const std::string& name, const std::string& extra = "") const {
    return flysim(name, "run --replay=" + dir_.path(name) + " --output.spikes=" + dir_.path(name + ".csv") + " " + extra);
  }
  static std::string entry(int seq, int64_t trial, int64_t step, const std::string& command) {
    return R"({"seq":)" + std::to_string(seq) + R"(,"trial":)" + std::to_string(trial) + R"(,"step":)" + std::to_string(step) +
           R"(,"command":)" + command + "}\n";
  }
  ScratchDir dir_{"flysim-replay-check"};
  std::string header_;
};

const std::string kRate = R"({"action":"stimulus","body":{"rate_hz":300}})";

TEST_F(ReplayCheck, AJournalOfValidCommandsReplays) {
  journal("ok.jsonl", entry(1, 0, 18, kRate) + entry(2, 0, 504, R"({"action":"stop","body":{}})"));
  const CliResult r = replay("ok.jsonl");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("stopped"), std::string::npos) << r.out;
}

TEST_F(ReplayCheck, EveryLineIsCheckedAsTheControlApiChecksARequest) {
  const auto kick = [](const std::string& id) {
    return R"({"action":"stimulus","body":{"kicks":[{"neuron_id":)" + id + R"(,"after_ms":1}]}})";
  };
  const struct {
    const char* name;
    std::string lines;
    std::string message;
  } cases[] = {
      {"off-boundary", entry(1, 0, 19, kRate), ":2: trial 0 step 19 is no boundary where a stimulus applies"},
      {"beyond-plan", entry(1, 0, 1008, kRate), ":2: trial 0 step 1008 is no boundary"},
      {"step-2-40", entry(1, 0, int64_t{1} << 40, kRate), ":2: step must be 0..2147483647, got 1099511627776"},
      {"negative-rate", entry(1, 0, 18, R"({"action":"stimulus","body":{"rate_hz":-50}})"), ":2: rate_hz must be a finite number >= 0"},
      {"huge-rate", entry(1, 0, 18, R"({"action":"stimulus","body":{"rate_hz":1e9}})"), ":2: stimulus: stimulus rate must be between 0 and 1/dt"},
      {"unknown-neuron", entry(1, 0, 18, kick("12345")), ":2: stimulus: neuron ID 12345 is not in the network"},
      {"unknown-action", entry(1, 0, 18, R"({"action":"jump","body":{}})"), ":2: action \"jump\" is not one of"},
      {"unknown-field", R"({"seq":1,"trial":0,"step":18,"when":"now","command":)" + kRate + "}\n",
       ":2: unknown field \"when\": a journal entry takes seq, trial, step, command"},
      {"unknown-body-field", entry(1, 0, 18, R"({"action":"stimulus","body":{"rate_hz":3,"speed":1}})"), ":2: unknown field \"speed\""},
      {"duplicated-line", entry(1, 0, 18, kRate) + entry(1, 0, 18, kRate), ":3: entry number 1, expected 2"},
      {"back-in-time", entry(1, 0, 36, kRate) + entry(2, 0, 18, kRate), ":3: entries go back in time"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = journal(std::string(c.name) + ".jsonl", c.lines);
    const CliResult r = replay(std::string(c.name) + ".jsonl");
    expect_one_line_error(r, file + c.message);
    EXPECT_FALSE(fs::exists(dir_.path(std::string(c.name) + ".jsonl.csv"))) << "an output was written";
  }
}

TEST_F(ReplayCheck, OnlyWhatChangesNoSpikeMayBeGivenAnew) {
  journal("j.jsonl", entry(1, 0, 18, kRate));
  expect_one_line_error(replay("j.jsonl", "--stimulus.rate=10"), "command line: option stimulus.rate cannot change");
  const std::string config = dir_.write("run.ini", "[stimulus]\nrate = 10\n");
  expect_one_line_error(replay("j.jsonl", "--config=" + config), config + ":2: option stimulus.rate cannot change");
  expect_one_line_error(replay("j.jsonl", "--restore=" + dir_.path("any.ckpt")), "command line: option restore cannot change");
  EXPECT_EQ(replay("j.jsonl", "--engine.threads=1 --log.level=warn --run.pace=off").code, 0);
  // Neither do the CPUs, the status window nor the lag limit change a spike.
  EXPECT_EQ(replay("j.jsonl", "--cpus.other=0 --status.window-s=5 --run.max-lag-ms=50").code, 0);
  // Nor batches or scripted swaps: the spikes are the same bytes.
  const std::string plain = slurp(dir_.path("j.jsonl.csv"));
  EXPECT_EQ(replay("j.jsonl", "--run.batch=1 --run.swap-at=5:cpu").code, 0);
  EXPECT_EQ(slurp(dir_.path("j.jsonl.csv")), plain);
  const CliResult refused = replay("j.jsonl", "--run.trials=2");
  expect_one_line_error(refused, "command line: option run.trials cannot change");
  EXPECT_NE(refused.err.find("come from the journal alone: network.*"), std::string::npos) << refused.err;
}

TEST_F(ReplayCheck, AJournalOfAnotherNetworkIsRefused) {
  const std::string file = journal("j.jsonl", entry(1, 0, 18, kRate));
  std::string connectivity = slurp(dir_.path("connectivity.csv"));
  connectivity.erase(connectivity.rfind('\n', connectivity.size() - 2) + 1);  // drop the last connection
  spit(dir_.path("connectivity.csv"), connectivity);
  expect_one_line_error(replay("j.jsonl"), file + ":1: the journal was written for the network of content hash");
}

TEST_F(ReplayCheck, AJournalTornInsideItsHeaderIsRefused) {
  const std::string file = dir_.write("torn.jsonl", header_.substr(0, header_.size() / 2));
  expect_one_line_error(replay("torn.jsonl"), file + ":1: the header line is cut short");
}

}  // namespace
}  // namespace flysim::test
