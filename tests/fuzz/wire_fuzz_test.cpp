// The messages a shard node and its shards receive from the network (ShardSetup with
// the spawn request, EpochSpikes with learn), made with CAF's binary_serializer as BASP
// makes them, then corrupted with a fixed-seed generator: bits flipped, bytes cut off,
// inserted or set to 0xff (a length field read as huge). Decoding them with
// binary_deserializer and handing what decodes to the shard, as the node does, must
// never crash, hang or ask for an absurd allocation: bad input is an error.
#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <stdexcept>

#include "allocation_limit.hpp"
#include "kernels/stdp/stdp_shard.hpp"
#include "messages/messages.hpp"
#include "model/shard_setup.hpp"
#include "shard_fixtures.hpp"

namespace flysim::test {
namespace {

using Bytes = std::vector<char>;

// No single allocation may exceed this while corrupt input is decoded and used: the
// inputs are a few kilobytes, so anything near it was asked for by a length field.
constexpr std::size_t kAllocationCap = std::size_t{64} << 20;
constexpr int kMutantsPerMessage = 20000;

template <class T>
Bytes serialized(T value) {
  Bytes bytes;
  caf::binary_serializer sink{nullptr, bytes};
  EXPECT_FALSE(sink(value));
  return bytes;
}

// One to four corruptions of `bytes`.
Bytes mutant(const Bytes& original, std::mt19937_64& rng) {
  Bytes b = original;
  const auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n); };
  for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
    switch (rng() % 5) {
      case 0:  // flip a bit
        if (!b.empty()) b[pick(b.size())] ^= static_cast<char>(1 << (rng() % 8));
        break;
      case 1:  // cut off the end
        b.resize(pick(b.size() + 1));
        break;
      case 2: {  // insert random bytes
        Bytes extra(1 + pick(16));
        for (char& c : extra) c = static_cast<char>(rng());
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(pick(b.size() + 1)), extra.begin(), extra.end());
        break;
      }
      case 3: {  // 0xff over up to 9 bytes: a sequence length (varbyte) or a size read as huge
        const std::size_t at = pick(b.size() + 1), len = std::min<std::size_t>(1 + pick(9), b.size() - at);
        std::fill_n(b.begin() + static_cast<std::ptrdiff_t>(at), len, static_cast<char>(0xff));
        break;
      }
      default:  // drop a byte
        if (!b.empty()) b.erase(b.begin() + static_cast<std::ptrdiff_t>(pick(b.size())));
    }
  }
  return b;
}

template <class T>
bool decode(const Bytes& bytes, T& out) {
  caf::binary_deserializer source{nullptr, bytes};
  return !source(out);
}

TEST(WireFuzz, CorruptShardSetupsAreRefusedNotFatal) {
  const auto start = std::chrono::steady_clock::now();
  const Bytes original = serialized(small_shard_setups()[1]);
  std::mt19937_64 rng(20261202);
  int decoded = 0, accepted = 0;
  for (int k = 0; k < kMutantsPerMessage; ++k) {
    const Bytes bytes = mutant(original, rng);
    AllocationLimit cap(kAllocationCap);
    ShardSetup setup;
    try {
      if (!decode(bytes, setup)) continue;
      ++decoded;
      stdp::StdpShard shard(std::move(setup));  // what the node does with a setup
      shard.observe(0, small_epoch().spikes);
      ++accepted;
    } catch (const std::invalid_argument&) {
      // refused, as it should be
    } catch (const std::bad_alloc&) {
    }
    ASSERT_EQ(cap.largest_refused(), 0u) << "mutant " << k << " asked for " << cap.largest_refused() << " bytes";
  }
  EXPECT_GT(decoded, 100);
  std::cerr << decoded << " of " << kMutantsPerMessage << " mutants decoded, " << accepted << " accepted, in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
}

// The shard has seen an epoch (its traces stand at steps up to 210) when the corrupt
// one arrives: spikes out of order or before that must be refused, not read as
// negative ages into the decay tables.
TEST(WireFuzz, CorruptEpochsAreRefusedNotFatal) {
  const auto start = std::chrono::steady_clock::now();
  const Bytes original = serialized(small_epoch());
  EpochSpikes next = small_epoch();
  for (Spike& s : next.spikes) s.step += 180;
  const Bytes later = serialized(next);
  std::mt19937_64 rng(7);
  const stdp::StdpShard base = [] {
    stdp::StdpShard s(small_shard_setups()[0]);
    s.observe(0, small_epoch().spikes);
    return s;
  }();
  int decoded = 0;
  for (int k = 0; k < kMutantsPerMessage; ++k) {
    const Bytes bytes = mutant(k % 2 ? original : later, rng);
    AllocationLimit cap(kAllocationCap);
    EpochSpikes spikes;
    try {
      if (!decode(bytes, spikes)) continue;
      ++decoded;
      stdp::StdpShard shard = base;
      shard.observe(spikes.trial, spikes.spikes);
      shard.flush();
    } catch (const std::invalid_argument&) {
    } catch (const std::bad_alloc&) {
    }
    ASSERT_EQ(cap.largest_refused(), 0u) << "mutant " << k << " asked for " << cap.largest_refused() << " bytes";
  }
  EXPECT_GT(decoded, 100);
  std::cerr << decoded << " of " << kMutantsPerMessage << " mutants decoded in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
}

// A spike before the traces' latest step, or epochs out of order, is refused.
TEST(WireFuzz, ShardRefusesSpikesThatGoBackInTime) {
  stdp::StdpShard shard(small_shard_setups()[0]);
  shard.observe(0, small_epoch().spikes);
  EXPECT_THROW(shard.observe(0, {{5, 1}}), std::invalid_argument);
  EXPECT_THROW(shard.observe(0, {{400, 1}, {399, 2}}), std::invalid_argument);
  EXPECT_THROW(shard.observe(1, {{-3, 1}}), std::invalid_argument);
  shard.observe(1, {{0, 1}});  // a new trial starts from step 0
}

}  // namespace
}  // namespace flysim::test
