// Checkpoint files (checkpoint/checkpoint_file.hpp, layout in checkpoint/README.md):
// round trips, every refusal with one input_error naming the file and the problem,
// atomic saves that never damage an earlier file, and a FlyWire-scale round trip.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include <xxhash.h>

#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/snapshot_check.hpp"
#include "model/errors.hpp"
#include "checkpoint_support.hpp"
#include "scratch_dir.hpp"
#include "model/lif_constants.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

const CheckpointIdentity kIdentity{"flysim-compat test; parameters 0123456789abcdef; network 00000000deadbeef",
                                   "flysim-kernel test", 0xdeadbeefULL};

class CheckpointFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flysim-ckpt-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ec);
    for (const auto& entry : fs::recursive_directory_iterator(dir_, ec))
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir_);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }


  // A valid checkpoint of a small snapshot at `name`; returns its path.
  std::string written(const std::string& name = "ok.ckpt") const {
    const std::string p = path(name);
    save_checkpoint(p, realistic_snapshot(500, 40, 1), kIdentity);
    return p;
  }

  // The refusal of `load` names the file and contains `problem`; exactly one exception type.
  static void expect_refused(const std::function<void()>& load, const std::string& file, const std::string& problem) {
    try {
      load();
      ADD_FAILURE() << "accepted; expected: " << problem;
    } catch (const input_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(file + ": ", 0), 0u) << what;
      EXPECT_NE(what.find(problem), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an input_error: " << e.what();
    }
  }

  fs::path dir_;
};

TEST_F(CheckpointFile, RoundTripIsExact) {
  const Snapshot saved = realistic_snapshot(2000, 150, 42);
  const std::string p = path("a.ckpt");
  save_checkpoint(p, saved, kIdentity);
  expect_same(load_checkpoint(p, kIdentity), saved);

  CheckpointHeader header;
  expect_same(load_checkpoint_unchecked(p, &header), saved);
  EXPECT_EQ(header.format_version, kCheckpointFormatVersion);
  EXPECT_EQ(header.compatibility, kIdentity.compatibility);
  EXPECT_EQ(header.kernel_version, kIdentity.kernel_version);
  EXPECT_EQ(header.network_hash, kIdentity.network_hash);
  const CheckpointHeader only = read_checkpoint_header(p);
  EXPECT_EQ(only.payload_bytes, header.payload_bytes);
  EXPECT_EQ(only.payload_checksum, header.payload_checksum);
  EXPECT_EQ(fs::file_size(p), 16 + header_length(slurp(p)) + 8 + header.payload_bytes);

  // Special values survive bit for bit; empty vectors stay empty.
  Snapshot odd = realistic_snapshot(3, 0, 2);
  odd.engine.v = {-0.0, 5e-324, -52.000000000000007};
  odd.engine.plastic_weights.clear();
  odd.plasticity = PlasticityState{};
  odd.plan.stimulus.kicks.clear();
  save_checkpoint(p, odd, kIdentity);
  const Snapshot back = load_checkpoint(p, kIdentity);
  expect_same(back, odd);
  EXPECT_TRUE(std::signbit(back.engine.v[0]));
  // Saving the same snapshot twice gives the same bytes (no time stamps, no padding).
  const std::string first = slurp(p);
  save_checkpoint(p, odd, kIdentity);
  EXPECT_EQ(slurp(p), first);
}

// The layout as checkpoint/README.md describes it: magic, header length, header
// archive, XXH3-64 of everything before it, payload archive.
TEST_F(CheckpointFile, LayoutIsMagicLengthHeaderChecksumPayload) {
  const std::string bytes = slurp(written());
  ASSERT_GT(bytes.size(), 21u);
  EXPECT_EQ(bytes.substr(0, 8), "FLYSIMCK");
  const uint64_t n = header_length(bytes);
  EXPECT_EQ(n, 1 + 4 + (8 + kIdentity.compatibility.size()) + (8 + kIdentity.kernel_version.size()) + 3 * 8);
  EXPECT_EQ(uint8_t(bytes[16]), 1u) << "Cereal's portable binary endianness byte: 1 = little endian";
  EXPECT_EQ(le_get(bytes, 17, 4), kCheckpointFormatVersion);
  EXPECT_EQ(le_get(bytes, 16 + n, 8), XXH3_64bits(bytes.data(), 16 + n));
  EXPECT_EQ(uint8_t(bytes[24 + n]), 1u) << "the payload is its own portable binary archive";
  EXPECT_EQ(le_get(bytes, 16 + n - 16, 8), bytes.size() - (24 + n)) << "payload_bytes";
  EXPECT_EQ(le_get(bytes, 16 + n - 8, 8), XXH3_64bits(bytes.data() + 24 + n, bytes.size() - (24 + n))) << "payload_checksum";
}

