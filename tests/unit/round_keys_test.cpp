// The CUDA engine's round keys (cuda::PackedRoundKeys): what the device sorts by must order
// spikes by (trial, step, neuron), give each field back unchanged, and fit the bits the
// sort passes over. Plain C++: runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "kernels/cuda/round_keys.hpp"

namespace flysim::test {
namespace {

struct Fields {
  uint32_t slot;
  int32_t step;
  uint32_t neuron;
  auto operator<=>(const Fields&) const = default;
};

TEST(RoundKeys, IntegerOrderIsTrialStepNeuronOrderAndFieldsComeBack) {
  for (const std::size_t neurons : {std::size_t{1}, std::size_t{2}, std::size_t{2000}, std::size_t{138'639}}) {
    for (const uint32_t batch : {1u, 30u, 1000u}) {
      const cuda::PackedRoundKeys packed(neurons);
      std::mt19937_64 rng(neurons * 31 + batch);
      std::vector<Fields> fields;
      for (int k = 0; k < 20'000; ++k)
        fields.push_back({static_cast<uint32_t>(rng() % batch), static_cast<int32_t>(rng() % cuda::kMaxRoundSteps),
                          static_cast<uint32_t>(rng() % neurons)});
      fields.push_back({batch - 1, cuda::kMaxRoundSteps - 1, static_cast<uint32_t>(neurons - 1)});
      fields.push_back({0, 0, 0});
      std::vector<std::pair<uint64_t, Fields>> keyed;
      const int bits = packed.bits(batch, cuda::kMaxRoundSteps);
      for (const Fields& f : fields) {
        const uint64_t key = packed.pack(f.slot, f.step, f.neuron);
        ASSERT_EQ(packed.slot(key), f.slot);
        ASSERT_EQ(packed.step_in_round(key), f.step);
        ASSERT_EQ(packed.neuron(key), f.neuron);
        ASSERT_TRUE(bits == 64 || key >> bits == 0) << "key " << key << " uses more than " << bits << " bits";
        keyed.push_back({key, f});
      }
      std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::sort(fields.begin(), fields.end());
      for (std::size_t k = 0; k < fields.size(); ++k)
        ASSERT_EQ(keyed[k].second, fields[k]) << neurons << " neurons, batch " << batch << ", key " << k;
    }
  }
}

// A FlyWire-scale round: 18 bits of neuron, 10 of step, and the slot's above them.
TEST(RoundKeys, AFlyWireScaleRoundUsesOnlyTheBitsItNeeds) {
  const cuda::PackedRoundKeys packed(138'639);
  EXPECT_EQ(packed.neuron_bits, 18);
  EXPECT_EQ(packed.bits(1, 504), 27);
  EXPECT_EQ(packed.bits(30, 504), 33);
  EXPECT_EQ(packed.bits(30, cuda::kMaxRoundSteps), 33);
}

}  // namespace
}  // namespace flysim::test
