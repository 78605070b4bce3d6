// State that moves, end to end through the flysim program: scheduled engine swaps,
// checkpoints written during a run, runs restored from them, and the refusals. On
// net2000 with its 21 Poisson neurons and its kicks, 2 trials of 300 ms; every run is
// compared with the uninterrupted run byte for byte.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checkpoint/checkpoint_file.hpp"
#include "kernels/engine_factory.hpp"
#include "checkpoint_support.hpp"
#include "cli_support.hpp"
#include "shared_runs.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

class HotSwap : public ::testing::Test {
 protected:
  // Shared by every test (and test process) of the build: the uninterrupted run, and one
  // run that wrote checkpoints. The folders of the tests are this process's.
  static void SetUpTestSuite() {
    suite_ = empty_process_folder("flysim-hotswap");
    shared_ = with_shared_runs("hotswap", [](const fs::path& shared) {
      fs::create_directories(shared / "ckpt");
      const auto file = [&](const char* name) { return (shared / name).string(); };
      baseline_ = run_flysim_kept("run " + run_args(shared, "--output.spikes=" + file("spikes.csv") + " --output.rates=" +
                                                                file("rates.csv") + " --output.summary=" + file("summary.json")),
                                  shared, "baseline");
      checkpointed_ = run_flysim_kept(
          "run " + run_args(shared, "--checkpoint.every-ms=90 --checkpoint.dir=" + file("ckpt") + " --checkpoint.keep=2 " +
                                        "--output.spikes=" + file("ck_spikes.csv") + " --output.rates=" + file("ck_rates.csv")),
          shared, "checkpointed");
    });
  }
  static void TearDownTestSuite() { fs::remove_all(suite_); }

  void SetUp() override {
    ASSERT_EQ(baseline_.code, 0) << baseline_.err;
    dir_ = suite_ / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(dir_);
  }

  static std::string data_args() {
    return "--network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " --stimulus.ids=" + data_path("net2000/stimulated.txt") +
           " --stimulus.kicks=" + data_path("net2000/kicks.csv");
  }
  static std::string plan_args() { return "--run.duration-ms=300 --run.trials=2 --engine.threads=2"; }