TEST_F(CheckpointFile, TruncatedFileIsRefused) {
  const std::string p = written();
  const std::string bytes = slurp(p);
  const std::size_t header_end = payload_at(bytes);
  for (std::size_t keep : {std::size_t{12}, std::size_t{16}, std::size_t{30}, header_end - 9, header_end - 1, header_end,
                           header_end + 100, bytes.size() - 1}) {
    SCOPED_TRACE("kept " + std::to_string(keep) + " of " + std::to_string(bytes.size()) + " bytes");
    const std::string cut = path("cut.ckpt");
    spit(cut, bytes.substr(0, keep));
    expect_refused([&] { load_checkpoint(cut, kIdentity); }, cut, "checkpoint is damaged (truncated: ");
    expect_refused([&] { load_checkpoint_unchecked(cut); }, cut, "checkpoint is damaged (truncated: ");
    expect_refused([&] { read_checkpoint_header(cut); }, cut, "checkpoint is damaged (truncated: ");
  }
}

TEST_F(CheckpointFile, FlippedPayloadByteFailsTheChecksum) {
  const std::string p = written();
  const std::string bytes = slurp(p);
  const std::size_t payload = payload_at(bytes);
  for (std::size_t at : {payload + 1, payload + (bytes.size() - payload) / 2, bytes.size() - 1}) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    const std::string bad = path("flipped.ckpt");
    spit(bad, damaged);
    expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, "checkpoint is damaged (checksum mismatch in the payload)");
    expect_refused([&] { load_checkpoint_unchecked(bad); }, bad, "checkpoint is damaged (checksum mismatch in the payload)");
  }
}

TEST_F(CheckpointFile, WrongMagicIsRefused) {
  std::string bytes = slurp(written());
  bytes[0] = 'X';
  const std::string bad = path("magic.ckpt");
  spit(bad, bytes);
  expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, "not a flysim checkpoint (wrong magic bytes)");
  expect_refused([&] { read_checkpoint_header(bad); }, bad, "wrong magic bytes");
  spit(bad, "trial,step,t_ms,neuron_id\n0,12,1.2,720575940660219265\n");
  expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, "wrong magic bytes");
}

TEST_F(CheckpointFile, NewerFormatVersionIsRefused) {
  std::string bytes = slurp(written());
  const uint32_t newer = kCheckpointFormatVersion + 1;
  le_put(bytes, 17, 4, newer);
  reseal_header(bytes);
  const std::string bad = path("newer.ckpt");
  spit(bad, bytes);
  const std::string problem = "checkpoint format version " + std::to_string(newer) + " is newer than this flysim reads";
  expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, problem);
  expect_refused([&] { read_checkpoint_header(bad); }, bad, problem);
}

// A file of format 2 (the same header and payload, no header checksum) is named as
// such, and so is one of format 1; a current file whose version byte was damaged into
// an older one is damaged, not old.
TEST_F(CheckpointFile, OlderFormatVersionIsRefusedByName) {
  const std::string current = slurp(written());
  for (const uint32_t older : {kOldestReadableCheckpointFormat - 1, kOldestReadableCheckpointFormat - 2}) {
    std::string bytes = current;
    bytes.erase(header_checksum_at(bytes), 8);
    le_put(bytes, 17, 4, older);
    const std::string bad = path("older.ckpt");
    spit(bad, bytes);
    const std::string problem = "checkpoint format version " + std::to_string(older) +
                                " was written by an older flysim; this flysim reads versions " +
                                std::to_string(kOldestReadableCheckpointFormat) + " to " +
                                std::to_string(kCheckpointFormatVersion) + ": rerun the simulation";
    expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, problem);
    expect_refused([&] { read_checkpoint_header(bad); }, bad, problem);
  }
  std::string flipped = current;
  le_put(flipped, 17, 4, kCheckpointFormatVersion - 1);
  const std::string bad = path("flipped.ckpt");
  spit(bad, flipped);
  expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, "checkpoint is damaged (checksum mismatch in the header)");
}

