// End-to-end tests of the flysim program: exit codes, one-line errors naming file and
// line, output files that appear only when complete, and the reference match through
// the whole actor pipeline.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flysim-cli-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }

  CliResult flysim(const std::string& args) const {
    return run_flysim(args + " --network.cache-dir=" + path("cache"), path("stdout"), path("stderr"));
  }

  std::string net2000(const std::string& extra = "") const {
    return "run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " " + extra;
  }

  // A copy of net2000's connectivity with line `line` (1-based) replaced.
  std::string connectivity_with(std::size_t line, const std::string& replacement) const {
    std::ifstream in(data_path("net2000/connectivity.csv"));
    std::string text, row;
    for (std::size_t n = 1; std::getline(in, row); ++n) text += (n == line ? replacement : row) + "\n";
    write("connectivity.csv", text);
    return path("connectivity.csv");
  }

  fs::path dir_;
};

TEST_F(Cli, HelpExplainsCommandsAndOptions) {
  const CliResult top = flysim("--help");
  EXPECT_EQ(top.code, 0);
  EXPECT_NE(top.out.find("generate"), std::string::npos);
  const CliResult run = flysim("run --help");
  EXPECT_EQ(run.code, 0);
  for (const char* key : {"network.neurons", "network.connectivity", "stimulus.ids", "stimulus.rate", "stimulus.kicks",
                          "run.duration-ms", "run.trials", "run.seed", "engine.kind", "engine.threads", "engine.cuda-device",
                          "output.spikes", "output.rates", "output.summary", "output.readouts"})
    EXPECT_NE(run.out.find(std::string("--") + key + "="), std::string::npos) << key;
}

TEST_F(Cli, UnknownOptionAndBadValueAreErrors) {
  CliResult r = flysim("run --run.duration=5");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown option 'run.duration'"), std::string::npos) << r.err;
  r = flysim("run --run.trials=many");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("run.trials: 'many' is not an integer"), std::string::npos) << r.err;
  write("bad.ini", "[run]\nduration-ms = 10\ntrails = 3\n");
  r = flysim("run --config=" + path("bad.ini"));
  expect_one_line_error(r, path("bad.ini") + ":3: unknown option 'run.trails'");
}

TEST_F(Cli, MissingColumnNamesFileAndLine) {
  const std::string file = connectivity_with(1, "Presynaptic_ID,Postsynaptic_ID,Presynaptic_Index,Postsynaptic_Index,Connectivity,Excitatory");
  expect_one_line_error(flysim(net2000().replace(net2000().find(data_path("net2000/connectivity.csv")),
                                                 data_path("net2000/connectivity.csv").size(), file)),
                        file + ":1: missing column 'Excitatory x Connectivity'");
}

TEST_F(Cli, NonNumericFieldNamesFileAndLine) {
  const std::string file = connectivity_with(5, "820475940600000023,820475940600019979,0,393,thirteen,1,13");
  const CliResult r = flysim("run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" + file);
  expect_one_line_error(r, file + ":5: column 'Connectivity': 'thirteen' is not an integer");
}

TEST_F(Cli, IndexOutOfRangeNamesFileAndLine) {
  const std::string file = connectivity_with(3, "820475940600000023,820475940600019979,0,2000,13,1,13");
  const CliResult r = flysim("run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" + file);
  expect_one_line_error(r, file + ":3: Postsynaptic_Index 2000 is out of range");
}

TEST_F(Cli, DuplicateNeuronNamesFileAndLine) {
  write("neurons.csv", ",Completed\n11,True\n12,True\n11,True\n");
  write("conn.csv", "Presynaptic_ID,Postsynaptic_ID,Presynaptic_Index,Postsynaptic_Index,Connectivity,Excitatory,Excitatory x Connectivity\n");
  const CliResult r = flysim("run --network.neurons=" + path("neurons.csv") + " --network.connectivity=" + path("conn.csv"));
  expect_one_line_error(r, path("neurons.csv") + ":4: neuron ID 11 appears more than once");
}

