// A deterministic mutation fuzzer for checkpoint files (checkpoint/README.md). A small
// valid checkpoint is damaged in many fixed-seed ways (bit flips, byte sets, cuts at
// every region boundary, insertions, removals, appended bytes, huge 64-bit values
// over every length field), and every reader must either return the saved snapshot
// (only when the bytes are unchanged) or throw flysim::input_error: never another
// exception, a crash, a hang or a huge allocation (the address space is capped while
// the fuzzer runs, so a huge allocation fails the test instead of the machine).
// A second pass recomputes the checksums after each mutation so that the damage
// reaches the header and payload decoders, and what decodes goes through
// validate_snapshot. FLYSIM_FUZZ_ITERATIONS sets the random mutations per pass
// (default 20000) and FLYSIM_FUZZ_SEED the seed: bench/fuzz.sh (make fuzz) runs long.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/snapshot_check.hpp"
#include "checkpoint_support.hpp"
#include "scratch_dir.hpp"
#include "model/errors.hpp"

namespace flysim::test {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kNeurons = 12;
constexpr int32_t kDelay = 18;
const CheckpointIdentity kIdentity{"flysim-compat fuzz", "flysim-kernel fuzz", 0x5eedULL};

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

// Caps the address space at what the process uses now plus `extra` bytes, for the
// lifetime of the object: an allocation of gigabytes then throws std::bad_alloc.
class AddressSpaceCap {
 public:
  explicit AddressSpaceCap(uint64_t extra) {
    ::getrlimit(RLIMIT_AS, &old_);
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0;
    statm >> pages;
    rlimit capped = old_;
    capped.rlim_cur = std::min<uint64_t>(old_.rlim_cur, pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) + extra);
    ::setrlimit(RLIMIT_AS, &capped);
  }
  ~AddressSpaceCap() { ::setrlimit(RLIMIT_AS, &old_); }
  AddressSpaceCap(const AddressSpaceCap&) = delete;
  AddressSpaceCap& operator=(const AddressSpaceCap&) = delete;

 private:
  rlimit old_{};
};

class CheckpointFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flysim-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    file_ = (dir_ / "fuzz.ckpt").string();
    saved_ = realistic_snapshot(kNeurons, 6, 3);
    save_checkpoint(file_, saved_, kIdentity);
    original_ = slurp(file_);
    validate_snapshot(saved_, kNeurons, kDelay, 0.1, file_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One mutated file through every reader. `sealed`: the checksums were recomputed,
  // so a different snapshot may legitimately decode (a flipped bit of a voltage).
  void check(const std::string& bytes, bool sealed, const std::string& what) {
    ++cases_;
    const bool unchanged = bytes == original_;
    const auto outcome = [&](const char* reader, const std::function<void()>& read) {
      try {
        read();
      } catch (const input_error& e) {
        const std::string message = e.what();
        if (message.rfind(file_ + ": ", 0) != 0 || message.find('\n') != std::string::npos)
          ADD_FAILURE() << what << ", " << reader << ": not one line naming the file: " << message;
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ", " << reader << ": " << typeid(e).name() << ": " << e.what();
      }
    };
    outcome("decode_checkpoint", [&] {
      const Snapshot s = decode_checkpoint(file_, bytes);
      ++decoded_[sealed];
      if (!sealed) {
        EXPECT_TRUE(unchanged) << what << ": damaged bytes were accepted";
        expect_same(s, saved_);
      } else {
        validate_snapshot(s, kNeurons, kDelay, 0.1, file_);
      }
    });
    outcome("checkpoint_header_of", [&] { checkpoint_header_of(file_, bytes); });
    // Every 16th case also through the file readers (they share the in-memory path).
    if (cases_ % 16 == 0) {
      spit(file_, bytes);
      outcome("load_checkpoint_unchecked", [&] { load_checkpoint_unchecked(file_); });
      outcome("load_checkpoint", [&] {
        const Snapshot s = load_checkpoint(file_, kIdentity);
        if (!sealed) expect_same(s, saved_);
      });
      outcome("read_checkpoint_header", [&] { read_checkpoint_header(file_); });
    }
  }

  // Region boundaries of the original file: prefix, header fields, checksum, payload.
  std::vector<std::size_t> boundaries() const {
    const std::size_t h = header_checksum_at(original_), p = payload_at(original_), end = original_.size();
    std::vector<std::size_t> at = {0, 1, 7, 8, 9, 15, 16, 17, 21, h - 16, h - 8, h, h + 4, p - 1, p, p + 1, p + 5, end - 1};
    for (std::size_t x = p; x < end; x += 97) at.push_back(x);
    return at;
  }

  // One random mutation of `bytes`, described in `what`.
  std::string mutate(std::mt19937_64& rng, std::string bytes, std::string& what) const {
    const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
    const std::size_t size = bytes.size();
    // A second mutation may find a few bytes left: then it can only add some.
    switch (size < 8 ? 5 : rng() % 7) {
      case 0: {
        const int flips = 1 + static_cast<int>(rng() % 4);
        what = "flip " + std::to_string(flips) + " bits";
        for (int f = 0; f < flips; ++f) bytes[pick(size)] ^= static_cast<char>(1 << (rng() % 8));
        break;
      }
      case 1: {
        const std::size_t at = pick(size);
        what = "set byte " + std::to_string(at);
        bytes[at] = static_cast<char>(rng());
        break;
      }
      case 2: {
        const std::size_t keep = pick(size);
        what = "truncate to " + std::to_string(keep);
        bytes.resize(keep);
        break;
      }
      case 3: {
        const std::size_t at = pick(size + 1), n = 1 + pick(16);
        what = "insert " + std::to_string(n) + " at " + std::to_string(at);
        std::string extra(n, '\0');
        for (char& c : extra) c = static_cast<char>(rng());
        bytes.insert(at, extra);
        break;
      }
      case 4: {
        const std::size_t at = pick(size), n = 1 + pick(std::min<std::size_t>(32, size - at));
        what = "erase " + std::to_string(n) + " at " + std::to_string(at);
        bytes.erase(at, n);
        break;
      }
      case 5: {
        const std::size_t n = 1 + pick(64);
        what = "append " + std::to_string(n);
        bytes.append(n, static_cast<char>(rng()));
        break;
      }
      default: {
        const std::size_t at = pick(size - 7);
        const uint64_t huge[] = {~uint64_t{0}, uint64_t{1} << 63, uint64_t{1} << 40, uint64_t{1} << 32, rng()};
        what = "huge u64 at " + std::to_string(at);
        le_put(bytes, at, 8, huge[rng() % 5]);
        break;
      }
    }
    return bytes;
  }

  fs::path dir_;
  std::string file_, original_;
  Snapshot saved_;
  uint64_t cases_ = 0;
  uint64_t decoded_[2] = {0, 0};  // files that decoded, without and with recomputed checksums
};