// A batch of trials (run.batch) round-trips whole, and a file of format 3 (one trial,
// no batch fields at the payload's end: an int32 batch and an empty list's uint64
// count) still restores, as a batch of one.
TEST_F(CheckpointFile, BatchRoundTripsAndFormat3ReadsAsABatchOfOne) {
  Snapshot batch = realistic_snapshot(300, 20, 5);
  batch.batch = 3;
  for (int k = 1; k < 3; ++k) {
    EngineState later = realistic_snapshot(300, 10 + k, 5 + k).engine;
    later.trial = batch.engine.trial + k;
    later.next_step = batch.engine.next_step;
    batch.later_trials.push_back(later);
  }
  save_checkpoint(path("batch.ckpt"), batch, kIdentity);
  expect_same(load_checkpoint(path("batch.ckpt"), kIdentity), batch);

  const Snapshot single = realistic_snapshot(500, 40, 1);
  std::string bytes = as_format4(slurp(written()), stimulus_seed_end(single, path("seeds.ckpt")));
  bytes.resize(bytes.size() - 12);
  le_put(bytes, 17, 4, 3);
  reseal_all(bytes);
  spit(path("v3.ckpt"), bytes);
  CheckpointHeader header;
  expect_same(load_checkpoint_unchecked(path("v3.ckpt"), &header), single);
  EXPECT_EQ(header.format_version, 3u);
}

// Format 5 carries the stimulus's groups, silenced set and mode; a format-4 file (the
// stimulus without them) still reads, with no group and no one silenced.
TEST_F(CheckpointFile, GroupsAndSilenceRoundTripAndFormat4StillReads) {
  Snapshot s = realistic_snapshot(300, 20, 5);
  s.plan.stimulus.groups = {{"bitter", {3, 7, 9}, 60.0, 12345u}, {"water", {11}, 0.0, 0u}};
  s.plan.stimulus.silenced = {1, 2, 200};
  s.plan.stimulus.silence_mode = SilenceMode::both;
  save_checkpoint(path("groups.ckpt"), s, kIdentity);
  expect_same(load_checkpoint(path("groups.ckpt"), kIdentity), s);
  EXPECT_EQ(load_checkpoint(path("groups.ckpt"), kIdentity).plan.stimulus, s.plan.stimulus);

  const Snapshot plain = realistic_snapshot(300, 20, 5);
  save_checkpoint(path("plain.ckpt"), plain, kIdentity);
  spit(path("v4.ckpt"), as_format4(slurp(path("plain.ckpt")), stimulus_seed_end(plain, path("seeds.ckpt"))));
  CheckpointHeader header;
  const Snapshot read = load_checkpoint_unchecked(path("v4.ckpt"), &header);
  EXPECT_EQ(header.format_version, 4u);
  expect_same(read, plain);
  EXPECT_TRUE(read.plan.stimulus.groups.empty() && read.plan.stimulus.silenced.empty());
}

// A checkpoint naming a group neuron or a silenced neuron outside the network, or a
// neuron in two groups, is refused by name.
TEST_F(CheckpointFile, GroupsAndSilenceOutsideTheNetworkAreRefused) {
  Snapshot s = realistic_snapshot(300, 20, 5);
  s.plan.stimulus.silenced = {5, 300};
  save_checkpoint(path("bad.ckpt"), s, kIdentity);
  expect_refused([&] { validate_snapshot(load_checkpoint(path("bad.ckpt"), kIdentity), 300, 18, 0.1, path("bad.ckpt")); },
                 path("bad.ckpt"), "the silenced set names neuron 300 of a network of 300");
  s.plan.stimulus.silenced = {};
  s.plan.stimulus.poisson_neurons = {4};
  s.plan.stimulus.groups = {{"bitter", {4}, 60.0, 12345u}};
  save_checkpoint(path("two.ckpt"), s, kIdentity);
  expect_refused([&] { validate_snapshot(load_checkpoint(path("two.ckpt"), kIdentity), 300, 18, 0.1, path("two.ckpt")); },
                 path("two.ckpt"), "a neuron is in two Poisson groups");
}

// Any flipped bit before the payload (length, header, header checksum) is reported as
// damage of the header, before any header field is believed; a flipped magic byte
// makes the file no checkpoint.
TEST_F(CheckpointFile, FlippedHeaderBitIsDamage) {
  const std::string bytes = slurp(written());
  const std::string bad = path("flipped.ckpt");
  for (std::size_t at = 0; at < payload_at(bytes); ++at)
    for (const int bit : {0, 3, 7}) {
      SCOPED_TRACE("byte " + std::to_string(at) + " bit " + std::to_string(bit));
      std::string damaged = bytes;
      damaged[at] = static_cast<char>(damaged[at] ^ (1 << bit));
      spit(bad, damaged);
      const std::string problem = at < 8 ? "wrong magic bytes" : "checkpoint is damaged (";
      expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, problem);
      expect_refused([&] { read_checkpoint_header(bad); }, bad, problem);
      if (at >= 17 && at < header_checksum_at(bytes))
        expect_refused([&] { read_checkpoint_header(bad); }, bad, "checkpoint is damaged (checksum mismatch in the header)");
    }
}

