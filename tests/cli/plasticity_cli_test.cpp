// Plasticity end to end through the flysim program (kernels/stdp/README.md): the shard
// count changes nothing, checkpoints restore with another shard count, swaps carry the
// learned weights, remote shards on loopback learn the same, and a node that goes away
// stops the run at its last checkpoint. net2000 with its Poisson neurons and kicks,
// every excitatory connection plastic; runs are compared byte for byte.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "checkpoint/checkpoint_file.hpp"
#include "cli_support.hpp"
#include "file_events.hpp"
#include "shared_runs.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class Plasticity : public ::testing::Test {
 protected:
  // Shared by every test (and test process) of the build: the baseline, and a run that
  // wrote checkpoints. The folders of the tests are this process's.
  static void SetUpTestSuite() {
    suite_ = empty_process_folder("flysim-plasticity");
    shared_ = with_shared_runs("plasticity", [](const fs::path& shared) {
      fs::create_directories(shared / "ckpt");
      baseline_ = run_flysim_kept(
          "run " + run_args(shared, "--plasticity.shards=1 " + outputs(shared) + " --output.summary=" +
                                        (shared / "summary.json").string()),
          shared, "baseline");
      checkpointed_ = run_flysim_kept("run " + run_args(shared, "--plasticity.shards=4 --checkpoint.every-ms=100 "
                                                                "--checkpoint.keep=10 --checkpoint.dir=" +
                                                                    (shared / "ckpt").string()),
                                      shared, "checkpointed");
    });
  }
  static void TearDownTestSuite() { fs::remove_all(suite_); }

  void SetUp() override {
    ASSERT_EQ(baseline_.code, 0) << baseline_.err;
    dir_ = suite_ / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(dir_);
  }

  static std::string network_args(const fs::path& shared = shared_) {
    return "--network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " --network.cache-dir=" + (shared / "cache").string();
  }
  // Two trials of 300 ms; periods of 2 delay cells, so a run has many of them.
  static std::string plasticity_args() { return "--plasticity.enabled=true --plasticity.period-ms=3.6"; }
  static std::string outputs(const fs::path& where) {
    return "--output.spikes=" + (where / "spikes.csv").string() + " --plasticity.weights-out=" + (where / "weights.csv").string();
  }
  static CliResult flysim_in(const fs::path& where, const std::string& tag, const std::string& args) {
    return run_flysim(args, (where / (tag + ".out")).string(), (where / (tag + ".err")).string());
  }
  // The options of a run on the network cache in `shared`, `extra` overriding.
  static std::string run_args(const fs::path& shared, const std::string& extra,
                              const std::string& plan = "--run.duration-ms=300 --run.trials=2") {
    return with_overrides(network_args(shared) + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
                              " --stimulus.kicks=" + data_path("net2000/kicks.csv") + " " + plan + " --engine.threads=2 " +
                              plasticity_args(),
                          extra);
  }
  static CliResult run_in(const fs::path& where, const std::string& tag, const std::string& extra,
                          const std::string& plan = "--run.duration-ms=300 --run.trials=2") {
    return flysim_in(where, tag, "run " + run_args(shared_, extra, plan));
  }
  CliResult run(const std::string& tag, const std::string& extra) const { return run_in(dir_, tag, extra); }
  CliResult restore(const std::string& tag, const std::string& file, const std::string& extra) const {
    return flysim_in(dir_, tag, "run " + with_overrides(network_args() + " --engine.threads=2 --restore=" + file, extra));
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string checkpoint(int trial, int step) {
    char name[64];
    std::snprintf(name, sizeof name, "flysim-trial%04d-step%09d.ckpt", trial, step);
    return (shared_ / "ckpt" / name).string();
  }
  static std::string baseline(const std::string& name) { return slurp((shared_ / name).string()); }

  static inline fs::path suite_, shared_;
  static inline CliResult baseline_, checkpointed_;
  fs::path dir_;
};

