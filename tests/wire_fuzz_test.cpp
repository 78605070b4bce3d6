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
#include "test_support.hpp"

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

// A two-shard split of a small network with every connection plastic, traces set.
std::vector<ShardSetup> setups() {
  const auto net = tiny_network(6, {{0, 1, 2}, {0, 3, 1}, {1, 2, -1}, {2, 0, 3}, {3, 5, 1}, {4, 1, 2}, {5, 4, -2}});
  std::vector<uint64_t> edges(net->out_weights.size());
  for (std::size_t e = 0; e < edges.size(); ++e) edges[e] = e;
  StdpParams p;
  // Short decay tables: the bytes to corrupt are then mostly the fields, not the tables.
  p.tau_plus_ms = 0.5;
  p.tau_minus_ms = 0.8;
  PlasticityState learned{"fuzz", 0, empty_traces(6), empty_traces(6), {}};
  for (uint64_t e : edges) learned.learned.push_back(net->out_weights[e]);
  learned.pre.value[1] = 0.5, learned.pre.step[1] = 3;
  learned.post.value[4] = 0.25, learned.post.step[4] = 7;
  return make_shard_setups(*net, edges, derive_stdp_rule(p, 0.1), 2, learned);
}

EpochSpikes epoch() { return {0, 180, 180, {{181, 0}, {181, 4}, {190, 1}, {200, 2}, {200, 3}, {210, 5}}}; }

TEST(WireFuzz, CorruptShardSetupsAreRefusedNotFatal) {
  const auto start = std::chrono::steady_clock::now();
  const Bytes original = serialized(setups()[1]);
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
      shard.observe(0, epoch().spikes);
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
  const Bytes original = serialized(epoch());
  EpochSpikes next = epoch();
  for (Spike& s : next.spikes) s.step += 180;
  const Bytes later = serialized(next);
  std::mt19937_64 rng(7);
  const stdp::StdpShard base = [] {
    stdp::StdpShard s(setups()[0]);
    s.observe(0, epoch().spikes);
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
  stdp::StdpShard shard(setups()[0]);
  shard.observe(0, epoch().spikes);
  EXPECT_THROW(shard.observe(0, {{5, 1}}), std::invalid_argument);
  EXPECT_THROW(shard.observe(0, {{400, 1}, {399, 2}}), std::invalid_argument);
  EXPECT_THROW(shard.observe(1, {{-3, 1}}), std::invalid_argument);
  shard.observe(1, {{0, 1}});  // a new trial starts from step 0
}

}  // namespace
}  // namespace flysim::test
