// output.summary (the run's summary as JSON), output.readouts and engine.cuda-device,
// end to end through the flysim program on net2000.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

class SummaryCli : public ::testing::Test {
 protected:
  CliResult run(const std::string& extra) const {
    return run_flysim("run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                          data_path("net2000/connectivity.csv") + " --network.cache-dir=" + dir_.path("cache") +
                          " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
                          " --run.duration-ms=100 --run.trials=2 --engine.threads=2 " + extra,
                      dir_.path("out"), dir_.path("err"));
  }
  ScratchDir dir_{"flysim-summary"};
};

// The JSON holds the text summary's figures, and the readouts asked for.
TEST_F(SummaryCli, JsonHoldsTheFiguresOfTheTextSummary) {
  const std::string readouts = "820475940600000023,820475940600072650";
  const CliResult r = run("--output.readouts=" + readouts + " --output.summary=" + dir_.path("summary.json") +
                          " --output.spikes=" + dir_.path("spikes.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = read_summary(dir_.path("summary.json"));
  EXPECT_EQ(s.value("status", ""), "done");
  EXPECT_EQ(s.value("trials", 0), 2);
  EXPECT_EQ(s.value("ms_per_trial", 0.0), 100.0);
  EXPECT_FALSE(s.value("endless", true));
  EXPECT_EQ(s["network"].value("neurons", 0u), 2000u);
  EXPECT_EQ(s["stimulus"].value("poisson_neurons", 0u), 21u);
  const uint64_t spikes = s.value("spikes", uint64_t{0});
  EXPECT_EQ(spikes, count_of(slurp(dir_.path("spikes.csv")), "\n") - 1);
  EXPECT_NE(r.out.find("spikes      " + std::to_string(spikes) + " from " + std::to_string(s.value("active_neurons", 0u)) +
                       " active neurons"),
            std::string::npos)
      << r.out;
  ASSERT_EQ(s["readouts"].size(), 2u);
  EXPECT_EQ(s["readouts"][0].value("root_id", ""), "820475940600000023");
  EXPECT_EQ(s["readouts"][1].value("root_id", ""), "820475940600072650");
  EXPECT_GT(s["readouts"][1].value("rate_hz", 0.0), 0.0) << "a stimulated neuron fires";
  EXPECT_NE(r.out.find("readout     820475940600072650 (index"), std::string::npos) << r.out;
  ASSERT_FALSE(s["top"].empty());
  EXPECT_GE(s["top"][0].value("spikes", 0u), s["top"].back().value("spikes", 0u));
  // run.batch=auto holds both trials in one batch, and the engine says so.
  EXPECT_EQ(s.value("engine", ""), "cpu pool, 2 threads, batches of 2 trials");
  EXPECT_NE(r.out.find("engine      " + s.value("engine", "")), std::string::npos) << r.out;
  EXPECT_GT(s.value("wall_s", 0.0), 0.0);
}

// A run shorter than the cost sampler's first reading shows no table of zeros.
TEST_F(SummaryCli, AShortRunSaysItsCoresWereNotMeasured) {
  const CliResult r = run("");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("over 0.0 s"), std::string::npos) << r.out;
  const bool measured = r.out.find("host cores per role, over the whole run:") != std::string::npos;
  EXPECT_NE(measured, r.out.find("host cores  not measured: the run ended before the first reading") != std::string::npos)
      << r.out;
}

// The summary names the checkpoint files still on disk (checkpoint.keep), not every one
// written: a service writes them without end, and the sim loop keeps the list in memory.
TEST_F(SummaryCli, CheckpointsListTheFilesKeptAndCountAllWritten) {
  const CliResult r = run("--checkpoint.every-ms=10 --checkpoint.keep=2 --checkpoint.dir=" + dir_.path("ckpt") +
                          " --output.summary=" + dir_.path("summary.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = read_summary(dir_.path("summary.json"));
  const auto written = s.value("checkpoints_written", uint64_t{0});
  EXPECT_GE(written, 9u);
  ASSERT_EQ(s["checkpoints"].size(), 2u) << s["checkpoints"].dump();
  std::vector<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path("ckpt"))) on_disk.push_back(entry.path().string());
  std::sort(on_disk.begin(), on_disk.end());
  EXPECT_EQ(on_disk, (std::vector<std::string>{s["checkpoints"][0], s["checkpoints"][1]}));
  EXPECT_NE(r.out.find("checkpoints " + std::to_string(written) + " written, the last " + s["checkpoints"][1].get<std::string>()),
            std::string::npos)
      << r.out;
}

// The summary lists the first kSwapsListed swaps and counts them all: a service swaps
// without end, and the sim loop keeps the list in memory.
TEST_F(SummaryCli, SwapsListTheFirstThousandAndCountAll) {
  const int swaps = 1002;
  std::string at;
  for (int k = 1; k <= swaps; ++k) at += (k > 1 ? "," : "") + std::to_string(k * 0.1) + ":cpu";
  const CliResult r = run("--run.swap-at=" + at + " --output.summary=" + dir_.path("summary.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json s = read_summary(dir_.path("summary.json"));
  EXPECT_EQ(s.value("swaps_done", uint64_t{0}), uint64_t{swaps});
  EXPECT_EQ(s["swaps"].size(), 1000u);
  EXPECT_NE(r.out.find("swaps       1002 in all, the first 1000 listed"), std::string::npos) << r.out.substr(0, 2000);
}

// A summary that cannot be written (a full device; a folder that does not exist, found
// before the run) ends the run with one error naming it, exit 2.
TEST_F(SummaryCli, UnwritableSummaryIsAnErrorNamingTheFile) {
  const CliResult full = run("--output.summary=/dev/full");
  EXPECT_EQ(full.code, 2) << full.err;
  EXPECT_NE(full.err.find("flysim: error: /dev/full: write failed"), std::string::npos) << full.err;
  expect_one_line_error(run("--output.summary=" + dir_.path("no/such/folder/summary.json")), "command line: option output.summary=");
}

TEST_F(SummaryCli, ReadoutsNotInTheNetworkOrMalformedAreRefused) {
  expect_one_line_error(run("--output.readouts=12345"),
                        "command line: option output.readouts='12345' lists root ID 12345, which is not in the network");
  expect_one_line_error(run("--output.readouts=82047594060000002x"),
                        "command line: option output.readouts='82047594060000002x' has '82047594060000002x'");
  expect_one_line_error(run("--output.readouts=820475940600000023,820475940600000023"),
                        "command line: option output.readouts='820475940600000023,820475940600000023' lists root ID "
                        "820475940600000023 twice");
}

// The default readout (MN9) is not in net2000: no readout, no error; none asked for: none.
TEST_F(SummaryCli, DefaultReadoutIsSkippedOnANetworkWithoutIt) {
  ASSERT_EQ(run("--output.summary=" + dir_.path("summary.json")).code, 0);
  EXPECT_TRUE(read_summary(dir_.path("summary.json"))["readouts"].empty());
  ASSERT_EQ(run("--output.readouts= --output.summary=" + dir_.path("summary.json")).code, 0);
  EXPECT_TRUE(read_summary(dir_.path("summary.json"))["readouts"].empty());
}

TEST_F(SummaryCli, NegativeCudaDeviceNamesTheOption) {
  expect_one_line_error(run("--engine.cuda-device=-2"), "command line: option engine.cuda-device='-2' must be 0..1023");
}

}  // namespace
}  // namespace flysim::test