TEST_F(Cli, HeaderlessNeuronsFileIsRefused) {
  write("neurons.csv", "11,True\n12,True\n");
  const CliResult r = flysim("run --network.neurons=" + path("neurons.csv") + " --network.connectivity=" +
                             data_path("net2000/connectivity.csv") + " --run.duration-ms=1");
  expect_one_line_error(r, path("neurons.csv") + ":1: expected the header ',Completed'");
  write("tabs.csv", "root_id\tCompleted\n11\tTrue\n");
  const CliResult tabs = flysim("run --network.neurons=" + path("tabs.csv") + " --network.connectivity=" +
                                data_path("net2000/connectivity.csv") + " --run.duration-ms=1");
  expect_one_line_error(tabs, path("tabs.csv") + ":1: one column in the header 'root_id\\x09Completed' (the header has no "
                              "commas but tabs: flysim reads comma-separated files)");
}

// pandas' to_csv without index=False writes its row numbers first: they would be the IDs.
TEST_F(Cli, NeuronsFileWithPandasRowNumbersIsRefusedWithTheFix) {
  write("neurons.csv", ",Unnamed: 0,Completed\n0,11,True\n1,12,True\n");
  const std::string connectivity = " --network.connectivity=" + data_path("net2000/connectivity.csv");
  const CliResult r = flysim("run --network.neurons=" + path("neurons.csv") + connectivity + " --run.duration-ms=1");
  expect_one_line_error(r, path("neurons.csv") + ":1: the header ',Unnamed: 0,Completed' has pandas' row numbers before "
                           "the IDs (a DataFrame written without index=False): write it with to_csv(..., index=False), or "
                           "read it with read_csv(..., index_col=0) first");
  // R's write.csv with row.names, and pandas' to_csv of a reset index: numbered rows, IDs second.
  for (const std::string text : {"\"\",\"root_id\",\"Completed\"\n\"1\",11,TRUE\n\"2\",12,TRUE\n\"3\",13,TRUE\n",
                                 ",root_id,Completed\n0,11,True\n1,12,True\n2,13,True\n"}) {
    write("numbered.csv", text);
    const CliResult numbered = flysim("run --network.neurons=" + path("numbered.csv") + connectivity + " --run.duration-ms=1");
    expect_one_line_error(numbered, path("numbered.csv") + ": the first column holds the row numbers ");
  }
}

// A neurons file of one's own without its connectivity names the option forgotten.
TEST_F(Cli, NeuronsWithoutConnectivityNamesTheMissingOption) {
  write("neurons.csv", "root_id,Completed\n11,TRUE\n12,FALSE\n13,True\n");
  const CliResult r = flysim("run --network.neurons=" + path("neurons.csv") + " --run.duration-ms=1");
  expect_one_line_error(r, "command line: option network.neurons='" + path("neurons.csv") + "' is given without "
                           "network.connectivity: give your connectome's connectivity CSV as network.connectivity=FILE");
}