TEST_F(CheckpointFuzz, EveryMutationIsRefusedOrHarmless) {
  const uint64_t iterations = env_number("FLYSIM_FUZZ_ITERATIONS", 20000);
  const uint64_t seed = env_number("FLYSIM_FUZZ_SEED", 20261202);
  const auto t0 = std::chrono::steady_clock::now();
  const AddressSpaceCap cap(uint64_t{512} << 20);
  const std::size_t payload = payload_at(original_);
  ASSERT_GT(original_.size(), payload + 64) << "the fixture's checkpoint";

  for (const bool sealed : {false, true}) {
    // After a mutation with `sealed`, the checksums are recomputed: damage before the
    // payload reaches the header decoder, damage after it the payload decoder.
    const auto seal = [&](std::string bytes) {
      if (!sealed || bytes.size() < 16) return bytes;
      const uint64_t h = header_length(bytes);
      if (h > bytes.size() || 24 + h > bytes.size()) return bytes;  // no checksum to recompute
      if (h >= 16) reseal_all(bytes);  // payload_bytes and payload_checksum end the header
      else reseal_header(bytes);
      return bytes;
    };
    const auto sealed_check = [&](const std::string& bytes, const std::string& what) { check(seal(bytes), sealed, what); };

    // Deterministic: cuts at and around every region boundary, and a huge value over
    // every 8 bytes of the file (so over every length field and size tag).
    for (const std::size_t at : boundaries()) {
      sealed_check(original_.substr(0, at), "truncate to " + std::to_string(at));
      sealed_check(original_ + std::string(at % 9 + 1, '\x7f'), "append");
    }
    for (std::size_t at = 8; at + 8 <= original_.size(); ++at)
      for (const uint64_t huge : {~uint64_t{0}, uint64_t{1} << 62, uint64_t{1} << 33}) {
        std::string bytes = original_;
        le_put(bytes, at, 8, huge);
        sealed_check(bytes, "huge u64 at " + std::to_string(at));
      }
    // A header that promises more, or fewer, payload bytes than there are.
    for (const uint64_t claimed : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 40, ~uint64_t{0}}) {
      std::string bytes = original_;
      le_put(bytes, header_checksum_at(bytes) - 16, 8, claimed);
      reseal_header(bytes);
      check(bytes, true, "payload_bytes " + std::to_string(claimed));
    }
    // Random: the same seed gives the same mutations.
    std::mt19937_64 rng(seed + sealed);
    for (uint64_t i = 0; i < iterations; ++i) {
      std::string what;
      std::string bytes = mutate(rng, original_, what);
      if (rng() % 4 == 0) bytes = mutate(rng, bytes, what);  // sometimes two at once
      sealed_check(bytes, what + " (iteration " + std::to_string(i) + ")");
      if (HasFailure()) return;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ fuzz     ] %llu mutated files (%llu random per pass, seed %llu) in %.2f s; decoded: %llu as saved (no-ops), "
              "%llu with recomputed checksums\n",
              static_cast<unsigned long long>(cases_), static_cast<unsigned long long>(iterations),
              static_cast<unsigned long long>(seed), seconds, static_cast<unsigned long long>(decoded_[0]),
              static_cast<unsigned long long>(decoded_[1]));
}

}  // namespace
}  // namespace flysim::test