// Bytes appended to a valid file: the file is not what its header says.
TEST_F(CheckpointFile, TrailingBytesAreRefused) {
  const std::string bytes = slurp(written());
  const std::string bad = path("longer.ckpt");
  for (const std::size_t extra : {std::size_t{1}, std::size_t{8}, std::size_t{4096}}) {
    spit(bad, bytes + std::string(extra, '\0'));
    const std::string problem = "checkpoint is damaged (" + std::to_string(extra) + " unexpected bytes after the payload)";
    expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, problem);
    expect_refused([&] { load_checkpoint_unchecked(bad); }, bad, problem);
    expect_refused([&] { read_checkpoint_header(bad); }, bad, problem);
  }
}

TEST_F(CheckpointFile, DifferentCompatibilityStringIsRefused) {
  const std::string p = written();
  CheckpointIdentity other = kIdentity;
  other.compatibility = "flysim-compat test; parameters 1111111111111111; network 00000000deadbeef";
  expect_refused([&] { load_checkpoint(p, other); }, p, "compatibility string differs");
  expect_refused([&] { verify_identity(p, read_checkpoint_header(p), other); }, p, "compatibility string differs");
}

TEST_F(CheckpointFile, DifferentKernelVersionIsRefused) {
  const std::string p = written();
  CheckpointIdentity other = kIdentity;
  other.kernel_version = "flysim-kernel test 2";
  expect_refused([&] { load_checkpoint(p, other); }, p, "kernel version differs");
}

TEST_F(CheckpointFile, CheckpointOfAnotherNetworkIsRefused) {
  const std::string p = written();
  CheckpointIdentity other = kIdentity;
  other.network_hash = 0xdeadbeefULL + 1;
  expect_refused([&] { load_checkpoint(p, other); }, p, "checkpoint of another network");
}

// checkpoint_file.hpp: "verifies (..., payload checksum, then identity)": a
// damaged file is reported as damaged, even when it is also of another network.
TEST_F(CheckpointFile, ChecksumIsCheckedBeforeIdentity) {
  std::string bytes = slurp(written());
  bytes[bytes.size() - 3] ^= 0x01;
  const std::string bad = path("both.ckpt");
  spit(bad, bytes);
  CheckpointIdentity other = kIdentity;
  other.network_hash += 1;
  expect_refused([&] { load_checkpoint(bad, other); }, bad, "checksum mismatch in the payload");
}

TEST_F(CheckpointFile, MissingFileIsAnInputError) {
  expect_refused([&] { load_checkpoint(path("none.ckpt"), kIdentity); }, path("none.ckpt"), "cannot open");
}

// A FIFO, a folder or a device is refused at once with one line: nothing blocks on a
// FIFO that no one writes to.
TEST_F(CheckpointFile, FifoFolderAndDeviceAreRefusedAtOnce) {
  const std::string fifo = path("pipe.ckpt");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  FifoUnblocker unblock(fifo, 5.0);
  expect_refused([&] { load_checkpoint_unchecked(fifo); }, fifo, "is a FIFO");
  expect_refused([&] { load_checkpoint(fifo, kIdentity); }, fifo, "is a FIFO");
  expect_refused([&] { read_checkpoint_header(fifo); }, fifo, "is a FIFO");
  EXPECT_FALSE(unblock.released_a_reader()) << "a load blocked on the FIFO";
  expect_refused([&] { load_checkpoint_unchecked(dir_.string()); }, dir_.string(), "is a directory");
  expect_refused([&] { load_checkpoint_unchecked("/dev/null"); }, "/dev/null", "is a character device");
}