// Lines of a weights CSV whose final weight differs from the initial one.
std::size_t changed_weights(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::size_t changed = 0;
  while (std::getline(in, line)) {
    const std::size_t a = line.rfind(','), b = line.rfind(',', a - 1);
    changed += line.substr(b + 1, a - b - 1) != line.substr(a + 1);
  }
  return changed;
}

TEST_F(Plasticity, LearnsAndChangesTheSpikes) {
  EXPECT_EQ(count_of(baseline("weights.csv"), "\n"), 72189u);  // header + every excitatory connection of net2000
  EXPECT_GT(changed_weights(baseline("weights.csv")), 100u);
  const nlohmann::json summary = read_summary((shared_ / "summary.json").string());
  EXPECT_EQ(summary["plasticity"].value("shards", 0), 1);
  EXPECT_GT(summary["plasticity"].value("weight_changes", 0u), 0u);
  EXPECT_EQ(summary["plasticity"].value("plastic_connections", 0u), 72188u);
  // net2000's strongest excitatory connections (up to 268 synapses) weigh more than the default w-max (100 synapses).
  EXPECT_NE(baseline_.err.find("plasticity: 18 of 72188 plastic connections weigh more than plasticity.w-max (6553600 units; the largest weighs 17563648)"),
            std::string::npos)
      << baseline_.err;
  const CliResult fixed = flysim_in(dir_, "fixed",
                                    "run " + network_args() + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
                                        " --stimulus.kicks=" + data_path("net2000/kicks.csv") +
                                        " --run.duration-ms=300 --run.trials=2 --output.spikes=" + path("spikes.csv"));
  ASSERT_EQ(fixed.code, 0) << fixed.err;
  EXPECT_NE(slurp(path("spikes.csv")), baseline("spikes.csv"));
}

TEST_F(Plasticity, ShardCountChangesNothing) {
  for (const char* shards : {"2", "3", "16"}) {
    const CliResult r = run(std::string("shards") + shards, std::string("--plasticity.shards=") + shards + " " + outputs(dir_));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_text(baseline("spikes.csv"), slurp(path("spikes.csv")))) << shards << " shards";
    EXPECT_TRUE(same_text(baseline("weights.csv"), slurp(path("weights.csv")))) << shards << " shards";
  }
}

