// Checkpoint files (checkpoint/checkpoint_file.hpp, layout in checkpoint/README.md):
// round trips, every refusal with one input_error naming the file and the problem,
// atomic saves that never damage an earlier file, and FlyWire-scale save/load times.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "checkpoint/checkpoint_file.hpp"
#include "model/errors.hpp"
#include "cli_support.hpp"
#include "model/lif_constants.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

// A snapshot that looks like a run in its second trial: v spread between reset and
// threshold, some conductance, recent spikes, a delay ring with spikes in it, counts.
Snapshot realistic_snapshot(std::size_t neurons, std::size_t pending, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> v(-60.0, -45.0), g(0.0, 3.0);
  Snapshot s;
  s.engine.trial = 1;
  s.engine.next_step = 5004;
  s.engine.v.resize(neurons);
  s.engine.g.resize(neurons);
  s.engine.last_spike.resize(neurons);
  for (std::size_t i = 0; i < neurons; ++i) {
    s.engine.v[i] = v(rng);
    s.engine.g[i] = rng() % 4 == 0 ? g(rng) : 0.0;
    s.engine.last_spike[i] = rng() % 10 == 0 ? static_cast<int32_t>(rng() % 5004) : kNeverSpiked;
  }
  for (std::size_t k = 0; k < pending; ++k)
    s.engine.pending.push_back({static_cast<int32_t>(4986 + k * 18 / pending), static_cast<uint32_t>(rng() % neurons)});
  s.plan.trials = 3;
  s.plan.steps_per_trial = 10000;
  s.plan.stimulus_rate_Hz = 150.0;
  for (uint32_t i = 0; i < 21; ++i) s.plan.stimulus.poisson_neurons.push_back(static_cast<uint32_t>(i * 97 % neurons));
  for (int32_t step = 0; step < 200; step += 3) s.plan.stimulus.kicks.push_back({step, static_cast<uint32_t>(step % neurons)});
  s.plan.stimulus.seed = 0xfeedfacecafebeefULL;
  s.recorder.counts.assign(neurons, 0);
  for (std::size_t i = 0; i < neurons; i += 7) {
    s.recorder.counts[i] = rng() % 50;
    s.recorder.spikes += s.recorder.counts[i];
  }
  s.engine.plastic_weights = {12, -7, 30000, -32768, 0};
  s.plasticity.settings = "stdp test";
  s.plasticity.trial = 2;
  s.plasticity.pre = empty_traces(neurons);
  s.plasticity.post = empty_traces(neurons);
  s.plasticity.pre.value[1] = 0.25;
  s.plasticity.pre.step[1] = 4980;
  s.plasticity.post.value[2] = 1.0000000000000002;
  s.plasticity.post.step[2] = 4985;
  s.plasticity.learned = {13, -6, 29999, -32767, 1};
  return s;
}

