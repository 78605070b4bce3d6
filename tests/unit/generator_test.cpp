// The synthetic FlyWire-scale generator: statistics, determinism, structure (model/GENERATOR.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "model/errors.hpp"
#include "io/flywire_csv.hpp"
#include "model/generator.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

constexpr uint32_t kMotor = 4999;

// 5,000 neurons, 150k connections: the pathway at full size inside a small background.
GeneratorParams small_params(uint64_t seed = 1) {
  GeneratorParams p;
  for (int64_t i = 0; i < 5000; ++i) p.root_ids.push_back(1'000'000 + 7 * i);
  p.connections = 150'000;
  p.synapses = 541'500;
  p.max_out_degree = 1500;
  p.max_in_degree = 1600;
  p.max_synapses_per_connection = 400;
  p.seed = seed;
  for (uint32_t i = 0; i < 21; ++i) p.sensory.push_back(100 + 3 * i);
  p.motor = {kMotor};
  return p;
}

const Network& small_network() {
  static const Network net = generate_network(small_params());
  return net;
}

struct Statistics {
  uint64_t excitatory = 0, ones = 0;
  uint32_t max_out = 0, max_in = 0, max_w = 0;
};

Statistics statistics_of(const Network& net) {
  Statistics s;
  std::vector<uint32_t> in(net.neuron_count(), 0);
  for (std::size_t i = 0; i < net.neuron_count(); ++i) {
    s.max_out = std::max<uint32_t>(s.max_out, static_cast<uint32_t>(net.out_offsets[i + 1] - net.out_offsets[i]));
    for (uint64_t e = net.out_offsets[i]; e < net.out_offsets[i + 1]; ++e) {
      const uint32_t synapses = static_cast<uint32_t>(std::abs(net.out_weights[e]) / kUnitsPerSynapse);
      s.max_in = std::max(s.max_in, ++in[net.out_targets[e]]);
      s.max_w = std::max(s.max_w, synapses);
      s.excitatory += net.out_weights[e] > 0;
      s.ones += synapses == 1;
    }
  }
  return s;
}

TEST(Generator, SameSeedSameNetworkOtherSeedOther) {
  EXPECT_EQ(generate_network(small_params(1)).content_hash(), small_network().content_hash());
  EXPECT_NE(generate_network(small_params(2)).content_hash(), small_network().content_hash());
  EXPECT_NE(generator_signature(small_params(1)), generator_signature(small_params(2)));
  EXPECT_EQ(small_network().description, generator_signature(small_params(1)));
}

TEST(Generator, MatchesTheRequestedStatistics) {
  const GeneratorParams p = small_params();
  const Network& net = small_network();
  const Statistics s = statistics_of(net);
  EXPECT_EQ(net.neuron_count(), p.root_ids.size());
  EXPECT_EQ(net.root_ids, p.root_ids);
  EXPECT_EQ(net.connection_count(), p.connections);
  EXPECT_EQ(net.synapse_count(), p.synapses);
  EXPECT_NEAR(static_cast<double>(s.excitatory) / net.connection_count(), p.excitatory_fraction, 0.01);
  EXPECT_EQ(s.max_out, p.max_out_degree);
  EXPECT_EQ(s.max_in, p.max_in_degree);
  EXPECT_EQ(s.max_w, p.max_synapses_per_connection);
  // Heavy tails: most connections are single synapses, hubs far above the mean degree.
  const double mean_degree = static_cast<double>(p.connections) / p.root_ids.size();
  EXPECT_GT(static_cast<double>(s.ones) / net.connection_count(), 0.4);
  EXPECT_GT(s.max_out, 20 * mean_degree);
}

TEST(Generator, SignIsPerPresynapticNeuronAndPairsAreUnique) {
  const Network& net = small_network();
  for (std::size_t i = 0; i < net.neuron_count(); ++i) {
    const uint64_t begin = net.out_offsets[i], end = net.out_offsets[i + 1];
    for (uint64_t e = begin; e < end; ++e) {
      ASSERT_NE(net.out_targets[e], i) << "self-connection of neuron " << i;
      ASSERT_NE(net.out_weights[e], 0);
      ASSERT_EQ(net.out_weights[e] > 0, net.out_weights[begin] > 0) << "mixed signs from neuron " << i;
      if (e > begin) {
        ASSERT_LT(net.out_targets[e - 1], net.out_targets[e]) << "repeated or unsorted pair from neuron " << i;
      }
    }
  }
}

// The pathway's purpose: a Poisson drive of the sensory neurons reaches the motor
// neuron, and the activity stays bounded.
TEST(Generator, SensoryDriveReachesTheMotorNeuron) {
  auto net = std::make_shared<const Network>(small_network());
  StimulusPlan plan;
  plan.poisson_neurons = small_params().sensory;
  const std::vector<Spike> spikes = run_cpu(setup_for(net, plan), 10000, 2);
  std::vector<uint32_t> count(net->neuron_count(), 0);
  for (const Spike& s : spikes) ++count[s.neuron];
  const auto active = std::count_if(count.begin(), count.end(), [](uint32_t c) { return c > 0; });
  EXPECT_GE(count[kMotor], 10u) << "motor neuron rate in Hz";
  EXPECT_GE(active, 200);
  EXPECT_LE(active, 1000);
}

// The description (also the cache key) shows the excitatory fraction as a decimal, and
// fractions one bit apart still give two keys.
TEST(Generator, SignatureShowsTheFractionAsADecimalAndKeepsKeysApart) {
  GeneratorParams p = small_params();
  p.excitatory_fraction = 0.6;
  const std::string sig = generator_signature(p);
  EXPECT_NE(sig.find(" excitatory=0.6 "), std::string::npos) << sig;
  EXPECT_EQ(sig.find("0x"), std::string::npos) << sig;
  p.excitatory_fraction = std::nextafter(0.6, 1.0);
  EXPECT_NE(generator_signature(p), sig);
}

TEST(Generator, RefusesImpossibleParameters) {
  GeneratorParams p = small_params();
  p.connections = 5000ull * 4999 + 1;
  EXPECT_THROW(generate_network(p), input_error);
  p = small_params();
  p.synapses = p.connections - 1;
  EXPECT_THROW(generate_network(p), input_error);
  p = small_params();
  p.sensory.push_back(5000);
  EXPECT_THROW(generate_network(p), input_error);
}

// The product's network, at full size: exact published counts, caps reached, not exceeded.
// (How long it takes is measured by bench/bench.sh.)
TEST(Generator, FullSizeMatchesFlyWireV783) {
  GeneratorParams p;
  p.root_ids = load_flywire_neurons(data_path("../../data/Completeness_783.csv"));
  for (uint32_t i = 0; i < 21; ++i) p.sensory.push_back(1000 + i);
  const Network net = generate_network(p);
  const Statistics s = statistics_of(net);
  EXPECT_EQ(net.neuron_count(), 138'639u);
  EXPECT_EQ(net.connection_count(), 15'091'983u);
  EXPECT_EQ(net.synapse_count(), 54'492'922u);
  EXPECT_NEAR(static_cast<double>(s.excitatory) / net.connection_count(), 0.60, 0.001);
  EXPECT_EQ(s.max_out, 9'783u);
  EXPECT_EQ(s.max_in, 10'356u);
  EXPECT_EQ(s.max_w, 2'405u);
}

}  // namespace
}  // namespace flysim::test
