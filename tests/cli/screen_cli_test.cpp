// flysim screen end to end: each experiment's trials are those of `flysim run` with its
// options, byte for byte; rates.csv's statistics; any batch size gives the same files; an
// interrupted screen (a lost part, kill -9) resumes to the same files; bad tables are one
// error line naming file:line; a screen run as parts of a job array merges to the files of
// the screen run at once, and merge refuses parts that do not make one screen.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> stimulated_ids() {
  std::istringstream in(slurp(data_path("net2000/stimulated.txt")));
  std::vector<std::string> ids;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) ids.push_back(line);
  return ids;
}

std::string net2000(const std::string& duration_ms = "100") {
  return " --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
         data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
         " --run.duration-ms=" + duration_ms + " --engine.threads=2";
}

// flysim run's spike file (trial,step,t_ms,neuron_id) as spikes.csv lines of experiment
// `name` (t,trial,flywire_id,exp_name; t = step * 0.0001 s as Brian2 records it, in the
// shortest form that reads back to that double).
std::string as_screen_lines(const std::string& run_spikes, const std::string& name) {
  std::istringstream in(run_spikes);
  std::string line, out;
  std::getline(in, line);
  while (std::getline(in, line)) {
    int trial = 0, step = 0;
    EXPECT_EQ(std::sscanf(line.c_str(), "%d,%d", &trial, &step), 2) << line;
    std::string t = fmt::format("{}", step * 0.0001);
    if (t.find_first_of(".e") == std::string::npos) t += ".0";
    out += t + "," + std::to_string(trial) + "," + line.substr(line.rfind(',') + 1) + "," + name + "\n";
  }
  return out;
}

// The lines of spikes.csv that belong to experiment `name`.
std::string lines_of(const std::string& spikes_csv, const std::string& name) {
  std::istringstream in(spikes_csv);
  std::string line, out;
  std::getline(in, line);
  while (std::getline(in, line))
    if (line.substr(line.rfind(',') + 1) == name) out += line + "\n";
  return out;
}

struct Files {
  std::string rates, readouts, spikes;
};

Files files_in(const std::string& dir) {
  return {slurp(dir + "/rates.csv"), slurp(dir + "/readouts.csv"),
          fs::exists(dir + "/spikes.csv") ? slurp(dir + "/spikes.csv") : std::string()};
}

void expect_same(const Files& a, const Files& b) {
  EXPECT_TRUE(same_text(a.rates, b.rates));
  EXPECT_TRUE(same_text(a.readouts, b.readouts));
  EXPECT_TRUE(same_text(a.spikes, b.spikes));
}

// A table of five experiments around net2000's driven neurons, and the run options of each.
struct Screen {
  std::string table;
  std::map<std::string, std::string> run_options;  // experiment -> options of flysim run
};

Screen make_screen(const ScratchDir& d) {
  fs::create_directories(d.path("lists"));
  const std::vector<std::string> ids = stimulated_ids();
  std::string first, second;
  for (std::size_t k = 0; k < ids.size(); ++k) (k < 10 ? first : second) += ids[k] + "\n";
  const std::string excite = d.write("lists/first.txt", first), excite2 = d.write("lists/second.txt", second);
  const std::string silenced = d.write("lists/silenced.txt", ids[0] + "\n" + ids[3] + "\n");
  Screen s;
  s.table = d.write("lists/experiments.csv",
                    "# comments and blank lines are skipped, before the header too\n"
                    "\n"
                    "name,excite,rate_hz,excite2,rate2_hz,silence\n"
                    "plain,,,,,\n"
                    "# the stimulus at 250 Hz\n"
                    "fast,,250,,,\n"
                    "quiet,,,,,@silenced.txt\n"
                    "two groups,@first.txt,90,@second.txt,200,\n"
                    "inline," + ids[1] + ";" + ids[2] + ",,,," + ids[1] + "\n");
  const std::string one = d.write("lists/one.txt", ids[1] + "\n" + ids[2] + "\n");
  const std::string sil1 = d.write("lists/sil1.txt", ids[1] + "\n");
  s.run_options = {{"plain", ""},
                   {"fast", " --stimulus.rate=250"},
                   {"quiet", " --stimulus.silence=" + silenced},
                   {"two groups", " --stimulus.ids=" + excite + " --stimulus.rate=90 --stimulus.group.excite2.ids=" + excite2 +
                                      " --stimulus.group.excite2.rate=200"},
                   {"inline", " --stimulus.ids=" + one + " --stimulus.silence=" + sil1}};
  return s;
}

std::string readouts_option() {
  const std::vector<std::string> ids = stimulated_ids();
  return " --screen.readouts=" + ids[4] + "," + ids[0];
}

CliResult screen(const ScratchDir& d, const std::string& tag, const std::string& args) {
  return run_flysim("screen " + with_overrides(net2000() + " --screen.plot=false" + readouts_option(), args),
                    d.path(tag + ".out"), d.path(tag + ".err"));
}