TEST_F(Plasticity, SwapsCarryTheLearnedWeights) {
  const CliResult r = run("swapped", "--plasticity.shards=2 --run.swap-at=100:cpu,450:cpu " + outputs(dir_) +
                                      " --output.summary=" + path("summary.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_summary(path("summary.json"))["swaps"].size(), 2u) << r.out;
  EXPECT_TRUE(same_text(baseline("spikes.csv"), slurp(path("spikes.csv"))));
  EXPECT_TRUE(same_text(baseline("weights.csv"), slurp(path("weights.csv"))));
}

// Short periods (one or two delay cells) leave the engine less room than the sim loop's
// window of 4 epochs: the loop must still wait for each period's update and apply it
// exactly one period after the period ends (the summary lists every update and where it
// was applied), however the shards are spread and however fast they answer.
TEST_F(Plasticity, ShortPeriodsApplyOnScheduleWithAnyShardCount) {
  const std::string strong = "--stimulus.rate=400 --plasticity.a-plus=30000 --plasticity.a-minus=20000 ";
  for (const int cells : {1, 2}) {
    const int period = 18 * cells;
    std::string first_spikes, first_weights;
    for (const char* shards : {"1", "4", "16"}) {
      const std::string tag = "p" + std::to_string(cells) + "s" + shards;
      const CliResult r = run(tag, strong + "--plasticity.period-ms=" + std::to_string(0.1 * period) +
                                       " --plasticity.shards=" + shards + " " + outputs(dir_) +
                                       " --output.summary=" + path("summary.json"));
      ASSERT_EQ(r.code, 0) << r.err;
      const nlohmann::json plasticity = read_summary(path("summary.json"))["plasticity"];
      const nlohmann::json& applied = plasticity["applied"];
      uint64_t changes = 0;
      for (const nlohmann::json& update : applied) {
        const int trial = update["period"]["trial"], first = update["period"]["step"];
        const int at_trial = update["at"]["trial"], at_step = update["at"]["step"];
        const int due = first + 2 * period;
        if (due < 3000) {
          EXPECT_EQ(at_trial, trial) << update;
          EXPECT_EQ(at_step, due) << update;
        } else {
          EXPECT_EQ(at_trial, trial + 1) << update;
          EXPECT_EQ(at_step, 0) << update;
        }
        changes += update["changes"].get<uint64_t>();
      }
      const std::size_t periods = 2u * ((3000 + period - 1) / period);
      EXPECT_EQ(applied.size(), periods) << tag;
      EXPECT_EQ(plasticity["updates"], periods) << tag;
      EXPECT_EQ(plasticity["weight_changes"], changes) << tag;
      EXPECT_NE(r.out.find(" weight changes applied in " + std::to_string(periods) + " updates"), std::string::npos)
          << r.out;
      if (first_spikes.empty()) {
        first_spikes = slurp(path("spikes.csv"));
        first_weights = slurp(path("weights.csv"));
        EXPECT_GT(changed_weights(first_weights), 100u);
      } else {
        EXPECT_TRUE(same_text(first_spikes, slurp(path("spikes.csv")))) << tag;
        EXPECT_TRUE(same_text(first_weights, slurp(path("weights.csv")))) << tag;
      }
    }
  }
}

// Checkpoints fall on period boundaries (36 steps): 100 ms -> step 1008, 200 ms -> 2016.
TEST_F(Plasticity, CheckpointOfFourShardsContinuesWithTwo) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  for (const auto& [trial, step] : {std::pair{0, 2016}, std::pair{1, 1008}}) {
    ASSERT_TRUE(fs::exists(checkpoint(trial, step))) << checkpointed_.err;
    const CliResult r = restore("restored" + std::to_string(trial), checkpoint(trial, step),
                                plasticity_args() + " --plasticity.shards=2 " + outputs(dir_));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_text(spikes_from(baseline("spikes.csv"), trial, step), slurp(path("spikes.csv"))));
    EXPECT_TRUE(same_text(baseline("weights.csv"), slurp(path("weights.csv"))));
  }
}

// A checkpoint holds the same bytes whatever the shard count (and however fast the
// shards answered): the state at the boundary, nothing later.
TEST_F(Plasticity, CheckpointFilesDoNotDependOnTheShardCount) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  const CliResult r = run("one", "--plasticity.shards=1 --checkpoint.every-ms=100 --checkpoint.keep=10 --checkpoint.dir=" +
                                     path("ckpt"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::size_t compared = 0;
  for (const auto& entry : fs::directory_iterator(path("ckpt"))) {
    const fs::path theirs = shared_ / "ckpt" / entry.path().filename();
    ASSERT_TRUE(fs::exists(theirs)) << theirs;
    EXPECT_TRUE(slurp(entry.path().string()) == slurp(theirs.string())) << entry.path().filename();
    ++compared;
  }
  EXPECT_EQ(compared, 5u);  // 100..500 ms of the 600 simulated
}

TEST_F(Plasticity, RestoreRefusesOtherPlasticitySettings) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  const std::string file = checkpoint(0, 2016);
  expect_one_line_error(restore("without", file, ""), file + ": the checkpoint was written with plasticity");
  expect_one_line_error(restore("other", file, plasticity_args() + " --plasticity.a-plus=1"),
                        file + ": the checkpoint's plasticity settings differ");
  EXPECT_TRUE(fs::exists(file));
}

