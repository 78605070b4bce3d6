// The blocked sweep's packed rows (kernels/cpu/packed_rows.hpp): a connection's target and
// weight come back from its word exactly, and a network whose weights or size do not fit
// is not packed. The sweep's bits either way: CpuPool.SweepingBlockByBlockChangesNoBit
// (packed) and CpuPool.SweepingRowsThatDoNotPackChangesNoBit (the network's arrays).
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu/packed_rows.hpp"

namespace flysim::test {
namespace {

constexpr int32_t kMost = PackedRows::kMostSynapses;

// A network of `neurons` with neuron 0 connected to 1 and 2 by these weights.
Network two_connections(std::size_t neurons, int32_t first, int32_t second) {
  Network net;
  net.root_ids.resize(neurons);
  net.out_offsets.assign(neurons + 1, 2);
  net.out_offsets[0] = 0;
  net.out_targets = {1, 2};
  net.out_weights = {first, second};
  return net;
}

TEST(PackedRows, TargetsAndWeightsComeBackExactly) {
  const uint32_t last_target = (1u << PackedRows::kTargetBits) - 1;
  for (const uint32_t target : {0u, 1u, 4095u, 138638u, last_target})
    for (const int32_t synapses : {0, 1, -1, 17, -2405, kMost, -kMost}) {
      const uint32_t word = PackedRows::pack(target, synapses * kUnitsPerSynapse);
      EXPECT_EQ(PackedRows::target(word), target) << target << " " << synapses;
      EXPECT_EQ(PackedRows::weight(word), synapses * kUnitsPerSynapse) << target << " " << synapses;
    }
}

TEST(PackedRows, WordsKeepTheRowsTargetOrder) {
  // The workers find their stretch of a packed row by search from a target's first word.
  EXPECT_LT(PackedRows::pack(5, kMost * kUnitsPerSynapse), PackedRows::first_word_of(6));
  EXPECT_LT(PackedRows::pack(5, -kMost * kUnitsPerSynapse), PackedRows::first_word_of(6));
  EXPECT_GE(PackedRows::pack(6, -kMost * kUnitsPerSynapse), PackedRows::first_word_of(6));
  EXPECT_EQ(PackedRows::pack(6, 0), PackedRows::first_word_of(6));
}

TEST(PackedRows, PacksWholeSynapsesOfANetworkThatFits) {
  const Network net = two_connections(3, 3 * kUnitsPerSynapse, -kMost * kUnitsPerSynapse);
  const PackedRows rows(net);
  const uint32_t* words = rows.words();
  ASSERT_NE(words, nullptr);
  EXPECT_EQ(rows.words(), words);  // packed once
  EXPECT_EQ(PackedRows::target(words[0]), 1u);
  EXPECT_EQ(PackedRows::weight(words[0]), 3 * kUnitsPerSynapse);
  EXPECT_EQ(PackedRows::target(words[1]), 2u);
  EXPECT_EQ(PackedRows::weight(words[1]), -kMost * kUnitsPerSynapse);
}

TEST(PackedRows, RefusesWhatDoesNotFit) {
  const struct {
    const char* what;
    Network net;
  } cases[] = {
      {"a fraction of a synapse (a plastic weight)", two_connections(3, kUnitsPerSynapse + 1, kUnitsPerSynapse)},
      {"more synapses than the word holds", two_connections(3, kUnitsPerSynapse, (kMost + 1) * kUnitsPerSynapse)},
      {"more inhibitory synapses than the word holds", two_connections(3, -(kMost + 1) * kUnitsPerSynapse, 0)},
      {"as many neurons as the word's targets", two_connections(std::size_t{1} << PackedRows::kTargetBits, 0, 0)},
  };
  for (const auto& c : cases) EXPECT_EQ(PackedRows(c.net).words(), nullptr) << c.what;
  const Network just_below = two_connections((std::size_t{1} << PackedRows::kTargetBits) - 1, 0, 0);
  EXPECT_NE(PackedRows(just_below).words(), nullptr);
}

}  // namespace
}  // namespace flysim::test