// R's write.csv quotes every field and writes TRUE/FALSE: the same network as plain CSV.
TEST_F(Cli, QuotedFilesAsRWritesThemLoadTheSameNetwork) {
  write("plain_n.csv", ",Completed\n11,True\n12,True\n13,True\n");
  write("plain_c.csv", "Presynaptic_ID,Postsynaptic_ID,Presynaptic_Index,Postsynaptic_Index,Connectivity,Excitatory,"
                       "Excitatory x Connectivity\n11,12,0,1,3,1,3\n12,13,1,2,2,-1,-2\n");
  write("quoted_n.csv", "\"\",\"Completed\"\n\"11\",TRUE\n\"12\",TRUE\n\"13\",TRUE\n");
  write("quoted_c.csv", "\"Presynaptic_ID\",\"Postsynaptic_ID\",\"Presynaptic_Index\",\"Postsynaptic_Index\",\"Connectivity\","
                        "\"Excitatory\",\"Excitatory x Connectivity\"\n\"11\",\"12\",0,1,3,1,3\n\"12\",\"13\",1,2,2,-1,-2\n");
  write("ids.txt", "11\n");
  for (const std::string p : {"plain_", "quoted_"}) {
    const CliResult r = flysim("run --network.neurons=" + path(p + "n.csv") + " --network.connectivity=" + path(p + "c.csv") +
                               " --stimulus.ids=" + path("ids.txt") + " --run.duration-ms=50 --output.spikes=" +
                               path(p + "spikes.csv") + " --output.summary=" + path(p + "s.json"));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto summary = read_summary(path(p + "s.json"));
    EXPECT_EQ(summary["network"].value("connections", 0), 2);
    EXPECT_EQ(summary["network"].value("synapses", 0), 5);
  }
  EXPECT_EQ(slurp(path("plain_spikes.csv")), slurp(path("quoted_spikes.csv")));
  EXPECT_GT(count_of(slurp(path("plain_spikes.csv")), "\n"), 1u);
}

TEST_F(Cli, OutOfRangeModelParameterNamesTheOptions) {
  const CliResult r = flysim(net2000("--model.t-ref-ms=1e12"));
  expect_one_line_error(r, "parameter t_ref (model.t-ref-ms) must be >= 0 and below 2^29 steps");
  const CliResult order = flysim(net2000("--model.v-threshold-mV=-60"));
  expect_one_line_error(order, "parameter v_th (model.v-threshold-mV) = -60 mV must lie "
                               "above v_0 (model.v-rest-mV) = -52 mV");
}

// A trial's steps are Brian2's run()'s: a duration that is not a whole number of steps is
// rounded up (and said so); one within 1e-4 dt of a whole number is that number.
TEST_F(Cli, ADurationBetweenStepsIsRoundedUpAsBrian2Does) {
  const std::string ids = " --stimulus.ids=" + data_path("net2000/stimulated.txt");
  const CliResult between = flysim(net2000("--run.duration-ms=100.55 --output.summary=" + path("between.json") + ids));
  ASSERT_EQ(between.code, 0) << between.err;
  // 1006 steps of 0.1 ms, written without the product's binary noise (100.60000000000001)
  EXPECT_EQ(read_summary(path("between.json")).value("ms_per_trial", 0.0), 100.6);
  EXPECT_NE(slurp(path("between.json")).find("\"ms_per_trial\": 100.6,"), std::string::npos);
  EXPECT_NE(between.err.find("run.duration-ms=100.55 is not a whole number of steps of dt 0.1 ms: each trial runs 1006 "
                             "steps (100.6 ms)"),
            std::string::npos)
      << between.err;
  const CliResult near = flysim(net2000("--run.duration-ms=100.000005 --output.summary=" + path("near.json") + ids));
  ASSERT_EQ(near.code, 0) << near.err;
  EXPECT_EQ(read_summary(path("near.json")).value("ms_per_trial", 0.0), 1000 * 0.1);
  EXPECT_EQ(near.err.find("not a whole number of steps"), std::string::npos) << near.err;
}

TEST_F(Cli, NegativeCheckpointIntervalCreatesNothing) {
  const CliResult r = flysim(net2000("--checkpoint.every-ms=-1 --checkpoint.dir=" + path("ckpt")));
  expect_one_line_error(r, "command line: option checkpoint.every-ms='-1' must not be negative");
  EXPECT_FALSE(fs::exists(path("ckpt")));
}

TEST_F(Cli, UnknownStimulusIdNamesFileAndLine) {
  write("ids.txt", "# two IDs\n820475940600000023\n12345\n");
  const CliResult r = flysim(net2000("--stimulus.ids=" + path("ids.txt") + " --output.spikes=" + path("spikes.csv")));
  expect_one_line_error(r, path("ids.txt") + ":3: neuron ID 12345 is not in the network");
  EXPECT_FALSE(fs::exists(path("spikes.csv")));
}