void expect_same(const Snapshot& a, const Snapshot& b) {
  EXPECT_EQ(a.engine, b.engine);
  EXPECT_EQ(a.plan, b.plan);
  ASSERT_EQ(a.plan.stimulus.kicks.size(), b.plan.stimulus.kicks.size());
  for (std::size_t k = 0; k < a.plan.stimulus.kicks.size(); ++k) {
    EXPECT_EQ(a.plan.stimulus.kicks[k].step, b.plan.stimulus.kicks[k].step);
    EXPECT_EQ(a.plan.stimulus.kicks[k].neuron, b.plan.stimulus.kicks[k].neuron);
  }
  EXPECT_EQ(a.recorder, b.recorder);
  EXPECT_EQ(a.plasticity, b.plasticity);
}

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

  // Little-endian fields of the fixed prefix.
  static uint64_t header_length(const std::string& bytes) {
    uint64_t n = 0;
    for (int b = 0; b < 8; ++b) n |= uint64_t(uint8_t(bytes[8 + b])) << (8 * b);
    return n;
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
  EXPECT_EQ(fs::file_size(p), 16 + header_length(slurp(p)) + header.payload_bytes);

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

// The fixed prefix as checkpoint/README.md describes it.
TEST_F(CheckpointFile, LayoutIsMagicLengthThenPortableBinaryHeader) {
  const std::string bytes = slurp(written());
  ASSERT_GT(bytes.size(), 21u);
  EXPECT_EQ(bytes.substr(0, 8), "FLYSIMCK");
  const uint64_t n = header_length(bytes);
  EXPECT_EQ(n, 1 + 4 + (8 + kIdentity.compatibility.size()) + (8 + kIdentity.kernel_version.size()) + 3 * 8);
  EXPECT_EQ(uint8_t(bytes[16]), 1u) << "Cereal's portable binary endianness byte: 1 = little endian";
  uint32_t version = 0;
  for (int b = 0; b < 4; ++b) version |= uint32_t(uint8_t(bytes[17 + b])) << (8 * b);
  EXPECT_EQ(version, kCheckpointFormatVersion);
  EXPECT_EQ(uint8_t(bytes[16 + n]), 1u) << "the payload is its own portable binary archive";
}

TEST_F(CheckpointFile, TruncatedFileIsRefused) {
  const std::string p = written();
  const std::string bytes = slurp(p);
  const std::size_t header_end = 16 + header_length(bytes);
  for (std::size_t keep : {std::size_t{12}, std::size_t{16}, std::size_t{30}, header_end - 1, header_end,
                           header_end + 100, bytes.size() - 1}) {
    SCOPED_TRACE("kept " + std::to_string(keep) + " of " + std::to_string(bytes.size()) + " bytes");
    const std::string cut = path("cut.ckpt");
    spit(cut, bytes.substr(0, keep));
    expect_refused([&] { load_checkpoint(cut, kIdentity); }, cut, "truncated checkpoint");
    expect_refused([&] { load_checkpoint_unchecked(cut); }, cut, "truncated checkpoint");
  }
}

TEST_F(CheckpointFile, FlippedPayloadByteFailsTheChecksum) {
  const std::string p = written();
  const std::string bytes = slurp(p);
  const std::size_t payload_at = 16 + header_length(bytes);
  for (std::size_t at : {payload_at + 1, payload_at + (bytes.size() - payload_at) / 2, bytes.size() - 1}) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    const std::string bad = path("flipped.ckpt");
    spit(bad, damaged);
    expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, "checksum mismatch");
    expect_refused([&] { load_checkpoint_unchecked(bad); }, bad, "checksum mismatch");
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
  for (int b = 0; b < 4; ++b) bytes[17 + b] = static_cast<char>((newer >> (8 * b)) & 0xff);
  const std::string bad = path("newer.ckpt");
  spit(bad, bytes);
  const std::string problem = "checkpoint format version " + std::to_string(newer) + " is newer than this flysim reads";
  expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, problem);
  expect_refused([&] { read_checkpoint_header(bad); }, bad, problem);
}

TEST_F(CheckpointFile, OlderFormatVersionIsRefused) {
  std::string bytes = slurp(written());
  const uint32_t older = kCheckpointFormatVersion - 1;
  for (int b = 0; b < 4; ++b) bytes[17 + b] = static_cast<char>((older >> (8 * b)) & 0xff);
  const std::string bad = path("older.ckpt");
  spit(bad, bytes);
  const std::string problem = "checkpoint format version " + std::to_string(older) + " was written by an older flysim";
  expect_refused([&] { load_checkpoint(bad, kIdentity); }, bad, problem);
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

// checkpoint_file.hpp: "verifies (magic, format version, checksum, then identity)": a
// damaged file is reported as damaged, even when it is also of another network.
TEST_F(CheckpointFile, ChecksumIsCheckedBeforeIdentity) {
  std::string bytes = slurp(written());
  bytes[bytes.size() - 3] ^= 0x01;
  const std::string bad = path("both.ckpt");
  spit(bad, bytes);
  CheckpointIdentity other = kIdentity;
  other.network_hash += 1;
  expect_refused([&] { load_checkpoint(bad, other); }, bad, "checksum mismatch");
}

TEST_F(CheckpointFile, MissingFileIsAnInputError) {
  expect_refused([&] { load_checkpoint(path("none.ckpt"), kIdentity); }, path("none.ckpt"), "cannot open");
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

// FlyWire scale (138,639 neurons): save and load each under a second, fsync included.
TEST_F(CheckpointFile, FlyWireScaleSaveAndLoadTakeUnderASecondEach) {
  constexpr std::size_t kNeurons = 138639;
  const Snapshot s = realistic_snapshot(kNeurons, 20000, 7);
  const std::string p = path("flywire.ckpt");
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  save_checkpoint(p, s, kIdentity);
  const auto t1 = clock::now();
  const Snapshot back = load_checkpoint(p, kIdentity);
  const auto t2 = clock::now();
  const double save_s = std::chrono::duration<double>(t1 - t0).count();
  const double load_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf("[ timing   ] %zu neurons, %zu pending spikes, %.2f MB: save %.3f s, load %.3f s\n", kNeurons,
              s.engine.pending.size(), static_cast<double>(fs::file_size(p)) / 1e6, save_s, load_s);
  expect_same(back, s);
  EXPECT_LT(save_s, 1.0);
  EXPECT_LT(load_s, 1.0);
}

}  // namespace
}  // namespace flysim::test