// A checkpoint whose checksum is right but whose learned state does not fit (written by
// hand, or by a broken tool) is one error line, not a crash: here a trace stamped after
// the checkpoint's own step.
TEST_F(Plasticity, RestoreRefusesAnInconsistentLearnedState) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  CheckpointHeader header;
  Snapshot snapshot = load_checkpoint_unchecked(checkpoint(0, 2016), &header);
  snapshot.plasticity.pre.step[5] = 2500;
  const std::string bad = path("bad.ckpt");
  save_checkpoint(bad, snapshot, {header.compatibility, header.kernel_version, header.network_hash});
  expect_one_line_error(restore("bad", bad, plasticity_args()), bad + ": the checkpoint does not fit this network: the plasticity traces");
}

TEST_F(Plasticity, OptionsAreCheckedBeforeTheNetworkLoads) {
  expect_one_line_error(flysim_in(dir_, "shards", "run --plasticity.shards=2"), "command line: option plasticity.shards");
  expect_one_line_error(run("nodes", "--plasticity.nodes=nohost"), "command line: option plasticity.nodes");
  expect_one_line_error(run("tau", "--plasticity.tau-plus-ms=0"), "command line: option plasticity.tau-plus-ms");
  expect_one_line_error(run("period", "--plasticity.period-ms=-1"), "command line: option plasticity.period-ms");
  expect_one_line_error(run("out", "--plasticity.weights-out=" + path("missing/w.csv")), "command line: option plasticity.weights-out");
  // Nothing listens on port 1 of loopback.
  expect_one_line_error(run("unreachable", "--plasticity.nodes=127.0.0.1:1"), "plasticity.nodes: cannot reach the shard node 127.0.0.1:1");
}

// True when /proc/net/tcp shows a listener on `port` bound to 127.0.0.1 and none elsewhere.
bool listens_on_loopback_only(unsigned port) {
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);
  char hex_port[8];
  std::snprintf(hex_port, sizeof hex_port, ":%04X", port);
  bool loopback = false, elsewhere = false;
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    fields >> slot >> local >> remote >> state;
    if (state != "0A" || !local.ends_with(hex_port)) continue;
    (local.starts_with("0100007F:") ? loopback : elsewhere) = true;
  }
  return loopback && !elsewhere;
}

unsigned port_of(const std::string& line) { return static_cast<unsigned>(std::stoul(line.substr(line.rfind(':') + 1))); }

TEST_F(Plasticity, RemoteShardsOnLoopbackLearnTheSame) {
  BackgroundFlysim node("shard --port=0", path("node.out"), path("node.err"));
  const std::string serving = node.wait_for_output("serving plasticity shards on 127.0.0.1:", 30);
  ASSERT_FALSE(serving.empty()) << slurp(path("node.err"));
  const unsigned port = port_of(serving);
  EXPECT_TRUE(listens_on_loopback_only(port));
  const CliResult r = run("remote", "--plasticity.shards=3 --plasticity.nodes=127.0.0.1:" + std::to_string(port) + ",local " +
                                        outputs(dir_));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(same_text(baseline("spikes.csv"), slurp(path("spikes.csv"))));
  EXPECT_TRUE(same_text(baseline("weights.csv"), slurp(path("weights.csv"))));
  EXPECT_EQ(count_of(r.err, "on 127.0.0.1:" + std::to_string(port)), 2u) << r.err;  // shards 1 and 3
  EXPECT_EQ(node.stop(SIGTERM), 0) << slurp(path("node.err"));
}