TEST_F(Cli, MatchesTheReferenceThroughTheActors) {
  const CliResult r = flysim(net2000("--stimulus.kicks=" + data_path("net2000/kicks.csv") + " --output.spikes=" +
                                  path("spikes.csv") + " --output.rates=" + path("rates.csv") + " --engine.threads=2" +
                                  " --output.summary=" + path("summary.json")));
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json summary = read_summary(path("summary.json"));
  EXPECT_EQ(summary.value("spikes", 0u), 7755u);
  EXPECT_EQ(summary.value("active_neurons", 0u), 72u);
  // Same spikes as Brian2's, in the output format trial,step,t_ms,neuron_id.
  std::ifstream ours(path("spikes.csv")), reference(data_path("net2000/brian_kicks.csv"));
  std::string a, b;
  std::getline(ours, a);
  EXPECT_EQ(a, "trial,step,t_ms,neuron_id");
  std::getline(reference, b);
  std::size_t rows = 0;
  while (std::getline(reference, b)) {
    ASSERT_TRUE(std::getline(ours, a));
    const std::string step = b.substr(0, b.find(',')), id = b.substr(b.find(',') + 1);
    const std::string t_ms = std::to_string(std::stoi(step) / 10) + "." + std::to_string(std::stoi(step) % 10);
    ASSERT_EQ(a, "0," + step + "," + t_ms + "," + id);
    ++rows;
  }
  EXPECT_EQ(rows, 7755u);
  EXPECT_FALSE(std::getline(ours, a));
  EXPECT_EQ(slurp(path("rates.csv")).substr(0, 31), "neuron_id,index,spikes,rate_hz\n");
}

TEST_F(Cli, BadOutputFolderIsAnErrorBeforeAnythingRuns) {
  const CliResult r = flysim(net2000("--output.spikes=" + path("no/such/dir/spikes.csv")));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("output.spikes"), std::string::npos) << r.err;
}

// Ctrl-C finishes the epochs in flight and keeps what was recorded (docs/RELIABILITY.md):
// a well-formed spike file under its name, no temporary file, exit code 130.
TEST_F(Cli, InterruptStopsCleanlyAndKeepsWhatWasRecorded) {
  BackgroundFlysim run(net2000("--stimulus.ids=" + data_path("net2000/stimulated.txt") +
                               " --run.duration-ms=10000000 --output.spikes=" + path("spikes.csv")) +
                           " --network.cache-dir=" + path("cache"),
                       path("stdout"), path("stderr"));
  // Ctrl-C once the run is under way: its first progress line says so.
  ASSERT_FALSE(run.wait_for_log("ms simulated", 60).empty()) << slurp(path("stderr"));
  EXPECT_EQ(run.stop(SIGINT), 130) << slurp(path("stderr"));
  const std::string spikes = slurp(path("spikes.csv"));
  ASSERT_EQ(spikes.rfind("trial,step,t_ms,neuron_id\n", 0), 0u);
  EXPECT_EQ(spikes.back(), '\n');
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp-"), std::string::npos) << entry.path();
}

// A default file of the bundled data folder that is not there is named by its option and
// by FLYSIM_DATA_DIR, the way to point flysim at the folder.
TEST_F(Cli, AMissingBundledDataFileNamesItsOptionAndFlysimDataDir) {
  fs::create_directories(path("data"));
  setenv("FLYSIM_DATA_DIR", path("data").c_str(), 1);
  expect_one_line_error(flysim("run --run.duration-ms=10"),
                        "option network.neurons (default '" + path("data") + "/Completeness_783.csv') names a file flysim "
                        "cannot open: No such file or directory (from FLYSIM_DATA_DIR=" + path("data") + "; give "
                        "--network.neurons=FILE, or point FLYSIM_DATA_DIR at a folder that holds flysim's data/ files)");
  spit(path("data/Completeness_783.csv"), ",Completed\n720575940596125868,True\n");
  expect_one_line_error(flysim("run --run.duration-ms=10"),
                        path("data") + "/sugar_grn_783.txt: cannot be opened: No such file or directory (the synthetic "
                        "network's sensory neurons, from FLYSIM_DATA_DIR=");
  unsetenv("FLYSIM_DATA_DIR");
}