// flysim run's output.spikes-format=reference writes the table a screen writes for the
// same experiment, byte for byte (the experiment named by the file).
TEST(ScreenCli, RunsReferenceSpikesAreTheScreensTable) {
  ScratchDir d("screen-reference-run");
  const CliResult scr = screen(d, "screen", " --screen.baseline=true --screen.spikes=true --run.trials=3 --output.dir=" + d.path("out"));
  ASSERT_EQ(scr.code, 0) << scr.err;
  const CliResult run = run_flysim("run " + net2000() + " --run.trials=3 --output.spikes-format=reference --output.spikes=" +
                                       d.path("baseline.csv"),
                                   d.path("run.out"), d.path("run.err"));
  ASSERT_EQ(run.code, 0) << run.err;
  const std::string table = slurp(d.path("out/spikes.csv"));
  EXPECT_GT(count_of(table, "\n"), 10u);
  EXPECT_TRUE(same_text(table, slurp(d.path("baseline.csv"))));
  // Another screen into the folder, without spikes: the earlier spikes.csv would pass for
  // its own; refused, and the file kept.
  fs::remove_all(d.path("out/.screen-parts"));
  const CliResult again = screen(d, "again", " --screen.baseline=true --run.trials=2 --output.dir=" + d.path("out"));
  expect_one_line_error(again, "command line: option output.dir='" + d.path("out") + "' holds a spikes.csv that this screen "
                               "would not write");
  EXPECT_EQ(slurp(d.path("out/spikes.csv")), table);
  expect_one_line_error(run_flysim("run " + net2000() + " --output.spikes-format=parquet --output.spikes=" + d.path("x.csv"),
                                   d.path("bad.out"), d.path("bad.err")),
                        "command line: option output.spikes-format='parquet' is not a spike format (known: csv, reference)");
  // exp_name, the file's name, is written unquoted: one that would split the row is refused.
  expect_one_line_error(run_flysim("run " + net2000() + " --output.spikes-format=reference \"--output.spikes=" + d.path("a,b.csv") + "\"",
                                   d.path("bad.out"), d.path("bad.err")),
                        "command line: option output.spikes='" + d.path("a,b.csv") + "' names the experiment 'a,b' (exp_name: "
                        "the file's name without its extension), which holds a comma");
  EXPECT_FALSE(fs::exists(d.path("x.csv")));
  // The reference names its files .parquet; flysim's text under that name would mislead pandas.
  for (const char* name : {"x.parquet", "x.csv.GZ"}) {
    expect_one_line_error(run_flysim("run " + net2000() + " --output.spikes-format=reference --output.spikes=" + d.path(name),
                                     d.path("bad.out"), d.path("bad.err")),
                          "command line: option output.spikes='" + d.path(name) + "' names a " +
                              fs::path(name).extension().string() + " file, but flysim writes plain text (CSV or JSON)");
    EXPECT_FALSE(fs::exists(d.path(name)));
  }
  // A format without a file would write nothing in it.
  expect_one_line_error(run_flysim("run " + net2000() + " --output.spikes-format=reference", d.path("bad.out"), d.path("bad.err")),
                        "command line: option output.spikes-format='reference' formats the spike file, but output.spikes "
                        "names none (give --output.spikes=FILE)");
}