// The node is killed mid-run: the run stops (exit 1) naming the node and its last
// checkpoint, writes no output, and a restore from that checkpoint with local shards
// ends exactly where the uninterrupted run ends.
TEST_F(Plasticity, NodeThatGoesAwayStopsTheRunAtItsLastCheckpoint) {
  const std::string plan = "--run.duration-ms=20000 --run.trials=1";
  const CliResult whole = run_in(dir_, "whole", "--plasticity.shards=2 " + outputs(dir_), plan);
  ASSERT_EQ(whole.code, 0) << whole.err;
  const std::string whole_spikes = slurp(path("spikes.csv")), whole_weights = slurp(path("weights.csv"));
  fs::remove(path("spikes.csv"));
  fs::remove(path("weights.csv"));

  BackgroundFlysim node("shard --port=0", path("node.out"), path("node.err"));
  const std::string serving = node.wait_for_output("serving plasticity shards on", 30);
  ASSERT_FALSE(serving.empty()) << slurp(path("node.err"));
  const fs::path ckpt = dir_ / "ckpt";
  BackgroundFlysim runner("run " + network_args() + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
                              " --stimulus.kicks=" + data_path("net2000/kicks.csv") + " " + plan + " --engine.threads=2 " +
                              plasticity_args() + " --plasticity.shards=2 --plasticity.nodes=127.0.0.1:" +
                              std::to_string(port_of(serving)) + " --checkpoint.every-ms=200 --checkpoint.keep=100 --checkpoint.dir=" +
                              ckpt.string() + " " + outputs(dir_),
                          path("run.out"), path("run.err"));
  // Two complete checkpoints (a file being written has another name), then the node dies.
  const auto complete = [&] {
    std::size_t n = 0;
    if (fs::exists(ckpt))
      for (const auto& entry : fs::directory_iterator(ckpt)) n += entry.path().extension() == ".ckpt";
    return n;
  };
  fs::create_directories(ckpt);
  ASSERT_TRUE(wait_in_folder(ckpt.string(), [&] { return complete() >= 2; }, 60)) << slurp(path("run.err"));
  node.stop(SIGKILL);
  EXPECT_EQ(runner.wait(), 1) << slurp(path("run.err"));
  const std::string err = slurp(path("run.err"));
  ASSERT_NE(err.find("plasticity shard 1 of 2 (127.0.0.1:"), std::string::npos) << err;
  EXPECT_NE(err.find("went away"), std::string::npos) << err;
  const std::size_t at = err.find("--restore=");
  ASSERT_NE(at, std::string::npos) << err;
  const std::string last = err.substr(at + 10, err.find('\n', at) - at - 10);
  ASSERT_TRUE(fs::exists(last)) << last;
  EXPECT_FALSE(fs::exists(path("spikes.csv")));
  EXPECT_FALSE(fs::exists(path("weights.csv")));

  const std::string name = fs::path(last).filename().string();
  const int step = std::stoi(name.substr(name.find("step") + 4));
  const CliResult resumed = restore("resumed", last, plasticity_args() + " --plasticity.shards=1 " + outputs(dir_));
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_TRUE(same_text(spikes_from(whole_spikes, 0, step), slurp(path("spikes.csv"))));
  EXPECT_TRUE(same_text(whole_weights, slurp(path("weights.csv"))));
}

// A node that freezes (SIGSTOP: its connection stays open but silent, as when a machine
// or network vanishes without closing it) is found by the heartbeats: the run stops
// within the silence limit (10 s) with the same message, instead of waiting forever.
TEST_F(Plasticity, FrozenNodeIsDetectedBySilence) {
  BackgroundFlysim node("shard --port=0", path("node.out"), path("node.err"));
  const std::string serving = node.wait_for_output("serving plasticity shards on", 30);
  ASSERT_FALSE(serving.empty()) << slurp(path("node.err"));
  BackgroundFlysim runner("run " + network_args() + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
                              " --run.duration-ms=1000000 --engine.threads=2 " + plasticity_args() +
                              " --plasticity.shards=2 --plasticity.nodes=127.0.0.1:" + std::to_string(port_of(serving)),
                          path("run.out"), path("run.err"));
  ASSERT_FALSE(runner.wait_for_log("trial 1/1:", 60).empty()) << slurp(path("run.err"));
  node.send(SIGSTOP);
  // Found by the silence limit (10 s); a run still going after 60 s never would be.
  EXPECT_EQ(runner.wait_for(60), 1) << slurp(path("run.err"));
  const std::string err = slurp(path("run.err"));
  EXPECT_NE(err.find("went away"), std::string::npos) << err;
  EXPECT_NE(err.find("no checkpoint was written"), std::string::npos) << err;
  node.stop(SIGKILL);
}

}  // namespace
}  // namespace flysim::test
