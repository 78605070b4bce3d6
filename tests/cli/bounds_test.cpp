// Counts and values from outside are bounded before anything is allocated or run
// (docs/RELIABILITY.md, "Sizes and values from outside"): checkpoint fields, options,
// and what `checkpoint inspect` says of a file restore refuses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>

#include "apps/flysim/options/options.hpp"
#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/snapshot_check.hpp"
#include "checkpoint_support.hpp"
#include "cli_support.hpp"
#include "model/errors.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

const CheckpointIdentity kIdentity{"flysim-compat test", "flysim-kernel test", 0xdeadbeefULL};

class Bounds : public ::testing::Test {
 protected:
  Bounds() : dir_("flysim-bounds") {}
  CliResult flysim(const std::string& tag, const std::string& args) const {
    return run_flysim(args + " --network.cache-dir=" + dir_.path("cache"), dir_.path(tag + ".out"), dir_.path(tag + ".err"));
  }
  CliResult inspect(const std::string& tag, const std::string& file) const {
    return run_flysim("checkpoint inspect " + file, dir_.path(tag + ".out"), dir_.path(tag + ".err"));
  }
  std::string net2000(const std::string& extra) const {
    return "run --network.neurons=" + data_path("net2000/neurons.csv") + " --network.connectivity=" +
           data_path("net2000/connectivity.csv") + " --stimulus.kicks=" + data_path("net2000/kicks.csv") + " " + extra;
  }
  ScratchDir dir_;
};

// A snapshot of one trial at its start whose batch field is far beyond its plan.
Snapshot batch_beyond_plan(Snapshot s) {
  s.plan.trials = 1;
  s.engine.trial = 0;
  s.batch = 1000000;
  s.later_trials.clear();
  return s;
}

TEST_F(Bounds, ACheckpointBatchBeyondItsPlanIsRefusedByField) {
  const Snapshot s = batch_beyond_plan(realistic_snapshot(500, 40, 1));
  try {
    validate_snapshot(s, 500, 18, 0.1, "x.ckpt");
    ADD_FAILURE() << "a batch of 1,000,000 for a plan of one trial was accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("x.ckpt: the checkpoint does not fit this network: field batch is 1000000"),
              std::string::npos)
        << e.what();
  }
}

// A real checkpoint of net2000 with batch 1,000,000 and checksums recomputed: restore
// refuses it by file and field before any engine is made, and inspect does not verify it.
TEST_F(Bounds, RestoreAndInspectRefuseACheckpointWithAHugeBatch) {
  const std::string ckpt_dir = dir_.path("ckpt");
  const CliResult first = flysim("first", net2000("--run.duration-ms=20 --checkpoint.every-ms=10 --checkpoint.dir=" + ckpt_dir));
  ASSERT_EQ(first.code, 0) << first.err;
  std::string written;
  for (const auto& entry : fs::directory_iterator(ckpt_dir)) written = entry.path().string();
  ASSERT_FALSE(written.empty());
  CheckpointHeader header;
  const Snapshot s = load_checkpoint_unchecked(written, &header);
  const std::string bad = dir_.path("huge-batch.ckpt");
  save_checkpoint(bad, batch_beyond_plan(s), {header.compatibility, header.kernel_version, header.network_hash});

  const CliResult restore = flysim("restore", net2000("--restore=" + bad));
  expect_one_line_error(restore, bad + ": the checkpoint does not fit this network: field batch is 1000000");
  const CliResult shown = inspect("inspect", bad);
  EXPECT_EQ(shown.code, 2) << shown.err;
  EXPECT_NE(shown.out.find("verifies: no"), std::string::npos) << shown.out;
  EXPECT_NE(shown.err.find("field batch is 1000000"), std::string::npos) << shown.err;
}

// run.batch is checked against the memory once the network is known: refused by name,
// not a std::bad_alloc.
TEST_F(Bounds, ABatchBeyondTheMemoryIsRefusedByName) {
  const CliResult r = flysim("batch", net2000("--run.trials=200000 --run.batch=200000 --run.duration-ms=1"));
  expect_one_line_error(r, "");
  EXPECT_NE(r.err.find("option run.batch='200000' a batch of 200000 trials of 2000 neurons needs"), std::string::npos) << r.err;
}