TEST(ScreenCli, EachExperimentsTrialsAreThoseOfFlysimRunWithItsOptions) {
  ScratchDir d("screen-identity");
  const Screen s = make_screen(d);
  const std::string dir = d.path("out");
  const std::string silence_each = d.write("lists/each.txt", stimulated_ids()[5] + "\n");
  const bool plot = std::system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null") == 0;
  const CliResult r = screen(d, "screen", " --screen.experiments=" + s.table + " --screen.baseline=true --screen.silence-each=" +
                                              silence_each + " --screen.spikes=true --run.trials=3 --run.batch=2 --output.dir=" + dir +
                                              " --screen.plot=" + (plot ? "true" : "false"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("experiment two groups done (5/7)"), std::string::npos) << r.err;
  if (plot) {
    EXPECT_GT(fs::file_size(dir + "/screen.png"), 1000u);
  }
  const std::string spikes = slurp(dir + "/spikes.csv");
  EXPECT_EQ(spikes.substr(0, spikes.find('\n')), "t,trial,flywire_id,exp_name");
  std::map<std::string, std::string> runs = s.run_options;
  runs["baseline"] = "";
  runs["silence-" + stimulated_ids()[5]] = " --stimulus.silence=" + silence_each;
  std::string expected = "t,trial,flywire_id,exp_name\n";
  for (const std::string name : {"baseline", "plain", "fast", "quiet", "two groups", "inline"}) {
    SCOPED_TRACE(name);
    const std::string out = d.path("run-" + std::to_string(runs.size()) + name.substr(0, 3) + ".csv");
    const CliResult alone = run_flysim("run " + with_overrides(net2000(), runs[name] + " --run.trials=3 --output.spikes=" + out),
                                       d.path("run.out"), d.path("run.err"));
    ASSERT_EQ(alone.code, 0) << alone.err;
    const std::string lines = as_screen_lines(slurp(out), name);
    EXPECT_GT(count_of(lines, "\n"), 20u);
    EXPECT_TRUE(same_text(lines, lines_of(spikes, name)));
    expected += lines;
  }
  const std::string each = "silence-" + stimulated_ids()[5];
  const CliResult alone = run_flysim("run " + with_overrides(net2000(), runs[each] + " --run.trials=3 --output.spikes=" + d.path("each.csv")),
                                     d.path("run.out"), d.path("run.err"));
  ASSERT_EQ(alone.code, 0) << alone.err;
  expected += as_screen_lines(slurp(d.path("each.csv")), each);
  EXPECT_TRUE(same_text(expected, spikes));  // experiment order, each as flysim run orders it
  // The silenced experiments differ from the baseline: the plans really were swapped.
  EXPECT_NE(lines_of(spikes, "quiet"), lines_of(spikes, "plain"));
  const std::string readouts = slurp(dir + "/readouts.csv");
  EXPECT_EQ(readouts.substr(0, readouts.find('\n')), "exp_name,readout_id,trials,mean_rate_hz,sd_hz,sem_hz,change_hz");
  EXPECT_NE(readouts.find("\nbaseline," + stimulated_ids()[0] + ",3,"), std::string::npos) << readouts;
  EXPECT_NE(readouts.find(",0.0\nbaseline,"), std::string::npos) << readouts;  // baseline's change is 0
}

// rates.csv's mean and sample sd (n - 1) of one experiment, against counts from spikes.csv.
TEST(ScreenCli, RatesAreTheMeanAndSampleSdOverTrials) {
  ScratchDir d("screen-rates");
  const std::string dir = d.path("out");
  const CliResult r = screen(d, "screen", " --screen.baseline=true --screen.spikes=true --run.trials=4 --run.duration-ms=200 --output.dir=" + dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::map<std::string, std::vector<int>> counts;  // flywire_id -> spikes per trial
  std::istringstream spikes(slurp(dir + "/spikes.csv"));
  std::string line;
  std::getline(spikes, line);
  while (std::getline(spikes, line)) {
    std::istringstream fields(line);
    std::string t, trial, id;
    std::getline(fields, t, ',');
    std::getline(fields, trial, ',');
    std::getline(fields, id, ',');
    auto& per_trial = counts[id];
    per_trial.resize(4);
    ++per_trial[std::stoi(trial)];
  }
  std::istringstream rates(slurp(dir + "/rates.csv"));
  std::getline(rates, line);
  EXPECT_EQ(line, "exp_name,flywire_id,trials,mean_rate_hz,sd_hz");
  std::size_t rows = 0, varied = 0;
  std::string previous;
  while (std::getline(rates, line)) {
    char name[64], id[32];
    int trials = 0;
    double mean = 0, sd = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "%63[^,],%31[^,],%d,%lf,%lf", name, id, &trials, &mean, &sd), 5) << line;
    EXPECT_STREQ(name, "baseline");
    EXPECT_EQ(trials, 4);
    EXPECT_LT(previous.size() == std::string(id).size() ? previous : "", std::string(id)) << "flywire_id ascending";
    previous = id;
    ASSERT_TRUE(counts.count(id)) << line;
    double sum = 0, squares = 0;
    for (int n : counts[id]) sum += n / 0.2;
    const double expected_mean = sum / 4;
    for (int n : counts[id]) squares += (n / 0.2 - expected_mean) * (n / 0.2 - expected_mean);
    const double expected_sd = std::sqrt(squares / 3);
    EXPECT_NEAR(mean, expected_mean, 1e-5 * expected_mean) << line;
    EXPECT_NEAR(sd, expected_sd, 1e-5 * expected_sd + 1e-9) << line;
    varied += expected_sd > 0;
    ++rows;
  }
  EXPECT_EQ(rows, counts.size());
  EXPECT_GT(varied, 0u);
}