// validate_snapshot: every rule refuses a snapshot that breaks it, naming the file,
// even when the file holding it has right checksums (a buggy or hand-made writer).
TEST_F(CheckpointFile, InconsistentSnapshotIsRefusedBeforeRestore) {
  constexpr std::size_t kNeurons = 500;
  constexpr int32_t kDelay = 18;
  const Snapshot good = realistic_snapshot(kNeurons, 40, 1);
  const std::string p = path("bad.ckpt");
  validate_snapshot(good, kNeurons, kDelay, 0.1, p);
  Snapshot off = good;
  off.plasticity = PlasticityState{};
  off.engine.plastic_weights.clear();
  validate_snapshot(off, kNeurons, kDelay, 0.1, p);
  Snapshot grouped = good;
  grouped.plan.stimulus.groups.push_back({"bitter", {kNeurons - 1}, 50.0, poisson_threshold(50.0, 0.1)});
  validate_snapshot(grouped, kNeurons, kDelay, 0.1, p);

  struct Damage {
    const char* what;
    std::function<void(Snapshot&)> apply;
    const char* problem;
  };
  const double nan = std::nan("");
  const std::vector<Damage> damages = {
      {"v short", [](Snapshot& s) { s.engine.v.pop_back(); }, "499 neurons (v)"},
      {"g long", [](Snapshot& s) { s.engine.g.push_back(0); }, "501 (g)"},
      {"last spike short", [](Snapshot& s) { s.engine.last_spike.clear(); }, "0 (last spike)"},
      {"counts", [](Snapshot& s) { s.recorder.counts.pop_back(); }, "the recorder counts 499 neurons"},
      {"v nan", [=](Snapshot& s) { s.engine.v[3] = nan; }, "not a finite number"},
      {"g inf", [](Snapshot& s) { s.engine.g[3] = HUGE_VAL; }, "not a finite number"},
      {"no trials", [](Snapshot& s) { s.plan.trials = 0; }, "a plan of 0 trials"},
      {"no steps", [](Snapshot& s) { s.plan.steps_per_trial = -5; }, "of -5 steps"},
      {"trial after the plan", [](Snapshot& s) { s.engine.trial = 3; }, "position trial 3 step 5004"},
      {"negative trial", [](Snapshot& s) { s.engine.trial = -1; }, "position trial -1"},
      {"step after the trial", [](Snapshot& s) { s.engine.next_step = 10008; }, "step 10008 is not"},
      {"step off a boundary", [](Snapshot& s) { s.engine.next_step = 5005; }, "not a delay-cell boundary"},
      {"last spike later", [](Snapshot& s) { s.engine.last_spike[0] = 5004; }, "a last spike lies after"},
      {"last spike negative", [](Snapshot& s) { s.engine.last_spike[0] = -3; }, "a last spike lies after"},
      {"pending neuron", [](Snapshot& s) { s.engine.pending[5].neuron = kNeurons; }, "an undelivered spike is of a neuron"},
      {"pending early", [](Snapshot& s) { s.engine.pending[0].step = 4985; }, "outside steps 4986..5003"},
      {"pending late", [](Snapshot& s) { s.engine.pending[0].step = 5004; }, "outside steps 4986..5003"},
      {"rate", [=](Snapshot& s) { s.plan.stimulus_rate_Hz = nan; }, "stimulus rate"},
      {"group rate", [=](Snapshot& s) { s.plan.stimulus.groups.push_back({"bitter", {kNeurons - 1}, nan, 0u}); },
       "stimulus group 'bitter' has a rate that is not"},
      {"group rate above 1/dt", [](Snapshot& s) { s.plan.stimulus.groups.push_back({"bitter", {kNeurons - 1}, 20000.0, 0u}); },
       "stimulus group 'bitter' has a rate that is not a finite rate in 0..1/dt"},
      {"group threshold",
       [](Snapshot& s) { s.plan.stimulus.groups.push_back({"bitter", {kNeurons - 1}, 50.0, 0xffffffffu}); },
       "stimulus group 'bitter' draws with another threshold"},
      {"group name",
       [](Snapshot& s) { s.plan.stimulus.groups.push_back({"\"1", {kNeurons - 1}, 50.0, poisson_threshold(50.0, 0.1)}); },
       "a Poisson group's name"},
      {"poisson neuron", [](Snapshot& s) { s.plan.stimulus.poisson_neurons.push_back(kNeurons); }, "a Poisson neuron"},
      {"kick neuron", [](Snapshot& s) { s.plan.stimulus.kicks.push_back({300, 4000000000u}); }, "the kicks"},
      {"kick step", [](Snapshot& s) { s.plan.stimulus.kicks.front().step = -1; }, "the kicks"},
      {"kicks unsorted", [](Snapshot& s) { std::swap(s.plan.stimulus.kicks[0], s.plan.stimulus.kicks[1]); }, "the kicks"},
      {"recorder total", [](Snapshot& s) { s.recorder.spikes += 1; }, "the recorder's spike total"},
      {"counts overflow", [](Snapshot& s) { s.recorder.counts[0] = s.recorder.counts[1] = UINT64_MAX; }, "spike total"},
      {"weights without settings", [](Snapshot& s) { s.plasticity.settings.clear(); }, "without plasticity settings"},
      {"learned", [](Snapshot& s) { s.plasticity.learned.pop_back(); }, "4 learned weights for 5 applied"},
      {"trace size", [](Snapshot& s) { s.plasticity.pre.value.pop_back(); }, "plasticity traces"},
      {"trace step", [](Snapshot& s) { s.plasticity.post.step[7] = 5004; }, "plasticity traces"},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    Snapshot bad = good;
    d.apply(bad);
    expect_refused([&] { validate_snapshot(bad, kNeurons, kDelay, 0.1, p); }, p, d.problem);
    // Saved with right checksums: the file decodes; the restore path's check refuses it.
    save_checkpoint(p, bad, kIdentity);
    const Snapshot back = load_checkpoint(p, kIdentity);
    expect_refused([&] { validate_snapshot(back, kNeurons, kDelay, 0.1, p); }, p, "the checkpoint does not fit this network: ");
  }
  expect_refused([&] { validate_snapshot(good, kNeurons + 1, kDelay, 0.1, p); }, p, "the network has 501");
}