  // `flysim ARGS` with the suite's network cache; stdout and stderr kept in `where`.
  static CliResult flysim_in(const fs::path& where, const std::string& tag, const std::string& args) {
    return run_flysim(args, (where / (tag + ".out")).string(), (where / (tag + ".err")).string());
  }
  // The options of a run on the suite's network cache (in `shared`), `extra` overriding.
  static std::string run_args(const fs::path& shared, const std::string& extra) {
    return with_overrides(data_args() + " " + plan_args() + " --network.cache-dir=" + (shared / "cache").string(), extra);
  }
  static CliResult run_in(const fs::path& where, const std::string& tag, const std::string& extra) {
    return flysim_in(where, tag, "run " + run_args(shared_, extra));
  }
  CliResult run(const std::string& tag, const std::string& extra) const { return run_in(dir_, tag, extra); }
  // A restore: the network, the model and the engine come from the options; the plan
  // (trials, duration, stimulus) from the checkpoint.
  CliResult restore(const std::string& tag, const std::string& file, const std::string& extra,
                 const std::string& connectivity = data_path("net2000/connectivity.csv")) const {
    return flysim_in(dir_, tag, "run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
                                    connectivity + " --network.cache-dir=" + (shared_ / "cache").string() +
                                    " --restore=" + file + " " + extra);
  }
  CliResult inspect(const std::string& tag, const std::string& file) const {
    return flysim_in(dir_, tag, "checkpoint inspect " + file);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string checkpoint(int trial, int step) {
    char name[64];
    std::snprintf(name, sizeof name, "flysim-trial%04d-step%09d.ckpt", trial, step);
    return (shared_ / "ckpt" / name).string();
  }
  static std::string baseline_spikes() { return slurp((shared_ / "spikes.csv").string()); }
  static std::string baseline_rates() { return slurp((shared_ / "rates.csv").string()); }

  // Files in this test's folder other than the logs of the runs.
  std::vector<std::string> outputs() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      const std::string name = entry.path().filename().string();
      if (!name.ends_with(".out") && !name.ends_with(".err")) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  static inline fs::path suite_, shared_;
  static inline CliResult baseline_, checkpointed_;
  fs::path dir_;
};

TEST_F(HotSwap, BaselineHasSpikesInBothTrials) {
  const std::string spikes = baseline_spikes();
  EXPECT_GT(count_of(spikes, "\n0,"), 1000u);
  EXPECT_GT(count_of(spikes, "\n1,"), 1000u);
  const nlohmann::json summary = read_summary((shared_ / "summary.json").string());
  EXPECT_EQ(summary.value("trials", 0), 2);
  EXPECT_EQ(summary.value("ms_per_trial", 0.0), 300.0);
  EXPECT_EQ(summary.value("spikes", 0u), count_of(spikes, "\n") - 1);
}

// (a) Three swaps to fresh CPU engines (one in the second trial): the same bytes.
TEST_F(HotSwap, SwapsToFreshCpuEnginesChangeNothing) {
  const CliResult r = run("swapped", "--run.swap-at=100:cpu,250:cpu,450:cpu --output.spikes=" + path("spikes.csv") +
                                      " --output.rates=" + path("rates.csv") + " --output.summary=" + path("summary.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(same_text(baseline_spikes(), slurp(path("spikes.csv"))));
  EXPECT_TRUE(same_text(baseline_rates(), slurp(path("rates.csv"))));
  // The summary lists the swaps, at the delay-cell boundaries at or after 100 ms (step
  // 1008), 250 ms (2502) and 450 ms (trial 1, 150 ms: step 1512).
  const std::vector<std::string> swaps = read_summary(path("summary.json")).value("swaps", std::vector<std::string>{});
  ASSERT_EQ(swaps.size(), 3u) << r.out;
  const char* const at[] = {"trial 0 step 1008: swapped to cpu pool", "trial 0 step 2502: swapped to cpu pool",
                            "trial 1 step 1512: swapped to cpu pool"};
  for (std::size_t k = 0; k < swaps.size(); ++k) EXPECT_EQ(swaps[k].rfind(at[k], 0), 0u) << swaps[k];
}

TEST_F(HotSwap, SwapWithOtherThreadCountChangesNothing) {
  const CliResult r = run("swapped", "--engine.threads=1 --run.swap-at=55.5:cpu --output.spikes=" + path("spikes.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(same_text(baseline_spikes(), slurp(path("spikes.csv"))));
}

// (b) Checkpoints every 90 ms: at 90, 180, 270 ms of trial 0 and (trial 1) steps 612,
// 1512, 2412; only the newest two are kept. Writing them changes no output byte.
TEST_F(HotSwap, CheckpointsAreWrittenAndOnlyTheNewestKept) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(shared_ / "ckpt")) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{checkpoint(1, 1512), checkpoint(1, 2412)}));
  EXPECT_EQ(count_of(checkpointed_.err, "checkpoint written: "), 6u) << checkpointed_.err;
  EXPECT_NE(checkpointed_.err.find("checkpoint written: " + checkpoint(0, 900)), std::string::npos) << checkpointed_.err;
  EXPECT_TRUE(same_text(baseline_spikes(), slurp((shared_ / "ck_spikes.csv").string())));
  EXPECT_TRUE(same_text(baseline_rates(), slurp((shared_ / "ck_rates.csv").string())));
}

// (b) A restored run writes the spikes from its checkpoint on, and the rates of the
// whole run (the checkpoint carries the counts so far): the uninterrupted run's bytes.
TEST_F(HotSwap, RestoredRunContinuesTheUninterruptedRun) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  const CliResult r = restore("restored", checkpoint(1, 1512),
                           "--engine.threads=2 --output.spikes=" + path("spikes.csv") + " --output.rates=" + path("rates.csv") +
                               " --output.summary=" + path("summary.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string tail = spikes_from(baseline_spikes(), 1, 1512);
  EXPECT_GT(count_of(tail, "\n"), 100u);
  EXPECT_TRUE(same_text(tail, slurp(path("spikes.csv"))));
  EXPECT_TRUE(same_text(baseline_rates(), slurp(path("rates.csv"))));
  // The summary counts the whole run's spikes, as the uninterrupted run's does.
  const nlohmann::json whole = read_summary((shared_ / "summary.json").string()), restored = read_summary(path("summary.json"));
  EXPECT_GT(whole.value("spikes", 0u), 0u);
  EXPECT_EQ(restored.value("spikes", 0u), whole.value("spikes", 0u));
  EXPECT_EQ(restored.value("active_neurons", 0u), whole.value("active_neurons", 0u));
}

// Restore, other thread count, a swap after the restore point, and plan options equal to
// the checkpoint's: still the same bytes.
TEST_F(HotSwap, RestoreThenSwapContinuesTheUninterruptedRun) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  const CliResult r = restore("restored", checkpoint(1, 2412),
                           "--engine.threads=1 --run.swap-at=100:cpu,560:cpu --run.duration-ms=300 --run.trials=2 --output.spikes=" +
                               path("spikes.csv") + " --output.rates=" + path("rates.csv") + " --output.summary=" +
                               path("summary.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(same_text(spikes_from(baseline_spikes(), 1, 2412), slurp(path("spikes.csv"))));
  EXPECT_TRUE(same_text(baseline_rates(), slurp(path("rates.csv"))));
  // Only the swap after the restore point happens.
  const std::vector<std::string> swaps = read_summary(path("summary.json")).value("swaps", std::vector<std::string>{});
  ASSERT_EQ(swaps.size(), 1u) << r.out;
  EXPECT_EQ(swaps[0].rfind("trial 1 step 2610: swapped to", 0), 0u) << swaps[0];
}

// A plan option that differs from the checkpoint's plan is refused, naming the option and
// what the checkpoint holds, and nothing is written; run.batch changes no spike and is ignored.
TEST_F(HotSwap, RestoreRefusesAnotherPlan) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  const std::string good = checkpoint(1, 1512);
  spit(path("kicks.csv"), "step,neuron_id\n10,820475940600000023\n");
  const struct {
    std::string args, message;
  } cases[] = {
      {"--stimulus.rate=200", "option stimulus.rate='200' differs from the plan of " + good + " (150 Hz)"},
      {"--run.trials=3", "option run.trials='3' differs from the plan of " + good + " (2 trials)"},
      {"--run.duration-ms=50", "option run.duration-ms='50' differs from the plan of " + good + " (300 ms a trial)"},
      {"--run.seed=7", "option run.seed='7' differs from the plan of " + good + " (seed 1)"},
      {"--stimulus.kicks=" + path("kicks.csv"), "option stimulus.kicks='" + path("kicks.csv") + "' differs from the plan of " + good},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const CliResult r = restore("plan", good, c.args + " --output.spikes=" + path("refused.csv"));
    expect_one_line_error(r, "");
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("refused.csv")));
  }
  const CliResult same = restore("same", good, "--run.batch=1 --stimulus.rate=150 --run.seed=1 --output.spikes=" + path("same.csv"));
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_NE(same.err.find("run.batch is ignored"), std::string::npos) << same.err;
  EXPECT_TRUE(same_text(spikes_from(baseline_spikes(), 1, 1512), slurp(path("same.csv"))));
}

