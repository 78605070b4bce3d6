// The output writers (io/output_writers.hpp): the bytes of the CSV formats, trials of a
// batch written in trial order, atomic and streamed files, abort, and the factory's error.
#include <gtest/gtest.h>

#include <filesystem>

#include "scratch_dir.hpp"
#include "io/output_writers.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class OutputWriters : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_.path(name); }
  std::vector<std::string> names() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(dir_.path(""))) found.push_back(entry.path().filename().string());
    return found;
  }
  // A CSV spike writer into `name`, begun: neurons 1000..1003, 10 steps a trial.
  std::unique_ptr<SpikeWriter> spike_writer(const std::string& name, bool stream = false, double dt_ms = 0.1) const {
    auto writer = make_spike_writer({"output.spikes", path(name), "csv", stream});
    writer->begin({tiny_network(4, {}), dt_ms, 10});
    return writer;
  }
  // The spike file's rows after `batches` and finish.
  std::string rows_of(const std::vector<SpikeBatch>& batches, double dt_ms = 0.1) const {
    auto writer = spike_writer("spikes.csv", false, dt_ms);
    for (const SpikeBatch& batch : batches) writer->write(batch);
    writer->finish();
    const std::string text = slurp(path("spikes.csv"));
    EXPECT_EQ(text.substr(0, text.find('\n') + 1), "trial,step,t_ms,neuron_id\n");
    return text.substr(text.find('\n') + 1);
  }
  ScratchDir dir_{"flysim-writers"};
};

constexpr const char* kSpikeHeader = "trial,step,t_ms,neuron_id\n";

TEST_F(OutputWriters, CsvSpikesAreOneLinePerSpikeWithTheTimeDtNeeds) {
  const std::vector<Spike> first = {{3, 1}, {3, 2}}, second = {{9, 0}};
  EXPECT_EQ(rows_of({{0, 0, 5, first}, {0, 5, 5, second}}, 0.025), "0,3,0.075,1001\n0,3,0.075,1002\n0,9,0.225,1000\n");
}

TEST_F(OutputWriters, BatchedTrialsAreWrittenAsTrialsRunOneAfterAnother) {
  const std::vector<Spike> a = {{1, 0}}, b = {{2, 1}}, c = {{7, 2}}, d = {{8, 3}};
  EXPECT_EQ(rows_of({{0, 0, 5, a}, {1, 0, 5, b}, {0, 5, 5, c}, {1, 5, 5, d}}), "0,1,0.1,1000\n0,7,0.7,1002\n1,2,0.2,1001\n1,8,0.8,1003\n");
}

TEST_F(OutputWriters, AStoppedRunWritesTheHeldTrialsAtFinish) {
  const std::vector<Spike> a = {{1, 0}}, b = {{2, 1}};
  EXPECT_EQ(rows_of({{0, 0, 5, a}, {1, 0, 5, b}}), "0,1,0.1,1000\n1,2,0.2,1001\n");
}

TEST_F(OutputWriters, AnAtomicSpikeFileAppearsOnlyAtFinish) {
  auto writer = spike_writer("spikes.csv");
  const std::vector<Spike> spikes = {{1, 0}};
  writer->write({0, 0, 10, spikes});
  EXPECT_FALSE(fs::exists(path("spikes.csv")));
  writer->finish();
  EXPECT_EQ(slurp(path("spikes.csv")), std::string(kSpikeHeader) + "0,1,0.1,1000\n");
}

TEST_F(OutputWriters, AbortLeavesNothingAndKeepsAnEarlierFile) {
  spit(path("old.csv"), "earlier run\n");
  const std::vector<Spike> spikes = {{1, 0}};
  for (const std::string name : {"old.csv", "new.csv"}) {
    auto writer = spike_writer(name);
    writer->write({0, 0, 10, spikes});
    writer->abort();
  }
  auto destroyed = spike_writer("new.csv");
  destroyed->write({0, 0, 10, spikes});
  destroyed.reset();
  EXPECT_EQ(names(), std::vector<std::string>{"old.csv"});
  EXPECT_EQ(slurp(path("old.csv")), "earlier run\n");
}

TEST_F(OutputWriters, AStreamedSpikeFileGrowsInWholeLinesAndAbortKeepsThem) {
  auto writer = spike_writer("spikes.csv", true);
  EXPECT_EQ(slurp(path("spikes.csv")), kSpikeHeader) << "the header is there at once";
  const std::vector<Spike> spikes = {{1, 0}, {2, 3}};
  writer->write({0, 0, 5, spikes});
  writer->flush();
  const std::string lines = std::string(kSpikeHeader) + "0,1,0.1,1000\n0,2,0.2,1003\n";
  EXPECT_EQ(slurp(path("spikes.csv")), lines);
  writer->abort();
  EXPECT_EQ(slurp(path("spikes.csv")), lines);
}

TEST_F(OutputWriters, CsvRatesAreOneLinePerNeuronWithThreeDecimals) {
  make_rate_writer({"output.rates", path("rates.csv")})->write({{1002, 2, 5, 2.5}, {1000, 0, 1, 1.0 / 3}});
  EXPECT_EQ(slurp(path("rates.csv")), "neuron_id,index,spikes,rate_hz\n1002,2,5,2.5\n1000,0,1,0.3333333333333333\n");
}

// The reference model's run_exp table: t in s as Brian2's clock gives it (step * 0.0001:
// 0.0006000000000000001 for step 6), the trial, the root ID and the experiment's name.
TEST_F(OutputWriters, ReferenceSpikesAreTheReferenceModelsTable) {
  auto writer = make_spike_writer({"output.spikes", path("sugar.csv"), "reference", false, "sugar"});
  writer->begin({tiny_network(4, {}), 0.1, 10});
  const std::vector<Spike> a = {{0, 2}, {6, 1}}, b = {{3, 0}};
  writer->write({0, 0, 10, a});
  writer->write({1, 0, 10, b});
  writer->finish();
  EXPECT_EQ(slurp(path("sugar.csv")),
            "t,trial,flywire_id,exp_name\n0.0,0,1002,sugar\n0.0006000000000000001,0,1001,sugar\n0.00030000000000000003,1,1000,sugar\n");
}

TEST_F(OutputWriters, AnUnknownFormatIsOneErrorNamingTheOptionAndWritesNothing) {
  EXPECT_EQ(input_error_of([&] { make_spike_writer({"output.spikes", path("s.bin"), "parquet"}); }),
            "output.spikes: unknown format 'parquet' (known: csv, reference)");
  EXPECT_EQ(input_error_of([&] { make_rate_writer({"output.rates", path("r.bin"), "json"}); }),
            "output.rates: unknown format 'json' (known: csv)");
  EXPECT_EQ(names(), std::vector<std::string>{});
}

TEST_F(OutputWriters, AFolderIsRefusedAtBeginWithItsName) {
  fs::create_directories(path("folder"));
  auto writer = make_spike_writer({"output.spikes", path("folder"), "csv", false});
  EXPECT_EQ(input_error_of([&] { writer->begin({tiny_network(4, {}), 0.1, 10}); }),
            path("folder") + ": is a folder; give a file name");
}

}  // namespace
}  // namespace flysim::test