// A save that fails leaves the earlier file byte-identical and no temporary file behind.
TEST_F(CheckpointFile, FailedSaveLeavesTheEarlierFileUntouched) {
  const std::string p = written("keep.ckpt");
  const std::string before = slurp(p);
  const Snapshot other = realistic_snapshot(700, 10, 9);
  const auto only_the_original_is_left = [&] {
    EXPECT_EQ(slurp(p), before);
    for (const auto& entry : fs::directory_iterator(dir_))
      if (entry.path() != p && entry.path().filename() != "blocker" && entry.path().filename() != "ro")
        ADD_FAILURE() << "left behind: " << entry.path();
  };

  // The temporary file cannot be created (its name is taken by a folder: fails for root too).
  const std::string temp = p + ".tmp-" + std::to_string(::getpid());
  fs::create_directory(temp);
  expect_refused([&] { save_checkpoint(p, other, kIdentity); }, p, "cannot write");
  fs::remove(temp);
  only_the_original_is_left();

  // The disk "fills up" mid-write: a file size limit below the checkpoint's size.
  {
    rlimit old{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old;
    small.rlim_cur = 4096;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    bool refused = false;
    try {
      save_checkpoint(p, other, kIdentity);
    } catch (const input_error& e) {
      refused = true;
      EXPECT_EQ(std::string(e.what()).rfind(p + ": ", 0), 0u) << e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);
    EXPECT_TRUE(refused);
  }
  only_the_original_is_left();

  // Into a folder that does not exist, and under a path whose parent is a regular file.
  expect_refused([&] { save_checkpoint(path("no/such/dir/x.ckpt"), other, kIdentity); }, path("no/such/dir/x.ckpt"),
                 "cannot write");
  spit(path("blocker"), "a regular file\n");
  expect_refused([&] { save_checkpoint(path("blocker/x.ckpt"), other, kIdentity); }, path("blocker/x.ckpt"), "cannot write");
  only_the_original_is_left();

  // A read-only folder (root may write anyway: then there is nothing to test).
  if (::geteuid() != 0) {
    fs::create_directory(path("ro"));
    const std::string ro = path("ro/keep.ckpt");
    fs::copy_file(p, ro);
    fs::permissions(path("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    expect_refused([&] { save_checkpoint(ro, other, kIdentity); }, ro, "cannot write");
    EXPECT_EQ(slurp(ro), before);
    fs::permissions(path("ro"), fs::perms::owner_all);
  }
}

// FlyWire scale (138,639 neurons, 20,000 spikes in the delay ring): the file holds all
// of it. How long save and load take is measured by bench/bench_checkpoint.sh.
TEST_F(CheckpointFile, FlyWireScaleSaveAndLoad) {
  constexpr std::size_t kNeurons = 138639;
  const Snapshot s = realistic_snapshot(kNeurons, 20000, 7);
  const std::string p = path("flywire.ckpt");
  save_checkpoint(p, s, kIdentity);
  const Snapshot back = load_checkpoint(p, kIdentity);
  ASSERT_EQ(back.engine.v.size(), kNeurons);
  expect_same(back, s);
}

}  // namespace
}  // namespace flysim::test