// The journal of a restored run replays: its recorded options are the checkpoint's plan
// (no default duration recorded beside --restore), and the spikes are the same bytes.
TEST_F(HotSwap, TheJournalOfARestoredRunReplays) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  const std::string start = path("start.ckpt");
  fs::copy_file(checkpoint(1, 1512), start);
  const CliResult restored = restore("journaled", start, "--output.journal=" + path("j.jsonl") + " --output.spikes=" + path("a.csv"));
  ASSERT_EQ(restored.code, 0) << restored.err;
  const std::string replay = "run --replay=" + path("j.jsonl") + " --network.cache-dir=" + (shared_ / "cache").string();
  const CliResult replayed = flysim_in(dir_, "replayed", replay + " --output.spikes=" + path("b.csv"));
  ASSERT_EQ(replayed.code, 0) << replayed.err;
  EXPECT_TRUE(same_text(slurp(path("a.csv")), slurp(path("b.csv"))));
  // Another checkpoint under the name the journal gives is refused, not replayed from.
  fs::copy_file(checkpoint(1, 2412), start, fs::copy_options::overwrite_existing);
  const CliResult other = flysim_in(dir_, "other", replay + " --output.spikes=" + path("c.csv"));
  expect_one_line_error(other, path("j.jsonl") + ":1: the live run started from the checkpoint of payload checksum ");
  EXPECT_NE(other.err.find("; " + start + " holds the one of "), std::string::npos) << other.err;
  EXPECT_FALSE(fs::exists(path("c.csv")));
}