// inspect says `verifies: yes` only for a file restore would take (its checks, one
// function): each of these decodes, and each is refused.
TEST_F(Bounds, InspectRunsTheChecksOfARestore) {
  const Snapshot good = realistic_snapshot(500, 40, 1);
  const std::string ok = dir_.path("ok.ckpt");
  save_checkpoint(ok, good, kIdentity);
  const CliResult fine = inspect("ok", ok);
  EXPECT_EQ(fine.code, 0) << fine.err;
  EXPECT_NE(fine.out.find("verifies: yes"), std::string::npos) << fine.out;

  struct Damage {
    const char* name;
    std::function<void(Snapshot&)> apply;
    const char* problem;
  };
  const std::vector<Damage> damages = {
      {"nan-v", [](Snapshot& s) { s.engine.v[3] = std::nan(""); }, "not a finite number"},
      {"off-cell", [](Snapshot& s) { s.engine.next_step = 5005; }, "not a delay-cell boundary"},
      {"trial-beyond", [](Snapshot& s) { s.engine.trial = 3; }, "position trial 3"},
      {"batch-0", [](Snapshot& s) { s.batch = 0; }, "field batch is 0"},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.name);
    Snapshot bad = good;
    d.apply(bad);
    const std::string p = dir_.path(std::string(d.name) + ".ckpt");
    save_checkpoint(p, bad, kIdentity);
    const CliResult r = inspect(d.name, p);
    EXPECT_NE(r.out.find("verifies: no"), std::string::npos) << r.out;
    expect_one_line_error(r, p + ": the checkpoint does not fit this network: ");
    EXPECT_NE(r.err.find(d.problem), std::string::npos) << r.err;
  }
}

// Every model parameter has a range whose runs keep their state finite, so that their
// checkpoints restore; the check is derive_constants, at option time and at restore.
TEST_F(Bounds, ModelParametersOutsideTheirRangeAreRefusedByOption) {
  const struct {
    const char* option;
    const char* message;
  } cases[] = {
      {"--model.w-syn-mV=1e308", "parameter w_syn (model.w-syn-mV) must lie in (0, 1000] mV, got 1e+308"},
      {"--model.f-poi=-250", "parameter f_poi (model.f-poi) must lie in [0, 10000], got -250"},
      {"--model.v-rest-mV=-1e300 --model.v-reset-mV=-1e300", "parameter v_0 (model.v-rest-mV) must lie in [-1000, 1000] mV"},
      {"--model.tau-m-ms=1e20", "parameter tau_m (model.tau-m-ms) must lie in (0, 1000000] ms"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.option);
    expect_one_line_error(flysim("model", std::string("run ") + c.option), c.message);
  }
  // A restore takes its model from the options: the same refusal.
  const std::string ok = dir_.path("ok.ckpt");
  save_checkpoint(ok, realistic_snapshot(500, 40, 1), kIdentity);
  expect_one_line_error(flysim("restore", "run --restore=" + ok + " --model.w-syn-mV=1e308"),
                        "parameter w_syn (model.w-syn-mV) must lie in (0, 1000] mV");
}

// A line of megabytes is named by its place and its start, never echoed whole.
TEST_F(Bounds, ErrorMessagesQuoteAtMost200BytesOfAnInput) {
  const std::string config = dir_.write("huge.ini", std::string(1000000, 'x') + "\n");
  const std::vector<app::OptionSpec> specs = {{"run.trials", app::OptionType::integer, "1", ""}};
  try {
    app::Options::parse(specs, {"--config=" + config});
    ADD_FAILURE() << "a line of a million x was accepted";
  } catch (const input_error& e) {
    const std::string what = e.what();
    EXPECT_LT(what.size(), 200 + config.size() + 100) << what.substr(0, 500);
    EXPECT_NE(what.find(config + ":1: expected 'key = value', got 'xxx"), std::string::npos) << what.substr(0, 500);
    EXPECT_NE(what.find("... (1000000 bytes)'"), std::string::npos) << what.substr(0, 500);
  }
}

}  // namespace
}  // namespace flysim::test