// A rate grid is the table of its cells: the base group at each rate x excite2 at each rate2.
TEST(ScreenCli, ARateGridIsTheTableOfItsCells) {
  ScratchDir d("screen-grid");
  const Screen s = make_screen(d);  // lists/first.txt and lists/second.txt
  const std::string base = " --stimulus.ids=" + d.path("lists/first.txt") + " --run.trials=2 --run.duration-ms=300";
  const CliResult grid = screen(d, "grid", base + " --screen.rates=60,90 --screen.excite2=" + d.path("lists/second.txt") +
                                               " --screen.rates2=0,200 --output.dir=" + d.path("grid"));
  ASSERT_EQ(grid.code, 0) << grid.err;
  const std::string table = d.write("lists/grid.csv", "name,rate_hz,excite2,rate2_hz\n"
                                                      "r60_r2=0,60,@second.txt,0\nr60_r2=200,60,@second.txt,200\n"
                                                      "r90_r2=0,90,@second.txt,0\nr90_r2=200,90,@second.txt,200\n");
  const CliResult cells = screen(d, "cells", base + " --screen.experiments=" + table + " --output.dir=" + d.path("cells"));
  ASSERT_EQ(cells.code, 0) << cells.err;
  for (const std::string name : {"rates.csv", "readouts.csv"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(slurp(d.path("grid/" + name)), slurp(d.path("cells/" + name)));
  }
  const std::string rates = slurp(d.path("grid/rates.csv"));
  for (const std::string cell : {"r60_r2=0", "r60_r2=200", "r90_r2=0", "r90_r2=200"})
    EXPECT_NE(rates.find("\n" + cell + ","), std::string::npos) << cell;
  const auto rows_of = [&rates](const std::string& name) {  // rates.csv's rows of one experiment, without its name
    std::istringstream in(rates);
    std::string line, out;
    while (std::getline(in, line))
      if (line.rfind(name + ",", 0) == 0) out += line.substr(name.size()) + "\n";
    return out;
  };
  EXPECT_NE(rows_of("r90_r2=200"), rows_of("r90_r2=0"));  // the second group's rate mattered
}

TEST(ScreenCli, OneTrialLeavesTheSpreadEmptyAsPandasNaN) {
  ScratchDir d("screen-one-trial");
  const std::string dir = d.path("out");
  const CliResult r = screen(d, "screen", " --screen.baseline=true --run.trials=1 --run.duration-ms=200 --output.dir=" + dir);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream rates(slurp(dir + "/rates.csv"));
  std::string line;
  std::getline(rates, line);
  std::size_t rows = 0;
  while (std::getline(rates, line)) {
    ++rows;
    EXPECT_EQ(line.back(), ',') << "sd_hz of one trial must be empty: " << line;
  }
  EXPECT_GT(rows, 10u);
}

// screen.activate-each: one experiment per listed neuron, named by its ID, that neuron
// alone at stimulus.rate; a stimulus.ids that no experiment reads is refused.
TEST(ScreenCli, ActivateEachDrivesEachNeuronAloneAndRefusesAnUnreadStimulus) {
  ScratchDir d("screen-activate-each");
  const std::vector<std::string> ids = stimulated_ids();
  const std::string list = d.write("each.txt", ids[1] + "\n" + ids[2] + "\n");
  const CliResult refused = screen(d, "refused", " --screen.activate-each=" + list + " --output.dir=" + d.path("refused"));
  expect_one_line_error(refused, "command line: option stimulus.ids='" + data_path("net2000/stimulated.txt") + "' is read by no experiment");
  EXPECT_FALSE(fs::exists(d.path("refused/rates.csv")));
  const CliResult r = screen(d, "screen", " --stimulus.ids= --stimulus.rate=400 --run.trials=2 --screen.activate-each=" + list +
                                              " --output.dir=" + d.path("out"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream rates(slurp(d.path("out/rates.csv")));
  std::set<std::string> names;
  std::string line;
  std::getline(rates, line);
  while (std::getline(rates, line)) names.insert(line.substr(0, line.find(',')));
  EXPECT_EQ(names, (std::set<std::string>{ids[1], ids[2]}));
}

TEST(ScreenCli, BatchesOfOneAndOfThreeGiveTheSameFiles) {
  ScratchDir d("screen-batch");
  const Screen s = make_screen(d);
  const std::string common = " --screen.experiments=" + s.table + " --screen.baseline=true --screen.spikes=true --run.trials=4";
  const CliResult one = screen(d, "one", common + " --run.batch=1 --output.dir=" + d.path("one"));
  ASSERT_EQ(one.code, 0) << one.err;
  const CliResult three = screen(d, "three", common + " --run.batch=3 --output.dir=" + d.path("three"));
  ASSERT_EQ(three.code, 0) << three.err;
  EXPECT_NE(three.err.find("batches of 3"), std::string::npos) << three.err;
  expect_same(files_in(d.path("one")), files_in(d.path("three")));
}

TEST(ScreenCli, ALostPartIsRunAgainOnResume) {
  ScratchDir d("screen-resume");
  const Screen s = make_screen(d);
  const std::string dir = d.path("out"), args = " --screen.experiments=" + s.table + " --screen.baseline=true --screen.spikes=true --run.trials=2 --output.dir=" + dir;
  ASSERT_EQ(screen(d, "first", args).code, 0);
  const Files whole = files_in(dir);
  // A fresh screen does not overwrite the progress of an earlier one.
  expect_one_line_error(screen(d, "again", args), dir + "/.screen-parts holds an earlier screen's progress");
  fs::remove(dir + "/.screen-parts/00002.counts");
  for (const std::string name : {"rates.csv", "readouts.csv", "spikes.csv"}) fs::remove(dir + "/" + name);
  const CliResult resumed = screen(d, "resumed", args + " --screen.resume=true");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("5 of 6 experiments already done"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.out.find("(1 run now)"), std::string::npos) << resumed.out;
  expect_same(whole, files_in(dir));
  // Input files count by what they hold: the same table (and its @files) under another path resumes.
  fs::copy(fs::path(s.table).parent_path(), d.path("elsewhere"), fs::copy_options::recursive);
  const std::string copy = d.path("elsewhere/" + fs::path(s.table).filename().string());
  std::string moved = args;
  moved.replace(moved.find(s.table), s.table.size(), copy);
  fs::remove(dir + "/.screen-parts/00003.counts");
  const CliResult from_copy = screen(d, "copy", moved + " --screen.resume=true");
  ASSERT_EQ(from_copy.code, 0) << from_copy.err;
  EXPECT_NE(from_copy.out.find("(1 run now)"), std::string::npos) << from_copy.out;
  expect_same(whole, files_in(dir));
  // A folder an earlier flysim wrote (another manifest format) is refused as such.
  const std::string manifest = dir + "/.screen-parts/manifest.txt", current = slurp(manifest);
  spit(manifest, current.substr(current.find('\n') + 1));
  expect_one_line_error(screen(d, "old", args + " --screen.resume=true"),
                        dir + "/.screen-parts holds a screen written by an earlier flysim (another manifest format)");
  spit(manifest, current);
  // A resume with other options is refused by name.
  expect_one_line_error(screen(d, "other", args + " --screen.resume=true --stimulus.rate=100"),
                        "option screen.resume: the screen in " + dir + "/.screen-parts differs: stimulus.rate was '150', now '100'");
}

TEST(ScreenCli, AScreenKilledMidwayResumesToTheSameFiles) {
  ScratchDir d("screen-kill");
  const std::string each = d.write("each.txt", slurp(data_path("net2000/stimulated.txt")));
  const std::string args = " --screen.silence-each=" + each + " --screen.baseline=true --screen.spikes=true --run.trials=3 "
                           "--run.duration-ms=200 --run.batch=1 --engine.threads=1";
  const CliResult whole = screen(d, "whole", args + " --output.dir=" + d.path("whole"));
  ASSERT_EQ(whole.code, 0) << whole.err;
  const std::string dir = d.path("killed");
  {
    BackgroundFlysim killed("screen " + with_overrides(net2000("200") + " --screen.plot=false" + readouts_option(), args + " --output.dir=" + dir),
                            d.path("killed.out"), d.path("killed.err"));
    ASSERT_NE(killed.wait_for_log("done (4/22)", 60), "") << slurp(d.path("killed.err"));
    EXPECT_EQ(killed.stop(SIGKILL), 128 + SIGKILL);
  }
  EXPECT_FALSE(fs::exists(dir + "/rates.csv"));
  const CliResult resumed = screen(d, "resumed", args + " --output.dir=" + dir + " --screen.resume=true");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("experiments already done"), std::string::npos) << resumed.err;
  expect_same(files_in(d.path("whole")), files_in(dir));
}

TEST(ScreenCli, BadTablesAreOneErrorLineNamingFileAndLine) {
  ScratchDir d("screen-bad");
  const auto bad = [&](const std::string& table, const std::string& where) {
    SCOPED_TRACE(table);
    const std::string path = d.write("bad.csv", table);
    expect_one_line_error(screen(d, "bad", " --screen.experiments=" + path + " --output.dir=" + d.path("out")), path + ":" + where);
  };
  bad("name,excite,speed\na,,\n", "1: unknown column 'speed'");
  bad("name\trate_hz\na\t100\n", "1: unknown column 'name\\x09rate_hz'; the columns are name, excite, rate_hz, excite2, "
                                  "rate2_hz, silence (the header has no commas but tabs: flysim reads comma-separated files)");
  bad("name,excite\na,\nb,720575940600000001\n", "3: column 'excite': neuron ID 720575940600000001 is not in the network");
  bad("name,rate_hz\na,100\nb,120\na,140\n", "4: experiment name 'a' is already used at " + d.path("bad.csv") + ":2");
  bad("name,rate_hz\na,fast\n", "2: column 'rate_hz': 'fast' is not a rate");
  // A name that would split a field or open a quoted one in the outputs, or hold a control
  // character; a quote left open on its line.
  bad("name,rate_hz\n\"a,b\",100\n", "2: experiment name 'a,b' holds a comma, a quote, a control character or bytes that are not UTF-8");
  bad("name,rate_hz\n\"a\"\"b\",100\n", "2: experiment name 'a\"b' holds a comma, a quote, a control character or bytes that are not UTF-8");
  bad("name,rate_hz\na\tb,100\n", "2: experiment name 'a\\x09b' holds a comma, a quote, a control character or bytes that are not UTF-8");
  bad("name,rate_hz\nx\xff,100\n", "2: experiment name 'x\\xff' holds a comma, a quote, a control character or bytes that are not UTF-8");
  bad("name,rate_hz\n\"abc,100\n", "2: a quoted field is not closed on its line");
  bad("name,rate_hz\na = b,100\n", "2: experiment name 'a = b' holds ' = ', which the screen's progress folder uses to separate");
  // pandas' row numbers, and bytes that are not text, are named printably.
  bad(",name,rate_hz\n0,a,100\n", "1: unknown column ''; the columns are name, excite, rate_hz, excite2, rate2_hz, silence (an "
                                    "unnamed first column is pandas' row numbers: write the table with index=False)");
  bad("name,rate_hz\nx,1\xff" "0\n", "2: column 'rate_hz': '1\\xff0' is not a rate");
  const std::string twice = d.write("twice.txt", stimulated_ids()[0] + "\n" + stimulated_ids()[1] + "\n" + stimulated_ids()[0] + "\n");
  expect_one_line_error(screen(d, "twice", " --screen.silence-each=" + twice + " --output.dir=" + d.path("out")),
                        twice + ":3: neuron ID " + stimulated_ids()[0] + " is listed twice (first on line 1): one experiment per neuron");
  EXPECT_FALSE(fs::exists(d.path("out/.screen-parts")));
}


// Sets environment variables for the children started in its scope.
class ScopedEnv {
 public:
  explicit ScopedEnv(const std::map<std::string, std::string>& vars) : vars_(vars) {
    for (const auto& [name, value] : vars_) setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : vars_) unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::string> vars_;
};

// Six experiments (baseline and the table's five) with spikes, as options of flysim screen.
std::string six_experiments(const Screen& s) {
  return " --screen.experiments=" + s.table + " --screen.baseline=true --screen.spikes=true --run.trials=2";
}

CliResult merge(const ScratchDir& d, const std::string& tag, const std::string& args) {
  return run_flysim("screen merge" + args + " --screen.plot=false", d.path(tag + ".out"), d.path(tag + ".err"));
}

TEST(ScreenCli, ThreePartsMergeToTheFilesOfTheWholeScreen) {
  ScratchDir d("screen-parts");
  const Screen s = make_screen(d);
  const std::string args = six_experiments(s);
  ASSERT_EQ(screen(d, "whole", args + " --output.dir=" + d.path("whole")).code, 0);
  for (const std::string k : {"1", "2"}) {
    // Part 2 with its own network cache, as on another node: the same network, the same screen.
    const std::string cache = k == "2" ? " --network.cache-dir=" + d.path("cache2") : "";
    const CliResult part = screen(d, "part" + k, args + cache + " --screen.part=" + k + "/3 --output.dir=" + d.path("part" + k));
    ASSERT_EQ(part.code, 0) << part.err;
    EXPECT_NE(part.err.find("part " + k + "/3: 2 of 6 experiments"), std::string::npos) << part.err;
    EXPECT_FALSE(fs::exists(d.path("part" + k + "/rates.csv")));  // a part writes only its progress
  }
  {
    // Slurm's --array=0-2: task 2 is the third part.
    const ScopedEnv slurm({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_ARRAY_TASK_MIN", "0"}});
    const CliResult part = screen(d, "part3", args + " --screen.part=auto --output.dir=" + d.path("part3"));
    ASSERT_EQ(part.code, 0) << part.err;
    EXPECT_NE(part.err.find("part 3/3: 2 of 6 experiments"), std::string::npos) << part.err;
  }
  const CliResult merged = merge(d, "merge", " " + d.path("part3") + " " + d.path("part1") + " " + d.path("part2") + " --output.dir=" + d.path("merged"));
  ASSERT_EQ(merged.code, 0) << merged.err;
  for (const std::string name : {"rates.csv", "readouts.csv", "spikes.csv"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(std::system(("cmp -s " + d.path("whole/" + name) + " " + d.path("merged/" + name)).c_str()), 0);
  }
  EXPECT_GT(count_of(slurp(d.path("merged/spikes.csv")), "\n"), 100u);
  // The merged folder is the whole screen's: resuming it re-assembles without running anything.
  const CliResult resumed = screen(d, "resumed", args + " --screen.resume=true --output.dir=" + d.path("merged"));
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("(0 run now)"), std::string::npos) << resumed.out;
}

// A part changed or cut short after it was committed is named where it lies, with one
// error line, and the folder's earlier files stay as they were: a spike part of another
// size before anything runs, one of the same size but other bytes when the files are
// joined, a counts part with an edited count by its checksum; merge refuses such a part
// before it makes its output folder.
TEST(ScreenCli, DamagedPartsAreNamedAndNothingIsWritten) {
  ScratchDir d("screen-damaged");
  const Screen s = make_screen(d);
  const std::string dir = d.path("out"), args = six_experiments(s) + " --output.dir=" + dir;
  ASSERT_EQ(screen(d, "whole", args).code, 0);
  const std::string parts = dir + "/.screen-parts/";
  const std::string resume = args + " --screen.resume=true";
  spit(dir + "/rates.csv", "earlier\n");
  const auto keeps_earlier_files = [&] { EXPECT_EQ(slurp(dir + "/rates.csv"), "earlier\n"); };

  const std::string spikes = slurp(parts + "00002.spikes.csv");
  ASSERT_GT(spikes.size(), 100u);
  spit(parts + "00002.spikes.csv", spikes.substr(0, spikes.size() / 2));
  const CliResult cut = screen(d, "cut", resume);
  expect_one_line_error(cut, parts + "00002.spikes.csv: " + std::to_string(spikes.size() / 2) + " bytes, where its counts part records " +
                                 std::to_string(spikes.size()) + ": the spike part is damaged (delete it and 00002.counts");
  EXPECT_EQ(cut.out.find("run now"), std::string::npos) << "refused before anything runs: " << cut.out;
  keeps_earlier_files();

  std::string changed = spikes;
  changed[changed.size() / 2] = changed[changed.size() / 2] == '1' ? '2' : '1';
  spit(parts + "00002.spikes.csv", changed);
  expect_one_line_error(screen(d, "changed", resume), parts + "00002.spikes.csv: " + std::to_string(spikes.size()) +
                                                          " bytes of other content, where its counts part records");
  keeps_earlier_files();
  spit(parts + "00002.spikes.csv", spikes);

  const std::string counts = slurp(parts + "00001.counts");
  std::string edited = counts;
  const std::size_t digit = edited.find_first_of("0123456789", edited.find('\n', edited.find("trials")) + 1);
  edited[digit] = edited[digit] == '9' ? '8' : '9';
  spit(parts + "00001.counts", edited);
  expect_one_line_error(screen(d, "edited", resume), parts + "00001.counts:");
  EXPECT_NE(slurp(d.path("edited.err")).find("its checksum does not match its text: the screen's part file is damaged"),
            std::string::npos)
      << slurp(d.path("edited.err"));
  keeps_earlier_files();
  spit(parts + "00001.counts", counts);

  // Merge: a part's spike part changed in place is refused before OUT is made.
  ASSERT_EQ(screen(d, "part1", six_experiments(s) + " --screen.part=1/2 --output.dir=" + d.path("part1")).code, 0);
  ASSERT_EQ(screen(d, "part2", six_experiments(s) + " --screen.part=2/2 --output.dir=" + d.path("part2")).code, 0);
  const std::string part_spikes = d.path("part2/.screen-parts/00001.spikes.csv");
  std::string flipped = slurp(part_spikes);
  flipped[flipped.size() / 3] = flipped[flipped.size() / 3] == '1' ? '2' : '1';
  spit(part_spikes, flipped);
  expect_one_line_error(merge(d, "merge", " " + d.path("part1") + " " + d.path("part2") + " --output.dir=" + d.path("merged")),
                        part_spikes + ": ");
  EXPECT_FALSE(fs::exists(d.path("merged")));

  // The resumed screen, its parts whole again, writes the files of the first run.
  const CliResult again = screen(d, "again", resume);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("(0 run now)"), std::string::npos) << again.out;
  EXPECT_NE(slurp(dir + "/rates.csv"), "earlier\n");
}

// A disk that fills while the final files are written leaves every earlier file as it
// was: the three files are committed together, after the last is written.
TEST(ScreenCli, AFullDiskWhileTheFilesAreWrittenCommitsNone) {
  ScratchDir d("screen-full");
  const Screen s = make_screen(d);
  const std::string dir = d.path("out"), args = six_experiments(s) + " --output.dir=" + dir;
  ASSERT_EQ(screen(d, "whole", args).code, 0);
  const Files whole = files_in(dir);
  ASSERT_GT(whole.spikes.size(), 2 * (whole.rates.size() + 4096));
  // Files may grow to a limit (ulimit -f, in KiB) that the spike table passes: in the middle
  // of the join, or within its last KiB, which reaches the disk only when the files are
  // finished. SIGXFSZ ignored, as a full disk: the write fails with EFBIG.
  for (const std::size_t kib : {whole.rates.size() / 1024 + 2, (whole.spikes.size() - 1) / 1024}) {
    SCOPED_TRACE(std::to_string(kib) + " KiB");
    for (const std::string name : {"rates.csv", "readouts.csv", "spikes.csv"}) spit(dir + "/" + name, "earlier\n");
    const std::string limited = "bash -c 'trap \"\" XFSZ; ulimit -f " + std::to_string(kib) + "; exec \"$0\" \"$@\"'";
    BackgroundFlysim run("screen " + with_overrides(net2000() + " --screen.plot=false" + readouts_option(), args + " --screen.resume=true"),
                         d.path("full.out"), d.path("full.err"), limited);
    const int code = run.wait();
    const CliResult full{code, slurp(d.path("full.out")), slurp(d.path("full.err"))};
    expect_one_line_error(full, dir + "/spikes.csv: ");
    for (const std::string name : {"rates.csv", "readouts.csv", "spikes.csv"}) EXPECT_EQ(slurp(dir + "/" + name), "earlier\n") << name;
  }
  const CliResult again = screen(d, "again", args + " --screen.resume=true");
  ASSERT_EQ(again.code, 0) << again.err;
  expect_same(whole, files_in(dir));
}

TEST(ScreenCli, BadPartsAreOneErrorLineNamingTheOptionOrVariable) {
  ScratchDir d("screen-bad-part");
  const std::string args = " --screen.baseline=true --output.dir=" + d.path("out");
  expect_one_line_error(screen(d, "zero", args + " --screen.part=0/3"), "command line: option screen.part='0/3' part 0 is outside 1..3");
  expect_one_line_error(screen(d, "four", args + " --screen.part=4/3"), "command line: option screen.part='4/3' part 4 is outside 1..3");
  expect_one_line_error(screen(d, "none", args + " --screen.part=1/0"), "command line: option screen.part='1/0' N must lie in 1..1000000, not 0");
  // Beyond an int: refused, not wrapped into another part (or into a division by zero).
  for (const std::string n : {"2147483648", "4294967296", "4294967297", "99999999999"})
    expect_one_line_error(screen(d, "huge", args + " --screen.part=1/" + n),
                          "command line: option screen.part='1/" + n + "' N must lie in 1..1000000, not " + n);
  expect_one_line_error(screen(d, "word", args + " --screen.part=half"), "command line: option screen.part='half' is not K/N");
  unsetenv("SLURM_ARRAY_TASK_ID");
  unsetenv("SLURM_ARRAY_TASK_COUNT");
  expect_one_line_error(screen(d, "auto", args + " --screen.part=auto"), "option screen.part=auto: SLURM_ARRAY_TASK_ID is not set");
  const ScopedEnv id(std::map<std::string, std::string>{{"SLURM_ARRAY_TASK_ID", "1"}});
  expect_one_line_error(screen(d, "count", args + " --screen.part=auto"), "option screen.part=auto: SLURM_ARRAY_TASK_COUNT is not set");
  EXPECT_FALSE(fs::exists(d.path("out/.screen-parts")));
}

TEST(ScreenCli, ANetworkWithoutTheReadoutsWritesItsTablesAndDrawsNothing) {
  ScratchDir d("screen-no-readout");
  // MN9, the default readout, is not in net2000: the readout is skipped, so is the picture. The
  // plotter is `true`, which passes the check for matplotlib and would draw nothing if called.
  const CliResult r = run_flysim("screen" + net2000() + " --screen.baseline=true --screen.python=true --output.dir=" + d.path("out"),
                                 d.path("plot.out"), d.path("plot.err"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("screen.png is not drawn"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(d.path("out/rates.csv")));
  EXPECT_FALSE(fs::exists(d.path("out/screen.png")));
}

TEST(ScreenCli, CudaDevicesWithoutTheCudaEngineIsOneErrorLine) {
  ScratchDir d("screen-bad-devices");
  const std::string args = " --screen.baseline=true --output.dir=" + d.path("out");
  expect_one_line_error(screen(d, "cpu", args + " --engine.cuda-devices=0,0"),
                        "command line: option engine.cuda-devices='0,0' applies to engine.kind=cuda only");
  EXPECT_FALSE(fs::exists(d.path("out/.screen-parts")));
}

TEST(ScreenCli, MergeRefusesPartsThatAreNotOneWholeScreen) {
  ScratchDir d("screen-merge-bad");
  const Screen s = make_screen(d);
  const std::string args = six_experiments(s);
  for (const std::string k : {"1", "2", "3"})
    ASSERT_EQ(screen(d, "part" + k, args + " --screen.part=" + k + "/3 --output.dir=" + d.path("part" + k)).code, 0);
  ASSERT_EQ(screen(d, "other", args + " --stimulus.rate=100 --screen.part=3/3 --output.dir=" + d.path("other")).code, 0);
  const std::string p1 = d.path("part1"), p2 = d.path("part2"), p3 = d.path("part3"), out = " --output.dir=" + d.path("merged");
  expect_one_line_error(merge(d, "missing", " " + p1 + " " + p2 + out), "screen merge: part 3/3 of the screen in " + p1 + " is missing");
  expect_one_line_error(merge(d, "other", " " + p1 + " " + p2 + " " + d.path("other") + out),
                        p1 + " and " + d.path("other") + " are parts of different screens: stimulus.rate was '150', now '100'");
  expect_one_line_error(merge(d, "twice", " " + p1 + " " + p2 + " " + p2 + " " + p3 + out), "part 2/3 is given twice: " + p2 + " and " + p2);
  fs::remove(p2 + "/.screen-parts/00004.counts");  // experiment 4, "two groups", is part 2's
  expect_one_line_error(merge(d, "lost", " " + p1 + " " + p2 + " " + p3 + out),
                        "experiment 'two groups' of part 2/3 is not done in " + p2 + "/.screen-parts");
  EXPECT_FALSE(fs::exists(d.path("merged")));  // nothing written before the checks pass
  // A damaged part is named where it lies, and nothing of the merge is written.
  ASSERT_EQ(screen(d, "part2again", args + " --screen.part=2/3 --screen.resume=true --output.dir=" + p2).code, 0);
  const std::string damaged = p3 + "/.screen-parts/00002.counts";
  const std::string head = slurp(damaged).substr(0, 20);
  spit(damaged, head);
  const CliResult broken = merge(d, "damaged", " " + p1 + " " + p3 + " " + p2 + out);
  EXPECT_EQ(broken.code, 2) << broken.err;
  EXPECT_EQ(broken.err.rfind("flysim: error: " + damaged + ":", 0), 0u) << broken.err;
  EXPECT_FALSE(fs::exists(d.path("merged")));
}

}  // namespace
}  // namespace flysim::test