// A restored run that writes checkpoints into the folder of the one it started from
// writes none at its own start position, so it never rewrites, nor (keep=1) removes,
// the file it was restored from.
TEST_F(HotSwap, RestoredRunLeavesItsCheckpointAlone) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  fs::create_directories(path("ckpt"));
  const std::string mine = path("ckpt/flysim-trial0001-step000001512.ckpt");
  fs::copy_file(checkpoint(1, 1512), mine);
  const auto written_at = fs::last_write_time(mine);
  const CliResult r = restore("restored", mine,
                           "--checkpoint.every-ms=90 --checkpoint.keep=1 --checkpoint.dir=" + path("ckpt") +
                               " --output.spikes=" + path("spikes.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(same_text(spikes_from(baseline_spikes(), 1, 1512), slurp(path("spikes.csv"))));
  ASSERT_TRUE(fs::exists(mine));
  EXPECT_EQ(slurp(mine), slurp(checkpoint(1, 1512)));
  EXPECT_EQ(fs::last_write_time(mine), written_at);
  EXPECT_EQ(r.err.find("checkpoint written: " + mine), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checkpoint written: " + path("ckpt/flysim-trial0001-step000002412.ckpt")), std::string::npos) << r.err;
}

// (c) Refusals of a restore: one error line naming the file, exit 2, no output file
// written and none overwritten.
TEST_F(HotSwap, RestoreIsRefusedForOtherModelNetworkOrDamagedFile) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  const std::string good = checkpoint(1, 1512);
  const std::string bytes = slurp(good);
  std::string flipped = bytes;
  flipped[bytes.size() - 5] = static_cast<char>(flipped[bytes.size() - 5] ^ 0x04);
  spit(path("flipped.ckpt"), flipped);
  spit(path("truncated.ckpt"), bytes.substr(0, bytes.size() / 2));
  spit(path("magic.ckpt"), "NOTFLYSIM" + bytes.substr(9));
  std::string header = bytes;
  header[40] = static_cast<char>(header[40] ^ 0x20);  // inside the compatibility string
  spit(path("header.ckpt"), header);
  spit(path("longer.ckpt"), bytes + "\n\n");
  ASSERT_EQ(::mkfifo(path("pipe.ckpt").c_str(), 0600), 0);
  const FifoUnblocker unblock(path("pipe.ckpt"), 20.0);
  // Right checksums around a snapshot that does not fit the network (n = 2000): a
  // spike of neuron 2000 in the delay ring, one neuron's state missing.
  CheckpointHeader identity;
  const Snapshot snapshot = load_checkpoint_unchecked(good, &identity);
  const CheckpointIdentity same{identity.compatibility, identity.kernel_version, identity.network_hash};
  Snapshot outside = snapshot;
  outside.engine.pending.push_back({outside.engine.next_step - 1, 2000});
  save_checkpoint(path("outside.ckpt"), outside, same);
  Snapshot missing = snapshot;
  missing.engine.v.pop_back();
  save_checkpoint(path("missing.ckpt"), missing, same);
  // net2000 with one connection's synapse count changed (13 -> 14).
  {
    std::ifstream in(data_path("net2000/connectivity.csv"));
    std::string text, row;
    for (int n = 1; std::getline(in, row); ++n)
      text += (n == 2 ? std::string("820475940600000023,820475940600019979,0,393,14,1,14") : row) + "\n";
    spit(path("connectivity.csv"), text);
  }
  spit(path("spikes.csv"), "an earlier file\n");
  const std::string outputs_args = " --output.spikes=" + path("spikes.csv") + " --output.rates=" + path("rates.csv");
  const std::vector<std::string> before = outputs();

  struct Case {
    std::string tag, file, args, connectivity, problem;
  };
  const std::vector<Case> cases = {
      {"tau", good, "--model.tau-m-ms=21", data_path("net2000/connectivity.csv"), "compatibility string differs (the model parameters: a restore takes its model from the options, so give "
       "the model.* options of the run that wrote the checkpoint)"},
      {"network", good, "", path("connectivity.csv"), "checkpoint of another network"},
      {"flipped", path("flipped.ckpt"), "", data_path("net2000/connectivity.csv"), "checksum mismatch"},
      {"truncated", path("truncated.ckpt"), "", data_path("net2000/connectivity.csv"), "checkpoint is damaged (truncated: "},
      {"magic", path("magic.ckpt"), "", data_path("net2000/connectivity.csv"), "wrong magic bytes"},
      {"missing", path("none.ckpt"), "", data_path("net2000/connectivity.csv"), "cannot open"},
      {"header", path("header.ckpt"), "", data_path("net2000/connectivity.csv"),
       "checkpoint is damaged (checksum mismatch in the header)"},
      {"longer", path("longer.ckpt"), "", data_path("net2000/connectivity.csv"),
       "checkpoint is damaged (2 unexpected bytes after the payload)"},
      {"fifo", path("pipe.ckpt"), "", data_path("net2000/connectivity.csv"), "is a FIFO"},
      {"outside", path("outside.ckpt"), "", data_path("net2000/connectivity.csv"),
       "the checkpoint does not fit this network: an undelivered spike is of a neuron outside 0..1999"},
      {"state", path("missing.ckpt"), "", data_path("net2000/connectivity.csv"),
       "the checkpoint does not fit this network: it holds the state of 1999 neurons (v)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tag);
    const CliResult r = restore(c.tag, c.file, c.args + outputs_args, c.connectivity);
    expect_one_line_error(r, c.file + ": ");
    EXPECT_NE(r.err.find(c.problem), std::string::npos) << r.err;
    EXPECT_EQ(outputs(), before);
    EXPECT_EQ(slurp(path("spikes.csv")), "an earlier file\n");
  }
  EXPECT_EQ(slurp(good), bytes);
}

// (d) inspect: header and position of a good file; a damaged one is an error, exit 2.
TEST_F(HotSwap, InspectShowsTheCheckpointAndRefusesDamage) {
  ASSERT_EQ(checkpointed_.code, 0) << checkpointed_.err;
  const std::string good = checkpoint(1, 1512);
  const CliResult r = inspect("inspect", good);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const std::string& expected :
       {"format version  " + std::to_string(kCheckpointFormatVersion), std::string("compatibility   flysim-compat"),
        std::string("kernel version  flysim-kernel"),
        std::string("verifies: yes"), std::string("trial           1 (of trials 0..1)"),
        std::string("step            1512 of 3000 (151.200 ms into the trial"), std::string("neurons         2000"),
        std::string("trials          2 x 3000 steps"), std::string("21 Poisson neurons at 150 Hz"),
        std::string("seed 1"), std::string("plastic weights 0")})
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  EXPECT_NE(r.out.find("timed kicks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("active neurons"), std::string::npos) << r.out;

  const std::string bytes = slurp(good);
  spit(path("truncated.ckpt"), bytes.substr(0, bytes.size() - 10));
  expect_one_line_error(inspect("truncated", path("truncated.ckpt")), path("truncated.ckpt") + ": checkpoint is damaged (truncated: ");
  std::string flipped = bytes;
  flipped[bytes.size() - 5] = static_cast<char>(flipped[bytes.size() - 5] ^ 0x04);
  spit(path("flipped.ckpt"), flipped);
  const CliResult damaged = inspect("flipped", path("flipped.ckpt"));
  expect_one_line_error(damaged, path("flipped.ckpt") + ": checkpoint is damaged (checksum mismatch in the payload)");
  EXPECT_NE(damaged.out.find("verifies: no"), std::string::npos) << damaged.out;
  expect_one_line_error(inspect("missing", path("none.ckpt")), path("none.ckpt") + ": ");
  // Intact, checked with other model options than the run's: the message says which it assumed.
  const CliResult other_model = flysim_in(dir_, "other-model", "checkpoint inspect " + good + " --model.delay-ms=1");
  expect_one_line_error(other_model, good + ": the checkpoint does not fit this network");
  EXPECT_NE(other_model.err.find("(checked as a run at dt 0.1 ms with delay cells of 10 steps; a checkpoint of a run with "
                                 "other model.dt-ms or model.delay-ms needs them given here too)"),
            std::string::npos)
      << other_model.err;
  std::string header = bytes;
  header[40] = static_cast<char>(header[40] ^ 0x20);
  spit(path("header.ckpt"), header);
  const CliResult garbled = inspect("header", path("header.ckpt"));
  expect_one_line_error(garbled, path("header.ckpt") + ": checkpoint is damaged (checksum mismatch in the header)");
  EXPECT_EQ(garbled.out, "") << "nothing of a damaged header is printed";
  spit(path("longer.ckpt"), bytes + "x");
  expect_one_line_error(inspect("longer", path("longer.ckpt")),
                        path("longer.ckpt") + ": checkpoint is damaged (1 unexpected bytes after the payload)");
  ASSERT_EQ(::mkfifo(path("pipe.ckpt").c_str(), 0600), 0);
  {
    const FifoUnblocker unblock(path("pipe.ckpt"), 20.0);
    expect_one_line_error(inspect("fifo", path("pipe.ckpt")), path("pipe.ckpt") + ": is a FIFO");
  }
  EXPECT_EQ(inspect("help", "--help").code, 0);
  EXPECT_EQ(flysim_in(dir_, "usage", "checkpoint").code, 2);
}

// A swap to cuda: without a usable CUDA engine the run ends with an error naming the
// problem, a non-zero exit and no output; with one, the same bytes as the CPU run.
TEST_F(HotSwap, SwapToCuda) {
  const CliResult r = run("cuda", "--run.swap-at=100:cuda --output.spikes=" + path("spikes.csv") + " --output.rates=" +
                                   path("rates.csv"));
  const CudaProbe probe = probe_cuda_backend(0);
  if (cuda_compiled_in() && probe.problem.empty()) {
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(same_text(baseline_spikes(), slurp(path("spikes.csv"))));
    EXPECT_TRUE(same_text(baseline_rates(), slurp(path("rates.csv"))));
    return;
  }
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.find("built without CUDA") != std::string::npos ||
              r.err.find("cannot run here") != std::string::npos)
      << r.err;
  EXPECT_TRUE(outputs().empty());
}

}  // namespace
}  // namespace flysim::test