// A service's time paused by a command is said in its summary and left out of its speed.
TEST_F(Cli, APausedServiceSaysHowLongItWasPaused) {
  BackgroundFlysim service("serve --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                               data_path("net2000/connectivity.csv") + " --stimulus.kicks=" + data_path("net2000/kicks.csv") +
                               " --control.port=0 --run.pace=off --output.spikes=/dev/null --output.journal=" + path("journal.jsonl") +
                               " --output.summary=" +
                               path("summary.json") + " --network.cache-dir=" + path("cache"),
                           path("stdout"), path("stderr"));
  const std::string line = service.wait_for_output("control API on http://127.0.0.1:", 60);
  ASSERT_NE(line, "") << slurp(path("stderr"));
  const std::string port = line.substr(line.rfind(':') + 1);
  const auto ctl = [&](const std::string& action) {
    return run_flysim("ctl " + action + " --control.port=" + port, path("ctl.out"), path("ctl.err")).code;
  };
  ASSERT_EQ(ctl("pause"), 0) << slurp(path("ctl.err"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(ctl("stop"), 0) << slurp(path("ctl.err"));
  ASSERT_EQ(service.wait_for(60), 0) << slurp(path("stderr"));
  const nlohmann::json s = read_summary(path("summary.json"));
  const double paused = s.value("paused_s", 0.0), wall = s.value("wall_s", 0.0);
  EXPECT_GE(paused, 1.4);
  EXPECT_LT(paused, wall);
  const double simulated_s = s.value("simulated_ms_this_run", 0.0) / 1000.0;
  ASSERT_GT(simulated_s, 0.0);
  EXPECT_NEAR(s.value("wall_s_per_simulated_s", 0.0), (wall - paused) / simulated_s, 1e-9);
  EXPECT_NE(slurp(path("stdout")).find(" s of it paused), "), std::string::npos) << slurp(path("stdout"));
}

// A run until stopped has no trial length to report: its summary says it was one endless
// trial, not the longest trial's 2^29 steps.
TEST_F(Cli, AnEndlessRunSaysSoInItsSummary) {
  BackgroundFlysim run(net2000("--stimulus.ids=" + data_path("net2000/stimulated.txt") +
                               " --run.duration-ms=forever --output.summary=" + path("summary.json")) +
                           " --network.cache-dir=" + path("cache"),
                       path("stdout"), path("stderr"));
  ASSERT_FALSE(run.wait_for_log("ms simulated", 60).empty()) << slurp(path("stderr"));
  EXPECT_EQ(run.stop(SIGINT), 130) << slurp(path("stderr"));
  const nlohmann::json s = read_summary(path("summary.json"));
  EXPECT_TRUE(s.value("endless", false));
  EXPECT_TRUE(s["ms_per_trial"].is_null()) << s["ms_per_trial"];
  EXPECT_GT(s.value("simulated_ms_this_run", 0.0), 0.0);
  const std::string out = slurp(path("stdout"));
  EXPECT_NE(out.find("simulated   one endless trial ('forever') ("), std::string::npos) << out;
  // Its progress lines give no trial length.
  const std::string log = slurp(path("stderr"));
  EXPECT_NE(log.find("trial 1/1: "), std::string::npos) << log;
  EXPECT_EQ(log.find(" of 53687091.2 ms simulated"), std::string::npos) << log;
}

}  // namespace
}  // namespace flysim::test
